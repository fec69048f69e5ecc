"""A CUDA file and its launch, described once, as a workload: ``ndpgpu run kernel.cu --kernel ... --arg ...``.

A researcher's kernel is not a registered workload; this module turns a ``.cu`` file and a launch
description (from command-line flags or a YAML file) into a :class:`~ndpgpu.workloads.base.Workload`, so
that every path a registered workload takes (functional run, timing on a machine, a mechanism's policy)
takes it too.

One argument is written ``[NAME=]VALUE``:

- a scalar: ``65536``, ``2.5``, ``-1``, ``0x7fffffff``; its type is the kernel parameter's own (PTX);
- an array (the kernel receives its device pointer): ``DTYPE[DIMS] [INIT]`` with ``DTYPE`` one of
  ``i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64`` (or a NumPy name), ``DIMS`` like ``1024`` or
  ``64x64``, and ``INIT`` one of ``zeros`` (default), ``ones``, ``range``, ``rand`` (uniform in [0, 1)),
  ``randint:LO:HI``, ``fill:V`` or ``npy:PATH`` (a NumPy file of that dtype and shape).

Every array is an output: after the launch its contents are returned, digested, and, where the description
names a reference (``expect``: NAME -> .npy), checked against it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from pathlib import Path
from typing import Any

import numpy as np

from .base import RunContext, Tolerance, Workload, WorkloadError

SCALE = "given"  # a kernel file has one size: the one its description gives

DTYPES = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "u8": np.uint8, "u16": np.uint16,
          "u32": np.uint32, "u64": np.uint64, "f16": np.float16, "f32": np.float32, "f64": np.float64}
_ARRAY = re.compile(r"^(?P<dtype>[A-Za-z_][A-Za-z0-9_]*)\[(?P<dims>[0-9x, ]+)\](?:\s+(?P<init>\S+))?$")
_NAME = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*)=(?P<rest>.*)$")
DESCRIPTION_KEYS = ("source", "kernel", "grid", "block", "args", "shared_mem", "options", "repeat", "seed",
                    "expect", "tolerance")


class LaunchDescriptionError(WorkloadError):
    """A kernel file's launch description is malformed; the message names the field (and file)."""


@dataclasses.dataclass(frozen=True)
class ScalarArg:
    """A scalar argument, converted to the kernel parameter's type when launched."""

    name: str
    value: int | float


@dataclasses.dataclass(frozen=True)
class ArrayArg:
    """A device array argument: its element type, shape and initial contents."""

    name: str
    dtype: np.dtype
    shape: tuple[int, ...]
    init: str = "zeros"

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.shape)) * self.dtype.itemsize


@dataclasses.dataclass(frozen=True)
class LaunchDescription:
    """Everything needed to run one kernel of a CUDA file: the file, the kernel, its launch and arguments."""

    source: Path
    kernel: str
    grid: tuple[int, ...]
    block: tuple[int, ...]
    args: tuple[ScalarArg | ArrayArg, ...]
    shared_mem: int = 0
    options: tuple[str, ...] = ()
    repeat: int = 1
    seed: int = 2026
    expect: tuple[tuple[str, Path], ...] = ()
    tolerance: Tolerance = Tolerance()
    where: str = "the command line"  # what the description came from, for error messages

    @property
    def name(self) -> str:
        return f"{self.source.stem}:{self.kernel}"


def _dims(value: Any, field: str, where: str) -> tuple[int, ...]:
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    elif isinstance(value, str):
        value = [p for p in re.split(r"[,x ]+", value.strip()) if p]
    if not isinstance(value, (list, tuple)) or not 1 <= len(value) <= 3:
        raise LaunchDescriptionError(f"{where}: {field} must be 1 to 3 positive integers (e.g. 64 or 16,16), "
                                     f"got {value!r}")
    try:
        dims = tuple(int(v) for v in value)
    except (TypeError, ValueError):
        raise LaunchDescriptionError(f"{where}: {field} must be 1 to 3 positive integers, got {value!r}") from None
    if any(d <= 0 for d in dims):
        raise LaunchDescriptionError(f"{where}: {field} must be positive, got {value!r}")
    return dims


