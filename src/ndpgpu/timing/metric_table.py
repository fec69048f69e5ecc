"""The table of every statistic, generated from the components' declarations (``docs/metrics.md``).

Each timing component declares its rows in ``metrics(stats, put, ratio)``; the statistics layer adds the
copies, the application time and the energy rows. This module reads those functions' source and lists every
``put(path, metric, value, unit)`` with the value's expression, local names substituted, so the documented
definition is the code's::

    python -m ndpgpu.timing.metric_table --write docs/metrics.md   # regenerate the marked block
    python -m ndpgpu.timing.metric_table --check docs/metrics.md   # exit 1 when it is out of date

``ratio(a, b)`` is ``a / b`` (0 when ``b`` is 0); ``c("X")`` is the raw engine counter ``X``; ``st.time_ps``
is the kernel time (the launches alone, never host copies).
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import re
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

BEGIN = "<!-- metrics:begin -->"
END = "<!-- metrics:end -->"


@dataclasses.dataclass(frozen=True)
class Declaration:
    """One declared statistic: where it is declared, its path and metric (``{...}``: a variable part)."""

    component: str
    path: str
    metric: str
    unit: str
    definition: str

    def pattern(self) -> re.Pattern[str]:
        """Matches the full ``path.metric`` names this declaration produces."""
        parts = re.split(r"\{[^}]*\}", f"{self.path}.{self.metric}")
        return re.compile("^" + "[^ ]+".join(re.escape(p) for p in parts) + "$")


def sources() -> list[tuple[str, Callable]]:
    """The functions that declare rows, in the order of the rows."""
    from . import engine as E
    from .stats import COMPONENT_METRICS, LaunchStats, copy_metrics, sampling_metrics

    out: list[tuple[str, Callable]] = [(f"engine.{name}", getattr(E, name).metrics) for name in COMPONENT_METRICS]
    out.append(("engine.links (stack SMs)", E.links._stack_metrics))
    out.append(("stats.copy_metrics", copy_metrics))
    out.append(("stats.sampling_metrics", sampling_metrics))
    out.append(("stats (energy)", LaunchStats.metrics))
    return out


class _Substitute(ast.NodeTransformer):
    def __init__(self, names: dict[str, ast.expr]) -> None:
        self.names = names

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return self.names.get(node.id, node)


def _local_values(fn: ast.FunctionDef) -> dict[str, ast.expr]:
    """Names assigned once to a computed value (not aliases such as ``c = st.c``)."""
    seen: dict[str, list[ast.expr]] = {}
    for node in ast.walk(fn):  # loop and comprehension variables are not substituted
        if isinstance(node, (ast.For, ast.comprehension)):
            for t in ast.walk(node.target):
                if isinstance(t, ast.Name):
                    seen.setdefault(t.id, []).extend([t, t])
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            tgt, val = node.targets[0], node.value
            if isinstance(tgt, ast.Name):
                seen.setdefault(tgt.id, []).append(val)
            elif isinstance(tgt, ast.Tuple) and isinstance(val, ast.Tuple) and len(tgt.elts) == len(val.elts):
                for t, v in zip(tgt.elts, val.elts, strict=True):
                    if isinstance(t, ast.Name):
                        seen.setdefault(t.id, []).append(v)
    return {k: v[0] for k, v in seen.items()
            if len(v) == 1 and not isinstance(v[0], (ast.Name, ast.Attribute, ast.Constant))}


def _text(node: ast.expr) -> str:
    """A path, metric or unit: literal text, ``{expression}`` for a variable part."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _text(node.left) + _text(node.right)
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value if isinstance(v, ast.Constant) else "{" + ast.unparse(v.value) + "}"
                       for v in node.values)
    return "{" + ast.unparse(node) + "}"


def declarations() -> list[Declaration]:
    """Every ``put`` of every declaring function, in source order."""
    out: list[Declaration] = []
    for component, fn in sources():
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
        fdef = tree.body[0]
        assert isinstance(fdef, ast.FunctionDef)
        names = _local_values(fdef)
        calls = [n for n in ast.walk(fdef) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                 and n.func.id == "put" and len(n.args) == 4]
        for node in sorted(calls, key=lambda n: (n.lineno, n.col_offset)):
            args = []
            for arg in node.args:
                for _ in range(2):  # two levels of local names
                    arg = _Substitute(names).visit(ast.parse(ast.unparse(arg), mode="eval").body)
                args.append(arg)
            path, metric, value, unit = args
            out.append(Declaration(component, _text(path), _text(metric), _text(unit), ast.unparse(value)))
    return out


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown() -> str:
    """The generated block: one table, every declared statistic."""
    lines = [BEGIN, "<!-- generated by `python -m ndpgpu.timing.metric_table --write docs/metrics.md`; "
             "do not edit by hand -->", "",
             "| component | path | metric | unit | definition |", "|---|---|---|---|---|"]
    for d in declarations():
        lines.append(f"| {d.component} | `{_cell(d.path)}` | `{_cell(d.metric)}` | {_cell(d.unit)} | "
                     f"`{_cell(d.definition)}` |")
    lines += ["", END]
    return "\n".join(lines)


def render(old: str) -> str:
    """``old`` with its marked block replaced by the current one."""
    if BEGIN not in old or END not in old:
        raise ValueError(f"the document has no {BEGIN} ... {END} block")
    head, rest = old.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return head + markdown() + tail


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ndpgpu.timing.metric_table", description=__doc__.splitlines()[0])
    ap.add_argument("--write", metavar="MD", help="regenerate the marked block of this file")
    ap.add_argument("--check", metavar="MD", help="exit 1 when the marked block of this file is out of date")
    args = ap.parse_args(argv)
    if args.write:
        p = Path(args.write)
        p.write_text(render(p.read_text()))
        return 0
    if args.check:
        p = Path(args.check)
        text = p.read_text()
        if render(text) != text:
            print(f"{p}: the metrics table is out of date; run python -m ndpgpu.timing.metric_table --write {p}",
                  file=sys.stderr)
            return 1
        return 0
    print(markdown())
    return 0


if __name__ == "__main__":
    sys.exit(main())
