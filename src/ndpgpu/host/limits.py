"""CUDA's launch limits and the checks a launch passes before it runs: grid and block dimensions, shared
memory (static, dynamic and opt-in), registers, resident blocks per SM and cooperative launches."""

from __future__ import annotations

import math
import re


class LaunchConfigError(ValueError):
    """A launch configuration CUDA would reject (grid or block dimensions, threads, shared memory)."""


# CUDA's limits for compute capability 7.5 and newer (CUDA C++ Programming Guide, "Compute Capabilities")
MAX_GRID = (2**31 - 1, 65535, 65535)
MAX_BLOCK = (1024, 1024, 64)
MAX_THREADS_PER_BLOCK = 1024
MAX_STATIC_SHARED = 48 * 1024  # statically declared shared memory per block
MAX_SHARED_PER_BLOCK = 227 * 1024  # static + dynamic with the opt-in attribute, the largest (sm_90)


def check_dimensions(kernel: str, grid: tuple[int, int, int], block: tuple[int, int, int]) -> None:
    """Raise :class:`LaunchConfigError` when CUDA would refuse these grid and block dimensions."""
    for axis, (g, lim) in enumerate(zip(grid, MAX_GRID, strict=True)):
        if g > lim:
            raise LaunchConfigError(f"{kernel}: grid.{'xyz'[axis]} = {g} exceeds CUDA's limit of {lim}")
    for axis, (b, lim) in enumerate(zip(block, MAX_BLOCK, strict=True)):
        if b > lim:
            raise LaunchConfigError(f"{kernel}: block.{'xyz'[axis]} = {b} exceeds CUDA's limit of {lim}")
    nthreads = block[0] * block[1] * block[2]
    if nthreads > MAX_THREADS_PER_BLOCK:
        raise LaunchConfigError(f"{kernel}: {nthreads} threads per block exceed the limit of {MAX_THREADS_PER_BLOCK}")


# shared memory one block may use with the opt-in attribute (CUDA C++ Programming Guide, "Technical
# Specifications per Compute Capability"), and one SM holds, by compute capability
SHARED_PER_BLOCK_OPTIN = {70: 96 * 1024, 72: 96 * 1024, 75: 64 * 1024, 80: 163 * 1024, 86: 99 * 1024,
                          87: 163 * 1024, 89: 99 * 1024, 90: 227 * 1024, 100: 227 * 1024, 120: 99 * 1024}
SHARED_PER_SM = {70: 96 * 1024, 72: 96 * 1024, 75: 64 * 1024, 80: 164 * 1024, 86: 100 * 1024, 87: 164 * 1024,
                 89: 100 * 1024, 90: 228 * 1024, 100: 228 * 1024, 120: 100 * 1024}


def compute_capability(arch: str | None) -> int:
    """``sm_80`` -> 80 (75 when unknown)."""
    return int(re.sub(r"\D", "", arch or "") or 75)


def shared_limit(arch: str | None) -> int:
    """Static plus dynamic shared memory one block of ``arch`` may use once the kernel's
    ``max_dynamic_shared_size_bytes`` is raised (227 KiB for an architecture not in the table)."""
    return SHARED_PER_BLOCK_OPTIN.get(compute_capability(arch), MAX_SHARED_PER_BLOCK)


def check_shared_memory(kernel: str, static_shared: int, dynamic_shared: int, arch: str | None = None,
                        max_dynamic: int | None = None) -> None:
    """Raise :class:`LaunchConfigError` when CUDA would refuse this much shared memory per block: beyond
    ``arch``'s per-block limit, or more dynamic shared memory than the kernel's ``max_dynamic_shared_size_bytes``
    (``max_dynamic``; CUDA's default is 48 KiB less the static size until the attribute is raised)."""
    if static_shared > MAX_STATIC_SHARED:
        raise LaunchConfigError(f"{kernel}: {static_shared} bytes of static __shared__ memory exceed CUDA's limit of "
                                f"{MAX_STATIC_SHARED} per block (larger buffers must be dynamic shared memory)")
    if dynamic_shared < 0:
        raise LaunchConfigError(f"{kernel}: shared_mem = {dynamic_shared} bytes of dynamic shared memory is negative; "
                                "pass 0 or more")
    limit = shared_limit(arch) if arch else MAX_SHARED_PER_BLOCK
    if static_shared + dynamic_shared > limit:
        on = f"{arch}'s per-block limit" if arch else "the largest per-block limit"
        raise LaunchConfigError(f"{kernel}: {static_shared} static + {dynamic_shared} dynamic bytes of shared memory "
                                f"exceed {on} ({limit} bytes)")
    if max_dynamic is not None and dynamic_shared > max_dynamic:
        raise LaunchConfigError(
            f"{kernel}: shared_mem = {dynamic_shared} bytes of dynamic shared memory exceed the kernel's "
            f"max_dynamic_shared_size_bytes ({max_dynamic}; CUDA's default is 48 KiB less the static shared "
            "memory, and a launch beyond it fails until it is raised); raise it first: "
            f"fn.max_dynamic_shared_size_bytes = {dynamic_shared} (CUDA: cudaFuncSetAttribute(kernel, "
            "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes); a launch file: its shared_mem raises it)")


