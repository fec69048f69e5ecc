"""Checks of the built-in and corpus workloads that need no simulator: registry, determinism of inputs,
references and their documented output shapes, and that every CUDA source compiles to PTX."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ndpgpu.workloads.base import STANDARD_SCALES, Workload, all_workloads

SUITES = ("builtin", "corpus")
WORKLOADS: dict[str, type[Workload]] = {n: c for n, c in all_workloads().items() if c.suite in SUITES}
NAMES = sorted(WORKLOADS)
BUILTIN = {
    "saxpy",
    "vecadd",
    "reduce_shared",
    "sgemm_naive",
    "sgemm_tiled",
    "bfs",
    "histogram",
    "warp_reduce",
    "devfunc",
    "printf_hello",
}
SOURCES = sorted({p for c in WORKLOADS.values() for p in c.source_paths()})
NVCC = shutil.which("nvcc")


def _inputs(cls: type[Workload], scale: str) -> tuple[Workload, dict[str, Any], dict[str, Any]]:
    w = cls()
    p = cls.params(scale)
    return w, w.inputs(p, np.random.default_rng(cls.seed)), p


def _same(a: Any, b: Any) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind == "f":
        return bool(np.array_equal(a, b, equal_nan=True))
    return a.tobytes() == b.tobytes()


def test_registry_has_the_builtin_set_and_a_corpus() -> None:
    builtin = {n for n, c in WORKLOADS.items() if c.suite == "builtin"}
    corpus = {n for n, c in WORKLOADS.items() if c.suite == "corpus"}
    assert BUILTIN <= builtin
    assert len(corpus) >= 15


@pytest.mark.parametrize("name", NAMES)
def test_declaration(name: str) -> None:
    cls = WORKLOADS[name]
    assert set(STANDARD_SCALES) <= set(cls.scales)
    assert cls.sources, "a workload names its CUDA sources"
    for path in cls.source_paths():
        assert path.is_file(), f"{name}: missing source {path}"
    assert cls.__module__.startswith(f"ndpgpu.workloads.{cls.suite}.")
    specs = cls().output_specs(cls.params("tiny"))
    assert set(cls.tolerance) <= set(specs), "every tolerance names an output"


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("scale", ["tiny", "small"])
def test_inputs_are_deterministic(name: str, scale: str) -> None:
    cls = WORKLOADS[name]
    _, first, _ = _inputs(cls, scale)
    _, second, _ = _inputs(cls, scale)
    assert first.keys() == second.keys()
    for key in first:
        assert _same(first[key], second[key]), f"{name}/{scale}: input {key!r} differs between two runs"


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("scale", ["tiny", "small"])
def test_reference_matches_output_specs(name: str, scale: str) -> None:
    cls = WORKLOADS[name]
    w, inp, p = _inputs(cls, scale)
    ref = w.reference(inp, p)
    specs = w.output_specs(p)
    assert ref.keys() == specs.keys()
    for key, (shape, dtype) in specs.items():
        out = ref[key]
        assert isinstance(out, np.ndarray), f"{name}/{scale}: {key} is {type(out).__name__}"
        assert out.shape == shape, f"{name}/{scale}: {key} has shape {out.shape}, documented {shape}"
        assert out.dtype == dtype, f"{name}/{scale}: {key} has dtype {out.dtype}, documented {dtype}"
    # the reference must not modify its inputs (launch gets the same dict afterwards)
    _, fresh, _ = _inputs(cls, scale)
    for key in fresh:
        assert _same(inp[key], fresh[key]), f"{name}/{scale}: reference modified input {key!r}"


def test_tiny_scales_stay_tiny() -> None:
    """A rough bound on the thread count of tiny launches (the simulator runs them in about a second)."""
    for name, cls in WORKLOADS.items():
        p = cls.params("tiny")
        size = max(
            (int(v) for k, v in p.items() if isinstance(v, int) and k not in ("block", "rounds", "limit")),
            default=0,
        )
        area = int(np.prod([p[k] for k in ("nx", "ny", "nz", "width", "height", "rows") if k in p] or [0]))
        assert max(size, area) <= 50_000, f"{name}: tiny scale is too large ({p})"


def test_int64_reference_agrees_with_python_integers() -> None:
    """The NumPy model of C integer semantics against arbitrary-precision Python arithmetic."""
    from ndpgpu.workloads.corpus.int64_ops import int_semantics

    cls = WORKLOADS["int64_ops"]
    _, inp, _ = _inputs(cls, "tiny")
    got = int_semantics(inp["a"], inp["b"], inp["s"], inp["x"], inp["y"])

    def wrap(v: int, bits: int, signed: bool) -> int:
        v &= (1 << bits) - 1
        return v - (1 << bits) if signed and v >> (bits - 1) else v

    def cdiv(a: int, b: int) -> int:
        q = abs(a) // abs(b)
        return -q if (a < 0) != (b < 0) else q

    for i in range(inp["a"].size):
        a, b, s = int(inp["a"][i]), int(inp["b"][i]), int(inp["s"][i])
        x, y = int(inp["x"][i]), int(inp["y"][i])
        ua, ub = a & (2**64 - 1), b & (2**64 - 1)
        ux, uy = x & (2**32 - 1), y & (2**32 - 1)
        want = {
            "mulhi": (a * b) >> 64,
            "mul_lo": wrap(a * b, 64, True),
            "div": cdiv(a, b),
            "rem": a - cdiv(a, b) * b,
            "shr": a >> s,
            "shl": wrap(ua << s, 64, True),
            "mul_wide": x * y,
            "zext": ux,
            "div7": cdiv(a, 7),
            "rem_m9": a - cdiv(a, -9) * -9,
            "umulhi": (ua * ub) >> 64,
            "shr_u": ua >> s,
            "udiv": ua // ((ub >> 40) | 1),
            "div32": cdiv(x, y),
            "rem32": x - cdiv(x, y) * y,
            "mulhi32": (x * y) >> 32,
            "umulhi32": wrap((ux * uy) >> 32, 32, True),
            "trunc32": wrap(a, 32, True),
            "shr32": x >> (s & 31),
            "shr_u32": wrap(ux >> (s & 31), 32, True),
            "div_m3": cdiv(x, -3),
            "popc": bin(ua).count("1"),
            "clz": 64 - ua.bit_length(),
        }
        for key, value in want.items():
            assert int(got[key][i]) == value, f"{key}[{i}]: model {int(got[key][i])}, Python {value}"


@pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH: cannot check that the CUDA sources compile")
@pytest.mark.parametrize("source", SOURCES, ids=[f"{p.parent.name}/{p.name}" for p in SOURCES])
def test_source_compiles_to_ptx(source: Path, tmp_path: Path) -> None:
    out = tmp_path / (source.stem + ".ptx")
    proc = subprocess.run(
        [NVCC, "-arch=sm_75", "-ptx", str(source), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, f"nvcc failed on {source.name}:\n{proc.stderr}"
    assert ".entry" in out.read_text()
