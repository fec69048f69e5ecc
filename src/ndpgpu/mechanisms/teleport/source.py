"""TELEPORT's analysis mapped back to CUDA source lines, in the form of the paper's Table 1 (seed 002, Sec. 3.1):
per global read, the array, the source line, the line's text (the extracted index expression), the class and
whether it is precalculable, and a precalculable index's per-block minimum and maximum.

The kernel is compiled with ``-lineinfo`` (nvcc then writes ``.loc`` directives into the PTX; the code is the
same, the PTX lines move; ndpgpu's default for CUDA sources, asked for here explicitly), and each read's PTX
line is mapped to the last ``.loc`` before it (:func:`ndpgpu.frontend.lineinfo.line_map`). A .ptx file is read
as given: without ``.loc`` directives its reads have no source line.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

from ...frontend.lineinfo import line_map
from ..analyze import AnalyzeError, kernel_programs
from ..analyze import load_module as _load_module
from .classify import classify_reads

_KERNEL = re.compile(r"__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?void\s+(\w+)\s*\(([^)]*)\)")


@dataclasses.dataclass(frozen=True)
class SourceRead:
    """One global read as a row of Table 1."""

    kernel: str
    array: str | None  # the CUDA parameter's name when the source is at hand, else the PTX one
    file: str | None
    line: int | None  # source line (None: no line info)
    text: str  # the source line's text, stripped ("" when unknown)
    ptx_line: int
    cls: str
    degree: int
    precalculable: bool  # usable by the preload table (precalculable, degree <= 1)
    block_min: str | None
    block_max: str | None


def load_with_lines(source: str) -> tuple[Any, str]:
    """The module of a .cu file or workload compiled with ``-lineinfo`` (a .ptx file as it is)."""
    from ...workloads.teleport import TELEPORT_WORKLOADS

    if Path(source).suffix == ".ptx":
        return _load_module(source, (), None, TELEPORT_WORKLOADS)
    try:
        return _load_module(source, ("-lineinfo",), None, TELEPORT_WORKLOADS)
    except AnalyzeError as exc:
        if "--options" not in str(exc):
            raise
        raise AnalyzeError(f"{source}: the source view needs a workload built from one CUDA file (it compiles "
                           f"it again with -lineinfo): {exc}") from None


def param_names(source: str | None, kernel: str) -> list[str]:
    """The CUDA parameter names of ``kernel`` (its PTX name, mangled or not) in ``source``; [] when not found."""
    for m in _KERNEL.finditer(source or ""):
        name = m.group(1)
        if kernel == name or f"{len(name)}{name}" in kernel:
            out = []
            for p in m.group(2).split(","):
                ids = re.findall(r"\w+", p.split("=")[0])
                out.append(ids[-1] if ids else "")
            return out
    return []


def array_name(array: str | None, kernel: str, names: list[str]) -> str | None:
    """A PTX parameter (``k_param_2``) as its CUDA name (``mask``) when known."""
    if array is None:
        return None
    m = re.fullmatch(r".*_param_(\d+)", array)
    if m and int(m.group(1)) < len(names) and names[int(m.group(1))]:
        return names[int(m.group(1))]
    return array


def _source_lines(path: str, module: Any, cache: dict[str, list[str]]) -> list[str]:
    """The file's lines; the module's own source when the file is gone (nvcc's cache may hold the PTX of
    another compile of the same text, a temporary file)."""
    if path not in cache:
        try:
            cache[path] = Path(path).read_text().splitlines()
        except OSError:
            cache[path] = (getattr(module, "source", None) or "").splitlines()
    return cache[path]


def source_reads(module: Any, kernels: list[str] | None = None) -> list[SourceRead]:
    """Every global read of the chosen kernels as a Table 1 row."""
    from .cli import per_block_bounds

    lmap, files = line_map(module.ptx or "")
    texts: dict[str, list[str]] = {}
    out: list[SourceRead] = []
    for k, _prog in kernel_programs(module, kernels):
        names = param_names(getattr(module, "source", None), k)
        for r in classify_reads(module.ir.functions[k]):
            loc = lmap.get(r.line)
            path = files.get(loc[0]) if loc else None
            text = ""
            if loc and path:
                lines = _source_lines(path, module, texts)
                text = lines[loc[1] - 1].strip() if 0 < loc[1] <= len(lines) else ""
            b = per_block_bounds(r)
            out.append(SourceRead(k, array_name(r.array, k, names), path, loc[1] if loc else None, text, r.line,
                                  r.cls, r.degree, r.usable, str(b[0]) if b else None, str(b[1]) if b else None))
    return out


def format_source(rows: list[SourceRead], what: str) -> str:
    """Table 1's layout: array, line, expression, status (class, degree), precalculable, per-block min/max."""
    if not rows:
        return f"{what}: no global reads"
    nolines = all(r.line is None for r in rows)
    head = f"{what}: Table 1 (source lines from the PTX line info)"
    if nolines:
        head += " -- no .loc line info in this PTX: lines unknown"
    lines = [head]
    kernel = None
    for r in rows:
        if r.kernel != kernel:
            kernel = r.kernel
            lines.append("")
            lines.append(f"{kernel}")
            lines.append(f"  {'array':<16} {'line':>5}  {'expression (source)':<48} {'status':<18} {'precalc':<7} "
                         f"min / max per block (bytes)")
        status = r.cls + (f" d{r.degree}" if r.degree >= 0 else "")
        text = r.text if len(r.text) <= 48 else r.text[:45] + "..."
        ln = str(r.line) if r.line is not None else "?"
        bounds = f"{r.block_min} / {r.block_max}" if r.block_min else "-"
        lines.append(f"  {r.array or '-':<16} {ln:>5}  {text:<48} {status:<18} {'yes' if r.precalculable else 'no':<7} "
                     f"{bounds}")
    return "\n".join(lines)
