"""Kernel-argument errors name the C++ parameter when the module was built from CUDA source (the PTX name, e.g.
``saxpy_param_3``, follows in parentheses), and keep the PTX name where the source cannot tell it: PTX given as
text, overloads of one arity, signatures a macro writes."""

from __future__ import annotations

import numpy as np
import pytest

import ndpgpu
from ndpgpu.frontend.cparams import kernel_param_names, plain_name, source_kernels

SAXPY = r"""
// __global__ void saxpy(int decoy) in a comment is not a declaration
extern "C" __global__ void __launch_bounds__(256)
saxpy(float a, const float *__restrict__ x, float *y, int n /* count */) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""

TEMPLATES = r"""
template <typename T>
__global__ void scale(T *data, T factor, int count) {
    int i = threadIdx.x;
    if (i < count) data[i] *= factor;
}
__global__ void over(int *p, int a) { p[0] = a; }
__global__ void over(float *p, float b) { p[0] = b; }
__global__ void single(int *p, short s) { p[0] = s; }
#define MAKE(NAME) __global__ void NAME(int *p, int m) { p[0] = m; }
MAKE(made)
"""


def test_a_wrong_numpy_scalar_names_the_cpp_parameter() -> None:
    fn = ndpgpu.RawKernel(SAXPY, "saxpy")
    with ndpgpu.Device():
        x, y = ndpgpu.zeros(4, np.float32), ndpgpu.zeros(4, np.float32)
        with pytest.raises(TypeError, match=r"^saxpy: argument 3 'n' \(PTX saxpy_param_3, \.u32\): numpy float32"):
            fn((1,), (4,), (np.float32(2), x, y, np.float32(4)))
        with pytest.raises(TypeError, match=r"^saxpy: argument 0 'a' \(PTX saxpy_param_0, \.f32\): numpy int64"):
            fn((1,), (4,), (np.int64(2), x, y, 4))
        with pytest.raises(OverflowError, match=r"saxpy: argument 3 'n' .*does not fit in 32 bits"):
            fn((1,), (4,), (2.0, x, y, 1 << 40))
        fn((1,), (4,), (np.float32(2), x, y, np.int32(4)))  # right types still launch


def test_a_template_instance_names_its_parameters_and_overloads_fall_back() -> None:
    mod = ndpgpu.RawModule(code=TEMPLATES, name_expressions=("scale<float>",))
    with ndpgpu.Device():
        p = ndpgpu.zeros(4, np.int32)
        f = ndpgpu.zeros(4, np.float32)
        with pytest.raises(TypeError, match=r"argument 1 'factor' \(PTX _Z5scaleIfEvPT_S0_i_param_1, \.f32\)"):
            mod.get_function("scale<float>")((1,), (4,), (f, np.int32(2), 4))
        # two overloads of two parameters: which is which is not told, so the PTX names stand
        over = mod.get_function("_Z4overPii")
        with pytest.raises(TypeError, match=r"^argument 1 \(_Z4overPii_param_1, PTX \.u32\) of _Z4overPii: numpy"):
            over((1,), (1,), (p, np.float32(1)))
        with pytest.raises(TypeError, match=r"_Z6singlePis: argument 1 's' \(PTX _Z6singlePis_param_1, \.u16\)"):
            mod.get_function("single")((1,), (1,), (p, np.int32(1)))
        # a signature a macro writes is not read: the PTX name
        with pytest.raises(TypeError, match=r"^argument 1 \(_Z4madePii_param_1, PTX \.u32\) of _Z4madePii"):
            mod.get_function("made")((1,), (1,), (p, np.float32(1)))


def test_ptx_text_keeps_the_ptx_names() -> None:
    ptx = ndpgpu.RawKernel(SAXPY, "saxpy").module.ptx
    fn = ndpgpu.RawModule(ptx=ptx).get_function("saxpy")
    with ndpgpu.Device():
        x, y = ndpgpu.zeros(4, np.float32), ndpgpu.zeros(4, np.float32)
        with pytest.raises(TypeError, match=r"^argument 3 \(saxpy_param_3, PTX \.u32\) of saxpy: numpy float32"):
            fn((1,), (4,), (np.float32(2), x, y, np.float32(4)))


def test_a_cu_file_names_its_parameters(tmp_path) -> None:
    path = tmp_path / "k.cu"
    path.write_text(SAXPY)
    fn = ndpgpu.RawModule(path=str(path)).get_function("saxpy")
    with ndpgpu.Device():
        y = ndpgpu.zeros(4, np.float32)
        with pytest.raises(TypeError, match=r"argument 1 'x' \(PTX saxpy_param_1, \.u64\): a Python float"):
            fn((1,), (4,), (2.0, 1.5, y, 4))


def test_the_declaration_parser() -> None:
    src = r"""
    template <> __global__ void k<int>(int *q, int z = 3) {}
    __global__ void fp(void (*cb)(int), float arr[], int, const T, unsigned u, ns::Type, Vec<float, 3> v) {}
    __global__ void fwd(int, float *);
    __global__ void fwd(int n, float *p) {}
    __global__ void none(void) {}
    """
    k = source_kernels(src)
    assert k["k"] == [("q", "z")]
    assert k["fp"] == [("cb", "arr", None, None, "u", None, "v")]
    assert kernel_param_names(k, "fwd", 2) == ("n", "p")  # the unnamed forward declaration gives way
    assert k["none"] == [()]
    assert kernel_param_names(k, "fwd", 3) is None  # another arity (e.g. a variadic template): not told
    assert plain_name("_ZN2ns1fILi3EEEvPi") == "f" and plain_name("saxpy") == "saxpy"
