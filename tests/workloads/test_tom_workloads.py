"""TOM's ten workloads (suite ``tom``): registry, deterministic inputs, fast references with the documented
outputs, independent checks of the references, PTX shape (local arrays), and runs through the simulator."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ndpgpu.workloads.base import STANDARD_SCALES, Workload, all_workloads
from ndpgpu.workloads.tom import TOM_NVCC_OPTIONS, TOM_VARIANTS, TOM_WORKLOADS
from ndpgpu.workloads.tom.nounroll import SUFFIX

# the suite's own classes (TOM's *_nounroll copies share their sources, inputs and references: one test below),
# labelled variants (TOM_VARIANTS) included
WORKLOADS: dict[str, type[Workload]] = {n: c for n, c in all_workloads().items()
                                        if c.suite == "tom" and not n.endswith(SUFFIX)}
NAMES = sorted(WORKLOADS)
NVCC = shutil.which("nvcc")
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH: cannot compile the CUDA sources to PTX")


def _inputs(name: str, scale: str) -> tuple[Workload, dict[str, Any], dict[str, Any]]:
    cls = WORKLOADS[name]
    w = cls()
    p = cls.params(scale)
    return w, w.inputs(p, np.random.default_rng(cls.seed)), p


def _same(a: Any, b: Any) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _ptx(cls: type[Workload], tmp_path: Path) -> str:
    assert NVCC is not None
    (source,) = cls.source_paths()
    out = tmp_path / (source.stem + ".ptx")
    proc = subprocess.run(
        [NVCC, "-arch=sm_75", *cls.options, "-ptx", str(source), "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, f"nvcc failed on {source.name}:\n{proc.stderr}"
    return out.read_text()


def _entry(ptx: str, kernel: str) -> str:
    """The PTX text of one kernel entry (up to the next entry)."""
    start = ptx.index(f".entry {kernel}(")
    nxt = ptx.find(".entry ", start + 1)
    return ptx[start : nxt if nxt >= 0 else len(ptx)]


# -- registry ----------------------------------------------------------------------------------------


def test_the_ten_workloads_are_registered() -> None:
    assert set(TOM_WORKLOADS) == {"BP", "BFS", "KM", "CFD", "HW", "LIB", "RAY", "FWT", "SP", "RD"}
    assert {n.removesuffix(SUFFIX) for n in TOM_WORKLOADS.values()} == set(WORKLOADS) - set(TOM_VARIANTS)
    assert set(TOM_VARIANTS.values()) <= set(TOM_WORKLOADS) and not set(TOM_VARIANTS) & set(TOM_WORKLOADS.values())


def test_one_compilation_rule_for_the_ten_and_only_them() -> None:
    """Every workload TOM runs compiles with TOM's rule; the five it shares with TELEPORT and LLC-Compute run
    there under their plain names with nvcc's default, and TOM's copies differ from them only in that."""
    everything = all_workloads()
    for name in (*TOM_WORKLOADS.values(), *TOM_VARIANTS):
        assert everything[name].options[:len(TOM_NVCC_OPTIONS)] == TOM_NVCC_OPTIONS, name
        if name.endswith(SUFFIX):
            base = everything[name.removesuffix(SUFFIX)]
            copy = everything[name]
            assert not set(TOM_NVCC_OPTIONS) & set(base.options) and "TOM" in base.papers and len(base.papers) > 1
            assert (copy.sources, copy.scales, copy.directory(), copy.papers) == (
                base.sources, base.scales, base.directory(), ("TOM",))
            assert issubclass(copy, base)


@pytest.mark.parametrize("name", NAMES)
def test_declaration(name: str) -> None:
    cls = WORKLOADS[name]
    assert set(STANDARD_SCALES) <= set(cls.scales)
    assert cls.papers[0] == "TOM"
    assert cls.deviations and cls.deviations != "none", "every TOM workload says how it differs"
    assert len(cls.sources) == 1 and cls.source_paths()[0].is_file()
    specs = cls().output_specs(cls.params("tiny"))
    assert set(cls.tolerance) <= set(specs), "every tolerance names an output"


def test_paper_scales_match_the_standard_inputs() -> None:
    """The paper scale is the suite's standard input (or a generated equivalent of the same size)."""
    p = {abbr: WORKLOADS[name.removesuffix(SUFFIX)].params("paper") for abbr, name in TOM_WORKLOADS.items()}
    assert p["BP"]["in"] == 65536
    assert p["BFS"]["nodes"] == 1_000_000 and p["BFS"]["min_edges"] + p["BFS"]["max_edges"] == 6
    assert (p["KM"]["npoints"], p["KM"]["nfeatures"], p["KM"]["nclusters"]) == (494020, 34, 5)
    assert p["CFD"]["nel"] == 97046
    # Rodinia's test.avi frame size and length, tSize, sSize, maxMove; the first 2 of the run script's 20 frames
    # hold TOM's 2-billion-instruction window (docs/tom.md)
    hw = p["HW"]
    assert (hw["rows"], hw["cols"], hw["video_frames"], hw["t_half"], hw["s_half"]) == (609, 590, 104, 25, 40)
    assert (hw["max_move"], hw["update_every"], hw["frames"]) == (10, 10, 2)
    assert p["LIB"]["npath"] == 4096 and p["LIB"]["grid"] * p["LIB"]["block"] == 4096
    assert p["FWT"]["log2_data"] == 23 and p["FWT"]["log2_kernel"] == 7
    assert (p["SP"]["vector_n"], p["SP"]["element_n"]) == (256, 4096)
    assert p["RD"]["n"] == 1 << 24


