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


# ------------------------------------------------------------------------------------------------------
# Beyond kernels: dtype aliases, array creation and the ndarray surface CuPy code uses around its kernels.
# Each result is checked against NumPy's (values and dtype).


def _same(d: cp.DeviceArray, expected) -> None:
    expected = np.asarray(expected)
    assert isinstance(d, cp.DeviceArray) and d.shape == expected.shape and d.dtype == expected.dtype, (d, expected)
    np.testing.assert_array_equal(d._host(), expected)


def test_numpy_dtype_aliases_at_module_level() -> None:
    for name in ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint32", "uint64",
                 "bool_", "complex64", "intc", "dtype", "newaxis", "pi"):
        assert getattr(cp, name) is getattr(np, name), name
        assert name in dir(cp)
    assert cp.zeros(3, cp.bool_).dtype == np.bool_
    with pytest.raises(AttributeError):
        _ = cp.float128_not_a_type


def test_array_creation_matches_numpy() -> None:
    _same(cp.arange(10), np.arange(10))
    _same(cp.arange(2, 11, 3, dtype=cp.float32), np.arange(2, 11, 3, dtype=np.float32))
    _same(cp.arange(0.5, 2.0, 0.25), np.arange(0.5, 2.0, 0.25))
    _same(cp.ones((2, 3)), np.ones((2, 3), np.float32))  # float32 by default, as ndpgpu.zeros
    _same(cp.ones(4, cp.int32), np.ones(4, np.int32))
    _same(cp.full((2, 2), 7), np.full((2, 2), 7))
    _same(cp.full(3, 2.5, cp.float32), np.full(3, 2.5, np.float32))
    host = np.arange(6, dtype=np.int16).reshape(2, 3)
    dev = cp.asarray(host)
    for like in (host, dev):
        _same(cp.zeros_like(like), np.zeros_like(host))
        _same(cp.ones_like(like), np.ones_like(host))
        _same(cp.empty_like(like, dtype=cp.float64), np.zeros_like(host, np.float64))
        _same(cp.full_like(like, 9), np.full_like(host, 9))
    _same(cp.array([[1, 2], [3, 4]], dtype=cp.float32), np.array([[1, 2], [3, 4]], np.float32))
    copied = cp.array(dev)
    assert copied.ptr != dev.ptr
    _same(copied, host)
    _same(cp.asarray(3.0), np.asarray(3.0))  # 0-d stays 0-d
    np.testing.assert_array_equal(cp.asnumpy(dev), host)
    out = np.zeros((2, 3), np.int16)
    assert cp.asnumpy(dev, out=out) is out and (out == host).all()
    np.testing.assert_array_equal(cp.asnumpy([1, 2]), [1, 2])
    with pytest.raises(TypeError, match="whole numbers"):
        cp.ones(2.5)


