"""The nvcc driver: find the toolchain, compile CUDA C++ to PTX, cache the result, read register counts.

nvcc is taken from ``$NDPGPU_NVCC``, then ``PATH``, then the PyPI wheels (``pip install
ndpgpu[nvcc]``). nvcc needs a host C++ compiler even for ``-ptx``; its absence is reported clearly.
Compiled PTX is cached on disk under ``$NDPGPU_CACHE_DIR`` (default ``~/.cache/ndpgpu``), keyed by the
preprocessed source, the options, the architecture and the nvcc version.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DEFAULT_ARCH = "sm_75"  # the oldest architecture nvcc 13 accepts; Turing
CACHE_VERSION = 3  # 3: the compiled file's path in the PTX's .file entry is stored as MAIN_FILE_TOKEN
LINEINFO = "-lineinfo"  # added unless NDPGPU_LINEINFO=0: .loc/.file directives, the same instructions
MAIN_FILE_TOKEN = "<ndpgpu-main-source>"


class ToolchainError(RuntimeError):
    """nvcc, ptxas or the host compiler is missing or failed to run."""


class CompileError(RuntimeError):
    """nvcc rejected the source; the message carries nvcc's diagnostics."""


@dataclasses.dataclass(frozen=True)
class Toolchain:
    nvcc: Path
    version: str  # e.g. "13.0.88"
    include_dirs: tuple[Path, ...]  # extra -I for wheel installs (runtime headers)
    ptxas: Path | None


@dataclasses.dataclass
class CompiledPTX:
    """The result of compiling one translation unit."""

    ptx: str
    nvcc_version: str
    arch: str
    key: str
    registers: dict[str, int]  # kernel/function name -> registers per thread (ptxas)
    from_cache: bool = False


def cache_dir() -> Path:
    root = os.environ.get("NDPGPU_CACHE_DIR")
    path = Path(root) if root else Path.home() / ".cache" / "ndpgpu"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _wheel_nvcc() -> tuple[Path | None, list[Path]]:
    """nvcc and header directories from the nvidia-cuda-* wheels, if installed."""
    try:
        import nvidia  # type: ignore[import-not-found]
    except ImportError:
        return None, []
    roots = [Path(p) for p in getattr(nvidia, "__path__", [])]
    nvcc = None
    includes: list[Path] = []
    for root in roots:
        for cand in sorted(root.glob("**/bin/nvcc")):
            nvcc = cand
        for inc in sorted(root.glob("**/include")):
            if (inc / "cuda_runtime.h").exists() or (inc / "crt").exists():
                includes.append(inc)
    return nvcc, includes


@functools.lru_cache(maxsize=1)
def toolchain() -> Toolchain:
    """Locate nvcc (and ptxas) and read nvcc's version."""
    env = os.environ.get("NDPGPU_NVCC")
    includes: list[Path] = []
    nvcc: Path | None = Path(env) if env else None
    if nvcc is None:
        found = shutil.which("nvcc")
        nvcc = Path(found) if found else None
    if nvcc is None:
        nvcc, includes = _wheel_nvcc()
    if nvcc is None or not nvcc.exists():
        raise ToolchainError(
            "nvcc was not found: install the CUDA toolkit, put nvcc on PATH, set NDPGPU_NVCC, or "
            "`pip install 'ndpgpu[nvcc]'` for the PyPI nvcc wheels"
        )
    try:
        out = subprocess.run([str(nvcc), "--version"], capture_output=True, text=True, timeout=60).stdout
    except OSError as exc:
        raise ToolchainError(f"cannot run {nvcc}: {exc}") from exc
    m = re.search(r"V(\d+\.\d+\.\d+)", out) or re.search(r"release (\d+\.\d+)", out)
    version = m.group(1) if m else "unknown"
    ptxas = nvcc.parent / "ptxas"
    return Toolchain(nvcc, version, tuple(includes), ptxas if ptxas.exists() else None)


def host_compiler() -> str:
    """The host C++ compiler nvcc will use; raise ToolchainError when none is installed."""
    for name in ("g++", "c++", "clang++"):
        path = shutil.which(name)
        if path:
            return path
    raise ToolchainError(
        "nvcc needs a host C++ compiler even to emit PTX, and none was found: install g++ "
        "(Debian/Ubuntu: apt-get install g++)"
    )


def _run(cmd: list[str], cwd: Path, what: str) -> subprocess.CompletedProcess:
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600)
    except OSError as exc:
        raise ToolchainError(f"cannot run {cmd[0]}: {exc}") from exc
    if proc.returncode != 0:
        raise CompileError(f"{what} failed ({' '.join(cmd)}):\n{proc.stderr.strip() or proc.stdout.strip()}")
    return proc


def _arch_flag(arch: str) -> str:
    return f"-arch={arch}"


_ARCH_FLAGS = ("-arch", "--gpu-architecture", "-gencode", "--generate-code", "-code", "--gpu-code")
_ARCH_NAME = re.compile(r"^(?:sm|compute)_(\d+[af]?)$")


