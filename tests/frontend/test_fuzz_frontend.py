"""The frontend under fuzzing: mutated PTX (from nvcc output of the project's own kernels) either parses
and decodes, or fails with a typed ndpgpu error that names a line (PTXParseError: line and column;
UnsupportedPTX: line). Never an untyped exception, never a hang or runaway memory.

10,000 inputs per CI run (ten seeded chunks, spread over the test workers); ``benchmarks/fuzz.py`` runs a
longer campaign. A few mutated CUDA sources go through nvcc too: every failure is a CompileError."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from fuzzkit import mutate

import ndpgpu
from ndpgpu.frontend import nvcc
from ndpgpu.frontend.parser import PTXParseError, parse_ptx
from ndpgpu.functional.decode import UnsupportedPTX, decode_kernel
from ndpgpu.host.modules import shared_layout as _shared_layout

SEEDS_DIR = Path(__file__).parent / "fuzz_seeds"
SEEDS = {p.stem: p.read_text() for p in sorted(SEEDS_DIR.glob("*.ptx"))}
CI_SEEDS = [text for text in SEEDS.values() if len(text) < 10_000]  # the large ones in benchmarks/fuzz.py
CHUNKS, PER_CHUNK = 10, 1000


def frontend(text: str) -> str:
    """Parse ``text`` and decode every kernel; 'ok', or the typed error's class name (anything else raises)."""
    try:
        module = parse_ptx(text)
        for name, fn in module.functions.items():
            if fn.is_entry:
                layout, _ = _shared_layout(module, name)
                symbols = {v: 0x7_0000_0000 + 256 * k for k, v in enumerate(module.variables)}
                decode_kernel(module, name, symbols, layout)
    except PTXParseError as exc:
        assert exc.line >= 1 and exc.col >= 1, exc
        return "PTXParseError"
    except UnsupportedPTX as exc:
        assert str(exc).startswith("unsupported PTX"), exc
        return "UnsupportedPTX"
    return "ok"


def test_seeds_are_nvcc_output_that_decodes():
    assert len(SEEDS) >= 8
    assert all(frontend(text) == "ok" for text in SEEDS.values())


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_mutated_ptx_fails_only_with_typed_errors(chunk):
    rng = random.Random(1000 + chunk)
    texts = CI_SEEDS
    outcomes: dict[str, int] = {}
    for _ in range(PER_CHUNK):
        source = mutate(rng.choice(texts), rng)
        outcome = frontend(source)  # an untyped exception fails the test here, with its input reproducible
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    assert sum(outcomes.values()) == PER_CHUNK
    assert outcomes.get("PTXParseError", 0) > 0 and outcomes.get("ok", 0) > 0  # the mutations reach both


CUDA_SEED = r"""
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
"""


@pytest.mark.skipif(not nvcc.nvcc_available(), reason="nvcc and a host compiler are required")
def test_mutated_cuda_fails_only_with_compile_errors(tmp_path, monkeypatch):
    monkeypatch.setenv("NDPGPU_CACHE_DIR", str(tmp_path))
    rng = random.Random(7)
    compiled = failed = 0
    for _ in range(12):
        try:
            ndpgpu.RawModule(code=mutate(CUDA_SEED, rng, rounds=1))
            compiled += 1
        except ndpgpu.CompileError:
            failed += 1
        except (PTXParseError, UnsupportedPTX):  # nvcc accepted it; our frontend refused, typed
            failed += 1
    assert compiled + failed == 12 and failed > 0