def test_elementwise_arithmetic_and_comparisons_follow_numpy() -> None:
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 4)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)  # broadcast along the rows
    i = rng.integers(-50, 50, (3, 4)).astype(np.int32)
    j = rng.integers(1, 7, 4).astype(np.int32)
    da, db, di, dj = cp.asarray(a), cp.asarray(b), cp.asarray(i), cp.asarray(j)
    with np.errstate(all="ignore"):
        cases = [
            (da * 2, a * 2), (2 * da, 2 * a), (da * 2.5, a * 2.5), (da + db, a + b), (db - da, b - a),
            (da / db, a / b), (1 / da, 1 / a), (da / 0, a / 0), (da ** 2, a ** 2), (-da, -a), (+da, a),
            (abs(da), abs(a)), (np.float32(3) * da, np.float32(3) * a), (np.float64(3) * da, np.float64(3) * a),
            (da @ db, a @ b), (da < db, a < b), (da >= 0, a >= 0), (da == da, a == a), (da != db, a != b),
            (di // dj, i // j), (di % dj, i % j), (di / dj, i / j), (di * 1.5, i * 1.5), (di & 12, i & 12),
            (di | dj, i | j), (di ^ dj, i ^ j), (~di, ~i), (dj << 2, j << 2), (di >> 1, i >> 1),
            (2 ** dj, 2 ** j), (di + da, i + a), (cp.asarray(True) & (da > 0), True & (a > 0)),
        ]
    for got, want in cases:
        _same(got, want)
        assert got.device is da.device
    x, h = cp.asarray(a), a.copy()
    x += db
    h += b
    x *= 2
    h *= 2
    x -= 1
    h -= 1
    _same(x, h)
    y, k = cp.asarray(i), i.copy()
    y <<= 1
    k <<= 1
    y //= 3
    k //= 3
    _same(y, k)
    with pytest.raises(TypeError):  # NumPy's same_kind casting: int32 += float is refused
        y += 1.5


def test_mixing_host_arrays_or_devices_is_refused() -> None:
    d = cp.arange(4)
    with pytest.raises(TypeError, match=r"ndpgpu\.asarray"):
        _ = d + np.arange(4)
    with pytest.raises(TypeError, match=r"ndpgpu\.asarray"):
        _ = np.arange(4) + d
    with pytest.raises(TypeError):
        np.add(d, 1)  # NumPy's ufuncs do not take device arrays (operators do)
    with pytest.raises(TypeError):
        _ = d + "x"
    with cp.Device():
        other = cp.arange(4)
    with pytest.raises(ValueError, match="different devices"):
        _ = d + other


def test_indexing_returns_views_of_contiguous_blocks_and_copies_otherwise() -> None:
    host = np.arange(24, dtype=np.float32).reshape(4, 6)
    m = cp.asarray(host)
    row = m[1]
    assert row.ptr == m.ptr + 6 * 4 and row.shape == (6,)
    _same(row, host[1])
    _same(m[1:3], host[1:3])
    _same(m[-1, 2:5], host[-1, 2:5])
    _same(m[..., 0], host[..., 0])
    _same(m[:, 1], host[:, 1])  # a column: a copy
    _same(m[::2, ::-1], host[::2, ::-1])
    _same(m[None, 2], host[None, 2])
    _same(m[m > 20], host[host > 20])  # a device mask
    _same(m[[0, 3]], host[[0, 3]])
    _same(m[cp.asarray(np.array([2, 0]))], host[[2, 0]])
    elem = m[2, 3]
    assert elem.shape == () and elem.ptr == m.ptr + (2 * 6 + 3) * 4  # 0-d, as CuPy
    assert float(elem) == 15.0 and int(elem) == 15 and elem.item() == 15.0 and bool(elem)
    assert m[0, 0] == 0 and not bool(m[0, 0])
    with pytest.raises(IndexError):
        _ = m[4]
    with pytest.raises(ValueError, match="ambiguous"):
        bool(m)
    view = m[2]  # writes through a view reach the array
    view[1:3] = -1
    view += 100
    host[2, 1:3] = -1
    host[2] += 100
    _same(m, host)
    column = m[:, 0]  # a copy: writes stay in it
    column[...] = 0
    _same(m, host)
    m[m < 0] = 5  # item assignment (masks, scalars, device values) as before
    host[host < 0] = 5
    m[0] = cp.arange(6, dtype=cp.float32)
    host[0] = np.arange(6)
    _same(m, host)


def test_a_slice_passes_a_pointer_into_its_array_to_a_kernel(module: cp.RawModule) -> None:
    x = np.arange(16, dtype=np.float32)
    d = cp.asarray(x)
    module.get_function("scale<float>")((1,), (32,), (d[4:], np.float32(2), np.int32(4)))  # x[4:8] * 2 * SCALE
    x[4:8] *= 6
    _same(d, x)


def test_array_methods_match_numpy() -> None:
    host = np.arange(12, dtype=np.int32).reshape(3, 4)
    d = cp.asarray(host)
    c = d.copy()
    assert c.ptr != d.ptr
    _same(c, host)
    r = d.reshape(4, 3)
    assert r.ptr == d.ptr  # a view, as CuPy's
    _same(r, host.reshape(4, 3))
    _same(d.reshape((2, -1)), host.reshape((2, -1)))
    _same(d.reshape(-1), host.reshape(-1))
    _same(d.ravel(), host.ravel())
    _same(d.flatten(), host.flatten())
    with pytest.raises(ValueError, match="cannot reshape"):
        d.reshape(5, -1)
    _same(d.astype(cp.float32), host.astype(np.float32))
    _same(cp.asarray(np.array([1.7, -2.5])).astype(cp.int32), np.array([1.7, -2.5]).astype(np.int32))
    assert d.astype(cp.int32, copy=False) is d
    _same(d.sum(), host.sum())
    _same(d.sum(axis=0), host.sum(axis=0))
    _same(d.sum(axis=1, dtype=cp.float64, keepdims=True), host.sum(axis=1, dtype=np.float64, keepdims=True))
    f = cp.asarray(np.linspace(0, 1, 1000, dtype=np.float32))
    _same(f.sum(), np.linspace(0, 1, 1000, dtype=np.float32).sum())  # NumPy's pairwise float32 sum
    _same(d.mean(), host.mean())
    _same(d.max(axis=1), host.max(axis=1))
    _same(d.min(), host.min())
    _same(d.prod(axis=0), host.prod(axis=0))
    _same((d > 5).any(), (host > 5).any())
    _same((d > 5).all(axis=1), (host > 5).all(axis=1))
    _same(d.T, host.T)
    _same(d.transpose(), host.transpose())
    v = cp.arange(5)
    assert v.T is v
    assert len(d) == 3 and d.size == 12 and d.ndim == 2 and d.itemsize == 4 and d.strides == host.strides
    assert [row.tolist() for row in d] == host.tolist() and d.tolist() == host.tolist()
    d.fill(7)
    _same(d, np.full((3, 4), 7, np.int32))


def test_host_conveniences_are_not_recorded_as_copies() -> None:
    """Arithmetic, indexing and array methods compute on the host but stand for device work: Device.copies holds
    the program's transfers only. Data handed to host code (get, np.asarray, item, float) is a copy, as in CuPy,
    and so is a host array assigned into a device array."""
    with cp.Device() as dev:
        a = cp.asarray(np.arange(8, dtype=np.float32))
        b = cp.asarray(np.ones(8, np.float32))
        assert [c["direction"] for c in dev.copies] == ["h2d", "h2d"]
        c = (a * 2 + b) / 3
        c += a
        _ = (a < b, -a, a[2:5], a[::2], a[a > 3], a.copy(), a.reshape(2, 4).T, a.astype(np.int64), a.sum(),
             a.ravel())
        _ = (cp.arange(4), cp.ones(3), cp.full(2, 1.5), cp.zeros_like(a), cp.ones_like(a), cp.array(a))
        a[1:3] = 5  # a scalar: a fill on the device
        a[0] = b[0]  # a device value
        assert len(dev.copies) == 2
        x = np.arange(8, dtype=np.float32)
        np.testing.assert_array_equal(c.get(), (x * 2 + 1) / 3 + x)
        assert dev.copies[-1]["direction"] == "d2h" and dev.copies[-1]["bytes"] == 32
        assert float(a[3]) == 3.0 and dev.copies[-1]["bytes"] == 4
        a[4:6] = np.array([10, 11])  # a host array: a copy of the 8 bytes it fills
        assert dev.copies[-1] == {"direction": "h2d", "bytes": 8, "addr": a.ptr + 16, "before_launch": 0}
        assert len(dev.copies) == 5


def test_np_asarray_copies_a_device_array_to_the_host() -> None:
    """ndpgpu's choice (CuPy raises TypeError instead): np.asarray(device_array) is a host copy, as
    ndpgpu.asnumpy and .get(), recorded as a device-to-host copy; never a 0-d object array."""
    host = np.arange(6, dtype=np.float32).reshape(2, 3)
    with cp.Device() as dev:
        d = cp.asarray(host)
        out = np.asarray(d)
        assert out.dtype == np.float32 and out.shape == (2, 3)
        np.testing.assert_array_equal(out, host)
        assert dev.copies[-1]["direction"] == "d2h" and dev.copies[-1]["bytes"] == host.nbytes
        assert np.asarray(d, dtype=np.float64).dtype == np.float64
        np.testing.assert_array_equal(np.array(d[1]), host[1])
        with pytest.raises(ValueError, match="copy"):
            np.asarray(d, copy=False)
        assert np.sum(d) == host.sum()  # NumPy functions call the array's own methods
        np.testing.assert_array_equal(d, host)
