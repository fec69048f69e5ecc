"""MUM: MUMmerGPU-style exact matching of short reads against a reference (suffix-array search per query)."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, register
from ndpgpu.workloads.teleport._common import OutputSpecs, TeleportWorkload, ceil_div, spec

BASES = np.frombuffer(b"ACGT", dtype=np.uint8)


def suffix_array(text: np.ndarray) -> np.ndarray:
    """Suffix array by prefix doubling (ranks of 2^k-prefixes, sorted with NumPy)."""
    n = text.size
    rank = text.astype(np.int64)
    k = 1
    while True:
        second = np.full(n, -1, dtype=np.int64)
        second[: n - k] = rank[k:] if k < n else second[:0]
        order = np.lexsort((second, rank))
        key_r, key_s = rank[order], second[order]
        new = np.empty(n, dtype=np.int64)
        new[order] = np.concatenate([[0], np.cumsum((np.diff(key_r) != 0) | (np.diff(key_s) != 0))])
        rank = new
        if rank.max() == n - 1:
            return order.astype(np.int32)
        k *= 2


def longest_matches(ref: np.ndarray, queries: np.ndarray, min_match: int) -> np.ndarray:
    """For every query and start p (suffix length >= min_match), the longest prefix of query[p:] that occurs
    in ``ref`` (0 below min_match), by k-mer membership: k-mers packed 2 bits per base, sorted, searched."""
    code = {ord(c): i for i, c in enumerate("ACGT")}
    lut = np.zeros(256, dtype=np.int64)
    for ch, v in code.items():
        lut[ch] = v
    r = lut[ref]
    q = lut[queries]  # (nq, qlen)
    nq, qlen = q.shape
    positions = qlen - min_match + 1
    best = np.zeros((nq, positions), dtype=np.int32)
    for k in range(1, qlen + 1):
        if k > r.size:
            break
        ref_kmers = np.zeros(r.size - k + 1, dtype=np.int64)
        for j in range(k):
            ref_kmers = ref_kmers * 4 + r[j : r.size - k + 1 + j]
        ref_kmers.sort()
        for p in range(min(positions, qlen - k + 1)):
            kmer = np.zeros(nq, dtype=np.int64)
            for j in range(k):
                kmer = kmer * 4 + q[:, p + j]
            i = np.searchsorted(ref_kmers, kmer)
            hit = ref_kmers[np.minimum(i, ref_kmers.size - 1)] == kmer
            best[hit, p] = k  # membership is monotone in k, so the last k that hits is the longest
    return np.where(best >= min_match, best, 0).astype(np.int32)


@register
class Mummer(TeleportWorkload):
    name = "tp_mummer"
    kernel = "mum_match"
    description = (
        "TELEPORT MUM, MUMmerGPU-style read alignment: one thread per query; for every query suffix of at "
        "least min_match bases, a binary search of the reference's suffix array with base-by-base comparisons, "
        "reporting the longest exact match. In the paper's analysis only"
    )
    deviations = (
        "MUMmerGPU walks a suffix tree stored in textures; this kernel searches a suffix array in global memory "
        "instead (same answer: the longest match of every query suffix; data-dependent, control-heavy "
        "indexes), and reports match lengths rather than MUM coordinates. The ISPASS-2009 input files are not "
        "shipped: the reference is uniform random ACGT and the queries are reads sampled from it with 2% "
        "substitutions. The paper gives no sizes; paper scale uses a 1 Mbp reference, 50,000 25-bp reads, "
        "min_match 20."
    )
    sources = ("mummer.cu",)
    scales = {
        "tiny": {"ref_len": 20_000, "queries": 512, "qlen": 25, "min_match": 20},
        "small": {"ref_len": 200_000, "queries": 8192, "qlen": 25, "min_match": 20},
        "paper": {"ref_len": 1_000_000, "queries": 50_000, "qlen": 25, "min_match": 20},
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        ref = BASES[rng.integers(0, 4, size=p["ref_len"])]
        starts = rng.integers(0, p["ref_len"] - p["qlen"], size=p["queries"])
        queries = ref[starts[:, None] + np.arange(p["qlen"])]
        mutate = rng.random(queries.shape) < 0.02
        queries[mutate] = BASES[rng.integers(0, 4, size=int(mutate.sum()))]
        return {"ref": ref, "sa": suffix_array(ref), "queries": np.ascontiguousarray(queries)}

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        nq, qlen, mm = p["queries"], p["qlen"], p["min_match"]
        ref, sa, queries = (ndpgpu.asarray(inp[k]) for k in ("ref", "sa", "queries"))
        out = ndpgpu.zeros((nq, qlen - mm + 1), np.int32)
        ctx.module.get_function("mum_match")(
            ceil_div(nq, 128), 128,
            (ref, np.int32(p["ref_len"]), sa, queries, np.int32(qlen), np.int32(nq), np.int32(mm), out),
        )
        return {"match_len": out.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        return {"match_len": longest_matches(inp["ref"], inp["queries"], p["min_match"])}  # integers: exact

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"match_len": spec((p["queries"], p["qlen"] - p["min_match"] + 1), np.int32)}
