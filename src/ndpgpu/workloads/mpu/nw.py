"""NW: Rodinia needle's Needleman-Wunsch scoring, batched: many 32-residue pairs, one anti-diagonal wavefront
per block in shared memory."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, Workload, register
from ndpgpu.workloads.builtin._common import OutputSpecs, spec

LEN = 32  # residues per sequence (threads per block)
ALPHABET = 24  # amino-acid codes, as BLOSUM62's rows


def substitution_matrix(rng: np.random.Generator) -> np.ndarray:
    """A symmetric BLOSUM-like score table: matches in [4, 11], mismatches in [-4, 3] (int32, 24 x 24)."""
    off = rng.integers(-4, 4, size=(ALPHABET, ALPHABET))
    table = np.triu(off, 1) + np.triu(off, 1).T + np.diag(rng.integers(4, 12, size=ALPHABET))
    return table.astype(np.int32)


def nw_scores(ref: np.ndarray, penalty: int) -> np.ndarray:
    """The interior of every pair's score table. ``ref`` is (npairs, LEN, LEN): ref[q][i][j] scores residue i of
    sequence b against residue j of sequence a. Returns (npairs, LEN, LEN) int32, cell (i, j) = score[i+1][j+1]."""
    npairs, n, m = ref.shape
    s = np.zeros((npairs, n + 1, m + 1), dtype=np.int64)
    s[:, 0, :] = -penalty * np.arange(m + 1)
    s[:, :, 0] = -penalty * np.arange(n + 1)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            s[:, i, j] = np.maximum(
                s[:, i - 1, j - 1] + ref[:, i - 1, j - 1],
                np.maximum(s[:, i - 1, j], s[:, i, j - 1]) - penalty,
            )
    return s[:, 1:, 1:].astype(np.int32)


def interleave_rows(a: np.ndarray) -> np.ndarray:
    """(npairs, LEN, LEN) -> the kernel's layout, row y of pair q at (y * npairs + q) * LEN (flat)."""
    return np.ascontiguousarray(a.transpose(1, 0, 2)).reshape(-1)


@register
class MpuNw(Workload):
    name = "mpu_nw"
    suite = "mpu"
    papers = ("MPU",)
    description = (
        "NW (Rodinia needle): Needleman-Wunsch global-alignment score tables of npairs independent pairs of "
        "32-residue sequences (linear gap penalty 10, BLOSUM-like substitution scores); one block of 32 threads "
        "per pair fills its 33 x 33 table in shared memory one anti-diagonal per barrier; int32 scores, rows "
        "interleaved across pairs (row y of pair q at (y*npairs + q)*32)"
    )
    deviations = (
        "Kernel written fresh after Rodinia's needle (shared-memory tile, anti-diagonal wavefront, host-built "
        "substitution-score matrix, penalty 10). Rodinia aligns one pair of 2048-residue sequences in 16 x 16 "
        "tiles over 2 x 128 diagonal launches; following MPU-Sim's nw, this aligns many 32-residue pairs "
        "independently (4096 pairs, 2048 blocks of 32 threads, row-interleaved layout) and keeps the standard "
        "-i * penalty borders, where MPU-Sim takes border values and cell scores as random inputs. The "
        "substitution table is a seeded random BLOSUM-like one, not BLOSUM62; no traceback."
    )
    sources = ("nw.cu",)
    scales = {
        "tiny": {"npairs": 64, "grid": 64, "penalty": 10},
        "small": {"npairs": 1024, "grid": 1024, "penalty": 10},
        "paper": {"npairs": 4096, "grid": 2048, "penalty": 10},
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        table = substitution_matrix(rng)
        seq_a = rng.integers(0, ALPHABET, size=(p["npairs"], LEN))
        seq_b = rng.integers(0, ALPHABET, size=(p["npairs"], LEN))
        ref = table[seq_b[:, :, None], seq_a[:, None, :]]  # (npairs, i, j): b_i against a_j
        return {"seq_a": seq_a.astype(np.int32), "seq_b": seq_b.astype(np.int32), "table": table,
                "ref": np.ascontiguousarray(ref, dtype=np.int32)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        npairs = p["npairs"]
        ref = ndpgpu.asarray(interleave_rows(inp["ref"]))
        score = ndpgpu.zeros(npairs * LEN * LEN, np.int32)
        ctx.module.get_function("mpu_nw")(p["grid"], LEN, (ref, score, np.int32(npairs), np.int32(p["penalty"])))
        return {"score": score.get().reshape(LEN, npairs, LEN).transpose(1, 0, 2)}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return {"score": nw_scores(inp["ref"], p["penalty"])}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"score": spec((p["npairs"], LEN, LEN), np.int32)}
