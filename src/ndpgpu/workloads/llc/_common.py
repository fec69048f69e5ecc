"""Helpers of the LLC-Compute / Omni-Compute workloads: explicit operand placement over memory partitions.

Address mapping assumed (paper Table 2): 8 memory controllers, each wired to one LLC slice, and a
"partition chunk size" of 128 bytes, i.e. consecutive 128-byte chunks of the physical address go to
consecutive partitions::

    partition(addr) = (addr // interleave_bytes) % partitions        # defaults: 128 B, 8 partitions

(The same as the extraction's ``mc = (addr >> 7) % 8``; no XOR hashing.) Workloads take ``partitions``
and ``interleave_bytes`` as parameters so that another machine's mapping can be matched.

To place operands, :func:`placed_arrays` allocates one device buffer and carves the arrays out of it at
offsets chosen so that array ``k`` starts ``shifts[k]`` chunks after a partition-0 boundary: element ``i``
of array ``k`` then lives in partition ``(shifts[k] + (i * itemsize) // interleave_bytes) % partitions``.
Equal shifts give ALIGNED operands (element ``i`` of every array in the same partition), distinct shifts
STRIDED ones (element ``i`` of each array in a different partition).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu

PARTITIONS = 8  # paper Table 2: 8 MCs, one LLC slice each
INTERLEAVE_BYTES = 128  # paper Table 2: "Partition chunk size 128 bytes"



def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def partition_of(addr: Any, partitions: int = PARTITIONS, interleave_bytes: int = INTERLEAVE_BYTES) -> Any:
    """The memory partition (LLC slice) of a device address (scalar or numpy array)."""
    return (np.asarray(addr, dtype=np.uint64) // np.uint64(interleave_bytes)) % np.uint64(partitions)


def placement_shifts(placement: str, count: int) -> tuple[int, ...]:
    """The chunk shift of each of ``count`` operands for ``"aligned"`` or ``"strided"`` placement."""
    if placement == "aligned":
        return (0,) * count
    if placement == "strided":
        return tuple(range(count))
    raise ValueError(f"unknown placement {placement!r} (aligned or strided)")


def placed_arrays(hosts: list[np.ndarray], shifts: tuple[int, ...], partitions: int = PARTITIONS,
                  interleave_bytes: int = INTERLEAVE_BYTES) -> list[ndpgpu.DeviceArray]:
    """Device copies of ``hosts`` carved out of one buffer, array ``k`` starting ``shifts[k]`` chunks past a
    partition-0 boundary (see the module docstring). Distinct shifts must differ modulo ``partitions``."""
    if len(hosts) != len(shifts):
        raise ValueError("one shift per array")
    period = partitions * interleave_bytes
    slots = [ceil_div(h.nbytes + (s % partitions) * interleave_bytes, period) * period
             for h, s in zip(hosts, shifts, strict=True)]
    buf = ndpgpu.zeros(sum(slots) + period, np.uint8)
    start = ceil_div(buf.ptr, period) * period
    arrays = []
    for host, shift, slot in zip(hosts, shifts, slots, strict=True):
        host = np.ascontiguousarray(host)
        arr = ndpgpu.DeviceArray(host.shape, host.dtype, buf.device,
                                 ptr=start + (shift % partitions) * interleave_bytes, _owner=buf)
        arr.set(host)
        arrays.append(arr)
        start += slot
    return arrays


def fma32(a: Any, b: Any, c: Any) -> np.ndarray:
    """float32 fused multiply-add: exact float64 product plus addend, rounded once to float32 (a double
    rounding can differ from the hardware's single rounding by one ulp in rare halfway cases)."""
    return (np.asarray(a, np.float64) * np.asarray(b, np.float64) + np.asarray(c, np.float64)).astype(np.float32)
