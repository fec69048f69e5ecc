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

import dataclasses
import importlib
import importlib.util
import warnings
from pathlib import Path
from types import ModuleType

import numba as nb
from numba import literal_unroll  # noqa: F401  (the generated dispatchers use it)
from numba.core.errors import NumbaExperimentalFeatureWarning

from ... import _numba_cache
from ...registry import DuplicateName, Registry, discover, external_mechanisms
from .layout import *  # noqa: F403  (columns and codes: see layout.py)


@dataclasses.dataclass(frozen=True)
class HookPoint:
    """One hook point: its arguments after the mechanism code, the result a caller gets when no mechanism takes
    the call (``None``: the hook returns nothing the caller reads), and what it is for."""

    args: str
    default: str | None
    doc: str


# every hook point, declared once: the defaults, the dispatchers, the docs' table (docs/extending.md) and the
# hardware modules' checks all come from here
HOOK_POINTS: dict[str, HookPoint] = {
    "decide": HookPoint(
        "slot, now, wt, chs, mx",
        "-1",
        "a warp with W_MX >= 0 is about to issue: -1 go on, 0 divert its next stretch (the core waits for "
        "its pending loads, the stretch's live-ins, then calls divert), -3 not yet (the warp stalls on "
        "memory for a few cycles and is asked again), > 0 go on (the mechanism declined), -2 the warp waits "
        "(READY = INF) until the mechanism wakes it"),
    "divert": HookPoint(
        "sm, slot, now, k, cfg, clk, wt, chs, wake, mx",
        None,
        "send warp ``slot``'s stretch elsewhere (the warp's stream position and READY are the hook's)"),
    "guest_issued": HookPoint(
        "slot, mask, wt, mx",
        None,
        "a guest warp (W_HOST >= 0) issued an instruction with active ``mask``"),
    "guest_done": HookPoint(
        "sm, slot, now, k, cfg, clk, wt, subt, chs, l1t, l2t, mapd, mrange, wake, mx",
        None,
        "a guest warp drained; acknowledge its host warp"),
    "sm_tick": HookPoint(
        "sm, now, k, cfg, clk, wt, regrdy, smt, subt, l1t, g, mx",
        "INF",
        "an SM's tick begins: start guest warps; returns the SM's next wake time for them (INF: none)"),
    "warp_start": HookPoint(
        "gwarp, mx",
        "-1",
        "a GPU warp starts: its W_MX value (-1: the mechanism ignores it)"),
    "cta_start": HookPoint(
        "sm, cta, cslot, now, k, cfg, ctat, smt, mx",
        None,
        "CTA ``cta`` was placed on SM ``sm`` in slot ``cslot`` (its warps start after the launch latency)"),
    "l2_request": HookPoint(
        "slice, kind, line, now, mx",
        None,
        "an L2 slice accepted a request of packet kind ``kind`` for ``line`` (requests of stack SMs "
        "included: they pass the L2 by)"),
    "prefetch": HookPoint(
        "sm, pc, line, d, now, mx",
        "-1",
        "a cacheable access of instruction ``pc`` missed in SM ``sm``'s L1 on ``line`` (a new miss): the "
        "d-th line to prefetch for it, or -1 (asked for d = 0, 1, ... until -1 or MAX_MECH_PREFETCH; the "
        "core issues each as the next-line prefetcher does, and stops when the L1 is full)"),
    "l1_access": HookPoint(
        "sm, slot, pc, line, hit, d, now, mx",
        "-1",
        "warp ``slot``'s cacheable global or local load of instruction ``pc`` looked up ``line`` in SM "
        "``sm``'s L1 (``hit`` 1: a hit, 0: a miss, new or merged): the d-th line to prefetch for it, or -1 "
        "(asked for d = 0, 1, ... as ``prefetch``, on hits too)"),
    "dram_command": HookPoint(
        "channel, cmd, bank, row, k, mx",
        None,
        "a DRAM channel issued command ``cmd`` (CMD_ACT, CMD_PRE, CMD_RD, CMD_WR, CMD_REF) at its cycle "
        "``k``"),
    "intercept": HookPoint(
        "sm, slot, pc, now, k, cfg, clk, rec, txl, txs, wt, smt, l1t, mapd, mrange, mx",
        "0",
        "a warp with W_MX >= 0 issues the instruction at ``pc`` (a memory instruction only when the SM's LD/ST "
        "port is free: the hook may occupy it through ``smt[sm, S_LDST_FREE]``): 0 the core executes it, 1 the "
        "mechanism took it (the core counts it as issued and moves the warp on), 2 took it and the warp waits "
        "until the mechanism wakes it"),
    "core_service": HookPoint(
        "sm, now, k, cfg, clk, ufree, wt, subt, smt, rq, rq_free, qb, qm, wake, g, mapd, mrange, mx",
        "INF",
        "an SM's tick, after its own issue and LD/ST work (its idle units are the mechanism's): returns the "
        "SM's next wake time for the mechanism (INF: none)"),
    "sm_receive": HookPoint(
        "sm, r, now, k, cfg, clk, wt, subt, smt, rq, rq_free, g, mx",
        None,
        "packet ``r`` of a mechanism kind (>= PK_MECH) reached SM ``sm``: the hook consumes it (releases or "
        "reuses ``r``)"),
    "l2_serve": HookPoint(
        "slice, r, now, k, cfg, clk, rq, rq_free, g, mx",
        None,
        "packet ``r`` of a mechanism kind (>= PK_MECH) is at the head of an L2 slice's input queue: the "
        "hook consumes it (releases or reuses ``r``)"),
    "l2_deliver": HookPoint(
        "slice, r, ready, now, cfg, rq, rq_free, g, mx",
        "0",
        "an L2 slice's reply to a mechanism's request (R_MXD >= 0) is ready at ``ready``: 1 the hook "
        "consumed it, 0 it goes on the reply network (the hook may set R_KIND, R_SRC, R_DEST)"),
    "slice_tick": HookPoint(
        "slice, now, k, cfg, clk, ufree, rq, rq_free, qb, qm, wake, g, mapd, mrange, mx",
        "INF",
        "an L2 slice's tick, after its own work: returns the slice's next wake time for the mechanism"),
    "core_receive": HookPoint(
        "sm, now, k, cfg, clk, wt, regrdy, smt, subt, ldo, ld_free, rq, rq_free, qb, qm, g, ctr, pcst, mx",
        "0",
        "on a machine whose cores are the mechanism's (``core.model``: its name; cfg[C_CORE_MODEL] its code), "
        "the first step of core ``sm``'s tick, before the engine's warp schedulers: what arrives (replies, "
        "loads whose data is all in); 1 when anything moved, else 0"),
    "core_check": HookPoint(
        "sm, sub, slot, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree, smt, g, mx",
        "0",
        "the engine's scheduler of sub-core ``sub`` of a mechanism's core asks whether warp ``slot`` (ready by "
        "its READY time) can issue its next instruction now: 0 yes, else 1 + the stall reason (R_*), with the "
        "warp's READY set to when to ask again"),
    "core_issue": HookPoint(
        "sm, sub, slot, now, k, cfg, clk, seg, rec, pct, wt, regrdy, ufree, smt, subt, ctat, ldo, ld_free, g, "
        "ctr, smst, pcst, clst, mx",
        None,
        "issue warp ``slot``'s next instruction on a mechanism's core (``core_check`` said it can): execute it, "
        "count it and move the warp on"),
    "core_tick": HookPoint(
        "sm, now, k, cfg, clk, seg, rec, pct, txl, txs, wt, regrdy, ufree, smt, subt, ctat, ldo, ld_free, "
        "rq, rq_free, l1t, l1m, l1w, qb, qm, wake, g, ctr, smst, pcst, clst, prst, mapd, mrange, pre_lines, "
        "mx, chs, l2t",
        None,
        "the rest of a mechanism's core ``sm``'s tick, after the engine's warp schedulers issued through "
        "``core_check`` / ``core_issue``: what the core sends this cycle, its drained warps' retirement, and "
        "its next wake time (``wake[sm]``)"),
    "fetched": HookPoint(
        "sm, slot, pc, n, mx",
        "-1",
        "the fetch stage (``core.ibuffer`` > 0) decoded warp ``slot``'s instructions ``pc`` .. ``pc + n - "
        "1``: 1 the warp takes the SM's fetch priority, 0 it gives it up, -1 no change"),
}