# -- inputs and references ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("scale", ["tiny", "small"])
def test_inputs_are_deterministic(name: str, scale: str) -> None:
    _, first, _ = _inputs(name, scale)
    _, second, _ = _inputs(name, scale)
    assert first.keys() == second.keys()
    for key in first:
        assert _same(first[key], second[key]), f"{name}/{scale}: input {key!r} differs between two runs"


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("scale", ["tiny", "small"])
def test_reference_matches_output_specs(name: str, scale: str) -> None:
    w, inp, p = _inputs(name, scale)
    ref = w.reference(inp, p)
    specs = w.output_specs(p)
    assert ref.keys() == specs.keys()
    for key, (shape, dtype) in specs.items():
        out = ref[key]
        assert isinstance(out, np.ndarray), f"{name}/{scale}: {key} is {type(out).__name__}"
        assert out.shape == shape, f"{name}/{scale}: {key} has shape {out.shape}, documented {shape}"
        assert out.dtype == dtype, f"{name}/{scale}: {key} has dtype {out.dtype}, documented {dtype}"
        if out.dtype.kind == "f":
            assert np.isfinite(out).all(), f"{name}/{scale}: {key} has non-finite values"
    _, fresh, _ = _inputs(name, scale)
    for key in fresh:
        assert _same(inp[key], fresh[key]), f"{name}/{scale}: reference modified input {key!r}"


def test_fwt_reference_is_the_walsh_hadamard_transform() -> None:
    from ndpgpu.workloads.tom.fastwalsh import fwt

    rng = np.random.default_rng(1)
    for log2n in (4, 5, 12, 13):
        x = rng.random(1 << log2n).astype(np.float32)
        h = np.array([[1.0]])
        for _ in range(log2n):
            h = np.block([[h, h], [h, -h]])
        np.testing.assert_allclose(fwt(x, log2n), h @ x.astype(np.float64), rtol=1e-5, atol=1e-4)


