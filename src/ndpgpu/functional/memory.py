"""Simulated device memory: one arena of global (and constant) data.

Layout (documented in ``docs/functional.md``): allocations are placed upward from ``base`` at
``alignment`` boundaries, as cudaMalloc does; memory is mapped in ``page_size`` pages, so a read just
past an allocation but inside a mapped page returns what the padding holds (zeros), while an access
beyond the last mapped page faults. Freed allocations are not reused within a device's lifetime; their
range is unmapped: a kernel's access to freed memory faults (``MemoryFault`` naming the freed allocation
and where it was freed; the bounds-checking mode reports it as "use after free" instead), and the host side
refuses it (``DeviceArray.get``). CUDA unmaps at its own granularity; ndpgpu unmaps each freed allocation's
exact byte range, so every use after free is caught.

With ``guard_zones`` (the bounds-checking mode) every allocation is followed by an unused guard zone as
large as the allocation (at least ``GUARD_MIN`` bytes, at most ``GUARD_MAX``), so an access that runs
past the end of one array lands in the guard, where the bounds check sees it, instead of silently in the
next array. Overruns longer than the guard can still reach the next allocation.
"""

from __future__ import annotations

import dataclasses

import numpy as np


class DeviceMemoryError(Exception):
    """Device memory was misused (bad size, out of the simulated capacity, use after free)."""


@dataclasses.dataclass(frozen=True)
class MemoryLayout:
    """Where the arena lives and how it is carved up."""

    base: int = 0x0000_0007_0000_0000
    alignment: int = 256
    page_size: int = 64 * 1024
    capacity: int = 16 * 1024**3  # largest arena the simulator accepts

    def __post_init__(self) -> None:
        for name in ("alignment", "page_size"):
            value = getattr(self, name)
            if value <= 0 or value & (value - 1):
                raise ValueError(f"MemoryLayout.{name} must be a power of two, got {value}")
        if self.base % self.page_size:
            raise ValueError("MemoryLayout.base must be page aligned")


@dataclasses.dataclass
class Allocation:
    address: int
    size: int
    label: str
    freed: bool = False
    freed_site: str = ""  # where free() was called (``file.py:12``), when known

    @property
    def end(self) -> int:
        return self.address + self.size

    def describe(self) -> str:
        """``the 4096-byte allocation 'x' at 0x700000000`` (freed ones say so)."""
        label = f" {self.label!r}" if self.label else ""
        return f"the {'freed ' if self.freed else ''}{self.size}-byte allocation{label} at {self.address:#x}"


GUARD_MIN = 1024
GUARD_MAX = 16 * 1024**2


def guard_bytes(nbytes: int, alignment: int) -> int:
    """The guard zone left after an allocation of ``nbytes`` in the bounds-checking mode."""
    size = (max(nbytes, 1) + alignment - 1) // alignment * alignment
    return min(max(size, GUARD_MIN), GUARD_MAX)


def _host_zeros(nbytes: int) -> np.ndarray:
    """A zeroed host buffer of ``nbytes`` (numpy's MemoryError when the host cannot back it)."""
    return np.zeros(nbytes, dtype=np.uint8)


