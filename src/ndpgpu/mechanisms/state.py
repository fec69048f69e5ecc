"""A mechanism's state vector ``mx``, laid out once: a header of ``F_*`` fields, then named regions in order.

Every mechanism keeps its launch state in one int64 vector that its compiled hooks index. The header's fields
are the mechanism's own constants (``F_HDR`` words); the regions follow it in the order they are declared, each
``words`` long (per-PC tables, per-SM or per-slot rows, ring FIFOs, counters). :class:`StateLayout` computes the
offsets, allocates the vector and hands out views of a region, so a unit's ``launch_state`` states only what
the regions are::

    layout = StateLayout(H.F_HDR, {"pt": npc * H.NPT, "ctr": len(H.COUNTER_NAMES)})
    mx = layout.allocate()
    mx[H.F_PT0], mx[H.F_CTR0] = layout["pt"], layout["ctr"]
    layout.view(mx, "pt", H.NPT)[:, H.PT_CHAIN] = -1
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np


class StateLayoutError(ValueError):
    """A region declared twice, of negative size, or asked for by a name the layout does not have."""


class StateLayout:
    """Offsets of named regions after a header of ``header`` words, in declaration order."""

    def __init__(self, header: int, regions: Mapping[str, int]) -> None:
        if header < 0:
            raise StateLayoutError(f"a header of {header} words")
        self.header = int(header)
        self.sizes: dict[str, int] = {}
        self.offsets: dict[str, int] = {}
        pos = self.header
        for name, words in regions.items():
            if words < 0:
                raise StateLayoutError(f"region {name!r} of {words} words")
            self.offsets[name] = pos
            self.sizes[name] = int(words)
            pos += int(words)
        self.words = pos

    def __getitem__(self, name: str) -> int:
        """The offset of region ``name`` in the vector."""
        try:
            return self.offsets[name]
        except KeyError:
            raise StateLayoutError(f"no region {name!r}; regions: {', '.join(self.offsets)}") from None

    def allocate(self) -> np.ndarray:
        """A zeroed vector of the layout's size."""
        return np.zeros(self.words, np.int64)

    def view(self, mx: np.ndarray, name: str, width: int | None = None) -> np.ndarray:
        """Region ``name`` of ``mx`` (a view: writes land in ``mx``), as rows of ``width`` words if given."""
        start = self[name]
        region = mx[start:start + self.sizes[name]]
        return region.reshape(-1, width) if width else region