def test_reduction_reference_sums_everything() -> None:
    from ndpgpu.workloads.tom.reduction import block_sums, passes

    w, inp, p = _inputs("reduction", "small")
    ref = w.reference(inp, p)
    total = int(inp["data"].astype(np.int64).sum())
    assert int(ref["total"][0]) == total  # 2^21 values below 256 do not overflow int32
    assert passes(1000) == [(1000, 2, 256), (2, 1, 1)]
    # 2 blocks of 2 threads: block 0 reads 0..3 and 8..9 (second grid step), block 1 reads 4..7
    np.testing.assert_array_equal(block_sums(np.arange(10, dtype=np.int32), 2, 2), [23, 22])


def test_reduction_paper_scale_is_the_sdk_sample_with_its_defaults() -> None:
    """The paper runs the SDK's defaults: 2^24 ints, maxBlocks 64 (512 warps); `small` fills the 68 SMs."""
    from ndpgpu.workloads.tom.reduction import passes

    assert WORKLOADS["reduction"].params("paper") == {"n": 1 << 24, "max_blocks": 64}
    assert passes(1 << 24, 64) == [(1 << 24, 64, 256), (64, 1, 32)]
    small = WORKLOADS["reduction"].params("small")
    assert passes(small["n"], small["max_blocks"])[0] == (1 << 21, 408, 256)  # 6 blocks x 8 warps x 68 SMs


def test_scalarprod_reference_is_a_dot_product() -> None:
    w, inp, p = _inputs("scalarprod", "tiny")
    ref = w.reference(inp, p)["c"]
    a = inp["a"].reshape(p["vector_n"], -1).astype(np.float64)
    b = inp["b"].reshape(p["vector_n"], -1).astype(np.float64)
    np.testing.assert_allclose(ref, (a * b).sum(axis=1), rtol=1e-5)


def test_kmeans_assignment_is_the_nearest_centre() -> None:
    from ndpgpu.workloads.tom.kmeans import nearest

    _, inp, _ = _inputs("kmeans", "tiny")
    f, c = inp["features"].astype(np.float64), inp["clusters"].astype(np.float64)
    d = ((f[:, None, :] - c[None, :, :]) ** 2).sum(axis=2)
    got = nearest(inp["features"], inp["clusters"])
    # equal to the float64 argmin except where two distances tie within rounding
    sorted_d = np.sort(d, axis=1)
    clear = sorted_d[:, 1] - sorted_d[:, 0] > 1e-4 * sorted_d[:, 1]
    np.testing.assert_array_equal(got[clear], d.argmin(axis=1)[clear])


def test_bfs_reference_matches_a_queue_bfs() -> None:
    w, inp, p = _inputs("bfs_rodinia", "tiny")
    nodes, edges = inp["nodes"], inp["edges"]
    assert abs(edges.size / nodes.size - 6.0) < 0.2  # graph1MW_6's average degree
    cost = np.full(nodes.size, -1)
    cost[0] = 0
    queue = deque([0])
    while queue:
        v = queue.popleft()
        s, k = int(nodes["starting"][v]), int(nodes["no_of_edges"][v])
        for u in edges[s : s + k]:
            if cost[u] < 0:
                cost[u] = cost[v] + 1
                queue.append(int(u))
    np.testing.assert_array_equal(w.reference(inp, p)["cost"], cost)


def _ncc(patch: np.ndarray, tpl: np.ndarray) -> float:
    a, b = patch - patch.mean(), tpl - tpl.mean()
    den = np.sqrt((a * a).sum() * (b * b).sum())
    return float((a * b).sum() / den) if den > 0 else 0.0


def _rodinia_ncc(tpl: np.ndarray, win: np.ndarray) -> float:
    """Rodinia heartwall's correlation of a template with the window under it, in float64:
    (sum(T*W) - sum(W) * mean(T)) / (sqrt(sum(W^2) - sum(W)^2 / n) * sqrt(n - 1) * std(T))."""
    n = tpl.size
    num = (tpl * win).sum() - win.sum() * tpl.mean()
    den = np.sqrt(max((win * win).sum() - win.sum() ** 2 / n, 0.0)) * np.sqrt(n - 1) * tpl.std()
    return float(num / den) if den > 0 else float("nan")


