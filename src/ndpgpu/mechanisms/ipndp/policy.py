"""IP-NDP as a session policy: ``ipndp:<allocation>[+pf|+pws][+literal][+pl][,key=value...]``.

* allocation: ``rr`` (the machine's round-robin), ``paca`` (CTA i on SM i), ``bcs`` (CTA pairs on one SM);
* ``pf``: the boundary-aware prefetcher; ``pws``: the PC-based per-warp stride prefetcher; ``literal``: the
  paper's modified stride (``base + W x blockDim.y``) instead of the exact jump; ``pl``: install every allocation
  in the L2 before each launch (a perfect L2, on the ``-pl`` machines);
* keys (kernels outside the IP-NDP suite): ``width`` (image row in elements; every allocation is an image of that
  pitch), ``elem`` (bytes, default 4), ``scan`` (row | column | tile, default row), ``tiles`` (``4x2``).

The prefetch table is filled from launch parameters: the image arrays (the recording's allocations, matched to
the workload's image shapes by size) and the launch's block and grid; never from the trace.
"""

from __future__ import annotations

from typing import Any

from ..policy import PolicyError, PolicyGrammar, SessionPolicy, Setting, register_policy
from .config import ALLOCATIONS, FLAGS, IpndpConfig
from .dispatch import BlockCtaDispatch, PatternAwareDispatch
from .geometry import GeometryError, table_source
from .unit import IpndpHardware


def _tiles(value: str) -> tuple[int, int]:
    tx, sep, ty = value.partition("x")
    if not sep:
        raise ValueError("tiles are written TXxTY, e.g. 4x2")
    return int(tx), int(ty)


GRAMMAR = PolicyGrammar("ipndp", heads=ALLOCATIONS, switches=FLAGS, settings=(
    Setting("width"), Setting("elem"), Setting("scan", ("row", "column", "tile")), Setting("tiles", _tiles)))


def parse(spec: str) -> IpndpConfig:
    """``alloc[+flag...][,key=value...]`` -> the configuration (PolicyError on a bad spec)."""
    parsed = GRAMMAR.parse(spec)
    if parsed.has("pf") and parsed.has("pws"):
        raise PolicyError(f"ipndp:{spec}: pf and pws are two prefetchers; name one")
    prefetcher = "pf" if parsed.has("pf") else "pws" if parsed.has("pws") else "none"
    return IpndpConfig(allocation=parsed.head, prefetcher=prefetcher, literal=parsed.has("literal"),
                       perfect_l2=parsed.has("pl"), **parsed.settings)


class IpndpPolicy(SessionPolicy):
    """One IP-NDP configuration applied to a recording."""

    def __init__(self, config: IpndpConfig) -> None:
        self.config = config
        self._rows: list[tuple[str, str, float, str]] = []
        self.hardware: IpndpHardware | None = None

    def prepare(self, session: Any, recording: Any, traces: list[Any]) -> None:
        c = self.config
        if c.allocation == "paca":
            session.set_cta_dispatch(PatternAwareDispatch())
        elif c.allocation == "bcs":
            session.set_cta_dispatch(BlockCtaDispatch())
        allocs = [(int(a["addr"]), int(a["addr"]) + int(a["bytes"]))
                  for a in getattr(recording, "allocations", []) if int(a["bytes"]) > 0]
        src = None
        if c.prefetcher == "pf":
            try:
                src = table_source(recording, c, session.machine.core.num_sms)
            except GeometryError as exc:
                raise PolicyError(f"ipndp: {exc}") from exc
        self.hardware = IpndpHardware(c.prefetcher, src, c.literal, c.perfect_l2, allocs)
        session.attach(self.hardware)
        self._session = session
        self._rows = [("ipndp.config", "paca", float(c.allocation == "paca"), "flag"),
                      ("ipndp.config", "bcs", float(c.allocation == "bcs"), "flag"),
                      ("ipndp.config", "pf", float(c.prefetcher == "pf"), "flag"),
                      ("ipndp.config", "pws", float(c.prefetcher == "pws"), "flag"),
                      ("ipndp.config", "literal", float(c.literal), "flag"),
                      ("ipndp.config", "perfect_l2", float(c.perfect_l2), "flag")]

    def rows(self) -> list[tuple[str, str, float, str]]:
        return [*self._rows, *balance_rows(getattr(self, "_session", None))]


def balance_rows(session: Any) -> list[tuple[str, str, float, str]]:
    """Load balance of the replayed launches: the spread of the SMs' busy cycles, (max - min) / max, over the
    SMs that ran CTAs (summed over launches)."""
    from ...timing import engine as E

    if session is None or not session.launches:
        return []
    busy = sum(st.per_sm[:, E.SMS_BUSY] for st in session.launches)
    ctas = sum(st.per_sm[:, E.SMS_CTAS] for st in session.launches)
    used = busy[ctas > 0]
    if len(used) == 0 or used.max() <= 0:
        return []
    return [("ipndp.balance", "sm_busy_spread", float((used.max() - used.min()) / used.max()), "fraction"),
            ("ipndp.balance", "sms_used", float(len(used)), "SMs")]


@register_policy(GRAMMAR)
def make_ipndp_policy(spec: str) -> IpndpPolicy:
    return IpndpPolicy(parse(spec))
