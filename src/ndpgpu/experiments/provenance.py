"""What a result depends on, as hashes: the simulator's code, a workload's sources and inputs.

A stored result is found again only under the same key (:func:`point_key`), built from the machine
config hash and these hashes, so a changed simulator, workload or input never serves a stale result.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import inspect
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

HASH_CHARS = 16  # hex digits kept of each sha256 (64 bits: collisions are not a practical concern)

# Files of the package that do not change what a simulation computes (the report side of experiments).
_EXPERIMENT_FILES_IN_CODE_VERSION = ("executors.py",)
_CODE_SUFFIXES = (".py", ".yaml", ".yml", ".json", ".cu", ".cuh", ".h", ".ptx")


def short_hash(data: bytes | str) -> str:
    """sha256 of ``data``, shortened to :data:`HASH_CHARS` hex digits."""
    if isinstance(data, str):
        data = data.encode()
    return hashlib.sha256(data).hexdigest()[:HASH_CHARS]


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no whitespace: equal values give equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _hash_files(root: Path, files: Iterable[Path]) -> str:
    h = hashlib.sha256()
    for path in sorted(files):
        h.update(path.relative_to(root).as_posix().encode() + b"\0")
        h.update(path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def _in_code_version(rel: Path) -> bool:
    parts = rel.parts
    if "__pycache__" in parts or rel.suffix not in _CODE_SUFFIXES or rel.name == "cli.py":
        return False  # command-line front ends only parse arguments
    if rel.as_posix() in ("_numba_cache.py", "_numba_inline.py"):
        return False  # where compiled code is stored and how fast numba inlines, not what it computes
    if parts[0] == "workloads" and len(parts) > 2:
        return False  # a workload suite: covered by each workload's source hash
    if parts[0] == "experiments":
        return len(parts) == 2 and parts[1] in _EXPERIMENT_FILES_IN_CODE_VERSION
    return True


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """The simulator's version: the package version plus a hash of every file that affects results.

    Hashed: the package's code and data files except workload suites (each workload has its own source
    hash), the reporting side of ``experiments/``, ``cli.py`` front ends, the compiled-code cache's
    locator and the inliner's copy (``_numba_inline``: the same IR, faster); plus the numpy and numba versions.
    """
    import ndpgpu

    root = Path(ndpgpu.__file__).resolve().parent
    files = [p for p in root.rglob("*") if p.is_file() and _in_code_version(p.relative_to(root))]
    h = hashlib.sha256(_hash_files(root, files).encode())
    for dist in ("numpy", "numba"):
        try:
            h.update(f"{dist}={importlib.metadata.version(dist)}".encode())
        except importlib.metadata.PackageNotFoundError:
            h.update(f"{dist}=none".encode())
    return f"{ndpgpu.__version__}+{h.hexdigest()[:12]}"


def workload_files(cls: type) -> list[Path]:
    """Every file a workload's result depends on: its CUDA sources, its module, and the private helpers,
    headers and sources beside it (``_*.py``, ``*.h``, ``*.cuh``)."""
    directory = cls.directory()  # type: ignore[attr-defined]
    files = {(directory / s).resolve() for s in cls.sources}  # type: ignore[attr-defined]
    module_file = inspect.getsourcefile(cls)
    if module_file:
        files.add(Path(module_file).resolve())
    for pattern in ("_*.py", "*.h", "*.cuh"):
        files.update(p.resolve() for p in directory.glob(pattern) if p.name != "__init__.py")
    return sorted(files)


def workload_source_hash(cls: type) -> str:
    """Hash of a workload's files (:func:`workload_files`), its compile options and its seed."""
    files = workload_files(cls)
    root = Path(*_common_parts(files)) if files else Path("/")
    h = hashlib.sha256(_hash_files(root, files).encode())
    h.update(canonical_json({"options": list(cls.options), "seed": cls.seed}).encode())  # type: ignore[attr-defined]
    return h.hexdigest()[:HASH_CHARS]


def _common_parts(files: list[Path]) -> tuple[str, ...]:
    parts = files[0].parent.parts
    for f in files[1:]:
        fp = f.parent.parts
        n = 0
        while n < min(len(parts), len(fp)) and parts[n] == fp[n]:
            n += 1
        parts = parts[:n]
    return parts


def value_hash(value: Any) -> str:
    """Hash of a workload's inputs: nested dicts/lists of numpy arrays and scalars, by content."""
    h = hashlib.sha256()
    _feed(h, value)
    return h.hexdigest()[:HASH_CHARS]


def _feed(h: Any, value: Any) -> None:
    if isinstance(value, dict):
        h.update(b"{")
        for k in sorted(value, key=str):
            h.update(str(k).encode() + b":")
            _feed(h, value[k])
        h.update(b"}")
    elif isinstance(value, (list, tuple)):
        h.update(b"[")
        for v in value:
            _feed(h, v)
        h.update(b"]")
    elif isinstance(value, (np.ndarray, np.generic)):
        arr = np.ascontiguousarray(value)
        h.update(f"{arr.dtype.str}{arr.shape}".encode())
        h.update(arr.tobytes())
    else:
        h.update(repr(value).encode())


def workload_input_hash(cls: type, scale: str) -> str:
    """Hash of the inputs a workload generates at ``scale`` (seeded by its ``seed``)."""
    params = cls.params(scale)  # type: ignore[attr-defined]
    inputs = cls().inputs(params, np.random.default_rng(cls.seed))  # type: ignore[attr-defined]
    return value_hash({"params": params, "inputs": inputs})


KEY_FIELDS = (
    "executor",
    "workload",
    "scale",
    "config_hash",
    "code_version",
    "source_hash",
    "input_hash",
    "nvcc_version",
    "arch",
)


def point_key(**fields: str) -> str:
    """The store key of a point's result: a hash of every field in :data:`KEY_FIELDS`."""
    missing = [f for f in KEY_FIELDS if f not in fields]
    extra = [f for f in fields if f not in KEY_FIELDS]
    if missing or extra:
        raise ValueError(f"point_key: missing fields {missing}, unexpected fields {extra}")
    return short_hash(canonical_json({f: str(fields[f]) for f in KEY_FIELDS}))
