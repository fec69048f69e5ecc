"""LLC-Compute / Omni-Compute: the offload hardware's configuration (the paper's Sec. 4.3-4.4 and 6.4)."""

from __future__ import annotations

import dataclasses

SCHEMES = ("llc", "omni")


class ChainOffloadError(ValueError):
    """A configuration the hardware cannot run (a bad size, Omni-Compute without a mesh)."""


@dataclasses.dataclass(frozen=True)
class ChainOffload:
    """The offload hardware's parameters (seed 001, Sec. 4.3-4.4 and 6.4).

    ``scheme``: ``llc`` (LLC-Compute: a chain is offloaded when all its operands are in one LLC slice, which
    computes it) or ``omni`` (Omni-Compute: to its Earliest Meet Node, an LLC slice or a core).
    ``oq``/``sq``: OQSR entries per core (48) and SQSR entries per service queue (96); ``buffer``: the
    service queue's temporary buffer (4 entries); ``alu_latency``: the ALU's latency (a core ALU's, 4
    cycles); ``llc_read_cycles``: L2 cycles before an operand's second LLC read (into the buffer) enters
    the slice's request queue, where it takes the port and the hit latency of any L2 request;
    ``dedicated_alu_width``: 0 for Omni cores sharing the core's SP units (the paper's design), else the
    lanes of a dedicated ALU per core (Sec. 6.4 sensitivity: 4, 8, 16, 32); ``smem_latency``: core cycles to
    read an Omni entry's operands back from shared memory."""

    scheme: str = "llc"
    oq: int = 48
    sq: int = 96
    buffer: int = 4
    alu_latency: int = 4
    llc_read_cycles: int = 1
    dedicated_alu_width: int = 0
    smem_latency: int = 1
    ack_after_store: int = 0

    def __post_init__(self) -> None:
        if self.scheme not in SCHEMES:
            raise ChainOffloadError(f"chain offload scheme {self.scheme!r}; valid: {', '.join(SCHEMES)}")
        for name in ("oq", "sq", "buffer", "alu_latency"):
            if getattr(self, name) < 1:
                raise ChainOffloadError(f"chain offload: {name} must be >= 1, not {getattr(self, name)}")
        if self.llc_read_cycles < 0 or self.smem_latency < 0:
            raise ChainOffloadError("chain offload: llc_read_cycles and smem_latency must be >= 0")
        if self.dedicated_alu_width not in (0, 1, 2, 4, 8, 16, 32):
            raise ChainOffloadError(f"chain offload: dedicated_alu_width must be 0 (shared) or a power of two "
                                    f"up to 32, not {self.dedicated_alu_width}")
