"""The RawModule/RawKernel surface CuPy documents, used as CuPy code uses it, so such code ports by changing the
import: ``code=``/``path=`` (.cu and .ptx), ``options``, ``name_expressions`` with templates, ``get_function``,
``get_global``, and calls with ``grid``, ``block``, ``args`` and ``shared_mem``. Expected values are NumPy's.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ndpgpu as cp  # the point: CuPy code with this one import changed
from ndpgpu.frontend.demangle import demangle, name_key, qualified_name
from ndpgpu.frontend.nvcc import CompileError

TEMPLATES = r"""
template <typename T>
__global__ void scale(T *x, T a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * a * SCALE;
}
namespace ns {
template <int K>
__global__ void addk(int *x) { x[threadIdx.x] += K; }
}
__device__ int counter;
__constant__ float weights[4];
extern "C" __global__ void use_globals(float *out) {
    int i = threadIdx.x;
    out[i] = weights[i % 4];
    atomicAdd(&counter, 1);
}
extern "C" __global__ void reverse_shared(const float *in, float *out) {
    extern __shared__ float buf[];
    int i = threadIdx.x;
    buf[i] = in[i];
    __syncthreads();
    out[i] = buf[blockDim.x - 1 - i];
}
"""


@pytest.fixture(scope="module")
def module() -> cp.RawModule:
    return cp.RawModule(code=TEMPLATES, options=("-DSCALE=3", "-std=c++17"),
                        name_expressions=("scale<float>", "scale<double>", "ns::addk<5>"))


def test_demangler_reads_nvccs_names() -> None:
    assert demangle("_Z5scaleIfEvPT_S0_i") == "void scale<float>(float*, float, int)"
    assert qualified_name("void ns::addk<5>(int*)") == "ns::addk<5>"
    assert name_key("scale< float >") == name_key("scale<float>")
    assert demangle("use_globals") is None  # extern "C": not mangled


def test_name_expressions_fetch_template_instances(module: cp.RawModule) -> None:
    n = 1000
    for expr, dtype in (("scale<float>", np.float32), ("scale<double>", np.float64)):
        x = np.linspace(-1, 1, n).astype(dtype)
        d = cp.asarray(x)
        ker = module.get_function(expr)
        assert ker(((n + 127) // 128,), (128,), (d, dtype(2.5), np.int32(n))) is None  # like CuPy
        np.testing.assert_array_equal(d.get(), x * dtype(2.5) * dtype(3))
    ints = cp.asarray(np.arange(32, dtype=np.int32))
    module.get_function("ns::addk<5>")((1,), (32,), (ints,))
    np.testing.assert_array_equal(ints.get(), np.arange(32) + 5)
    assert module.get_function("scale< float >").name == module.get_function("scale<float>").name


def test_an_instance_not_asked_for_is_not_there(module: cp.RawModule) -> None:
    with pytest.raises(KeyError, match="scale<int>"):
        module.get_function("scale<int>")


def test_a_name_expression_that_names_nothing_is_an_error(module: cp.RawModule) -> None:
    with pytest.raises(CompileError, match="nothing_here"):  # as NVRTC, the compilation fails
        cp.RawModule(code="__global__ void k() {}", name_expressions=("k", "nothing_here"))
    with pytest.raises(ValueError, match=r"'scale<int>' matches no kernel"):  # PTX: nothing to instantiate
        cp.RawModule(ptx=module.ptx, name_expressions=("scale<int>",))
    with pytest.raises(TypeError, match="sequence of str"):
        cp.RawModule(code="__global__ void k() {}", name_expressions="k")


def test_get_global_reads_and_writes_module_variables(module: cp.RawModule) -> None:
    with cp.Device() as dev:  # a fresh device: the module's variables are loaded into it on first use
        weights = module.get_global("weights")
        weights.set(np.array([1, 2, 3, 4], np.float32))
        counter = module.get_global("counter")
        assert counter.get()[0] == 0
        out = cp.zeros(64, np.float32)
        module.get_function("use_globals")(1, 64, (out,))  # grid and block as ints
        np.testing.assert_array_equal(out.get(), np.tile(np.arange(1, 5, dtype=np.float32), 16))
        assert counter.get()[0] == 64
        res = dev.launches[-1]  # the launch result is reachable from the device
        assert res.kernel == "use_globals" and res.thread_instructions > 0
        assert len(repr(res)) < 300


def test_dynamic_shared_memory(module: cp.RawModule) -> None:
    x = np.arange(128, dtype=np.float32)
    out = cp.zeros(128, np.float32)
    module.get_function("reverse_shared")((1,), (128,), (cp.asarray(x), out), shared_mem=128 * 4)
    np.testing.assert_array_equal(out.get(), x[::-1])


def test_path_to_a_cu_and_a_ptx_file(tmp_path: Path, module: cp.RawModule) -> None:
    cu = tmp_path / "k.cu"
    cu.write_text(TEMPLATES)
    from_file = cp.RawModule(path=str(cu), options=("-DSCALE=1",), name_expressions=("scale<float>",))
    x = cp.asarray(np.ones(8, np.float32))
    from_file.get_function("scale<float>")((1,), (8,), (x, np.float32(4), np.int32(8)))
    np.testing.assert_array_equal(x.get(), np.full(8, 4, np.float32))
    ptx = tmp_path / "k.ptx"
    ptx.write_text(module.ptx)
    from_ptx = cp.RawModule(path=str(ptx), name_expressions=("ns::addk<5>",))
    ints = cp.zeros(32, np.int32)
    from_ptx.get_function("ns::addk<5>")((1,), (32,), (ints,))
    np.testing.assert_array_equal(ints.get(), np.full(32, 5))


def test_raw_kernel() -> None:
    ker = cp.RawKernel(r"""
    extern "C" __global__ void axpb(const float *x, float *y, float a, float b, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) y[i] = a * x[i] + b + OFFSET;
    }""", "axpb", options=("-DOFFSET=1.0f",))
    x = np.arange(300, dtype=np.float32)
    y = cp.zeros(300, np.float32)
    assert ker((3,), (128,), (cp.asarray(x), y, np.float32(2), np.float32(0.5), np.int32(300))) is None
    np.testing.assert_array_equal(y.get(), 2 * x + np.float32(1.5))
    assert ker.attributes["max_threads_per_block"] == 1024
    with pytest.raises(TypeError, match="optoins"):
        cp.RawKernel("extern \"C\" __global__ void k() {}", "k", optoins=("-DX",))


def test_kernel_attributes_as_cupy_reports_them() -> None:
    src = r"""
    __constant__ float w[4];
    extern "C" __global__ void __launch_bounds__(256) k(int* o) {
      __shared__ int s[16];
      s[threadIdx.x & 15] = 1;
      o[threadIdx.x] = s[0] + (int)w[0];
    }
    """
    fn = cp.RawModule(code=src, options=("-arch=sm_80",)).get_function("k")
    attrs = fn.attributes
    assert attrs["binary_version"] == 80 and attrs["ptx_version"] >= 80
    assert attrs["shared_size_bytes"] == 64 and attrs["const_size_bytes"] == 16
    assert attrs["max_threads_per_block"] == 256  # its __launch_bounds__
    assert fn.max_dynamic_shared_size_bytes == 48 * 1024 - 64  # CUDA's default, less the static 64 bytes
    fn.max_dynamic_shared_size_bytes = 100 * 1024  # as CuPy code sets it before a larger launch
    assert fn.attributes["max_dynamic_shared_size_bytes"] == 100 * 1024
    with pytest.raises(ValueError, match="max_dynamic_shared_size_bytes"):
        fn.max_dynamic_shared_size_bytes = 300 * 1024