REGISTERS_PER_SM = 65536  # the register file of one SM (compute capability 7.5 and newer)
REGISTER_ALLOCATION_UNIT = 256  # registers are given to a warp in units of this many


def warp_registers(registers: int) -> int:
    """Registers a warp of threads with ``registers`` each is given (rounded up to the allocation unit)."""
    return -(-registers * 32 // REGISTER_ALLOCATION_UNIT) * REGISTER_ALLOCATION_UNIT


def check_resources(kernel: str, block: tuple[int, int, int], directives: dict[str, tuple[int, ...]],
                    registers: int | None) -> None:
    """Raise :class:`LaunchConfigError` for a block CUDA refuses for this kernel: more threads than its
    ``__launch_bounds__`` (``.maxntid``), a shape other than its ``.reqntid``, or more registers than an SM
    has (cudaErrorLaunchOutOfResources; ``registers`` per thread from ptxas, None when unknown)."""
    nthreads = block[0] * block[1] * block[2]
    maxntid = directives.get("maxntid")
    if maxntid and nthreads > math.prod(maxntid):
        raise LaunchConfigError(f"{kernel}: {nthreads} threads per block exceed its __launch_bounds__ "
                                f"({math.prod(maxntid)}, .maxntid {', '.join(map(str, maxntid))})")
    reqntid = directives.get("reqntid")
    if reqntid and tuple(reqntid) + (1,) * (3 - len(reqntid)) != tuple(block):
        raise LaunchConfigError(f"{kernel}: block {block} differs from the required .reqntid "
                                f"{', '.join(map(str, reqntid))}")
    if registers:
        need = -(-nthreads // 32) * warp_registers(registers)
        if need > REGISTERS_PER_SM:
            raise LaunchConfigError(f"{kernel}: {nthreads} threads x {registers} registers need {need} registers, "
                                    f"more than an SM's {REGISTERS_PER_SM} (CUDA: too many resources requested "
                                    "for launch); use fewer threads, __launch_bounds__ or -maxrregcount")


# threads and CTAs one SM holds at once, by compute capability (CUDA C++ Programming Guide, "Compute
# Capabilities"): what bounds a cooperative launch
SM_THREADS_AND_CTAS = {75: (1024, 16), 80: (2048, 32), 86: (1536, 16), 87: (2048, 32), 89: (1536, 24),
                       90: (2048, 32), 100: (2048, 32), 120: (1536, 32)}


def ctas_per_sm(arch: str | None, block: tuple[int, int, int], registers: int | None = None,
                shared_bytes: int = 0) -> int:
    """Blocks of this shape one SM of ``arch`` holds at once: its block and thread limits, its register file at
    ptxas's ``registers`` per thread (when known) and its shared memory at ``shared_bytes`` per block (at least
    1: a block that fits no SM is refused before it runs)."""
    threads_per_sm, ctas = SM_THREADS_AND_CTAS.get(compute_capability(arch), (2048, 32))
    warps = -(-(block[0] * block[1] * block[2]) // 32)
    per_sm = min(ctas, threads_per_sm // (warps * 32))
    if registers:
        per_sm = min(per_sm, REGISTERS_PER_SM // (warps * warp_registers(registers)))
    if shared_bytes > 0:
        per_sm = min(per_sm, SHARED_PER_SM.get(compute_capability(arch), 228 * 1024) // shared_bytes)
    return max(1, per_sm)


def check_cooperative(kernel: str, grid: tuple[int, int, int], block: tuple[int, int, int], arch: str,
                      num_sms: int, registers: int | None) -> None:
    """Raise :class:`LaunchConfigError` when a kernel that synchronises its whole grid (a cooperative launch)
    has more CTAs than the device holds at once (cudaErrorCooperativeLaunchTooLarge)."""
    nthreads = block[0] * block[1] * block[2]
    per_sm = ctas_per_sm(arch, block, registers)
    ncta = grid[0] * grid[1] * grid[2]
    if ncta > per_sm * num_sms:
        raise LaunchConfigError(f"{kernel}: synchronises its whole grid (cooperative groups' grid.sync()), so all "
                                f"{ncta} blocks must be resident at once, but {num_sms} SMs of {arch} hold "
                                f"{per_sm * num_sms} blocks of {nthreads} threads (CUDA: cooperative launch too "
                                "large); launch fewer blocks (a grid-stride loop)")