def _generate() -> None:
    """Define, from :data:`HOOK_POINTS`, each point's default (``_default_<point>``: the result a caller gets when
    no mechanism takes the call) and its dispatcher (``<point>(code, ...)``: a compile-time unrolled chain over
    the point's table, filled by :func:`bind`). Generated functions are compiled into their callers, whose
    numba cache (stamped with this file) holds them."""
    for point, hp in HOOK_POINTS.items():
        body = f"    return {hp.default}" if hp.default is not None else "    return 0"
        exec(f"def _default_{point}({hp.args}):\n{body}\n", globals())  # noqa: S102
        # the generated names (hook_result, hook_index, hook_fn) are no hook argument's (l2_deliver takes an ``r``)
        assert not {"code", "hook_result", "hook_index", "hook_fn"} & {a.strip() for a in hp.args.split(",")}
        take = "hook_result = hook_fn" if hp.default is not None else "hook_fn"
        lines = [f"def {point}(code, {hp.args}):",
                 *([f"    hook_result = {hp.default}"] if hp.default is not None else []),
                 "    hook_index = 0",
                 f"    for hook_fn in literal_unroll(_{point.upper()}):",
                 "        if hook_index == code:",
                 f"            {take}({hp.args})",
                 "        hook_index += 1",
                 *(["    return hook_result"] if hp.default is not None else [])]
        exec("\n".join(lines) + "\n", globals())  # noqa: S102
        globals()[f"_default_{point}"] = _generated(globals()[f"_default_{point}"])
        globals()[point] = _generated(globals()[point])