def _arch_name(value: str, option: str) -> str:
    """``sm_80`` for ``sm_80`` or ``compute_80``; ValueError for what nvcc -ptx cannot target here."""
    m = _ARCH_NAME.match(value.strip())
    if m is None:
        raise ValueError(f"nvcc option {option!r}: {value!r} is not an architecture this simulator can compile "
                         "for; name one, e.g. sm_80 (there is no GPU to detect for 'native', and PTX is "
                         "generated for one architecture, not 'all')")
    return f"sm_{m.group(1)}"


def split_arch(options: tuple[str, ...] | list[str], arch: str | None = None) -> tuple[str, list[str]]:
    """The target architecture and the other options, from ``options`` as CuPy and nvcc users write them.

    ``-arch=sm_80``, ``-arch sm_80``, ``--gpu-architecture[=| ]sm_80``, ``compute_80`` and one
    ``-gencode=arch=compute_80,code=sm_80`` all name sm_80; ``-code``/``--gpu-code`` are dropped (PTX is
    generated either way). ``arch`` (the keyword) and an option that disagree, several different
    architectures, or a flag without its value raise ``ValueError``.
    """
    named: list[tuple[str, str]] = []
    rest: list[str] = []
    opts = list(options)
    i = 0
    while i < len(opts):
        o = opts[i]
        flag, eq, value = o.partition("=")
        if flag not in _ARCH_FLAGS:
            rest.append(o)
            i += 1
            continue
        if not eq:
            if i + 1 >= len(opts):
                raise ValueError(f"nvcc option {o!r} needs a value, e.g. {flag}=sm_80")
            value = opts[i + 1]
            i += 1
        i += 1
        if flag in ("-code", "--gpu-code"):
            continue
        if flag in ("-gencode", "--generate-code"):
            fields = dict(f.partition("=")[::2] for f in value.split(","))
            target = fields.get("code") or fields.get("arch")
            if not target:
                raise ValueError(f"nvcc option {o!r}: expected arch=compute_XX,code=sm_XX")
            value = target.strip("[]").split(",")[0]
        named.append((o if eq else f"{o} {value}", _arch_name(value, o)))
    chosen = {a for _, a in named}
    if len(chosen) > 1:
        raise ValueError(f"nvcc options name several architectures ({', '.join(o for o, _ in named)}); "
                         "PTX is generated for one: keep one")
    if chosen and arch is not None and chosen != {_arch_name(arch, "arch=")}:
        raise ValueError(f"arch={arch!r} disagrees with the nvcc option {named[0][0]!r}: give one of them")
    if chosen:
        return chosen.pop(), rest
    return (_arch_name(arch, "arch=") if arch is not None else DEFAULT_ARCH), rest


# The name ``code=`` sources are written under: one no user's ``#include`` names (a quoted include looks
# in the including file's folder first, so a temporary "kernel.cu" would include itself).
SOURCE_NAME = "__ndpgpu_module_source__.cu"


def compile_cuda(source: str, options: tuple[str, ...] = (), arch: str | None = None,
                 filename: str = "kernel.cu", source_dir: Path | None = None,
                 path: Path | None = None, lineinfo: bool | None = None) -> CompiledPTX:
    """Compile CUDA C++ ``source`` to PTX (cached).

    ``path``: the file ``source`` was read from; it is compiled where it is, so its quoted includes resolve
    as they would for the user. Otherwise the source is written to a temporary file named
    :data:`SOURCE_NAME`. ``source_dir`` is added to the include path. nvcc runs in the caller's working
    directory, so relative ``-I`` options mean what they say.

    ``lineinfo``: compile with ``-lineinfo`` (source lines as ``.loc`` directives; the instructions are the same,
    see :mod:`ndpgpu.frontend.lineinfo`); by default unless ``$NDPGPU_LINEINFO`` is ``0``. The compiled file's
    ``.file`` entry names ``path``, or :data:`SOURCE_NAME` for a temporary file, whichever compile put the PTX
    in the cache.
    """
    tc = toolchain()
    host_compiler()
    arch, opts = split_arch(options, arch)
    if lineinfo is None:
        lineinfo = os.environ.get("NDPGPU_LINEINFO", "1").strip().lower() not in ("0", "no", "false", "off")
    if lineinfo and LINEINFO not in opts and "--generate-line-info" not in opts:
        opts = [*opts, LINEINFO]
    inc = [f"-I{p}" for p in tc.include_dirs]
    if source_dir is not None:
        inc.append(f"-I{source_dir}")
    cwd = Path.cwd()
    with tempfile.TemporaryDirectory(prefix="ndpgpu-") as tmp:
        tmpdir = Path(tmp)
        if path is not None:
            src = Path(path).resolve()
        else:
            src = tmpdir / SOURCE_NAME
            src.write_text(source)
        pre = _run([str(tc.nvcc), "-E", _arch_flag(arch), *inc, *opts, str(src)], cwd, "nvcc -E").stdout
        # line markers name the source file; drop them so the key depends on content only
        pre = "\n".join(line for line in pre.splitlines() if not line.startswith("#"))
        key = hashlib.sha256(
            json.dumps([CACHE_VERSION, pre, opts, arch, tc.version]).encode()
        ).hexdigest()
        shown = str(src) if path is not None else SOURCE_NAME  # the temporary file is gone after this call
        cached = _cache_get(key)
        if cached is not None:
            return dataclasses.replace(cached, ptx=_name_main_file(cached.ptx, re.escape(MAIN_FILE_TOKEN), shown))
        out = tmpdir / "out.ptx"
        _run([str(tc.nvcc), "-ptx", _arch_flag(arch), *inc, *opts, str(src), "-o", str(out)], cwd, "nvcc -ptx")
        ptx = out.read_text()
    # the cache is keyed by content: another file of the same text may reuse this PTX, under its own name
    compiled_as = re.escape(str(src)) + "|" + re.escape(os.path.realpath(src))
    if path is None:
        compiled_as += "|[^\"]*/" + re.escape(SOURCE_NAME)
    ptx = _name_main_file(ptx, compiled_as, MAIN_FILE_TOKEN)
    regs = ptx_registers(ptx, arch)
    result = CompiledPTX(ptx, tc.version, arch, key, regs)
    _cache_put(result)
    return dataclasses.replace(result, ptx=_name_main_file(ptx, re.escape(MAIN_FILE_TOKEN), shown))