def test_heartwall_reference_matches_a_brute_force_tracker() -> None:
    """Rodinia's tracker written out with plain loops in float64: frame-0 templates around main.cu's points, the
    search area around the anchor (zero outside it), every offset of the max_move box (-5..+4 for 10) around
    the previous position scored by the normalised correlation, the largest |score| taken (first in column-major
    order), the anchor moved and the template blended every update_every frames. The reference (float32 as the
    kernel) agrees wherever the best score leads the next by more than float32 rounding."""
    from ndpgpu.workloads.tom.heartwall import ALPHA, POINTS

    near_ties = checked = total = 0
    for scale in ("tiny", "small"):
        w, inp, p = _inputs("heartwall", scale)
        frames = inp["frames"].astype(np.float64)
        ref = w.reference(inp, p)
        th, sh, m, every = p["t_half"], p["s_half"], p["max_move"], p["update_every"]
        off = m // 2  # the box's offset: ceil((m - 1) / 2)
        alpha = float(ALPHA)
        total += POINTS * (p["frames"] - 1)
        for k in range(POINTS):
            ar, ac = int(inp["point_row"][k]), int(inp["point_col"][k])  # anchor, 1-based
            r, c = ar, ac
            tpl = frames[0][ar - th - 1 : ar + th, ac - th - 1 : ac + th]
            for f in range(1, p["frames"]):
                area = np.zeros((frames.shape[1] + 2 * th, frames.shape[2] + 2 * th))  # zero beyond the area
                rs, cs, side = ar - sh - 1, ac - sh - 1, 2 * sh + 1
                area[rs + th : rs + th + side, cs + th : cs + th + side] = frames[f][rs : rs + side, cs : cs + side]
                scores = []
                for x in range(c - off, c + m - off):  # column-major: columns outer
                    for y in range(r - off, r + m - off):
                        win = area[y - 1 : y + 2 * th, x - 1 : x + 2 * th]  # centred on 1-based (y, x), padded by th
                        scores.append((abs(_rodinia_ncc(tpl, win)), y, x))
                valid = sorted((s for s in scores if s[0] == s[0]), key=lambda s: -s[0])
                best = next(s for s in scores if s[0] == valid[0][0])
                if valid[0][0] - valid[1][0] <= 1e-5 * valid[0][0]:  # a near tie: float32 may pick either
                    near_ties += 1
                    break
                r, c = best[1], best[2]
                assert (ref["track_row"][f, k], ref["track_col"][f, k]) == (r, c), (scale, k, f)
                checked += 1
                if f % every == 0:
                    ar, ac = r, c
                    tpl = alpha * tpl + (1 - alpha) * frames[f][ar - th - 1 : ar + th, ac - th - 1 : ac + th]
            else:
                np.testing.assert_allclose(ref["templates"][k], tpl, rtol=1e-6)
    assert near_ties <= 2 and checked >= 0.95 * total, (near_ties, checked, total)
    # the scores discriminate: on the beating wall, tracked points really move
    w, inp, p = _inputs("heartwall", "small")
    moved = w.reference(inp, p)["track_row"][-1] - inp["point_row"]
    assert np.abs(moved).max() >= 2