class DeviceMemory:
    """The byte arena with a bump allocator (guard zones between allocations when ``guard_zones``)."""

    def __init__(self, layout: MemoryLayout | None = None, guard_zones: bool = False):
        self.layout = layout or MemoryLayout()
        self.guard_zones = guard_zones
        self.buf = np.zeros(1 << 20, dtype=np.uint8)
        self.top = 0  # bytes allocated (offset of the next free byte)
        self.allocations: list[Allocation] = []
        self.workspaces: dict[str, int] = {}  # the engine's own allocations by name (grid sync, malloc heap)

    # -- allocation -----------------------------------------------------------------------------
    def alloc(self, nbytes: int, label: str = "", alignment: int | None = None) -> int:
        if nbytes < 0:
            raise DeviceMemoryError(f"cannot allocate a negative size ({nbytes})")
        align = max(alignment or 1, self.layout.alignment)
        off = (self.top + align - 1) // align * align
        end = off + max(nbytes, 1)
        if self.guard_zones:
            end += guard_bytes(nbytes, self.layout.alignment)
        if end > self.layout.capacity:
            raise DeviceMemoryError(
                f"allocation of {nbytes} bytes exceeds the simulated capacity of {self.layout.capacity} bytes"
            )
        self._ensure(self._round_page(end))
        self.top = end
        addr = self.layout.base + off
        self.allocations.append(Allocation(addr, nbytes, label))
        return addr

    def workspace(self, name: str, nbytes: int) -> tuple[int, bool]:
        """The address of the engine's allocation ``name`` (16-byte aligned), made on first use; and whether
        this call made it."""
        if name in self.workspaces:
            return self.workspaces[name], False
        self.workspaces[name] = self.alloc(nbytes, name, 16)
        return self.workspaces[name], True

    def free(self, address: int, site: str = "") -> None:
        """Free the allocation that starts at ``address`` (cudaFree; ``site``: where the caller freed it, for
        messages): a second free of it says "already freed", an address inside an allocation or outside every
        one says so."""
        for a in self.allocations:
            if a.address == address and not a.freed:
                a.freed = True
                a.freed_site = site
                return
        for a in self.allocations:
            if a.address == address:
                raise DeviceMemoryError(f"double free: {a.describe()} was already freed")
        inside = self.find(address)
        if inside is not None:
            raise DeviceMemoryError(f"free of {address:#x}, {address - inside.address} bytes inside "
                                    f"{inside.describe()}: free takes the address an allocation starts at")
        raise DeviceMemoryError(f"free of an address that is not an allocation: {address:#x}")

    def freed_at(self, address: int) -> Allocation | None:
        """The freed allocation containing ``address`` (or starting at it, when empty), if any."""
        for a in self.allocations:
            if a.freed and (a.address <= address < a.end or a.address == address):
                return a
        return None

    def _round_page(self, n: int) -> int:
        p = self.layout.page_size
        return (n + p - 1) // p * p

    def _ensure(self, nbytes: int) -> None:
        if nbytes <= len(self.buf):
            return
        size = len(self.buf)
        while size < nbytes:
            size *= 2
        try:
            new = _host_zeros(size)
        except MemoryError:
            try:
                new = _host_zeros(nbytes)  # the doubled arena does not fit: exactly what is needed
            except MemoryError:
                raise DeviceMemoryError(
                    f"this host cannot back {nbytes} bytes of simulated device memory (the arena holds "
                    f"{len(self.buf)} bytes; numpy's MemoryError): free host memory, allocate less, or run a "
                    "smaller scale") from None
        new[: len(self.buf)] = self.buf
        self.buf = new

    @property
    def mapped_bytes(self) -> int:
        """Bytes from ``base`` that are mapped (the allocated range rounded up to pages)."""
        return self._round_page(self.top)

    # -- access ---------------------------------------------------------------------------------
    def _offset(self, address: int, nbytes: int) -> int:
        off = address - self.layout.base
        if off < 0 or off + nbytes > self.mapped_bytes:
            raise DeviceMemoryError(f"host access to unmapped device memory [{address:#x}, +{nbytes})")
        return off

    def write(self, address: int, data: np.ndarray | bytes) -> None:
        raw = np.frombuffer(data, dtype=np.uint8) if isinstance(data, (bytes, bytearray)) else \
            np.ascontiguousarray(data).reshape(-1).view(np.uint8)
        off = self._offset(address, raw.size)
        self.buf[off : off + raw.size] = raw

    def read(self, address: int, nbytes: int) -> np.ndarray:
        off = self._offset(address, nbytes)
        return self.buf[off : off + nbytes].copy()

    def allocation_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Sorted (start, end) arrays of live allocations, for the bounds-checking mode."""
        live = sorted((a.address, a.end) for a in self.allocations if not a.freed)
        lo = np.array([a for a, _ in live], dtype=np.int64)
        hi = np.array([b for _, b in live], dtype=np.int64)
        return lo, hi

    def freed_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Sorted (start, end) arrays of freed allocations (disjoint: freed memory is never reused)."""
        freed = sorted((a.address, a.address + max(a.size, 1)) for a in self.allocations if a.freed)
        return (np.array([a for a, _ in freed], dtype=np.int64), np.array([b for _, b in freed], dtype=np.int64))

    def nearest_below(self, address: int, freed: bool = False) -> Allocation | None:
        """The live allocation (any allocation, freed ones too, with ``freed``) that starts closest below (or
        at) ``address``, if any."""
        best = None
        for a in self.allocations:
            if (freed or not a.freed) and a.address <= address and (best is None or a.address > best.address):
                best = a
        return best

    def find(self, address: int) -> Allocation | None:
        """The allocation containing ``address`` (or None)."""
        for a in self.allocations:
            if a.address <= address < a.end:
                return a
        return None