def _scalar(text: str) -> int | float | None:
    try:
        return int(text, 0)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return None


def parse_arg(spec: Any, index: int, where: str = "the command line") -> ScalarArg | ArrayArg:
    """One argument from its text (or a YAML number); see the module docstring for the grammar."""
    here = f"{where}: argument {index}"
    if isinstance(spec, bool) or not isinstance(spec, (int, float, str)):
        raise LaunchDescriptionError(f"{here}: expected a number or a string like 'x=f32[1024] rand', got {spec!r}")
    if isinstance(spec, (int, float)):
        return ScalarArg(f"arg{index}", spec)
    text, name = spec.strip(), f"arg{index}"
    m = _NAME.match(text)
    if m:
        name, text = m["name"], m["rest"].strip()
    value = _scalar(text)
    if value is not None:
        return ScalarArg(name, value)
    m = _ARRAY.match(text)
    if not m:
        raise LaunchDescriptionError(f"{here}: {spec!r} is neither a number nor an array 'DTYPE[DIMS] [INIT]' "
                                     f"(e.g. 'f32[1024] rand', 'i32[64x64] zeros')")
    try:
        dtype = np.dtype(DTYPES.get(m["dtype"], m["dtype"]))
    except TypeError:
        raise LaunchDescriptionError(f"{here}: unknown element type {m['dtype']!r}; use one of "
                                     f"{', '.join(DTYPES)}") from None
    if dtype.kind not in "iuf":
        raise LaunchDescriptionError(f"{here}: element type {dtype} is not an integer or floating-point type")
    shape = _dims(m["dims"], "the array's dimensions", here)
    init = m["init"] or "zeros"
    _check_init(init, here)
    return ArrayArg(name, dtype, shape, init)


_INITS = ("zeros", "ones", "range", "rand")


def _check_init(init: str, where: str) -> None:
    head, _, rest = init.partition(":")
    if init in _INITS or (head == "fill" and _scalar(rest) is not None) or (head == "npy" and rest):
        return
    if head == "randint":
        parts = rest.split(":")
        if len(parts) == 2 and all(isinstance(_scalar(p), int) for p in parts) and int(parts[0]) < int(parts[1]):
            return
    raise LaunchDescriptionError(f"{where}: unknown initial contents {init!r}; use zeros, ones, range, rand, "
                                 f"randint:LO:HI (LO < HI), fill:VALUE or npy:PATH")


def initial_contents(arg: ArrayArg, rng: np.random.Generator, base: Path) -> np.ndarray:
    """The host array an :class:`ArrayArg` starts with (``base``: where ``npy:`` paths are relative to)."""
    head, _, rest = arg.init.partition(":")
    n = int(np.prod(arg.shape))
    if arg.init == "zeros":
        return np.zeros(arg.shape, arg.dtype)
    if arg.init == "ones":
        return np.ones(arg.shape, arg.dtype)
    if arg.init == "range":
        return np.arange(n).astype(arg.dtype).reshape(arg.shape)
    if arg.init == "rand":
        return rng.random(n).astype(arg.dtype).reshape(arg.shape)
    if head == "randint":
        lo, hi = (int(p, 0) for p in rest.split(":"))
        return rng.integers(lo, hi, n).astype(arg.dtype).reshape(arg.shape)
    if head == "fill":
        return np.full(arg.shape, _scalar(rest), arg.dtype)
    path = Path(rest) if Path(rest).is_absolute() else base / rest
    try:
        data = np.load(path)
    except (OSError, ValueError) as exc:
        raise LaunchDescriptionError(f"argument {arg.name}: cannot read {path}: {exc}") from None
    if data.dtype != arg.dtype or data.shape != arg.shape:
        raise LaunchDescriptionError(f"argument {arg.name}: {path} holds {data.dtype}{list(data.shape)}, the "
                                     f"description says {arg.dtype}{list(arg.shape)}")
    return data


