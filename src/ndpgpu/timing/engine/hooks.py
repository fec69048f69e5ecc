"""Compiled hook points: where a near-data mechanism's hardware acts inside the engine.

A mechanism's hardware is a module that names itself (``MECHANISM = "mine"``) and defines compiled functions
named after the hook points it uses (see :data:`HOOK_POINTS` for each one's arguments and result). They are
found, without naming any mechanism here, by :func:`bind`:

* every ``ndpgpu.mechanisms.<m>.hardware`` module (a package with a ``hardware.py``);
* the modules named in the environment variable ``NDPGPU_MECHANISMS`` (comma-separated, for mechanisms
  outside the package: a researcher's own, or the worked example of ``docs/extending.md``);
* the entry points of group ``ndpgpu.mechanisms`` of installed distributions.

Codes follow the sorted mechanism names (1, 2, ...). The engine and the mechanisms compile apart: the core
calls each hook with the address of the attached mechanism's compiled function for that point
(``cfg[C_HK_<POINT>]``, 0 for the point's default, which the dispatcher then returns without a call), and
the dispatcher calls that address with numba's own calling convention (:func:`_caller`). A mechanism's
functions are compiled for the point's fixed argument types (:func:`arg_types`; every array is int64 and
C-contiguous, every other argument an int64) when a session first attaches it (:func:`pointers`), and cached
by numba with their own source stamp; the engine's stamp does not cover them. So an edit to one mechanism's
hardware recompiles that mechanism's hook functions, not the engine, and a new mechanism needs no engine
compile at all (docs/timing.md: how this was chosen and what it costs).

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
import sys
from pathlib import Path
from types import ModuleType

import numba as nb
import numpy as np
from numba import types
from numba.core import cgutils
from numba.core.dispatcher import Dispatcher
from numba.core.errors import NumbaError, TypingError
from numba.extending import intrinsic

from ... import _numba_cache
from ...registry import DuplicateName, Registry, discover, external_mechanisms
from .layout import *  # noqa: F403  (columns and codes: see layout.py)


@dataclasses.dataclass(frozen=True)
class HookPoint:
    """One hook point: its arguments (after the function address the core passes), the result a caller gets
    when no mechanism takes the call (``None``: the hook returns nothing the caller reads), and what it is for."""

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


# every array a hook point takes, by argument name: its dimensions (int64 and C-contiguous, as the session and
# the launch allocate them); every other argument is an int64
ARRAY_DIMS: dict[str, int] = {
    "cfg": 1, "clk": 2, "g": 1, "wake": 1, "mx": 1, "ctr": 1, "clst": 1, "ld_free": 1, "rq_free": 1,
    "txl": 1, "txs": 1, "pre_lines": 1, "seg": 2, "rec": 2, "pct": 2, "regrdy": 2, "wt": 2, "smt": 2, "subt": 2,
    "ctat": 2, "ldo": 2, "l1t": 2, "l1m": 2, "l1w": 2, "rq": 2, "qb": 2, "qm": 2, "l2t": 2, "chs": 2, "mapd": 2,
    "mrange": 2, "smst": 2, "pcst": 2, "prst": 2, "ufree": 3,
}


def arg_names(point: str) -> list[str]:
    """The arguments of hook point ``point`` (after the function address the core passes)."""
    return [a.strip() for a in HOOK_POINTS[point].args.split(",") if a.strip()]


def arg_types(point: str) -> tuple[types.Type, ...]:
    """The numba types a mechanism's function for ``point`` is compiled for (what every caller passes)."""
    return tuple(types.Array(types.int64, ARRAY_DIMS[a], "C") if a in ARRAY_DIMS else types.int64
                 for a in arg_names(point))


def result_type(point: str) -> types.Type:
    """What a mechanism's function for ``point`` returns: int64, or nothing when the point has no result."""
    return types.int64 if HOOK_POINTS[point].default is not None else types.none