def test_heartwall_sizes_are_rodinias() -> None:
    """At `paper` every matrix has the extent main.cu gives it (tSize 25, sSize 40, maxMove 10)."""
    from ndpgpu.workloads.tom.heartwall import MAX_CONV, MAX_TSIDE, SIZES_DTYPE, sizes, work_elems

    s = sizes(WORKLOADS["heartwall"].params("paper"))
    assert set(s) == set(SIZES_DTYPE.names)
    assert (s["tpl_side"], s["area_side"], s["conv_side"], s["pad_side"]) == (51, 81, 131, 183)
    assert (s["vsel_rows"], s["vsel_elem"], s["vsel_row_lo"]) == (131, 131 * 183, 52)  # rows 52..182 of 183
    assert (s["hsel_rows"], s["hsel_elem"], s["hsel_col_lo"]) == (131, 131 * 131, 52)
    assert (s["mask_side"], s["mask_off"], s["video_frames"]) == (10, 5, 104)
    assert (MAX_TSIDE, MAX_CONV) == (51, 131)  # the kernel's shared arrays fit the paper's sizes exactly
    assert work_elems(s) == {"area": 6561, "conv": 17161, "pad": 33489, "vsel": 23973, "hsum": 23973,
                             "hsel": 17161, "win": 17161, "area_sqr": 6561, "win_sqr": 17161, "tpl_sqr": 2601,
                             "tmask": 17161, "masked": 17161}
    for scale in STANDARD_SCALES:  # every scale fits the shared arrays and keeps the box inside full overlaps
        q = WORKLOADS["heartwall"].params(scale)
        assert 2 * q["t_half"] + 1 <= MAX_TSIDE and 2 * (q["t_half"] + q["s_half"]) + 1 <= MAX_CONV
        assert q["s_half"] >= q["t_half"] + 5 and q["frames"] <= q["video_frames"]


def test_heartwall_runs_rodinias_grid_at_tiny() -> None:
    """One launch per frame, each 51 blocks (20 + 31 points) of 256 threads, the outputs equal to the reference."""
    from ndpgpu.workloads.runner import run_workload

    result = run_workload("heartwall", "tiny")
    assert result.passed, [c.message for c in result.checks if not c.passed]
    launches = result.device.launches
    assert len(launches) == WORKLOADS["heartwall"].params("tiny")["frames"]
    assert {(r.kernel, r.grid, r.block) for r in launches} == {("heartwall_kernel", (51, 1, 1), (256, 1, 1))}


def test_heartwall_sat_reference_matches_a_brute_force_tracker() -> None:
    """Rodinia's tracking loop written out with plain loops and float64 correlation: frame-0 templates, search
    areas around the anchors, candidates within max_move of the previous position, anchor and template
    update every update_every frames."""
    from ndpgpu.workloads.tom.heartwall_sat import track

    for scale in ("tiny", "small"):
        w, inp, p = _inputs("heartwall_sat", scale)
        frames, prow, pcol = inp["frames"], inp["point_row"], inp["point_col"]
        ref = w.reference(inp, p)
        assert ref.keys() == track(frames, prow, pcol, p).keys()
        t, s, m, every = p["tsize"], p["search"], p["max_move"], p["update_every"]
        h, side = t // 2, 2 * s + 1
        rows, cols = frames.shape[1:]
        npoints = 12 if scale == "small" else prow.size  # a sample of the small scale's points
        for k in range(npoints):
            r, c = int(prow[k]), int(pcol[k])
            tpl = frames[0][r - h : r + h + 1, c - h : c + h + 1].astype(np.float64)
            ar, ac = r, c
            for f in range(1, p["frames"]):
                frame = frames[f].astype(np.float64)
                r0, c0 = min(max(ar - s, 0), rows - side), min(max(ac - s, 0), cols - side)
                best, pos = -np.inf, None
                for y in range(max(r - m, r0 + h), min(r + m, r0 + side - 1 - h) + 1):
                    for x in range(max(c - m, c0 + h), min(c + m, c0 + side - 1 - h) + 1):
                        score = _ncc(frame[y - h : y + h + 1, x - h : x + h + 1], tpl)
                        if score > best + 1e-9:
                            best, pos = score, (y, x)
                assert pos is not None
                r, c = pos
                assert (ref["track_row"][f - 1, k], ref["track_col"][f - 1, k]) == (r, c), (scale, k, f)
                if f % every == 0:
                    ar, ac = r, c
                    tpl = np.floor((87 * tpl + 13 * frame[r - h : r + h + 1, c - h : c + h + 1] + 50) / 100)
            np.testing.assert_array_equal(ref["templates"][k], tpl)
    # the scores discriminate: on the beating ring, tracked points really move
    w, inp, p = _inputs("heartwall_sat", "small")
    assert np.abs(w.reference(inp, p)["track_row"][-1] - inp["point_row"]).max() >= 2


