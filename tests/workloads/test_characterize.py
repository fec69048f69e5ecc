"""``ndpgpu workloads characterize``: metrics from traces against hand-computed answers, detection of
shared/local/atomic use on workloads that have it, the docs writer, and failure rows instead of crashes."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from ndpgpu.trace.format import (
    MEM_ATOMIC,
    MEM_DTYPE,
    MEM_LOAD,
    MEM_STORE,
    OP_CLASS,
    SEGMENT_DTYPE,
    SPACE,
    STATIC_DTYPE,
    KernelTrace,
    LaunchInfo,
)
from ndpgpu.workloads import characterize as ch

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not on PATH")
FULL = 0xFFFFFFFF


def _trace(classes: list[str], segments: list[tuple[int, int, int, int]], records: list[dict],
           lane_addrs: list[int] | None = None) -> KernelTrace:
    static = np.zeros(len(classes), STATIC_DTYPE)
    static["op_class"] = [OP_CLASS[c] for c in classes]
    static["guard"] = -1
    seg = np.array(segments, SEGMENT_DTYPE)
    nwarps = int(seg["warp"].max()) + 1 if len(seg) else 0
    mem = np.zeros(len(records), MEM_DTYPE)
    for i, r in enumerate(records):
        for k, v in {"mask": FULL, "space": SPACE["global"], "flags": MEM_LOAD, "size": 4, "stride": 0,
                     "addr_index": -1, **r}.items():
            mem[i][k] = v
    return KernelTrace(
        launch=LaunchInfo("k", (nwarps, 1, 1), (32, 1, 1), 0, 8, 0, 0),
        opcode_names=["x"], static=static, segments=seg,
        warp_seg_start=np.searchsorted(seg["warp"], np.arange(nwarps + 1)).astype(np.int64),
        mem=mem, warp_mem_start=np.zeros(nwarps + 1, np.int64),
        lane_addrs=np.array(lane_addrs or [], np.uint64))


def _brute(addrs: list[int], mask: int, size: int) -> tuple[int, int]:
    """Independent reference: the set of sectors and lines of the bytes every active lane touches."""
    touched = {b for lane in range(32) if mask >> lane & 1 for b in range(addrs[lane], addrs[lane] + size)}
    return len({b // 32 for b in touched}), len({b // 128 for b in touched})


# -- coalescing degree ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("base", "stride", "size", "mask", "want"), [
    (0x1000, 4, 4, FULL, (4, 1)),            # 32 consecutive floats: 4 sectors, 1 line
    (0x1000, 128, 4, FULL, (32, 32)),        # stride of 32 floats: a line per lane
    (0x1000, 0, 4, FULL, (1, 1)),            # broadcast
    (0x1000, 4, 4, 0x0000FFFF, (2, 1)),      # half a warp
    (0x1004, 4, 4, FULL, (5, 2)),            # misaligned by one float
    (0x1000, 8, 8, FULL, (8, 2)),            # consecutive doubles
    (0x1000 + 31 * 4, -4, 4, FULL, (4, 1)),  # descending lanes
    (0x1000, 16, 16, FULL, (16, 4)),         # float4
    (0x1000, 4, 4, 0x80000001, (2, 1)),      # first and last lane only
    (0x1000, 4, 4, 0, (0, 0)),               # no active lane
])
def test_coalescing_affine(base: int, stride: int, size: int, mask: int, want: tuple[int, int]) -> None:
    t = _trace(["load"], [(0, 0, 1, FULL)], [{"base": base, "stride": stride, "size": size, "mask": mask}])
    s, ln = ch.coalescing(t)
    assert (int(s[0]), int(ln[0])) == want
    assert want == (_brute([base + lane * stride for lane in range(32)], mask, size) if mask else (0, 0))


def test_coalescing_listed_addresses_match_brute_force() -> None:
    rng = np.random.default_rng(1)
    lane_addrs: list[int] = []
    records = []
    expect = []
    for _ in range(300):
        kind = rng.integers(4)
        size = int(rng.choice([1, 2, 4, 8, 16]))
        if kind == 0:  # a permutation of a unit-stride access
            addrs = list(0x10000 + size * rng.permutation(32))
        elif kind == 1:  # random gather within 4 KB, aligned
            addrs = list(0x20000 + size * rng.integers(0, 4096 // size, 32))
        elif kind == 2:  # random gather over a large range
            addrs = list(size * rng.integers(0, 1 << 30, 32))
        else:  # a few lanes on the same word
            addrs = list(0x30000 + size * rng.integers(0, 3, 32))
        mask = int(rng.integers(0, 1 << 32))
        records.append({"addr_index": len(lane_addrs), "size": size, "mask": mask, "stride": 12345})
        lane_addrs += [int(a) for a in addrs]
        expect.append(_brute([int(a) for a in addrs], mask, size))
    t = _trace(["load"], [(0, 0, 1, FULL)], records, lane_addrs)
    s, ln = ch.coalescing(t, chunk=64)  # several chunks
    assert list(zip(s.tolist(), ln.tolist(), strict=True)) == expect


# -- counts and mix from a hand-built trace ------------------------------------------------------------

def test_counts_and_mix_hand_built() -> None:
    # PCs: 0 int, 1 load (global), 2 fp32, 3 store (shared), 4 atomic (global), 5 branch
    classes = ["int", "load", "fp32", "store", "atomic", "branch"]
    segments = [(0, 0, 6, FULL), (1, 0, 2, 0xFFFF), (1, 2, 4, 0xFF)]
    records = [
        {"base": 0x1000, "stride": 4, "size": 4},                                   # warp 0 pc1: 128 B, 4 sect
        {"space": SPACE["shared"], "flags": MEM_STORE, "base": 0, "stride": 4},      # warp 0 pc3
        {"flags": MEM_ATOMIC, "base": 0x2000, "stride": 0, "mask": 0x3},             # warp 0 pc4: 8 B, 1 sect
        {"base": 0x1000, "stride": 128, "size": 4, "mask": 0xFFFF},                  # warp 1 pc1: 64 B, 16 sect
        {"space": SPACE["shared"], "flags": MEM_STORE, "base": 0, "stride": 4, "mask": 0xFF},  # warp 1 pc3
        {"flags": MEM_ATOMIC, "base": 0x2000, "stride": 0, "mask": 0},               # warp 1 pc4: no lane
    ]
    t = _trace(classes, segments, records)
    warp_pc, thread_pc = ch.per_pc_counts(t)
    assert warp_pc.tolist() == [2, 2, 2, 2, 2, 2]
    assert thread_pc.tolist() == [48, 48, 40, 40, 40, 40]
    m = ch.characterize_traces([t, t])  # two identical launches: counts double, ratios stay
    assert m["launches"] == 2
    assert m["warp_instructions"] == 24 and m["thread_instructions"] == 2 * 256
    assert m["simd_efficiency"] == pytest.approx(512 / (32 * 24))
    assert sum(m["mix"].values()) == pytest.approx(1.0)
    assert sum(m["mix_class"].values()) == pytest.approx(1.0)
    assert m["mix"]["mem"] == pytest.approx(6 / 12) and m["mix"]["int"] == pytest.approx(2 / 12)
    assert m["mix"]["fp"] == pytest.approx(2 / 12) and m["mix"]["other"] == pytest.approx(2 / 12)
    assert m["global_requests"] == 6  # the atomic without an active lane does not count
    assert m["global_bytes"] == 2 * (128 + 8 + 64)
    assert m["global_bytes_per_thread_instruction"] == pytest.approx(400 / 512)
    assert m["global_bytes_per_warp_instruction"] == pytest.approx(400 / 24)
    assert m["sectors_per_request"] == pytest.approx((4 + 1 + 16) / 3)
    assert m["lines_per_request"] == pytest.approx((1 + 1 + 16) / 3)
    assert m["shared_instructions"] == 4 and m["shared"] == pytest.approx(4 / 24)
    assert m["atomic_instructions"] == 2 and m["atomic_global_instructions"] == 2
    assert m["local_instructions"] == 0


def test_empty_run() -> None:
    m = ch.characterize_traces([])
    assert m["launches"] == 0 and m["simd_efficiency"] == 0.0 and m["sectors_per_request"] == 0.0


# -- real workloads ------------------------------------------------------------------------------------

@needs_nvcc
def test_vecadd_tiny_known_answers() -> None:
    from ndpgpu.workloads.runner import run_workload

    n = 10_000  # vecadd's tiny size
    run = run_workload("vecadd", "tiny", trace=True)
    m = ch.characterize_traces(run.device.traces)
    ti = run.device.traces[0].thread_instructions()
    assert m["thread_instructions"] == ti == run.stats["thread_instructions"]
    assert m["global_bytes"] == 12 * n  # a[i], b[i] read, c[i] written: 12 bytes per thread
    assert m["global_bytes_per_thread_instruction"] == pytest.approx(12 * n / ti)
    full, rest = divmod(n, 32)  # 312 full warps and one of 16 lanes, three accesses each
    assert m["global_requests"] == 3 * (full + 1)
    assert m["sectors_per_request"] == pytest.approx((full * 4 + rest * 4 // 32) / (full + 1))
    assert m["lines_per_request"] == pytest.approx(1.0)
    assert m["shared"] == m["local"] == m["atomic"] == 0
    assert m["simd_efficiency"] > 0.95


@needs_nvcc
@pytest.mark.parametrize(("name", "uses"), [
    ("libor", {"local"}), ("histogram", {"atomic", "shared"}), ("reduce_shared", {"shared"}),
])
def test_memory_space_use_detected(name: str, uses: set[str]) -> None:
    row = ch.characterize_workload(name, "tiny")
    assert "error" not in row and row["passed"]
    for what in ("shared", "local", "atomic"):
        assert (row[f"{what}_instructions"] > 0) == (what in uses), (name, what, row[f"{what}_instructions"])
    assert sum(row["mix"].values()) == pytest.approx(1.0)
    if name == "libor":  # per-thread arrays: local traffic, bytes of it recorded
        assert row["local_bytes"] > 0


def test_failure_becomes_a_row() -> None:
    row = ch.characterize_workload("no_such_workload", "small")
    assert "error" in row and "no_such_workload" in row["error"]
    row = ch.characterize_workload("vecadd", "huge")
    assert "error" in row and "huge" in row["error"]
    cells = ch.char_cells(row, machine=True)
    assert len(cells) == len(ch.char_columns(True)) and cells[-1].startswith("FAILED")


def test_paper_time_over_limit_is_reported() -> None:
    rows = ch.run_isolated("paper_time", ["vecadd"], ("paper",), time_limit=0.01)
    assert rows[0]["over_limit"] and rows[0]["name"] == "vecadd"
    cells = ch.paper_cells(rows[0])
    assert cells[2] == "over limit" and len(cells) == len(ch.paper_columns())


# -- the docs writer ------------------------------------------------------------------------------------

DOC = """# Workloads