def _caller(point: str):
    """A compiled call of ``point``'s function at a run-time address, with numba's calling convention (the
    function's status and exception are passed on as a direct call's are). Arrays must arrive with exactly
    the declared type (the call would misread anything else); integer scalars are converted to int64."""
    want = arg_types(point)
    result = result_type(point)

    def codegen(context, builder, signature, llargs):
        fnty = context.call_conv.get_function_type(result, list(want))
        fn = builder.inttoptr(llargs[0], fnty.as_pointer())
        status, value = context.call_conv.call_function(builder, fn, result, list(want), list(llargs[1:]))
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        return value if result != types.none else context.get_dummy_value()

    def typer(args):
        for name, got, declared in zip(arg_names(point), args, want, strict=True):
            ok = got == declared if isinstance(declared, types.Array) else isinstance(
                types.unliteral(got), (types.Integer, types.Boolean))
            if not ok:
                raise TypingError(f"hook {point}: argument {name} is {got}, declared {declared} "
                                  "(engine/hooks.py ARRAY_DIMS)")
        return result(types.int64, *want), codegen

    # an intrinsic's typer names its arguments (numba's intrinsics take no *args)
    names = ", ".join(arg_names(point))
    space: dict = {"typer": typer}
    exec(f"def call(typingctx, address, {names}):\n    return typer(({names},))\n", space)  # noqa: S102
    return intrinsic(space["call"])


def _generate() -> None:
    """Define, from :data:`HOOK_POINTS`, each point's default (``_default_<point>``: the result a caller gets when
    no mechanism takes the call), its address call (``_call_<point>``) and its dispatcher (``<point>(address,
    ...)``: the default when the address is 0, else the call). Generated functions are compiled into their
    callers, whose numba cache (stamped with this file) holds them."""
    for point, hp in HOOK_POINTS.items():
        body = f"    return {hp.default}" if hp.default is not None else "    return 0"
        exec(f"def _default_{point}({hp.args}):\n{body}\n", globals())  # noqa: S102
        # the generated name (address) is no hook argument's
        assert "address" not in arg_names(point)
        globals()[f"_call_{point}"] = _caller(point)
        if hp.default is not None:
            lines = [f"def {point}(address, {hp.args}):",
                     "    if address == 0:",
                     f"        return {hp.default}",
                     f"    return _call_{point}(address, {hp.args})"]
        else:
            lines = [f"def {point}(address, {hp.args}):",
                     "    if address != 0:",
                     f"        _call_{point}(address, {hp.args})"]
        exec("\n".join(lines) + "\n", globals())  # noqa: S102
        globals()[f"_default_{point}"] = _generated(globals()[f"_default_{point}"])
        globals()[point] = _generated(globals()[point])


_generated = nb.njit(_nrt=False)  # not cached on their own: they have no source file; their callers are


