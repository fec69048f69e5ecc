"""CUDA source lines of PTX instructions, from nvcc's ``-lineinfo``.

With ``-lineinfo`` (ndpgpu's default for CUDA sources) nvcc names each source file once
(``.file 1 "/path/k.cu"``) and precedes each run of instructions with the file and line they come from
(``.loc 1 12 5``; code inlined from a function says where it was inlined too:
``.loc 1 9 38, function_name $L__info_string0, inlined_at 1 12 5``). An instruction's source line is that of the
last ``.loc`` before it. The instruction stream is the same with and without ``-lineinfo``: only the
directives, and so the PTX line numbers, differ (checked on the repository's 79 kernel files for sm_75 and
sm_80, 158 PTX files; ptxas's register counts agree on the 40 of them compared).

:class:`SourceMap` answers "which file:line is PTX line N" for a module; :func:`line_map` is the raw table.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)(?:\s+(\d+))?(?:.*?\binlined_at\s+(\d+)\s+(\d+)(?:\s+(\d+))?)?")
_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]*)"')

# how the source of ``RawModule(code=...)`` is named in messages (it has no file of its own)
CODE_NAME = "<code>"


# a location: (file index, line, column, the location it was inlined at or None)
Loc = tuple  # tuple[int, int, int, "Loc | None"]


def line_map(ptx: str) -> tuple[dict[int, tuple[int, int]], dict[int, str]]:
    """(PTX line -> (file index, source line) of the last ``.loc`` before it, file index -> path)."""
    locs, files = _locations(ptx)
    return {n: (loc[0], loc[1]) for n, loc in locs.items()}, files


def _locations(ptx: str) -> tuple[dict[int, Loc], dict[int, str]]:
    """PTX line -> the innermost location of its instruction, with the chain it was inlined through; file
    index -> path. Code inlined through several calls carries one ``.loc`` per level, each ``inlined_at`` the
    one before it, so the chain is rebuilt from the locations seen so far."""
    files: dict[int, str] = {}
    out: dict[int, Loc] = {}
    seen: dict[tuple[int, int, int], Loc] = {}  # (file, line, column) -> its latest location, with its chain
    cur = None
    for n, text in enumerate(ptx.splitlines(), start=1):
        m = _LOC.match(text)
        if m:
            parent = None
            if m.group(4):
                at = (int(m.group(4)), int(m.group(5)), int(m.group(6) or 0))
                parent = seen.get(at, (*at, None))
            cur = (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0), parent)
            seen[cur[:3]] = cur
            continue
        f = _FILE.match(text)
        if f:
            files[int(f.group(1))] = f.group(2)
            continue
        if cur is not None:
            out[n] = cur
    return out, files


@dataclasses.dataclass(frozen=True)
class SourceLine:
    """Where a PTX instruction comes from: ``file`` (the path nvcc compiled, :data:`CODE_NAME` for a ``code=``
    source), 1-based ``line`` and ``column`` (0: unknown), the line's ``text`` stripped ("" when the file cannot
    be read), and for code inlined from a function, the call it was inlined at."""

    file: str
    line: int
    column: int = 0
    text: str = ""
    inlined_at: SourceLine | None = None

    @property
    def name(self) -> str:
        """The file's name without its folders (``k.cu``)."""
        return self.file if self.file == CODE_NAME else Path(self.file).name

    @property
    def outermost(self) -> SourceLine:
        """The call site in the function that was compiled (itself unless inlined)."""
        return self if self.inlined_at is None else self.inlined_at.outermost

    def short(self) -> str:
        """``k.cu:12`` (and ``, inlined at k.cu:30`` for each call it was inlined through)."""
        out = f"{self.name}:{self.line}"
        if self.inlined_at is not None:
            out += f", inlined at {self.inlined_at.short()}"
        return out

    def __str__(self) -> str:
        """``k.cu:12 `out[i] = a[i];``` (the text when known); inlined code adds the calls it was inlined
        through, with the outermost one's text: ``h.h:3 `return v * 2;` (inlined at k.cu:7 `y = twice(x);`)``."""
        out = f"{self.name}:{self.line}" + (f" `{self.text}`" if self.text else "")
        if self.inlined_at is None:
            return out
        calls, at = [], self.inlined_at
        while at is not None:
            calls.append(f"{at.name}:{at.line}")
            last, at = at, at.inlined_at
        if last.text:
            calls[-1] += f" `{last.text}`"
        return f"{out} (inlined at {', inlined at '.join(calls)})"


class SourceMap:
    """PTX line -> :class:`SourceLine` for one module's PTX.

    ``main_file``/``main_text``: the path nvcc compiled the module's own source under and that source's text
    (read from there otherwise); its lines are named ``display`` (``k.cu`` for a file, :data:`CODE_NAME` for
    ``code=``). Other files (headers) are read from disk when they exist.
    """

    def __init__(self, ptx: str, main_file: str | None = None, main_text: str | None = None,
                 display: str | None = None):
        self._locs, self._files = _locations(ptx)
        self._main_file = main_file
        self._main_text = main_text
        self._display = display
        self._texts: dict[str, list[str]] = {}

    def __bool__(self) -> bool:
        """Whether the PTX has line info (``.loc`` directives) at all."""
        return bool(self._locs)

    def _path(self, index: int) -> str:
        path = self._files.get(index, f"<file {index}>")
        if self._display is not None and path == self._main_file:
            return self._display
        return path

    def _text(self, index: int, line: int) -> str:
        path = self._files.get(index)
        if path is None:
            return ""
        if path not in self._texts:
            if path == self._main_file and self._main_text is not None:
                text = self._main_text
            else:
                try:
                    text = Path(path).read_text(errors="replace")
                except OSError:
                    text = ""
            self._texts[path] = text.splitlines()
        lines = self._texts[path]
        return lines[line - 1].strip() if 0 < line <= len(lines) else ""

    def lookup(self, ptx_line: int) -> SourceLine | None:
        """The source line of the instruction on ``ptx_line`` (1-based); None without line info there."""
        loc = self._locs.get(int(ptx_line))
        return self._source_line(loc) if loc is not None else None

    def _source_line(self, loc: Loc) -> SourceLine:
        index, line, column, parent = loc
        at = self._source_line(parent) if parent is not None else None
        return SourceLine(self._path(index), line, column, self._text(index, line), at)

    __call__ = lookup


def describe_lines(source_map: SourceMap | None, ptx_lines) -> list[str]:
    """``k.cu:12`` for each PTX line ("" where unknown), e.g. for a per-PC table's column."""
    out = []
    for ln in ptx_lines:
        loc = source_map.lookup(int(ln)) if source_map is not None and ln else None
        out.append(loc.short() if loc is not None else "")
    return out


def pc_table_with_source(stats, source_map: SourceMap | None) -> str:
    """``LaunchStats.pc_table()`` with each row's CUDA source line (``k.cu:12``) appended."""
    table = stats.pc_table()
    if source_map is None or not source_map or not getattr(stats, "pc_info", None):
        return table
    rows = table.splitlines()
    out = [rows[0] + "  source"]
    for row in rows[1:]:
        fields = row.split()
        try:
            ln = int(stats.pc_info[int(fields[0])][1])
        except (IndexError, ValueError):
            out.append(row)
            continue
        loc = source_map.lookup(ln) if ln else None
        out.append(row + (f"  {loc}" if loc is not None else ""))
    return "\n".join(out)