def describe(source: str | Path, kernel: str | None, grid: Any, block: Any, args: list[Any], *,
             shared_mem: int = 0, options: tuple[str, ...] | list[str] = (), repeat: int = 1, seed: int = 2026,
             expect: dict[str, str | Path] | None = None, tolerance: dict[str, float] | None = None,
             where: str = "the command line", base: Path | None = None) -> LaunchDescription:
    """A checked :class:`LaunchDescription` (``base``: the directory relative paths start from)."""
    base = base if base is not None else Path.cwd()
    src = Path(source)
    src = src if src.is_absolute() else base / src
    if src.suffix != ".cu":
        raise LaunchDescriptionError(f"{where}: the source must be a CUDA file (.cu), got {source}")
    if not src.is_file():
        raise LaunchDescriptionError(f"{where}: no such file: {src}")
    if not kernel:
        raise LaunchDescriptionError(f"{where}: name the kernel to launch (--kernel NAME, or kernel: in YAML)")
    if grid is None or block is None:
        raise LaunchDescriptionError(f"{where}: a launch needs a grid and a block (--grid 64 --block 256)")
    parsed = tuple(parse_arg(a, i, where) for i, a in enumerate(args or []))
    names = [a.name for a in parsed]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise LaunchDescriptionError(f"{where}: argument names must be unique; repeated: {', '.join(dup)}")
    arrays = {a.name for a in parsed if isinstance(a, ArrayArg)}
    checks = []
    for name, ref in (expect or {}).items():
        if name not in arrays:
            raise LaunchDescriptionError(f"{where}: expect names {name!r}, which is not an array argument "
                                         f"(arrays: {', '.join(sorted(arrays)) or 'none'})")
        ref_path = Path(ref) if Path(ref).is_absolute() else base / ref
        checks.append((name, ref_path))
    tol = tolerance or {}
    unknown = set(tol) - {"rtol", "atol"}
    if unknown:
        raise LaunchDescriptionError(f"{where}: tolerance takes rtol and atol, not {', '.join(sorted(unknown))}")
    for field, value in (("repeat", repeat), ("shared_mem", shared_mem)):
        if not isinstance(value, int) or isinstance(value, bool) or value < (1 if field == "repeat" else 0):
            raise LaunchDescriptionError(f"{where}: {field} must be an integer >= {1 if field == 'repeat' else 0}, "
                                         f"got {value!r}")
    return LaunchDescription(src, str(kernel), _dims(grid, "grid", where), _dims(block, "block", where), parsed,
                             shared_mem, tuple(str(o) for o in options), repeat, int(seed), tuple(checks),
                             Tolerance(rtol=float(tol.get("rtol", 0.0)), atol=float(tol.get("atol", 0.0))), where)


def load_description(path: str | Path) -> LaunchDescription:
    """A launch description from a YAML file (keys as :data:`DESCRIPTION_KEYS`; paths relative to the file)."""
    import yaml

    from ndpgpu import yamlio

    path = Path(path)
    try:
        doc = yamlio.safe_load(path.read_text())
    except OSError as exc:
        raise LaunchDescriptionError(f"cannot read {path}: {exc}") from None
    except yaml.YAMLError as exc:
        raise LaunchDescriptionError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(doc, dict):
        raise LaunchDescriptionError(f"{path}: expected a mapping with keys {', '.join(DESCRIPTION_KEYS)}")
    unknown = sorted(set(doc) - set(DESCRIPTION_KEYS))
    if unknown:
        raise LaunchDescriptionError(f"{path}: unknown key(s) {', '.join(unknown)}; the keys are "
                                     f"{', '.join(DESCRIPTION_KEYS)}")
    if "source" not in doc:
        raise LaunchDescriptionError(f"{path}: name the CUDA file (source: kernel.cu)")
    options = doc.get("options") or []
    if isinstance(options, str):
        options = options.split()
    return describe(doc["source"], doc.get("kernel"), doc.get("grid"), doc.get("block"), doc.get("args") or [],
                    shared_mem=doc.get("shared_mem", 0), options=options, repeat=doc.get("repeat", 1),
                    seed=doc.get("seed", 2026), expect=doc.get("expect"), tolerance=doc.get("tolerance"),
                    where=str(path), base=path.parent)


