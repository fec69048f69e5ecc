"""The analyses on kernels compiled by nvcc (skipped without nvcc): known answers for real PTX."""

from __future__ import annotations

import pytest

from ndpgpu.analysis.affine import AffineAnalysis, Launch, cta_range
from ndpgpu.analysis.cfg import CFG
from ndpgpu.analysis.linexpr import Affine
from ndpgpu.analysis.liveness import Liveness
from ndpgpu.analysis.loops import LoopForest
from ndpgpu.analysis.memops import block_memory

A = Affine.atom
GIDX = A("%ctaid.x").times(A("%ntid.x")) + A("%tid.x")  # type: ignore[operator]
GIDY = A("%ctaid.y").times(A("%ntid.y")) + A("%tid.y")  # type: ignore[operator]

SRC = r"""
#define NN 80
#define NMAT 40
#define NPATH 4096
extern "C" __global__ void saxpy(float a, const float *__restrict__ x, float *__restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
// LIBOR's portfolio_b loops, per-path arrays laid out path-minor
extern "C" __global__ void portfolio_b(const float *L, float *L_b, float delta, float v, float b) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  for (int n = 0; n < NMAT; n++) L_b[n * NPATH + tid] = -v * delta / (1.0f + delta * L[n * NPATH + tid]);
  for (int n = NMAT; n < NN; n++) L_b[n * NPATH + tid] = b * L_b[n * NPATH + tid];
}
extern "C" __global__ void portfolio_80(const float *L, float *L_b, float b) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  for (int n = 0; n < NN; n++) L_b[n * NPATH + tid] = b * L[n * NPATH + tid];
}
extern "C" __global__ void loopk(float *x, int k) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
  for (int i = 0; i < k; i++) s += x[i * 1024 + tid];
  x[tid] = s;
}
extern "C" __global__ void matmul(const float *A, const float *B, float *C, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n && col < n) {
    float acc = 0.0f;
    for (int k = 0; k < n; ++k) acc += A[row * n + k] * B[k * n + col];
    C[row * n + col] = acc;
  }
}
#define N 64
extern "C" __global__ void matmul64(const float *A, const float *B, float *C) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0.0f;
#pragma unroll 2
  for (int k = 0; k < N; ++k) acc += A[row * N + k] * B[k * N + col];
  C[row * N + col] = acc;
}
extern "C" __global__ void collatz(int *x) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int v = x[tid];
  while (v > 1) { v = (v & 1) ? 3 * v + 1 : v / 2; }
  x[tid] = v;
}
extern "C" __global__ void reduce(const float *in, float *out) {
  extern __shared__ float sdata[];
  unsigned t = threadIdx.x;
  sdata[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) sdata[t] += sdata[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = sdata[0];
}
extern "C" __global__ void grid_stride(float *x, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) x[i] *= 2.0f;
}
extern "C" __global__ void triangle(float *x, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0;
#pragma unroll 1
  for (int i = 0; i < 16; i++) {
#pragma unroll 1
    for (int j = 0; j < i; j++) s += x[j * 16 + tid];
  }
  x[tid] = s;
}
extern "C" __global__ void search(const int *x, int *out, int n) {
  int found = -1;
#pragma unroll 1
  for (int i = 0; i < n; i++) {
    if (x[i] == threadIdx.x) { found = i; break; }
  }
  out[threadIdx.x] = found;
}
"""


@pytest.fixture(scope="module")
def mod(nvcc_compile):
    return nvcc_compile(SRC)


def _loads(fn, cfg, lp) -> tuple[int, int]:
    bm = block_memory(cfg)
    return sum(bm[b].n_loads() for b in lp.blocks), sum(bm[b].n_stores() for b in lp.blocks)


def _mem(fn, opcode_prefix: str) -> list[int]:
    return [i for i, ins in enumerate(fn.body) if ins.full.startswith(opcode_prefix)]


def test_saxpy(mod):
    fn = mod.functions["saxpy"]
    aa = AffineAnalysis(fn)
    (x,) = _mem(fn, "ld.global.nc")
    loads_y = [i for i in _mem(fn, "ld.global.f32")]
    (st,) = _mem(fn, "st.global")
    assert aa.address(x) == A("saxpy_param_1") + GIDX.scale(4)
    assert aa.address(loads_y[0]) == A("saxpy_param_2") + GIDX.scale(4)
    assert aa.address(st) == A("saxpy_param_2") + GIDX.scale(4)
    launch = Launch.of(8, 256, {"saxpy_param_1": 1 << 20})
    assert aa.access_range(x, launch) == (1 << 20, (1 << 20) + 4 * 2047 + 3)
    lo, hi = cta_range(aa.address(x), Launch.of(8, 256))
    assert lo == A("saxpy_param_1") + A("%ctaid.x", 1024) and hi == lo + 1020
    cfg = CFG(fn)
    assert cfg.reconvergence_instr(0) == cfg.blocks[-1].start  # the `if (i < n)` reconverges at ret


