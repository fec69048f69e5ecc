"""Compiled hook points: where a near-data mechanism's hardware acts inside the engine.

The core calls each hook with the session's mechanism code (``cfg[C_MECH]``, 0 when none is attached);
the hook runs the compiled function of that mechanism, or the default below. A mechanism's hardware is a
module that names itself (``MECHANISM = "mine"``) and defines compiled functions named after the hook
points it uses (see :data:`HOOK_POINTS` for each one's arguments and result). They are found, without
naming any mechanism here, by :func:`bind` (called when the engine is first used, before it compiles):

* every ``ndpgpu.mechanisms.<m>.hardware`` module (a package with a ``hardware.py``);
* the modules named in the environment variable ``NDPGPU_MECHANISMS`` (comma-separated, for mechanisms
  outside the package: a researcher's own, or the worked example of ``docs/extending.md``);
* the entry points of group ``ndpgpu.mechanisms`` of installed distributions.

Codes follow the sorted mechanism names (1, 2, ...). Dispatch is a compile-time unrolled chain over a
tuple of compiled functions, so a hook costs a compare per registered mechanism and the mechanism's
function is inlined into the caller by LLVM like any other callee (docs/timing.md compares this with
first-class function arguments). The compiled engine's cache stamp covers the hardware modules found, so
an edit to a mechanism, or a different set of mechanisms, recompiles the engine.

A warp slot carries three columns for mechanisms: ``W_MX`` (the mechanism's per-warp value; the
``decide`` hook is asked only while it is >= 0), ``W_DIVERT`` (set by the core when ``decide`` returns 0:
the warp's next stretch runs elsewhere and ``divert`` sends it) and ``W_HOST`` (>= 0 for a *guest* warp
a mechanism started on an SM on behalf of the warp slot it names). A mechanism's state is one int64
vector ``mx`` per launch, laid out by the mechanism (counters included).
"""

from __future__ import annotations

import importlib
import os
import warnings
from types import ModuleType

from numba import literal_unroll
from numba.core.errors import NumbaExperimentalFeatureWarning

from ... import _numba_cache
from ...registry import DuplicateName, Registry, discover
from .layout import *  # noqa: F403  (columns and codes: see layout.py)

# hook point -> (arguments after the mechanism code, result)
HOOK_POINTS: dict[str, tuple[str, str]] = {
    "decide": ("slot, now, wt, chs, mx",
               "a warp with W_MX >= 0 is about to issue: -1 go on, 0 divert its next stretch (the core waits for "
               "its pending memory operations, then calls divert), > 0 go on (the mechanism declined)"),
    "divert": ("sm, slot, now, k, cfg, clk, wt, chs, wake, mx",
               "send warp ``slot``'s stretch elsewhere (the warp's stream position and READY are the hook's)"),
    "guest_issued": ("slot, mask, wt, mx", "a guest warp (W_HOST >= 0) issued an instruction with active ``mask``"),
    "guest_done": ("sm, slot, now, k, cfg, clk, wt, subt, chs, l1t, l2t, mapd, mrange, wake, mx",
                   "a guest warp drained; acknowledge its host warp"),
    "sm_tick": ("sm, now, k, cfg, clk, wt, regrdy, smt, subt, l1t, g, mx",
                "an SM's tick begins: start guest warps; returns the SM's next wake time for them (INF: none)"),
    "warp_start": ("gwarp, mx", "a GPU warp starts: its W_MX value (-1: the mechanism ignores it)"),
    "cta_start": ("sm, cta, cslot, now, k, cfg, ctat, smt, mx",
                  "CTA ``cta`` was placed on SM ``sm`` in slot ``cslot`` (its warps start after the launch latency)"),
    "l2_request": ("slice, kind, line, now, mx",
                   "an L2 slice accepted a request of packet kind ``kind`` for ``line`` (requests of stack SMs "
                   "included: they pass the L2 by)"),
    "prefetch": ("sm, pc, line, d, now, mx",
                 "a cacheable access of instruction ``pc`` missed in SM ``sm``'s L1 on ``line`` (a new miss): the "
                 "d-th line to prefetch for it, or -1 (asked for d = 0, 1, ... until -1 or MAX_MECH_PREFETCH; the "
                 "core issues each as the next-line prefetcher does, and stops when the L1 is full)"),
    "dram_command": ("channel, cmd, bank, row, k, mx",
                     "a DRAM channel issued command ``cmd`` (CMD_ACT, CMD_PRE, CMD_RD, CMD_WR, CMD_REF) at its "
                     "cycle ``k``"),
}