def test_heartwall_sat_grid_grows_with_the_scale() -> None:
    blocks = {s: WORKLOADS["heartwall_sat"].params(s)["endo"] + WORKLOADS["heartwall_sat"].params(s)["epi"]
              for s in STANDARD_SCALES}
    assert blocks["paper"] == 51 and blocks["small"] >= 4 * 68  # Rodinia's 20 + 31 points; 4 blocks per SM


def test_libor_inputs_keep_away_from_payoff_kinks() -> None:
    from ndpgpu.workloads.tom.libor import Libor

    for scale in ("tiny", "small"):
        _, inp, _ = _inputs("libor", scale)
        assert Libor.swap_margins(inp).min() >= Libor.min_margin


def test_cfd_mesh_is_consistent() -> None:
    _, inp, p = _inputs("cfd", "small")
    ese, normals = inp["elements_surrounding_elements"], inp["normals"]
    nel = p["nel"]
    assert ese.shape == (4, inp["areas"].size) and inp["areas"].size % 192 == 0
    nb = ese[:, :nel]
    assert set(np.unique(nb[nb < 0])) == {-2, -1}
    # every interior face is shared: its neighbour lists this element back, with the opposite normal
    j, i = np.nonzero(nb >= 0)
    k = nb[j, i]
    back = ese[:, k] == i[None, :]
    assert back.any(axis=0).all()
    jb = back.argmax(axis=0)
    np.testing.assert_allclose(normals[:, jb, k], -normals[:, j, i], rtol=1e-6)


# -- CUDA sources --------------------------------------------------------------------------------------


@needs_nvcc
@pytest.mark.parametrize("name", NAMES)
def test_source_compiles_to_ptx(name: str, tmp_path: Path) -> None:
    assert ".entry" in _ptx(WORKLOADS[name], tmp_path)


@needs_nvcc
def test_libor_keeps_its_per_thread_arrays_in_local_memory(tmp_path: Path) -> None:
    ptx = _entry(_ptx(WORKLOADS["libor"], tmp_path), "libor_adjoint")
    depot = re.search(r"\.local \.align \d+ \.b8\s+__local_depot\d+\[(\d+)\]", ptx)
    assert depot, "libor_adjoint has no local-memory depot"
    assert int(depot.group(1)) >= 4 * (80 + 3280 + 80), "L, L2 and z do not all live in local memory"
    assert "ld.local" in ptx and "st.local" in ptx
    # the TOM workloads compile with no loop unrolled (TOM_NVCC_OPTIONS): nvcc marks every loop "nounroll", and
    # TOM Fig. 4's two portfolio_b loops stay loops of one local load and one local store per trip
    loops = [m.group(0) for m in re.finditer(r'\.pragma "nounroll";.*?@%p\d+ bra\s+\$L__\w+;', ptx, re.S)]
    assert len(loops) >= 2
    assert sum(body.count("ld.local") == 1 and body.count("st.local") == 1 for body in loops) >= 2


@needs_nvcc
def test_ray_keeps_its_bounce_stack_in_local_memory(tmp_path: Path) -> None:
    ptx = _entry(_ptx(WORKLOADS["ray"], tmp_path), "ray_render")
    assert "__local_depot" in ptx and "ld.local" in ptx and "st.local" in ptx
    assert "fma" not in ptx, "ray is compiled with -fmad=false so its reference is exact"


# -- through the simulator -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_workload_passes_at_tiny(name: str) -> None:
    from ndpgpu.workloads.runner import run_workload

    result = run_workload(name, "tiny")
    failures = [c.message for c in result.checks if not c.passed]
    assert result.checks, f"{name}: the runner reported no checks"
    assert result.passed, f"{name} (tiny) failed:\n" + "\n".join(failures or ["(no failing check reported)"])