def test_portfolio_loops_static(mod):
    # nvcc unrolls the 80-iteration loop 16 times: the PTX loop runs 5 times over a counter span of 80
    fn = mod.functions["portfolio_80"]
    cfg = CFG(fn)
    lf = LoopForest(cfg)
    assert len(lf.loops) == 1
    (lp,) = lf.loops.values()
    tc = lf.trip_count(lp.header)
    assert tc.kind == "static"
    assert tc.span == 80
    loads, stores = _loads(fn, cfg, lp)
    assert tc.count * loads == 80 and tc.count * stores == 80  # every source iteration's access counted once
    lv = Liveness(cfg)
    # TOM's REG_TX for this loop: both array pointers, the index offset, the counter, and b
    assert len(lv.live_in(lp.blocks)) == 5
    assert lv.live_out(lp.blocks) == set()
    aa = AffineAnalysis(fn, cfg, loops=lf)
    first = min(i for i in _mem(fn, "ld.global") if cfg.block_of_instr[i] == lp.header)
    e = aa.address(first)
    # each PTX iteration covers `step` source iterations of NPATH floats
    assert e is not None and e.coef(aa.loop_atom(lp.header)) == 4 * 4096 * tc.step.constant
    assert e.coef("%tid.x") == 4 and e.coef("%ctaid.x", "%ntid.x") == 4


def test_portfolio_b_first_loop(mod):
    fn = mod.functions["portfolio_b"]
    cfg = CFG(fn)
    lf = LoopForest(cfg)
    trips = list(lf.all_trip_counts.values())
    assert trips, "nvcc keeps the first loop"
    tc = trips[0]
    assert tc.kind == "static" and tc.span == 40
    lp = lf.loops[next(iter(lf.loops))]
    loads, stores = _loads(fn, cfg, lp)
    assert tc.count * loads == 40 and tc.count * stores == 40
    lv = Liveness(cfg)
    assert lv.live_out(lp.blocks) == set()


def test_loop_with_parameter_bound_is_entry(mod):
    fn = mod.functions["loopk"]
    cfg = CFG(fn)
    lf = LoopForest(cfg)
    aa = AffineAnalysis(fn, cfg, loops=lf)
    kinds = sorted(t.kind for t in lf.all_trip_counts.values())
    assert kinds == ["entry", "entry"]  # the unrolled loop and its remainder
    unrolled, remainder = sorted(lf.loops)
    for k in (1, 3, 4, 7, 10, 100):
        launch = Launch.of(2, 64, {"loopk_param_1": k})
        counts = {}
        for h in lf.loops:
            tc = lf.trip_count(h)
            vals = {r: aa.constant_at_entry(h, r, launch) for r in tc.registers}
            counts[h] = tc.evaluate(vals)
        # nvcc guards each loop; when entered, the unrolled loop runs k // 4 times and the remainder k % 4
        iters = aa.loop_iterations(launch)
        assert iters[aa.loop_atom(unrolled)] == k // 4
        assert iters[aa.loop_atom(remainder)] == k % 4
        if k >= 4:
            assert counts[unrolled] == k // 4
        if k % 4:
            assert counts[remainder] == k % 4
    # the countdown form: registers read when the loop is entered, formula in those registers
    main = lf.trip_count(min(lf.loops))
    assert "/ 4" in main.formula and len(main.registers) == 2
    # the unrolled loop's first load: x + 4*tid + 4*ctaid*ntid + 4*1024*4*k
    first = min(i for i in _mem(fn, "ld.global") if cfg.block_of_instr[i] == min(lf.loops))
    e = aa.address(first)
    assert e == A("loopk_param_0") + GIDX.scale(4) + A(aa.loop_atom(min(lf.loops)), 16384)


