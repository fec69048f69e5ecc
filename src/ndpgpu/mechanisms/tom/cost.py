"""TOM's bandwidth cost model of offloading a block (seed 000, section 3.1, Eqs. 1-4).

Units are 4 bytes: one address, one data word or one register; a store acknowledgment is a quarter
unit. ``BW_TX`` is the change in GPU-to-memory traffic if a block is offloaded, ``BW_RX`` the change in
memory-to-GPU traffic; negative means offloading saves bandwidth on that channel.

Per thread (Eqs. 1-2)::

    BW_TX = REG_TX - (N_LD + 2 N_ST)
    BW_RX = REG_RX - (N_LD + N_ST / 4)

Per warp (Eqs. 3-4, the ones the compiler uses)::

    BW_TX = REG_TX S_W - (N_LD Coal_LD Miss_LD + N_ST (S_W + Coal_ST))
    BW_RX = REG_RX S_W - (N_LD Coal_LD S_C Miss_LD + N_ST Coal_ST / 4)

``REG_TX``/``REG_RX`` are the live-in/live-out registers in 32-bit units, ``N_LD``/``N_ST`` the loads and
stores the block executes (loop bodies multiplied by their trip counts).

**Warp-uniform live-ins** (a refinement the paper's model does not have, off by default:
``CostParams.uniform_live_ins``). A live-in that holds one value for the whole warp (a launch constant,
``%ctaid``, a parameter, a value derived only from them: :mod:`ndpgpu.analysis.uniform`) needs one copy per
warp, not one per lane; with the flag, the ``U`` uniform units among ``REG_TX`` count once::

    BW_TX = (REG_TX - U) S_W + U - (N_LD Coal_LD Miss_LD + N_ST (S_W + Coal_ST))

and the offload request carries them once (:mod:`.plan`). The paper's model (``U`` counted ``S_W``
times) stays the default and the one the reproduction's checks use.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction


@dataclasses.dataclass(frozen=True)
class CostParams:
    """The static assumptions of the per-warp model (defaults: the paper's conservative values).

    ``warp_size`` is S_W; ``line_over_addr`` is S_C, the cache-line size over the address size
    (128 B / 4 B); ``coal_ld``/``coal_st`` are cache-line accesses per warp load/store (1: perfectly
    coalesced); ``miss_ld`` is the fraction of loads that miss on the GPU side (stores are write-through
    and always go to memory).
    """

    warp_size: int = 32
    line_over_addr: float = 32.0
    coal_ld: float = 1.0
    coal_st: float = 1.0
    miss_ld: float = 0.5
    uniform_live_ins: bool = False  # count warp-uniform live-ins once per warp (not the paper's model)

    def __post_init__(self) -> None:
        if not isinstance(self.uniform_live_ins, bool):
            raise ValueError(f"CostParams.uniform_live_ins must be a bool, got {self.uniform_live_ins!r}")
        if not (isinstance(self.warp_size, int) and self.warp_size >= 1):
            raise ValueError(f"CostParams.warp_size must be a positive integer, got {self.warp_size!r}")
        for name in ("line_over_addr", "coal_ld", "coal_st"):
            value = getattr(self, name)
            if not value > 0:
                raise ValueError(f"CostParams.{name} must be > 0, got {value!r}")
        if not 0.0 <= self.miss_ld <= 1.0:
            raise ValueError(f"CostParams.miss_ld must be in [0, 1], got {self.miss_ld!r}")

    def as_dict(self) -> dict[str, float | bool]:
        return dataclasses.asdict(self)


DEFAULT_PARAMS = CostParams()
"""The paper's constants: S_W = S_C = 32, Coal = 1, Miss_LD = 0.5."""


def bw_per_thread(reg_tx: float, reg_rx: float, n_ld: float, n_st: float) -> tuple[float, float]:
    """(BW_TX, BW_RX) of one thread (Eqs. 1-2), in 4-byte units."""
    return reg_tx - (n_ld + 2 * n_st), reg_rx - (n_ld + n_st / 4)


def _tx_words(reg_tx: float, reg_tx_uniform: float, p: CostParams) -> float:
    """The live-ins' words per warp: ``REG_TX S_W``, or with ``p.uniform_live_ins`` the uniform units once."""
    if p.uniform_live_ins:
        return (reg_tx - reg_tx_uniform) * p.warp_size + reg_tx_uniform
    return reg_tx * p.warp_size


def bw_per_warp(reg_tx: float, reg_rx: float, n_ld: float, n_st: float,
                params: CostParams = DEFAULT_PARAMS, reg_tx_uniform: float = 0) -> tuple[float, float]:
    """(BW_TX, BW_RX) of one warp (Eqs. 3-4), in 4-byte units. ``reg_tx_uniform``: the warp-uniform units
    among ``reg_tx``, counted once per warp when ``params.uniform_live_ins`` (else ignored)."""
    if reg_tx_uniform and not 0 <= reg_tx_uniform <= reg_tx:
        raise ValueError(f"reg_tx_uniform {reg_tx_uniform} outside [0, reg_tx = {reg_tx}]")
    p = params
    tx = _tx_words(reg_tx, reg_tx_uniform, p) - (n_ld * p.coal_ld * p.miss_ld + n_st * (p.warp_size + p.coal_st))
    rx = reg_rx * p.warp_size - (n_ld * p.coal_ld * p.line_over_addr * p.miss_ld + n_st * p.coal_st / 4)
    return tx, rx


def _exact_total(reg_tx: float, reg_rx: float, n_ld: float, n_st: float, p: CostParams,
                 reg_tx_uniform: float = 0) -> Fraction:
    """BW_TX + BW_RX in exact arithmetic (the parameters' binary values, no rounding)."""
    f = Fraction
    w = f(p.warp_size)
    per_ld = f(p.coal_ld) * f(p.miss_ld) * (1 + f(p.line_over_addr))
    per_st = w + f(p.coal_st) + f(p.coal_st) / 4
    u = f(reg_tx_uniform) if p.uniform_live_ins else f(0)
    return (f(reg_tx) - u + f(reg_rx)) * w + u - f(n_ld) * per_ld - f(n_st) * per_st


def min_trips(reg_tx: float, reg_rx: float, n_ld_fixed: float, n_st_fixed: float, n_ld_iter: float,
              n_st_iter: float, params: CostParams = DEFAULT_PARAMS, reg_tx_uniform: float = 0) -> int | None:
    """The smallest trip count ``T >= 1`` with BW_TX + BW_RX < 0 for a block executing
    ``n_ld_fixed + T * n_ld_iter`` loads and ``n_st_fixed + T * n_st_iter`` stores; None if no ``T`` does.

    The total is linear in ``T``, so this is exact: with ``A`` the total at ``T = 0`` and ``B`` its change
    per trip, ``T = floor(-A / B) + 1`` when ``B < 0``. ``reg_tx_uniform`` as in :func:`bw_per_warp`.
    """
    a = _exact_total(reg_tx, reg_rx, n_ld_fixed, n_st_fixed, params, reg_tx_uniform)
    b = _exact_total(0, 0, n_ld_iter, n_st_iter, params)
    if b >= 0:
        return 1 if a + b < 0 else None
    return max(1, math.floor(-a / b) + 1)
