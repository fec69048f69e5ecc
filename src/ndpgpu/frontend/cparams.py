"""C++ parameter names of ``__global__`` kernels, read from CUDA source, for argument errors.

The PTX names a kernel's parameters ``<kernel>_param_<i>``; the CUDA source knows them as ``n`` or ``x``. This
reads each kernel's declaration in the (unpreprocessed) source: ``__global__`` up to the kernel's name and its
parenthesised parameter list, split at top-level commas, the last identifier of each declarator (before any
default value or array brackets). Comments, string literals and preprocessor lines are ignored, so a signature a
macro generates is not seen. :func:`kernel_param_names` answers for a PTX kernel only when that is unambiguous:
exactly one parameter-list spelling with the PTX's number of parameters; otherwise None (the PTX names stand).
"""

from __future__ import annotations

import re

from .demangle import demangle, qualified_name

_TOKEN = re.compile(r"[A-Za-z_]\w*|::|\.\.\.|\S")
# words that end a parameter's type, not a name: an unnamed `int` or `float * __restrict__`
_NOT_NAMES = frozenset("""
    bool char char16_t char32_t wchar_t short int long signed unsigned float double void auto
    const volatile restrict __restrict__ __restrict struct class enum union typename
    __half __nv_bfloat16 size_t
""".split())
_QUALIFIERS = frozenset("const volatile restrict __restrict__ __restrict struct class enum union typename".split())
_SKIPPED_CALLS = frozenset(("__launch_bounds__", "__attribute__", "__declspec", "__cluster_dims__",
                            "__maxnreg__", "alignas"))


def _clean(source: str) -> str:
    """``source`` without comments, string/char literals and preprocessor lines (continuations included)."""
    out = re.sub(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                 lambda m: " " * m.group(0).count("\n") if m.group(0).startswith("/") else " ''", source,
                 flags=re.S)
    lines = out.split("\n")
    keep, cont = [], False
    for line in lines:
        directive = cont or line.lstrip().startswith("#")
        cont = directive and line.rstrip().endswith("\\")
        keep.append("" if directive else line)
    return "\n".join(keep)


def _balanced(tokens: list[str], i: int, open_: str, close: str) -> int:
    """Index just past the bracket group opening at ``tokens[i]`` (len(tokens) when unbalanced)."""
    depth = 0
    for j in range(i, len(tokens)):
        if tokens[j] == open_:
            depth += 1
        elif tokens[j] == close:
            depth -= 1
            if depth == 0:
                return j + 1
    return len(tokens)


def _split_params(tokens: list[str]) -> list[list[str]]:
    """A parameter list's tokens (between the parentheses) split at top-level commas."""
    parts: list[list[str]] = [[]]
    depth = 0
    for t in tokens:
        if t in ("(", "[", "{", "<"):
            depth += 1
        elif t in (")", "]", "}", ">"):
            depth -= 1
        if t == "," and depth == 0:
            parts.append([])
        else:
            parts[-1].append(t)
    if parts == [[]] or parts == [["void"]]:
        return []
    return parts


def _param_name(tokens: list[str]) -> str | None:
    """The declared name of one parameter, or None when it has none (or it cannot be told)."""
    if "=" in tokens:  # a default value
        tokens = tokens[:tokens.index("=")]
    while tokens and tokens[-1] == "]":  # `float x[]`, `int a[4]`
        depth, j = 0, len(tokens) - 1
        while j >= 0:
            depth += tokens[j] == "]"
            depth -= tokens[j] == "["
            if depth == 0:
                break
            j -= 1
        tokens = tokens[:j]
    if "(" in tokens:  # a function pointer `void (*fp)(int)`: the name is inside the first parentheses
        inner = tokens[tokens.index("(") + 1:]
        inner = inner[:inner.index(")")] if ")" in inner else []
        names = [t for t in inner if _is_ident(t) and t not in _NOT_NAMES]
        return names[-1] if len(names) == 1 else None
    if len(tokens) < 2 or not _is_ident(tokens[-1]) or tokens[-1] in _NOT_NAMES or tokens[-2] == "::":
        return None
    before = [t for t in tokens[:-1] if t not in _QUALIFIERS]
    return tokens[-1] if before else None  # `const T` is an unnamed T


def _is_ident(t: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z_]\w*", t))


def source_kernels(source: str) -> dict[str, list[tuple[str | None, ...]]]:
    """Each ``__global__`` function's plain name -> the parameter-name tuples of its declarations (None
    for an unnamed parameter), in source order."""
    tokens = _TOKEN.findall(_clean(source))
    out: dict[str, list[tuple[str | None, ...]]] = {}
    for i, t in enumerate(tokens):
        if t != "__global__":
            continue
        j = i + 1
        while j < len(tokens):
            tok = tokens[j]
            if tok in _SKIPPED_CALLS and j + 1 < len(tokens) and tokens[j + 1] == "(":
                j = _balanced(tokens, j + 1, "(", ")")
                continue
            if tok == "[" and j + 1 < len(tokens) and tokens[j + 1] == "[":  # [[attributes]]
                j = _balanced(tokens, j, "[", "]")
                continue
            if tok in (";", "{", "}", "="):
                break
            if _is_ident(tok) and j + 1 < len(tokens) and tokens[j + 1] in ("(", "<"):
                k = j + 1
                if tokens[k] == "<":  # an explicit specialization `k<float>(...)`
                    k = _balanced(tokens, k, "<", ">")
                if k < len(tokens) and tokens[k] == "(":
                    end = _balanced(tokens, k, "(", ")")
                    params = _split_params(tokens[k + 1:end - 1])
                    out.setdefault(tok, []).append(tuple(_param_name(p) for p in params))
                    break
            j += 1
    return out


def plain_name(symbol: str) -> str:
    """The unqualified C++ name of a PTX kernel symbol, template arguments dropped (``_Z5scaleIfEv...`` ->
    ``scale``; an extern "C" name is itself)."""
    decl = demangle(symbol) if symbol.startswith("_Z") else None
    if not decl:
        return symbol
    name = qualified_name(decl)
    depth, base = 0, ""
    for ch in name:  # drop template arguments, at any depth
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0:
            base += ch
    return base.rsplit("::", 1)[-1].strip()


def kernel_param_names(kernels: dict[str, list[tuple[str | None, ...]]], symbol: str,
                       count: int) -> tuple[str | None, ...] | None:
    """The C++ names of PTX kernel ``symbol``'s ``count`` parameters, when the source tells them without
    ambiguity: all its declarations of that many parameters give the same names (a forward declaration
    without names gives way to the definition). None otherwise: overloads of that arity, a macro-made or
    included signature, variadic templates."""
    candidates = {sig for sig in kernels.get(plain_name(symbol), []) if len(sig) == count}
    named = {sig for sig in candidates if any(n is not None for n in sig)}
    if len(named) != 1:
        return None
    return next(iter(named))