def test_matmul_addresses_and_trip_counts(mod):
    fn = mod.functions["matmul"]
    cfg = CFG(fn)
    lf = LoopForest(cfg)
    aa = AffineAnalysis(fn, cfg, loops=lf)
    n = A("matmul_param_3")
    unrolled = min(lf.loops)
    k = A(aa.loop_atom(unrolled))
    exprs = {aa.address(i) for i in _mem(fn, "ld.global") if cfg.block_of_instr[i] == unrolled}
    assert len(exprs) == 8
    # A[row*n + k] and B[k*n + col] with k = 4*iteration (+0..3 inside the unrolled body)
    for j in range(4):
        a_j = A("matmul_param_0") + GIDY.times(n).scale(4) + k.scale(16) + 4 * j
        b_j = A("matmul_param_1") + k.times(n).scale(16) + n.scale(4 * j) + GIDX.scale(4)
        assert a_j in exprs and b_j in exprs
    (st,) = _mem(fn, "st.global")
    assert aa.address(st) == A("matmul_param_2") + GIDY.times(n).scale(4) + GIDX.scale(4)
    launch = Launch.of((4, 4), (16, 16), {"matmul_param_2": 0, "matmul_param_3": 64})
    assert aa.access_range(st, launch) == (0, 4 * (63 * 64 + 63) + 3)
    for size in (3, 5, 8, 13, 64):
        launch = Launch.of((1, 1), (16, 16), {"matmul_param_3": size})
        iters = aa.loop_iterations(launch)
        assert iters[aa.loop_atom(unrolled)] == size // 4
        assert iters[aa.loop_atom(max(lf.loops))] == size % 4


def test_constant_size_matmul_is_static(mod):
    fn = mod.functions["matmul64"]
    cfg = CFG(fn)
    lf = LoopForest(cfg)
    ((h, tc),) = lf.all_trip_counts.items()
    assert tc.kind == "static" and tc.count == 32 and tc.span == 64
    aa = AffineAnalysis(fn, cfg, loops=lf)
    launch = Launch.of((4, 4), (16, 16), {"matmul64_param_0": 0, "matmul64_param_1": 1 << 20})
    ranges = sorted(aa.access_range(i, launch) for i in _mem(fn, "ld.global"))
    assert ranges[0][0] == 0 and max(r[1] for r in ranges if r[1] < 1 << 20) == 64 * 64 * 4 - 1
    assert max(r[1] for r in ranges) == (1 << 20) + 64 * 64 * 4 - 1


def test_unknown_trip_counts(mod):
    for name in ("collatz", "reduce", "search"):
        fn = mod.functions[name]
        lf = LoopForest(CFG(fn))
        assert lf.loops, name
        assert all(t.kind == "unknown" for t in lf.all_trip_counts.values()), name


def test_grid_stride_loop_is_entry_with_register_step(mod):
    fn = mod.functions["grid_stride"]
    cfg = CFG(fn)
    lf = LoopForest(cfg)
    ((h, tc),) = lf.all_trip_counts.items()
    assert tc.kind == "entry" and not tc.step.is_constant
    aa = AffineAnalysis(fn, cfg, loops=lf)
    launch = Launch.of(4, 64, {"grid_stride_param_1": 1000})
    vals = {r: aa.constant_at_entry(h, r, launch) for r in tc.registers}
    known = {r: v for r, v in vals.items() if v is not None}
    unknown = [r for r, v in vals.items() if v is None]
    assert len(unknown) == 1  # the start index differs between threads
    for start in (0, 5, 255):
        assert tc.evaluate({**known, unknown[0]: start + 256}) == len(range(start + 256, 1000, 256))


def test_nested_triangular_loops(mod):
    fn = mod.functions["triangle"]
    cfg = CFG(fn)
    lf = LoopForest(cfg)
    assert sorted(lp.depth for lp in lf.loops.values()) == [1, 2]
    inner = next(lp for lp in lf.loops.values() if lp.depth == 2)
    outer = lf.loops[inner.parent]
    assert lf.trip_count(outer.header).kind == "static" and lf.trip_count(outer.header).count in (15, 16)
    assert lf.trip_count(inner.header).kind == "entry"
    aa = AffineAnalysis(fn, cfg, loops=lf)
    ld = next(i for i in _mem(fn, "ld.global") if cfg.block_of_instr[i] == inner.header)
    e = aa.address(ld)
    assert e is not None and e.coef(aa.loop_atom(inner.header)) == 64


def test_every_function_analyses_cleanly(mod):
    for fn in mod.functions.values():
        cfg = CFG(fn)
        lv = Liveness(cfg)
        lf = LoopForest(cfg)
        aa = AffineAnalysis(fn, cfg, loops=lf)
        for lp in lf.loops.values():
            assert lv.live_in(lp.blocks) <= set(lv.du.regs)
            lf.trip_count(lp.header)
        assert len(aa.accesses) == sum(len(b.ops) for b in block_memory(cfg))
