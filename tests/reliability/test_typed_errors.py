"""Typed errors at the API surface: a wrong argument (a float shape, a string or fractional shared_mem, a
negative dynamic shared-memory size, an unknown kernel name, an empty module, a float beyond a parameter's
range) raises a typed error naming the argument and the next step, never a bare KeyError, an unrelated
NumPy message or a silently truncated or infinite value."""

from __future__ import annotations

import numpy as np
import pytest

import ndpgpu

HEADER = ".version 9.0\n.target sm_75\n.address_size 64\n"
KERNEL = HEADER + """.visible .entry k(.param .f32 a, .param .f64 b)
{
  ret;
}
"""


@pytest.mark.parametrize("shape", [2.5, (2.5, 3), (4, np.float64(2.0))])
@pytest.mark.parametrize("make", [ndpgpu.zeros, ndpgpu.empty])
def test_a_float_shape_is_a_type_error_as_in_numpy(make, shape) -> None:
    with pytest.raises(TypeError, match="'float.*' object cannot be interpreted as an integer.*int\\(n\\)"):
        make(shape, np.float32)
    assert make((np.int64(2), 3), np.float32).shape == (2, 3)  # numpy integers are fine


@pytest.mark.parametrize("value", ["abc", 1.5, 256.0, None])
def test_shared_mem_must_be_an_int(value) -> None:
    fn = ndpgpu.RawModule(ptx=KERNEL).get_function("k")
    with pytest.raises(TypeError, match=f"k: shared_mem must be an int .*got {value!r}"):
        fn((1,), (1,), (np.float32(1), np.float64(2)), shared_mem=value)
    fn((1,), (1,), (np.float32(1), np.float64(2)), shared_mem=np.int32(64))  # numpy ints are fine


def test_a_negative_dynamic_shared_memory_size_says_negative() -> None:
    fn = ndpgpu.RawModule(ptx=KERNEL).get_function("k")
    with pytest.raises(ndpgpu.LaunchConfigError, match="shared_mem = -4 bytes .* is negative") as e:
        fn((1,), (1,), (np.float32(1), np.float64(2)), shared_mem=-4)
    assert "exceed" not in str(e.value)


def test_an_unknown_kernel_is_a_lookup_error_listing_the_kernels() -> None:
    mod = ndpgpu.RawModule(ptx=KERNEL)
    with pytest.raises(ndpgpu.SymbolLookupError, match=r"^no kernel or variable 'nope' in the module; it defines k "):
        mod.get_function("nope")
    assert issubclass(ndpgpu.SymbolLookupError, LookupError)


@pytest.mark.parametrize("ptx", ["", HEADER])
def test_an_empty_module_says_it_defines_no_kernel(ptx) -> None:
    with pytest.raises(ndpgpu.SymbolLookupError, match="no kernel 'k' in the module: its PTX defines no kernel"):
        ndpgpu.RawModule(ptx=ptx).get_function("k")
    with pytest.raises(ndpgpu.SymbolLookupError, match="defines no variable"):
        ndpgpu.RawModule(ptx=ptx).get_global("g")


def test_asarray_of_a_device_array_returns_it() -> None:
    with ndpgpu.Device():
        a = ndpgpu.asarray(np.arange(4, dtype=np.float32))
        assert ndpgpu.asarray(a) is a
        assert ndpgpu.asarray(a, np.float32) is a
        b = ndpgpu.asarray(a, np.int32)  # another dtype: a converted copy
        assert b is not a and b.dtype == np.int32 and b.get().tolist() == [0, 1, 2, 3]
    with ndpgpu.Device():
        c = ndpgpu.asarray(a)  # another device's array: copied to this one
        assert c is not a and c.get().tolist() == [0.0, 1.0, 2.0, 3.0]


@pytest.mark.parametrize("args, name, bits", [
    ((1e300, 0.0), "a, PTX .f32", 32), ((-1e39, 0.0), "a, PTX .f32", 32), ((10**40, 0.0), "a, PTX .f32", 32),
    ((0.0, 10**400), "b, PTX .f64", 64)])
def test_a_python_number_beyond_a_float_parameter_overflows(args, name, bits) -> None:
    fn = ndpgpu.RawModule(ptx=KERNEL).get_function("k")
    with pytest.raises(OverflowError, match=f"argument . \\({name}\\) of k: .* is beyond the range of a {bits}-bit"):
        fn((1,), (1,), args)
    fn((1,), (1,), (float("inf"), float("nan")))  # inf and NaN are meant as they are
    fn((1,), (1,), (3.4e38, 1e300))