@njit
def _default_decide(slot, now, wt, chs, mx):
    return -1


@njit
def _default_divert(sm, slot, now, k, cfg, clk, wt, chs, wake, mx):
    return 0


@njit
def _default_guest_issued(slot, mask, wt, mx):
    return 0


@njit
def _default_guest_done(sm, slot, now, k, cfg, clk, wt, subt, chs, l1t, l2t, mapd, mrange, wake, mx):
    return 0


@njit
def _default_sm_tick(sm, now, k, cfg, clk, wt, regrdy, smt, subt, l1t, g, mx):
    return INF


@njit
def _default_warp_start(gwarp, mx):
    return -1


@njit
def _default_cta_start(sm, cta, cslot, now, k, cfg, ctat, smt, mx):
    return 0


@njit
def _default_l2_request(slice, kind, line, now, mx):
    return 0


@njit
def _default_dram_command(channel, cmd, bank, row, k, mx):
    return 0


@njit
def _default_prefetch(sm, pc, line, d, now, mx):
    return -1


class MechanismHardwareError(ImportError):
    """A mechanism's hardware module is malformed (no name, a duplicate name, an unknown hook)."""


def _external() -> list[str]:
    """Hardware modules named outside the package: ``NDPGPU_MECHANISMS`` and ``ndpgpu.mechanisms`` entry points."""
    names = [m.strip() for m in os.environ.get("NDPGPU_MECHANISMS", "").split(",") if m.strip()]
    try:
        from importlib.metadata import entry_points

        names += [ep.value for ep in entry_points(group="ndpgpu.mechanisms")]
    except Exception:  # noqa: BLE001  (a broken distribution's metadata must not stop the engine)
        pass
    return names


def _check(mod: ModuleType) -> str:
    if getattr(mod.__spec__, "_initializing", False):
        raise MechanismHardwareError(
            f"{mod.__name__} is still being imported while the engine's hooks load it: a hardware module imports "
            f"engine.layout and the component modules it calls, not engine.issue, dispatch, loop or hooks")
    name = getattr(mod, "MECHANISM", None)
    if not isinstance(name, str) or not name:
        raise MechanismHardwareError(f"{mod.__name__}: a mechanism's hardware module names itself "
                                     "(MECHANISM = '...')")
    unknown = [a for a in getattr(mod, "HOOKS", ()) if a not in HOOK_POINTS]
    if unknown:
        raise MechanismHardwareError(f"{mod.__name__}: unknown hook points {unknown}; valid: {', '.join(HOOK_POINTS)}")
    return name


def _load() -> dict[str, ModuleType]:
    """Every mechanism's hardware module by name: ``ndpgpu.mechanisms.<m>.hardware`` (by package), then the
    external ones; a name used twice is refused."""
    found: Registry[ModuleType] = Registry("mechanism hardware", plural="mechanism hardware modules",
                                           error=MechanismHardwareError)
    modules = discover("ndpgpu.mechanisms", "hardware")
    modules += [importlib.import_module(m) for m in dict.fromkeys(_external())]
    for mod in modules:
        try:
            found.register(_check(mod), mod)
        except DuplicateName as exc:
            raise MechanismHardwareError(str(exc)) from None
    return dict(found.items())


MECHANISMS: dict[str, ModuleType] = {}  # filled by bind()
CODES: dict[str, int] = {}
# the dispatch tables; None until bind(), so that a hook compiled before it fails loudly
_DECIDE = _DIVERT = _GUEST_ISSUED = _GUEST_DONE = _SM_TICK = _WARP_START = None
_CTA_START = _L2_REQUEST = _DRAM_COMMAND = _PREFETCH = None


