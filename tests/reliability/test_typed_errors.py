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


DYNAMIC = HEADER + """.visible .entry d()
{
  .reg .b32 %r<2>;
  .shared .align 4 .b8 s[1024];
  mov.u32 %r1, %tid.x;
  st.shared.u32 [s], %r1;
  ret;
}
"""


def test_dynamic_shared_memory_beyond_the_kernels_attribute_is_refused_until_it_is_raised() -> None:
    """As CUDA: 48 KiB less the static size until max_dynamic_shared_size_bytes (cudaFuncSetAttribute) is
    raised, and never beyond the architecture's per-block limit (64 KiB on sm_75)."""
    fn = ndpgpu.RawModule(ptx=DYNAMIC).get_function("d")
    assert fn.max_dynamic_shared_size_bytes == 48 * 1024 - 1024
    fn((1,), (32,), (), shared_mem=48 * 1024 - 1024)  # the default limit itself
    with pytest.raises(ndpgpu.LaunchConfigError, match=r"shared_mem = 56320 bytes .* exceed the kernel's "
                                                       r"max_dynamic_shared_size_bytes \(48128; .*raise it first: "
                                                       r"fn.max_dynamic_shared_size_bytes = 56320 \(CUDA: "
                                                       "cudaFuncSetAttribute"):
        fn((1,), (32,), (), shared_mem=55 * 1024)
    fn.max_dynamic_shared_size_bytes = 55 * 1024
    assert ndpgpu.RawModule(ptx=DYNAMIC).get_function("d") is not fn  # another module: its own attribute
    fn((1,), (32,), (), shared_mem=55 * 1024)  # raised: accepted
    with pytest.raises(ValueError, match=r"max_dynamic_shared_size_bytes = 102400 is outside 0 to 64512 "
                                         r"\(sm_75's per-block limit"):
        fn.max_dynamic_shared_size_bytes = 100 * 1024
    with pytest.raises(ndpgpu.LaunchConfigError, match=r"1024 static \+ 102400 dynamic bytes of shared memory "
                                                       r"exceed sm_75's per-block limit \(65536 bytes\)"):
        fn((1,), (32,), (), shared_mem=100 * 1024)
    with pytest.raises(TypeError, match="max_dynamic_shared_size_bytes must be an int"):
        fn.max_dynamic_shared_size_bytes = 1.5


def test_a_device_allocation_the_host_cannot_back_is_a_device_memory_error(monkeypatch) -> None:
    from ndpgpu.functional import memory

    real = memory._host_zeros

    def refuse_large(nbytes: int):
        if nbytes > 64 * 1024**2:
            raise MemoryError(f"Unable to allocate {nbytes} bytes")
        return real(nbytes)

    monkeypatch.setattr(memory, "_host_zeros", refuse_large)
    with ndpgpu.Device():
        small = ndpgpu.zeros(1024, np.float32)
        with pytest.raises(ndpgpu.DeviceMemoryError, match=r"this host cannot back \d+ bytes of simulated device "
                                                           "memory .*free host memory, allocate less, or run a "
                                                           "smaller scale"):
            ndpgpu.zeros(1 << 30, np.uint8)
        assert small.get().sum() == 0  # the device is left as it was
        assert ndpgpu.zeros(16, np.int32).get().tolist() == [0] * 16
