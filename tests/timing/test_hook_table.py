"""The hook points are declared once (``HOOK_POINTS``): docs/extending.md's table is the one generated from it, and
every point has a generated default and dispatcher."""

from __future__ import annotations

import inspect
from pathlib import Path

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
        assert list(inspect.signature(default).parameters) == declared
        assert list(inspect.signature(dispatcher).parameters) == ["code", *declared]
        if hp.default is not None:  # what a caller gets with no mechanism attached
            assert default(*range(len(declared))) == eval(hp.default, vars(hooks))  # noqa: S307


def test_a_dispatcher_passes_every_argument_through_unchanged():
    # l2_deliver takes an argument named ``r``: a dispatcher whose result variable shared that name handed the
    # mechanism 0 for the packet (a deadlock under LLC-Compute and TELEPORT); the pure-Python body shows it
    seen = []

    def probe(*args):
        seen.append(args)
        return 7

    for point, hp in hooks.HOOK_POINTS.items():
        n = len([a for a in hp.args.split(",") if a.strip()])
        table = getattr(hooks, f"_{point.upper()}")
        dispatcher = getattr(hooks, point).py_func
        saved = dispatcher.__globals__.get(f"_{point.upper()}")
        dispatcher.__globals__[f"_{point.upper()}"] = (getattr(hooks, f"_default_{point}").py_func, probe)
        try:
            args = tuple(range(100, 100 + n))
            seen.clear()
            result = dispatcher(1, *args)
            assert seen == [args], point
            assert result == (7 if hp.default is not None else None), point
        finally:
            dispatcher.__globals__[f"_{point.upper()}"] = saved if table is not None else None
