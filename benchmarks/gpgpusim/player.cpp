// A generic CUDA host program: replays a script written by capture.py (allocations, host-to-device copies and
// kernel launches, in the order the ndpgpu workload made them) through the CUDA runtime API it is linked
// against. It declares the runtime entry points itself (no CUDA headers), registers the module's kernels and
// globals by name, as an nvcc-generated host stub would, and launches them with the recorded parameters.
// Usage: player SCRIPT DATA   (the module's PTX comes from the runtime's own loader)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

struct dim3_t { unsigned x, y, z; };
struct uint3_t { unsigned x, y, z; };

extern "C" {
void **__cudaRegisterFatBinary(void *fat);
void __cudaRegisterFatBinaryEnd(void **handle);
void __cudaRegisterFunction(void **handle, const char *hostFun, char *deviceFun, const char *deviceName,
                            int threadLimit, uint3_t *tid, uint3_t *bid, dim3_t *bDim, dim3_t *gDim);
void __cudaRegisterVar(void **handle, char *hostVar, char *deviceAddress, const char *deviceName, int ext,
                       int size, int constant, int global);
unsigned __cudaPushCallConfiguration(dim3_t grid, dim3_t block, size_t shmem, void *stream);
int cudaMalloc(void **ptr, size_t size);
int cudaMemcpy(void *dst, const void *src, size_t count, int kind);
int cudaMemcpyToSymbol(const char *symbol, const void *src, size_t count, size_t offset, int kind);
int cudaGetSymbolAddress(void **ptr, const char *symbol);
int cudaLaunchKernel(const char *hostFun, dim3_t grid, dim3_t block, const void **args, size_t shmem,
                     void *stream);
int cudaDeviceSynchronize(void);
}

static const int kHostToDevice = 1;
static char g_host_funcs[4096];  // one distinct address per kernel: the "host function" the runtime keys on
static char g_host_vars[4096];   // one distinct address per module global

static void check(int err, const char *what) {
  if (err != 0) {
    std::fprintf(stderr, "player: %s failed (%d)\n", what, err);
    std::exit(2);
  }
}

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: player SCRIPT DATA\n");
    return 1;
  }
  std::ifstream script(argv[1]);
  std::ifstream datafile(argv[2], std::ios::binary);
  std::vector<char> data((std::istreambuf_iterator<char>(datafile)), std::istreambuf_iterator<char>());
  static unsigned long long fat_dummy[8] = {0};
  void **handle = __cudaRegisterFatBinary(fat_dummy);
  std::vector<std::string> funcs, vars;
  std::vector<void *> allocs;
  std::vector<void *> var_addrs;
  std::string line;
  int launches = 0;
  while (std::getline(script, line)) {
    std::istringstream in(line);
    std::string op;
    in >> op;
    if (op == "var") {
      std::string name;
      int size = 0, constant = 0;
      in >> name >> size >> constant;
      vars.push_back(name);
      char *host = &g_host_vars[vars.size() - 1];
      __cudaRegisterVar(handle, host, const_cast<char *>(vars.back().c_str()), vars.back().c_str(), 0, size,
                        constant, 0);
      var_addrs.push_back(nullptr);
    } else if (op == "alloc") {
      size_t size = 0;
      in >> size;
      void *p = nullptr;
      check(cudaMalloc(&p, size), "cudaMalloc");
      allocs.push_back(p);
    } else if (op == "func") {
      std::string name;
      in >> name;
      funcs.push_back(name);
      const char *host = &g_host_funcs[funcs.size() - 1];
      __cudaRegisterFunction(handle, host, const_cast<char *>(funcs.back().c_str()), funcs.back().c_str(), -1,
                             nullptr, nullptr, nullptr, nullptr);
    } else if (op == "h2d") {
      std::string kind;
      size_t idx = 0, off = 0, n = 0, doff = 0;
      in >> kind >> idx >> off >> n >> doff;
      if (kind == "a") {
        check(cudaMemcpy(static_cast<char *>(allocs[idx]) + off, data.data() + doff, n, kHostToDevice), "memcpy");
      } else {
        check(cudaMemcpyToSymbol(&g_host_vars[idx], data.data() + doff, n, off, kHostToDevice), "toSymbol");
      }
    } else if (op == "launch") {
      size_t f = 0, shmem = 0, nparams = 0;
      dim3_t g{}, b{};
      in >> f >> g.x >> g.y >> g.z >> b.x >> b.y >> b.z >> shmem >> nparams;
      std::vector<std::vector<unsigned char>> storage(nparams);
      std::vector<const void *> args(nparams);
      for (size_t i = 0; i < nparams; ++i) {
        size_t size = 0;
        std::string kind;
        in >> size >> kind;
        storage[i].assign(size < 8 ? 8 : size, 0);
        if (kind == "p" || kind == "v") {
          size_t idx = 0, off = 0;
          in >> idx >> off;
          char *base = nullptr;
          if (kind == "p") {
            base = static_cast<char *>(allocs[idx]);
          } else {
            if (var_addrs[idx] == nullptr) check(cudaGetSymbolAddress(&var_addrs[idx], &g_host_vars[idx]), "symaddr");
            base = static_cast<char *>(var_addrs[idx]);
          }
          uint64_t v = reinterpret_cast<uint64_t>(base + off);
          std::memcpy(storage[i].data(), &v, 8);
        } else {
          std::string hex;
          in >> hex;
          for (size_t k = 0; k < size && 2 * k + 1 < hex.size(); ++k)
            storage[i][k] = static_cast<unsigned char>(std::stoul(hex.substr(2 * k, 2), nullptr, 16));
        }
        args[i] = storage[i].data();
      }
      __cudaPushCallConfiguration(g, b, shmem, nullptr);
      check(cudaLaunchKernel(&g_host_funcs[f], g, b, args.data(), shmem, nullptr), "launch");
      check(cudaDeviceSynchronize(), "sync");
      ++launches;
    }
  }
  std::printf("player: %d launches done\n", launches);
  return 0;
}