def hook_table_markdown() -> str:
    """The hook points as the markdown table docs/extending.md shows (checked by a test)."""
    rows = ["| hook | arguments | with no mechanism | what it is for |",
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


def _engine_files() -> list[str]:
    """The engine's source files: what a hardware module outside the package may compile into its functions."""
    return sorted(str(p) for p in Path(__file__).resolve().parent.glob("*.py"))


def _load() -> dict[str, ModuleType]:
    """Every mechanism's hardware module by name: ``ndpgpu.mechanisms.<m>.hardware`` (by package), then the
    external ones; a name used twice is refused.

    A module of the package is stamped with its own import closure (engine files included) by
    :mod:`ndpgpu._numba_cache`; an external one is given the engine's files as dependencies before it is
    imported (numba takes a function's stamp as it is decorated), so an engine edit recompiles it too."""
    found: Registry[ModuleType] = Registry("mechanism hardware", plural="mechanism hardware modules",
                                           error=MechanismHardwareError)
    modules = discover("ndpgpu.mechanisms", "hardware")
    for name in dict.fromkeys(_external()):
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            spec = None
        if spec is not None and spec.origin and name not in sys.modules:
            _numba_cache.add_dependencies(spec.origin, _engine_files())
        modules.append(importlib.import_module(name))
    for mod in modules:
        try:
            found.register(_check(mod), mod)
        except DuplicateName as exc:
            raise MechanismHardwareError(str(exc)) from None
    return dict(found.items())


MECHANISMS: dict[str, ModuleType] = {}  # filled by bind()
CODES: dict[str, int] = {}
# (mechanism, point) -> (address, the compile result that keeps its code alive)
_COMPILED: dict[tuple[str, str], tuple[int, object]] = {}
# the engine's cfg columns of the hook addresses, one per point in HOOK_POINTS' order, contiguous
FIRST_COLUMN = globals()["C_HK_DECIDE"]
assert [globals()[f"C_HK_{p.upper()}"] for p in HOOK_POINTS] == list(range(FIRST_COLUMN,
                                                                            FIRST_COLUMN + len(HOOK_POINTS)))


def bind() -> None:
    """Find the mechanisms' hardware and number them (once). Nothing compiles here: :func:`pointers` compiles a
    mechanism's functions when a session first runs it."""
    if MECHANISMS:
        return
    MECHANISMS.update(_load())
    CODES.update({name: i + 1 for i, name in enumerate(MECHANISMS)})


def _address(name: str, point: str) -> int:
    """The address of mechanism ``name``'s compiled function for ``point``, compiled (or loaded from numba's
    cache) on first use."""
    key = (name, point)
    if key not in _COMPILED:
        mod = MECHANISMS[name]
        fn = getattr(mod, point)
        where = f"{mod.__name__}.{point}"
        if not isinstance(fn, Dispatcher):
            raise MechanismHardwareError(f"{where}: a hook function is compiled with numba (engine.layout.njit)")
        sig = arg_types(point)
        try:
            if result_type(point) == types.none:
                fn.compile(sig)
                if fn.overloads[sig].signature.return_type != types.none:
                    fn = _discarding(fn, point)  # the engine reads no result: a wrapper drops it
                    fn.compile(sig)
            else:
                fn.compile(types.int64(*sig))  # an integer or bool result is converted to int64
        except (NumbaError, TypeError) as exc:  # TypeError: a signature of the wrong length
            raise MechanismHardwareError(f"{where} does not compile for hook point {point!r} (arguments "
                                         f"{HOOK_POINTS[point].args}; arrays int64): {exc}") from exc
        cres = fn.overloads[sig]
        got = cres.signature.return_type
        if got != result_type(point):
            want = ("an int64" if result_type(point) == types.int64
                    else "nothing (it reads no result: return without a value)")
            raise MechanismHardwareError(f"{where} returns {got}; hook point {point!r} takes {want}")
        _COMPILED[key] = (cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name), cres)
    return _COMPILED[key][0]


def _discarding(fn: Dispatcher, point: str) -> Dispatcher:
    """A compiled function of ``point``'s arguments that calls ``fn`` and returns nothing (not cached: it is a
    one-line call of ``fn``, whose own code is)."""
    names = ", ".join(arg_names(point))
    space: dict = {"fn": fn}
    exec(f"def discard({names}):\n    fn({names})\n", space)  # noqa: S102
    return nb.njit(_nrt=False)(space["discard"])


def pointers(name: str | None) -> np.ndarray:
    """The cfg values of the hook columns for mechanism ``name`` (None: no mechanism): per point, in
    :data:`HOOK_POINTS`' order from ``C_HK_DECIDE``, the address of its compiled function, 0 where it uses the
    default. Compiles the mechanism's functions the first time in a process (or loads them from numba's
    cache); addresses are valid in this process only, so a session sets them for a run and clears them after."""
    out = np.zeros(len(HOOK_POINTS), np.int64)
    if name is None:
        return out
    bind()
    if name not in MECHANISMS:
        raise MechanismHardwareError(f"no hardware module for mechanism {name!r}; found: {', '.join(CODES) or 'none'}")
    declared = getattr(MECHANISMS[name], "HOOKS", ())
    for i, point in enumerate(HOOK_POINTS):
        if point in declared:
            out[i] = _address(name, point)
    return out


def code_of(name: str) -> int:
    """The mechanism code of ``name`` (its hardware must have been found)."""
    bind()
    if name not in CODES:
        raise MechanismHardwareError(f"no hardware module for mechanism {name!r}; found: {', '.join(CODES) or 'none'}")
    return CODES[name]


_generate()