def _name_main_file(ptx: str, old: str, new: str) -> str:
    """``ptx`` with the ``.file`` entries whose path matches the regular expression ``old`` naming ``new``."""
    if ".file" not in ptx:
        return ptx
    pattern = re.compile(r'^(\s*\.file\s+\d+\s+")(?:' + old + r')(")', re.M)
    return pattern.sub(lambda m: m.group(1) + new + m.group(2), ptx)


def ptx_registers(ptx: str, arch: str | None = None) -> dict[str, int]:
    """Registers per thread of every function in ``ptx``, from ``ptxas --resource-usage`` (cached).

    Raises :class:`CompileError` with ptxas's message when ptxas rejects the PTX (a count of 0 would make
    occupancy silently unbounded). Returns ``{}`` only when the toolchain has no ptxas. A cache file that
    cannot be read (truncated by a crash) is recomputed and rewritten.
    """
    tc = toolchain()
    arch = arch or _ptx_target(ptx) or DEFAULT_ARCH
    key = hashlib.sha256(json.dumps(["regs", CACHE_VERSION, ptx, arch, tc.version]).encode()).hexdigest()
    path = cache_dir() / "regs" / f"{key}.json"
    if path.exists():
        try:
            regs = json.loads(path.read_text())
            if isinstance(regs, dict) and all(isinstance(v, int) for v in regs.values()):
                return regs
        except (OSError, json.JSONDecodeError):
            pass  # corrupt: recompute below
    if tc.ptxas is None:
        return {}
    with tempfile.TemporaryDirectory(prefix="ndpgpu-") as tmp:
        src = Path(tmp) / "in.ptx"
        src.write_text(ptx)
        proc = subprocess.run([str(tc.ptxas), f"-arch={arch}", "-v", str(src), "-o",
                               str(Path(tmp) / "out.cubin")], capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        message = (proc.stderr.strip() or proc.stdout.strip()).replace(str(src), "<ptx>")
        raise CompileError(f"ptxas -arch={arch} rejected the PTX, so its register counts are unknown:\n{message}")
    regs: dict[str, int] = {}
    current = None
    for line in (proc.stderr + proc.stdout).splitlines():
        m = re.search(r"(?:Compiling entry function|Function properties for) '?([\w$]+)'?", line)
        if m:
            current = m.group(1)
            continue
        m = re.search(r"Used (\d+) registers", line)
        if m and current:
            regs[current] = int(m.group(1))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp_path = path.with_suffix(f".tmp{os.getpid()}")
    tmp_path.write_text(json.dumps(regs))
    tmp_path.replace(path)  # atomic: a crash leaves the old file or none, never half of one
    return regs


def _ptx_target(ptx: str) -> str | None:
    m = re.search(r"^\s*\.target\s+(sm_\d+a?)", ptx, re.M)
    return m.group(1) if m else None


def _cache_get(key: str) -> CompiledPTX | None:
    path = cache_dir() / "ptx" / f"{key}.json"
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        return None
    # an entry of another shape (hand-edited, another tool's, cut short) is a miss: compiled again, replaced
    if not (isinstance(data, dict) and isinstance(data.get("ptx"), str) and isinstance(data.get("arch"), str)
            and isinstance(data.get("nvcc_version"), str) and isinstance(data.get("registers"), dict)):
        return None
    return CompiledPTX(data["ptx"], data["nvcc_version"], data["arch"], key, data["registers"], from_cache=True)


def _cache_put(result: CompiledPTX) -> None:
    path = cache_dir() / "ptx" / f"{result.key}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps({"ptx": result.ptx, "nvcc_version": result.nvcc_version, "arch": result.arch,
                               "registers": result.registers}))
    tmp.replace(path)


def nvcc_available() -> bool:
    try:
        toolchain()
        host_compiler()
    except ToolchainError:
        return False
    return True


if __name__ == "__main__":  # pragma: no cover - manual check
    print(toolchain(), file=sys.stderr)
