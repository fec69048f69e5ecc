"""BPT: Rodinia b+tree's findK (point queries) and findRangeK (range queries) over a bulk-loaded B+ tree."""

from __future__ import annotations

from typing import Any

import numpy as np

import ndpgpu
from ndpgpu.workloads.base import RunContext, register
from ndpgpu.workloads.teleport._common import OutputSpecs, TeleportWorkload, spec

ORDER = 511  # threads per block; node arrays have ORDER + 1 entries (two 512-int arrays, as the paper says)
INT_MIN, INT_MAX = np.iinfo(np.int32).min, np.iinfo(np.int32).max
KNODE = np.dtype(
    [("location", np.int32), ("indices", np.int32, (ORDER + 1,)), ("keys", np.int32, (ORDER + 1,)),
     ("is_leaf", np.bool_), ("num_keys", np.int32)],
    align=True,
)


def _groups(count: int, rng: np.random.Generator) -> list[int]:
    """Split ``count`` entries into nodes of (ORDER + 1) // 2 .. ORDER entries (a B+ tree's fill range)."""
    sizes = []
    while count > ORDER:
        s = int(rng.integers((ORDER + 1) // 2, ORDER + 1))
        s = min(s, count - (ORDER + 1) // 2) if count - s < (ORDER + 1) // 2 else s
        sizes.append(s)
        count -= s
    sizes.append(count)
    return sizes


def build_tree(keys: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """Bulk-load sorted distinct ``keys`` (record i has key keys[i]) into Rodinia-style knodes, root first and
    level by level. An inner node's keys are its children's smallest keys with keys[0] = INT_MIN; unused key
    slots hold INT_MAX. Returns the nodes and the height (inner levels to descend)."""
    levels: list[list[tuple[int, int]]] = []  # per level, bottom up: (first entry, count) of each node
    sizes = _groups(keys.size, rng)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    levels.append(list(zip(starts.tolist(), sizes, strict=True)))
    while len(levels[-1]) > 1:
        sizes = _groups(len(levels[-1]), rng)
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        levels.append(list(zip(starts.tolist(), sizes, strict=True)))
    top_down = levels[::-1]
    base = np.concatenate([[0], np.cumsum([len(lv) for lv in top_down])]).tolist()
    nodes = np.zeros(base[-1], dtype=KNODE)
    nodes["keys"] = INT_MAX
    nodes["location"] = np.arange(base[-1])
    leaf_min = keys[[first for first, _ in levels[0]]]
    mins = [leaf_min]  # smallest key of every node, per level bottom up
    for lv in levels[1:]:
        mins.append(mins[-1][[first for first, _ in lv]])
    for depth, lv in enumerate(top_down):
        level_from_bottom = len(levels) - 1 - depth
        for j, (first, count) in enumerate(lv):
            node = nodes[base[depth] + j]
            node["num_keys"] = count
            if level_from_bottom == 0:
                node["is_leaf"] = True
                node["keys"][:count] = keys[first : first + count]
                node["indices"][:count] = np.arange(first, first + count)
            else:
                node["keys"][:count] = mins[level_from_bottom - 1][first : first + count]
                node["keys"][0] = INT_MIN
                node["indices"][:count] = base[depth + 1] + np.arange(first, first + count)
    return nodes, len(levels) - 1


@register
class BPlusTree(TeleportWorkload):
    name = "tp_bptree"
    kernel = "bpt_find_k"
    description = (
        "TELEPORT BPT, Rodinia b+tree: findK (one 511-thread block per point query, each thread testing one "
        "key interval of the current node, the node number kept in global per-query arrays) and findRangeK "
        "(two descents per range query, start record and length) over a B+ tree of Rodinia knode structs"
    )
    deviations = (
        "Kernels written fresh after Rodinia's findK/findRangeK. The tree is bulk-loaded on the host with nodes "
        "half to fully filled (Rodinia inserts one key at a time, which also leaves nodes half to fully "
        "filled), with order 511 so a node is two 512-int arrays as the paper states. mil.txt is not shipped: "
        "the 1M keys are distinct uniform random ints; k queries are 90% present keys and 10% random values "
        "(answer -1); range queries run between two present keys at most `range` records apart (Rodinia picks "
        "random bounds, which may be absent). Paper scale: 1M keys, command.txt's 10000 k and 6000 j queries "
        "of range 3000."
    )
    sources = ("bptree.cu",)
    scales = {
        "tiny": {"keys": 20_000, "k_queries": 120, "j_queries": 60, "range": 300},
        "small": {"keys": 200_000, "k_queries": 1000, "j_queries": 600, "range": 3000},
        "paper": {"keys": 1_000_000, "k_queries": 10_000, "j_queries": 6000, "range": 3000},
    }

    def inputs(self, p: dict[str, Any], rng: np.random.Generator) -> dict[str, Any]:
        n = p["keys"]
        keys = np.unique(rng.integers(0, 1 << 30, size=n + n // 8, dtype=np.int64))
        keys = np.sort(rng.permutation(keys)[:n]).astype(np.int32)
        nodes, height = build_tree(keys, rng)
        kq = keys[rng.integers(0, n, size=p["k_queries"])]
        missing = rng.random(p["k_queries"]) < 0.1
        kq[missing] = rng.integers(0, 1 << 30, size=int(missing.sum()))
        start = rng.integers(0, n - p["range"] - 1, size=p["j_queries"])
        end = start + rng.integers(0, p["range"] + 1, size=p["j_queries"])
        return {
            "knodes": nodes, "height": np.int32(height), "keys": keys,
            "records": rng.integers(0, 1 << 20, size=n, dtype=np.int32),
            "k_keys": kq.astype(np.int32), "j_start": keys[start], "j_end": keys[end],
        }

    def launch(self, ctx: RunContext, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        knodes = ndpgpu.asarray(inp["knodes"])
        elem = np.int32(inp["knodes"].size)
        height = np.int32(inp["height"])
        nk, nj = p["k_queries"], p["j_queries"]
        records = ndpgpu.asarray(inp["records"])
        curr, offset = ndpgpu.zeros(nk, np.int32), ndpgpu.zeros(nk, np.int32)
        keys = ndpgpu.asarray(inp["k_keys"])
        ans = ndpgpu.asarray(np.full(nk, -1, dtype=np.int32))
        ctx.module.get_function("bpt_find_k")(nk, ORDER, (height, knodes, elem, records, curr, offset, keys, ans))
        curr, offset = ndpgpu.zeros(nj, np.int32), ndpgpu.zeros(nj, np.int32)
        last, offset2 = ndpgpu.zeros(nj, np.int32), ndpgpu.zeros(nj, np.int32)
        start, end = ndpgpu.asarray(inp["j_start"]), ndpgpu.asarray(inp["j_end"])
        rec_start, rec_len = ndpgpu.zeros(nj, np.int32), ndpgpu.zeros(nj, np.int32)
        ctx.module.get_function("bpt_find_range_k")(
            nj, ORDER, (height, knodes, elem, curr, offset, last, offset2, start, end, rec_start, rec_len)
        )
        return {"answer": ans.get(), "range_start": rec_start.get(), "range_length": rec_len.get()}

    def reference(self, inp: dict[str, Any], p: dict[str, Any]) -> dict[str, np.ndarray]:
        keys = inp["keys"]
        pos = np.searchsorted(keys, inp["k_keys"])
        found = (pos < keys.size) & (keys[np.minimum(pos, keys.size - 1)] == inp["k_keys"])
        answer = np.where(found, inp["records"][np.minimum(pos, keys.size - 1)], -1).astype(np.int32)
        lo = np.searchsorted(keys, inp["j_start"]).astype(np.int32)
        hi = np.searchsorted(keys, inp["j_end"]).astype(np.int32)
        return {"answer": answer, "range_start": lo, "range_length": (hi - lo + 1).astype(np.int32)}

    def output_specs(self, p: dict[str, Any]) -> OutputSpecs:
        return {"answer": spec(p["k_queries"], np.int32), "range_start": spec(p["j_queries"], np.int32),
                "range_length": spec(p["j_queries"], np.int32)}