def _table(point: str) -> tuple:
    default = globals()[f"_default_{point}"]
    return (default, *[getattr(m, point, default) for m in MECHANISMS.values()])


def bind() -> None:
    """Find the mechanisms' hardware and fill the dispatch tables (once; before anything compiles).

    ``ndpgpu.timing.engine`` calls it when a component is first used through the package, and a session
    when it starts; the component modules themselves do not, so a hardware module can import them."""
    if MECHANISMS or globals()["_DECIDE"] is not None:
        return
    MECHANISMS.update(_load())
    CODES.update({name: i + 1 for i, name in enumerate(MECHANISMS)})
    _numba_cache.add_dependencies(__file__, [m.__file__ for m in MECHANISMS.values() if m.__file__])
    for point in HOOK_POINTS:
        globals()[f"_{point.upper()}"] = _table(point)


warnings.filterwarnings("ignore", message="First-class function type feature is experimental",
                        category=NumbaExperimentalFeatureWarning)


def code_of(name: str) -> int:
    """The mechanism code of ``name`` (its hardware must have been found)."""
    bind()
    if name not in CODES:
        raise MechanismHardwareError(f"no hardware module for mechanism {name!r}; found: {', '.join(CODES) or 'none'}")
    return CODES[name]


@njit
def decide(code, slot, now, wt, chs, mx):
    r = -1
    i = 0
    for f in literal_unroll(_DECIDE):
        if i == code:
            r = f(slot, now, wt, chs, mx)
        i += 1
    return r


@njit
def divert(code, sm, slot, now, k, cfg, clk, wt, chs, wake, mx):
    i = 0
    for f in literal_unroll(_DIVERT):
        if i == code:
            f(sm, slot, now, k, cfg, clk, wt, chs, wake, mx)
        i += 1


@njit
def guest_issued(code, slot, mask, wt, mx):
    i = 0
    for f in literal_unroll(_GUEST_ISSUED):
        if i == code:
            f(slot, mask, wt, mx)
        i += 1


@njit
def guest_done(code, sm, slot, now, k, cfg, clk, wt, subt, chs, l1t, l2t, mapd, mrange, wake, mx):
    i = 0
    for f in literal_unroll(_GUEST_DONE):
        if i == code:
            f(sm, slot, now, k, cfg, clk, wt, subt, chs, l1t, l2t, mapd, mrange, wake, mx)
        i += 1


@njit
def sm_tick(code, sm, now, k, cfg, clk, wt, regrdy, smt, subt, l1t, g, mx):
    r = INF
    i = 0
    for f in literal_unroll(_SM_TICK):
        if i == code:
            r = f(sm, now, k, cfg, clk, wt, regrdy, smt, subt, l1t, g, mx)
        i += 1
    return r


@njit
def warp_start(code, gwarp, mx):
    r = -1
    i = 0
    for f in literal_unroll(_WARP_START):
        if i == code:
            r = f(gwarp, mx)
        i += 1
    return r


@njit
def cta_start(code, sm, cta, cslot, now, k, cfg, ctat, smt, mx):
    i = 0
    for f in literal_unroll(_CTA_START):
        if i == code:
            f(sm, cta, cslot, now, k, cfg, ctat, smt, mx)
        i += 1


@njit
def l2_request(code, slice, kind, line, now, mx):
    i = 0
    for f in literal_unroll(_L2_REQUEST):
        if i == code:
            f(slice, kind, line, now, mx)
        i += 1


@njit
def dram_command(code, channel, cmd, bank, row, k, mx):
    i = 0
    for f in literal_unroll(_DRAM_COMMAND):
        if i == code:
            f(channel, cmd, bank, row, k, mx)
        i += 1


@njit
def prefetch(code, sm, pc, line, d, now, mx):
    r = -1
    i = 0
    for f in literal_unroll(_PREFETCH):
        if i == code:
            r = f(sm, pc, line, d, now, mx)
        i += 1
    return r