intro text

<!-- characterization:begin -->
old generated text
<!-- characterization:end -->

## Later section

appended by someone else
"""


def test_write_docs_replaces_only_the_marked_block(tmp_path) -> None:
    path = tmp_path / "workloads.md"
    path.write_text(DOC)
    row = {"name": "vecadd", "suite": "builtin", "papers": [], "scales": ["tiny", "small", "paper"],
           **ch.summarize([ch.trace_counts(_trace(["load"], [(0, 0, 1, FULL)], [{"base": 0, "stride": 4}]))])}
    char = {"vecadd": ch.char_cells(row, False)}
    ch.write_docs(path, lambda old: ch.render_block(old, char, None, scale="small", machine=None,
                                                    order=["vecadd", "saxpy"], time_limit=600))
    text = path.read_text()
    before, rest = text.split(ch.BEGIN_MARKER)
    block, after = rest.split(ch.END_MARKER)
    assert before == DOC.split(ch.BEGIN_MARKER)[0]
    assert after == DOC.split(ch.END_MARKER)[1]
    assert "old generated text" not in block and "| vecadd | builtin |" in block
    assert "ndpgpu workloads characterize" in block
    header, rows = ch.parse_markdown_table(block)
    assert header == ch.char_columns(False) and list(rows) == ["vecadd"]

    # a later paper-times pass for another workload keeps the characterization table and merges rows
    paper = {"saxpy": ch.paper_cells({"name": "saxpy", "suite": "builtin", "over_limit": True, "time_limit": 600})}
    ch.write_docs(path, lambda old: ch.render_block(old, None, paper, scale="small", machine=None,
                                                    order=["vecadd", "saxpy"], time_limit=600))
    text2 = path.read_text()
    assert "| vecadd | builtin |" in text2 and "| saxpy | builtin | over limit |" in text2
    assert text2.endswith(DOC.split(ch.END_MARKER)[1])
    # a characterization of saxpy alone keeps vecadd's row (same columns), in registry order
    char2 = {"saxpy": ch.char_cells({**row, "name": "saxpy"}, False)}
    ch.write_docs(path, lambda old: ch.render_block(old, char2, None, scale="small", machine=None,
                                                    order=["vecadd", "saxpy"], time_limit=600))
    block3 = path.read_text().split(ch.BEGIN_MARKER)[1].split(ch.PAPER_BEGIN)[0]
    assert list(ch.parse_markdown_table(block3)[1]) == ["vecadd", "saxpy"]
    assert "| saxpy | builtin | over limit |" in path.read_text()
    # re-rendering without new rows changes nothing
    before = path.read_text()
    ch.write_docs(path, lambda old: ch.render_block(old, None, None, scale="small", machine=None,
                                                    order=["vecadd", "saxpy"], time_limit=600))
    assert path.read_text() == before
    assert before.count(ch.PAPER_HEADING) == 1


def test_write_docs_without_markers_refuses(tmp_path) -> None:
    path = tmp_path / "x.md"
    path.write_text("# no markers\n")
    with pytest.raises(ValueError, match="markers"):
        ch.write_docs(path, lambda old: "x")
    assert path.read_text() == "# no markers\n"


@needs_nvcc
def test_cli_json(capsys) -> None:
    from ndpgpu.cli import main

    assert main(["workloads", "characterize", "saxpy", "no_such_workload", "--scale", "tiny", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rows = {r["name"]: r for r in out["workloads"]}
    assert rows["saxpy"]["passed"] and rows["saxpy"]["launches"] == 1
    assert "error" in rows["no_such_workload"]


def test_isolated_child_reports_a_failure_row() -> None:
    rows = ch.run_isolated("characterize_workload", ["no_such_workload"], ("tiny", None), time_limit=120)
    assert "error" in rows[0] and "no_such_workload" in rows[0]["error"]