def digest(a: np.ndarray) -> str:
    """A short content hash of an array (its dtype, shape and bytes): equal digests, bit-identical arrays."""
    h = hashlib.sha256(f"{a.dtype}{a.shape}".encode())
    h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def workload_class(desc: LaunchDescription) -> type[Workload]:
    """An unregistered :class:`Workload` that runs ``desc``: inputs from its arguments, outputs its arrays."""

    class KernelFile(Workload):
        name = desc.name
        suite = "file"
        description = f"kernel {desc.kernel} of {desc.source} (described in {desc.where})"
        sources = (str(desc.source),)
        options = desc.options
        scales = {SCALE: {}}
        tolerance = {n: desc.tolerance for n, _ in desc.expect}
        seed = desc.seed
        launch_description = desc

        @classmethod
        def source_paths(cls) -> list[Path]:
            return [desc.source]

        def inputs(self, params: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
            base = desc.source.parent
            out: dict[str, Any] = {}
            for a in desc.args:
                out[a.name] = initial_contents(a, rng, base) if isinstance(a, ArrayArg) else a.value
            return out

        def launch(self, ctx: RunContext, inputs: dict[str, Any], params: dict[str, Any]) -> dict[str, np.ndarray]:
            from ..api import asarray

            fn = _function(ctx.module, desc)
            args = [asarray(inputs[a.name]) if isinstance(a, ArrayArg) else _convert(a, p, desc)
                    for a, p in zip(desc.args, fn.kernel.params, strict=True)]
            if desc.shared_mem > fn.max_dynamic_shared_size_bytes:
                # the description's shared_mem is its request for more (CUDA code calls cudaFuncSetAttribute);
                # beyond the architecture's limit the setter refuses it
                try:
                    fn.max_dynamic_shared_size_bytes = desc.shared_mem
                except ValueError as exc:
                    raise LaunchDescriptionError(f"shared_mem = {desc.shared_mem}: {exc}") from None
            for _ in range(desc.repeat):
                fn(desc.grid, desc.block, tuple(args), shared_mem=desc.shared_mem)
            return {a.name: arr.get() for a, arr in zip(desc.args, args, strict=True) if isinstance(a, ArrayArg)}

        def reference(self, inputs: dict[str, Any], params: dict[str, Any]) -> dict[str, np.ndarray]:
            refs = {}
            for name, path in desc.expect:
                try:
                    refs[name] = np.load(path)
                except (OSError, ValueError) as exc:
                    raise LaunchDescriptionError(f"{desc.where}: cannot read the reference of {name}, {path}: "
                                                 f"{exc}") from None
            return refs

    KernelFile.__name__ = KernelFile.__qualname__ = f"KernelFile[{desc.name}]"
    return KernelFile


def _function(module: Any, desc: LaunchDescription) -> Any:
    try:
        fn = module.get_function(desc.kernel)
    except KeyError as exc:
        raise LaunchDescriptionError(f"{desc.where}: {desc.source.name}: {exc.args[0]}") from None
    params = fn.kernel.params
    if len(params) != len(desc.args):
        kinds = ", ".join(f".{p.type.name}" for p in params)
        raise LaunchDescriptionError(f"{desc.where}: kernel {desc.kernel} takes {len(params)} argument(s) "
                                     f"({kinds}); {len(desc.args)} given")
    for i, (a, p) in enumerate(zip(desc.args, params, strict=True)):
        if isinstance(a, ArrayArg) and (p.size != 8 or p.array):
            raise LaunchDescriptionError(f"{desc.where}: argument {i} ({a.name}) is an array, but the kernel's "
                                         f"parameter {i} is a {p.size}-byte .{p.type.name}, not a pointer")
    return fn


def _convert(arg: ScalarArg, param: Any, desc: LaunchDescription) -> int | float:
    """A scalar in the parameter's kind (an integer literal may fill a floating-point parameter)."""
    if param.type.kind == "f":
        return float(arg.value)
    if isinstance(arg.value, float):
        raise LaunchDescriptionError(f"{desc.where}: argument {arg.name} is {arg.value!r}, but the kernel's "
                                     f"parameter is an integer (.{param.type.name})")
    return arg.value
