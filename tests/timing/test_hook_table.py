"""The hook points are declared once (``HOOK_POINTS``): docs/extending.md's table is the one generated from it, and
every point has a generated default and dispatcher."""

from __future__ import annotations

import inspect
import types
from pathlib import Path

import numba as nb
import numpy as np
import pytest

from ndpgpu.timing.engine import hooks

DOC = Path(__file__).resolve().parents[2] / "docs" / "extending.md"


def test_the_docs_table_is_generated_from_the_declarations():
    text = DOC.read_text()
    start = text.index("<!-- hook table:")
    body = text[text.index("\n", start) + 1:text.index("<!-- end of hook table -->")].strip()
    assert body == hooks.hook_table_markdown()
    assert body.count("\n| `") == len(hooks.HOOK_POINTS) == 22


def test_each_point_has_a_default_and_a_dispatcher_with_its_declared_arguments():
    for point, hp in hooks.HOOK_POINTS.items():
        declared = [a.strip() for a in hp.args.split(",")]
        default = getattr(hooks, f"_default_{point}").py_func
        dispatcher = getattr(hooks, point).py_func
        assert list(inspect.signature(default).parameters) == declared == hooks.arg_names(point)
        assert list(inspect.signature(dispatcher).parameters) == ["address", *declared]
        assert len(hooks.arg_types(point)) == len(declared)
        if hp.default is not None:  # what a caller gets with no mechanism attached
            assert default(*range(len(declared))) == eval(hp.default, vars(hooks))  # noqa: S307


def _caller_of(point):
    """A compiled function that calls ``point``'s dispatcher (as the engine does) with the arguments it is given."""
    names = ", ".join(hooks.arg_names(point))
    space: dict = {}
    exec(f"def caller(address, {names}):\n    return dispatch(address, {names})\n",  # noqa: S102
         {"dispatch": getattr(hooks, point)}, space)
    return nb.njit(space["caller"])


def _probe_and_caller(point):
    """A mechanism function for ``point`` that writes each argument's first element (arrays) or value (scalars)
    into ``mx`` (at 1 + the argument's position) and returns 7, and a compiled caller of the point's
    dispatcher."""
    names = hooks.arg_names(point)
    first = [f"{a}[{', '.join(['0'] * hooks.ARRAY_DIMS[a])}]" if a in hooks.ARRAY_DIMS else a for a in names]
    body = "".join(f"    mx[{i + 1}] = {v}\n" for i, (a, v) in enumerate(zip(names, first, strict=True)) if a != "mx")
    ret = "    return 7\n" if hooks.HOOK_POINTS[point].default is not None else ""
    space: dict = {}
    exec(f"def probe({', '.join(names)}):\n{body}{ret}", space)  # noqa: S102
    exec(f"def caller(address, {', '.join(names)}):\n"  # noqa: S102
         f"    return dispatch(address, {', '.join(names)})\n", {"dispatch": getattr(hooks, point)}, space)
    return nb.njit(space["probe"]), nb.njit(space["caller"])


@pytest.mark.parametrize("point", ["decide", "divert", "l2_deliver", "core_tick"])
def test_a_dispatcher_passes_every_argument_to_the_function_at_its_address(point):
    """The engine calls a mechanism's separately compiled function through its address: every argument arrives
    as passed (``l2_deliver`` takes an ``r``; ``core_tick`` the most arguments, ``mx`` not last), the result
    comes back, and an address of 0 gives the point's default without a call."""
    probe, caller = _probe_and_caller(point)
    sig = hooks.arg_types(point)
    probe.compile(sig)
    cres = probe.overloads[sig]
    address = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
    names = hooks.arg_names(point)
    mx = np.zeros(len(names) + 1, np.int64)
    args = [mx if a == "mx" else np.full((1,) * hooks.ARRAY_DIMS[a], 100 + i, np.int64) if a in hooks.ARRAY_DIMS
            else 100 + i for i, a in enumerate(names)]
    result = caller(address, *args)
    assert [int(mx[i + 1]) for i, a in enumerate(names) if a != "mx"] == [100 + i for i, a in enumerate(names)
                                                                           if a != "mx"]
    hp = hooks.HOOK_POINTS[point]
    assert result == (7 if hp.default is not None else None)
    mx[:] = 0
    assert caller(0, *args) == (eval(hp.default, vars(hooks)) if hp.default is not None else None)  # noqa: S307
    assert not mx.any()


def test_a_hook_function_of_the_wrong_shape_is_refused_with_its_name(monkeypatch):
    @nb.njit
    def decide(slot, now, wt, chs, mx):
        return slot, now  # a pair where the point takes an int64

    @nb.njit
    def warp_start(gwarp):  # the point passes (gwarp, mx)
        return gwarp

    hooks.bind()
    for point, fn, why in (("decide", decide, r"returns|does not compile"), ("warp_start", warp_start,
                                                                             "does not compile")):
        fake = types.SimpleNamespace(__name__="somewhere.hardware", HOOKS=(point,), **{point: fn})
        monkeypatch.setitem(hooks.MECHANISMS, f"wrong_{point}", fake)
        with pytest.raises(hooks.MechanismHardwareError, match=rf"somewhere.hardware.{point} ({why})"):
            hooks.pointers(f"wrong_{point}")


def test_a_hook_result_is_taken_as_the_point_declares(monkeypatch):
    """A bool result of a point that returns an int64 arrives as 0 or 1; a value returned from a point whose
    result the engine does not read is dropped (the function still runs)."""

    @nb.njit
    def decide(slot, now, wt, chs, mx):
        return slot > 0

    @nb.njit
    def warp_start(gwarp, mx):
        return gwarp + 1

    @nb.njit
    def cta_start(sm, cta, cslot, now, k, cfg, ctat, smt, mx):
        mx[0] = sm + cta
        return 99

    hooks.bind()
    fake = types.SimpleNamespace(__name__="elsewhere.hardware", HOOKS=("decide", "warp_start", "cta_start"),
                                 decide=decide, warp_start=warp_start, cta_start=cta_start)
    monkeypatch.setitem(hooks.MECHANISMS, "lenient", fake)
    at = dict(zip(hooks.HOOK_POINTS, hooks.pointers("lenient"), strict=True))
    mx = np.zeros(4, np.int64)
    a2 = np.zeros((2, 2), np.int64)
    assert _caller_of("decide")(at["decide"], 3, 0, a2, a2, mx) == 1
    assert _caller_of("decide")(at["decide"], 0, 0, a2, a2, mx) == 0
    assert _caller_of("warp_start")(at["warp_start"], 41, mx) == 42
    assert _caller_of("cta_start")(at["cta_start"], 5, 6, 0, 0, 0, mx, a2, a2, mx) is None
    assert mx[0] == 11