_generated = nb.njit(_nrt=False)  # not cached on their own: they have no source file; their callers are


def hook_table_markdown() -> str:
    """The hook points as the markdown table docs/extending.md shows (checked by a test)."""
    rows = ["| hook | arguments after the mechanism code | with no mechanism | what it is for |",
            "| --- | --- | --- | --- |"]
    for point, hp in HOOK_POINTS.items():
        rows.append(f"| `{point}` | `{hp.args}` | {hp.default if hp.default is not None else 'nothing'} | "
                    f"{hp.doc.replace('|', '/').replace('``', '`')} |")
    return "\n".join(rows)


class MechanismHardwareError(ImportError):
    """A mechanism's hardware module is malformed (no name, a duplicate name, an unknown hook)."""


def _external() -> list[str]:
    """Hardware modules named outside the package: ``NDPGPU_MECHANISMS`` and ``ndpgpu.mechanisms`` entry points."""
    return external_mechanisms()


def _check(mod: ModuleType) -> str:
    if getattr(mod.__spec__, "_initializing", False):
        raise MechanismHardwareError(
            f"{mod.__name__} is still being imported while the engine's hooks load it: a hardware module imports "
            f"engine.layout and the component modules it calls, not engine.issue, dispatch, loop or hooks")
    name = getattr(mod, "MECHANISM", None)
    if not isinstance(name, str) or not name:
        raise MechanismHardwareError(f"{mod.__name__}: a mechanism's hardware module names itself "
                                     "(MECHANISM = '...')")
    declared = getattr(mod, "HOOKS", ())
    unknown = [a for a in declared if a not in HOOK_POINTS]
    if unknown:
        raise MechanismHardwareError(f"{mod.__name__}: unknown hook points {unknown}; valid: {', '.join(HOOK_POINTS)}")
    undeclared = [p for p in HOOK_POINTS if p not in declared and callable(getattr(mod, p, None))]
    if undeclared:  # a helper named like a hook point would otherwise be called as that hook
        raise MechanismHardwareError(f"{mod.__name__}: functions {undeclared} are named after hook points but not "
                                     "listed in HOOKS: list them, or rename the helpers")
    return name


def hardware_files() -> list[str]:
    """The files of every mechanism hardware module :func:`bind` will load, found without importing them.

    The compiled engine's cache stamp must cover them from the moment the first engine module is compiled
    or loaded, which happens as modules are imported, before :func:`bind` imports the hardware (itself
    importing engine modules): so this module registers them when it is imported."""
    files = sorted(str(p) for p in Path(__file__).resolve().parents[2].glob("mechanisms/*/hardware.py"))
    for name in _external():
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is not None and spec.origin:
            files.append(spec.origin)
    return files


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
_CTA_START = _L2_REQUEST = _DRAM_COMMAND = _PREFETCH = _L1_ACCESS = None
_INTERCEPT = _CORE_SERVICE = _SM_RECEIVE = _L2_SERVE = _L2_DELIVER = _SLICE_TICK = _FETCHED = _CORE_TICK = None
_CORE_RECEIVE = _CORE_CHECK = _CORE_ISSUE = None


def _table(point: str) -> tuple:
    default = globals()[f"_default_{point}"]
    return (default, *[getattr(m, point) if point in getattr(m, "HOOKS", ()) else default
                       for m in MECHANISMS.values()])


def bind() -> None:
    """Find the mechanisms' hardware and fill the dispatch tables (once; before anything compiles).

    ``ndpgpu.timing.engine`` calls it when a component is first used through the package, and a session
    when it starts; the component modules themselves do not, so a hardware module can import them."""
    if MECHANISMS or globals()["_DECIDE"] is not None:
        return
    MECHANISMS.update(_load())
    CODES.update({name: i + 1 for i, name in enumerate(MECHANISMS)})
    loaded = sorted({*_REGISTERED, *(m.__file__ for m in MECHANISMS.values() if m.__file__)})
    if loaded != _REGISTERED:  # (a module found only by importing it: stamps computed before now missed it)
        _numba_cache.add_dependencies(__file__, loaded)
    for point in HOOK_POINTS:
        globals()[f"_{point.upper()}"] = _table(point)


_REGISTERED = sorted(hardware_files())
_numba_cache.add_dependencies(__file__, _REGISTERED)

warnings.filterwarnings("ignore", message="First-class function type feature is experimental",
                        category=NumbaExperimentalFeatureWarning)


def code_of(name: str) -> int:
    """The mechanism code of ``name`` (its hardware must have been found)."""
    bind()
    if name not in CODES:
        raise MechanismHardwareError(f"no hardware module for mechanism {name!r}; found: {', '.join(CODES) or 'none'}")
    return CODES[name]


_generate()
