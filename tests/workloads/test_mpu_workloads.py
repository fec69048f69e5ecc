"""MPU's twelve workloads (suite ``mpu``): registry and metadata, deterministic inputs, references checked
independently (hand-computed NW table, histogram by np.histogram, sums by fsum, layouts by their address
formulas), and every workload through the simulator at ``tiny``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from ndpgpu.workloads.base import STANDARD_SCALES, Workload, all_workloads
from ndpgpu.workloads.mpu import MPU_WORKLOADS

WORKLOADS: dict[str, type[Workload]] = {n: c for n, c in all_workloads().items() if c.suite == "mpu"}
NAMES = sorted(WORKLOADS)


def _inputs(name: str, scale: str) -> tuple[Workload, dict[str, Any], dict[str, Any]]:
    cls = WORKLOADS[name]
    w = cls()
    p = cls.params(scale)
    return w, w.inputs(p, np.random.default_rng(cls.seed)), p


def _same(a: Any, b: Any) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


# -- registry and metadata ---------------------------------------------------------------------------


def test_the_twelve_workloads_are_registered() -> None:
    assert set(MPU_WORKLOADS) == {
        "BLUR", "CONV", "GEMV", "HIST", "KMEANS", "KNN", "TTRANS", "MAXP", "NW", "UPSAMP", "AXPY", "PR",
    }
    assert set(MPU_WORKLOADS.values()) == set(WORKLOADS)
    assert all(name == "mpu_" + abbr.lower() for abbr, name in MPU_WORKLOADS.items())


@pytest.mark.parametrize("name", NAMES)
def test_declaration(name: str) -> None:
    cls = WORKLOADS[name]
    assert set(STANDARD_SCALES) <= set(cls.scales)
    assert cls.suite == "mpu" and cls.papers == ("MPU",)
    assert cls.deviations and cls.deviations != "none", "every MPU workload says how it differs"
    assert "written fresh" in cls.deviations
    assert len(cls.description) > 60
    assert len(cls.sources) == 1 and cls.source_paths()[0].is_file()
    specs = cls().output_specs(cls.params("tiny"))
    assert set(cls.tolerance) <= set(specs), "every tolerance names an output"
    for tol in cls.tolerance.values():
        assert tol.rtol <= 3e-5 and tol.atol == 0.0, "tolerances are float32 error bounds, not fudge"


def test_paper_scales_follow_the_artifact_inputs() -> None:
    p = {abbr: WORKLOADS[name].params("paper") for abbr, name in MPU_WORKLOADS.items()}
    for abbr in ("BLUR", "CONV", "TTRANS", "GEMV"):
        key = ("nrows", "ncols") if abbr == "GEMV" else ("rows", "cols")
        assert (p[abbr][key[0]], p[abbr][key[1]]) == (4096, 4096)
    for abbr in ("HIST", "KNN", "AXPY", "PR"):
        assert p[abbr]["n"] == 1 << 24
    assert (p["KMEANS"]["npoints"], p["KMEANS"]["nfeatures"], p["KMEANS"]["nclusters"]) == (262144, 4, 4)
    assert (p["MAXP"]["out_rows"], p["MAXP"]["out_cols"]) == (1024, 1024)
    assert (p["UPSAMP"]["in_rows"], p["UPSAMP"]["in_cols"]) == (1024, 1024)
    assert (p["NW"]["npairs"], p["NW"]["grid"]) == (4096, 2048)


# -- inputs and references ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_inputs_are_deterministic_and_references_match_specs(name: str) -> None:
    w, inp, p = _inputs(name, "tiny")
    _, again, _ = _inputs(name, "tiny")
    assert inp.keys() == again.keys()
    for key in inp:
        assert _same(inp[key], again[key]), f"{name}: input {key!r} differs between two runs"
    ref = w.reference(inp, p)
    specs = w.output_specs(p)
    assert ref.keys() == specs.keys()
    for key, (shape, dtype) in specs.items():
        assert ref[key].shape == shape and ref[key].dtype == dtype, f"{name}: {key} {ref[key].shape} {ref[key].dtype}"
    for key in again:
        assert _same(inp[key], again[key]), f"{name}: reference modified input {key!r}"


def test_nw_reference_on_hand_computed_tables() -> None:
    from ndpgpu.workloads.mpu.nw import nw_scores

    # borders 0, -2, -4; s11 = max(0+5, -2-2, -2-2) = 5; s12 = max(-2-1, -4-2, 5-2) = 3; s21 = 3 likewise;
    # s22 = max(5+5, 3-2, 3-2) = 10
    ref = np.array([[[5, -1], [-1, 5]]], dtype=np.int32)
    np.testing.assert_array_equal(nw_scores(ref, 2), [[[5, 3], [3, 10]]])
    # all mismatches (-3), penalty 1: two gaps (-2) beat one mismatch, so score[i][j] = -(i + j); by hand, row 1:
    # max(0-3, -1-1, -1-1) = -2, then max(-1-3, -2-1, -2-1) = -3, then max(-2-3, -3-1, -3-1) = -4
    ref = np.full((1, 3, 3), -3, dtype=np.int32)
    np.testing.assert_array_equal(nw_scores(ref, 1), [[[-2, -3, -4], [-3, -4, -5], [-4, -5, -6]]])


def test_nw_inputs_score_residues_by_the_table() -> None:
    from ndpgpu.workloads.mpu.nw import interleave_rows

    _, inp, p = _inputs("mpu_nw", "tiny")
    table = inp["table"]
    assert (table == table.T).all() and (np.diag(table) >= 4).all()
    q, i, j = 5, 7, 11
    assert inp["ref"][q, i, j] == table[inp["seq_b"][q, i], inp["seq_a"][q, j]]
    flat = interleave_rows(inp["ref"])
    assert flat[(i * p["npairs"] + q) * 32 + j] == inp["ref"][q, i, j]


def test_hist_reference_is_np_histogram() -> None:
    w, inp, p = _inputs("mpu_hist", "tiny")
    counts, _ = np.histogram(inp["data"], bins=256, range=(0.0, 1.0))
    np.testing.assert_array_equal(w.reference(inp, p)["hist"], counts)
    assert int(counts.sum()) == p["n"]


def test_pr_reference_and_bound() -> None:
    from ndpgpu.workloads.mpu.pr import error_bound

    w, inp, p = _inputs("mpu_pr", "tiny")
    exact = math.fsum(inp["data"].astype(np.float64).tolist())
    assert abs(float(w.reference(inp, p)["sum"][0]) - exact) <= 1e-7 * exact
    assert error_bound(1 << 24, 512) == pytest.approx((256 + 7 + 4 + 7) * 2.0**-24)


def test_kmeans_reference_is_the_nearest_centre() -> None:
    from ndpgpu.workloads.mpu.kmeans import nearest_centre

    _, inp, _ = _inputs("mpu_kmeans", "tiny")
    f = inp["features"].T.astype(np.float64)
    c = inp["clusters"].astype(np.float64)
    d = ((f[:, None, :] - c[None, :, :]) ** 2).sum(axis=2)
    got = nearest_centre(inp["features"], inp["clusters"])
    s = np.sort(d, axis=1)
    clear = s[:, 1] - s[:, 0] > 1e-5 * s[:, 1]
    assert clear.mean() > 0.99
    np.testing.assert_array_equal(got[clear], d.argmin(axis=1)[clear])


def test_sliced_layout_matches_its_address_formula() -> None:
    from ndpgpu.workloads.mpu._common import from_sliced, to_sliced

    rows, cols = 64, 96
    image = np.arange(rows * cols, dtype=np.float32).reshape(rows, cols)
    flat = to_sliced(image)
    ntiles, tiles_per_row = rows * cols // 1024, cols // 32
    for y, x in [(0, 0), (5, 37), (63, 95), (33, 64), (31, 31)]:
        t = (y // 32) * tiles_per_row + x // 32
        r, c = y % 32, x % 32
        assert flat[((r // 4) * ntiles + t) * 128 + (r % 4) * 32 + c] == image[y, x]
    np.testing.assert_array_equal(from_sliced(flat, rows, cols), image)


def test_gemv_panel_layout_matches_its_address_formula() -> None:
    from ndpgpu.workloads.mpu.gemv import to_panels

    a = np.arange(8 * 384, dtype=np.float32).reshape(8, 384)
    flat = to_panels(a)
    for r, col in [(0, 0), (3, 130), (7, 383), (5, 255)]:
        assert flat[((col // 128) * 8 + r) * 128 + col % 128] == a[r, col]


def test_image_references_by_hand() -> None:
    w, inp, p = _inputs("mpu_blur", "tiny")
    img = inp["image"]
    out = w.reference(inp, p)["out"]
    # pixel (33, 40) is interior to tile (1, 1); pixel (32, 32) is that tile's corner (edge repeated)
    np.testing.assert_allclose(out[33, 40], img[32:35, 39:42].astype(np.float64).sum() / 9, rtol=1e-6)
    corner = img[[32, 32, 33]][:, [32, 32, 33]].astype(np.float64).sum() / 9
    np.testing.assert_allclose(out[32, 32], corner, rtol=1e-6)
    w, inp, p = _inputs("mpu_conv", "tiny")
    wt = inp["weight"].astype(np.float64)
    expect = (wt * inp["image"][9:12, 3:6]).sum()
    np.testing.assert_allclose(w.reference(inp, p)["out"][10, 4], expect, rtol=1e-6)
    w, inp, p = _inputs("mpu_ttrans", "tiny")
    out = w.reference(inp, p)["out"]
    assert out[32 + 3, 64 + 17] == inp["tensor"][32 + 17, 64 + 3]
    w, inp, p = _inputs("mpu_maxp", "tiny")
    assert w.reference(inp, p)["out"][7, 9] == inp["image"][14:16, 18:20].max()
    w, inp, p = _inputs("mpu_upsamp", "tiny")
    from ndpgpu.workloads.mpu._common import from_quad_planes

    planes = w.reference(inp, p)["out"]
    image = from_quad_planes(planes, 2 * p["in_rows"], 2 * p["in_cols"])
    np.testing.assert_array_equal(image, np.kron(inp["image"], np.ones((2, 2), np.float32)))


# -- through the simulator -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_workload_passes_at_tiny(name: str) -> None:
    from ndpgpu.workloads.runner import run_workload

    result = run_workload(name, "tiny")
    failures = [c.message for c in result.checks if not c.passed]
    assert result.checks, f"{name}: the runner reported no checks"
    assert result.passed, f"{name} (tiny) failed:\n" + "\n".join(failures or ["(no failing check reported)"])


def test_quad_planes_match_their_address_formula() -> None:
    from ndpgpu.workloads.mpu._common import from_quad_planes, to_quad_planes

    img = np.arange(4 * 256 * 512, dtype=np.float32).reshape(512, 1024)  # R = 256, C = 512 outputs
    flat = to_quad_planes(img)
    n = 256 * 512
    for r, cb, kx, ky, t in [(0, 0, 0, 0, 0), (3, 128, 1, 0, 5), (255, 384, 1, 1, 127), (17, 256, 0, 1, 64)]:
        assert flat[(2 * kx + ky) * n + r * 512 + cb + t] == img[2 * r + kx, 2 * cb + 128 * ky + t]
    np.testing.assert_array_equal(from_quad_planes(flat, 512, 1024), img)


def _global_accesses(tr: Any) -> list[tuple[int, list[int]]]:
    """(warp, lane addresses) of every global load and store of a trace."""
    from ndpgpu.trace.format import OP_CLASS, SPACE

    out = []
    for m in tr.mem:
        cls = int(tr.static["op_class"][int(m["pc"])])
        if cls not in (OP_CLASS["load"], OP_CLASS["store"]) or int(m["space"]) not in (SPACE["global"],
                                                                                        SPACE["generic"]):
            continue
        lanes = [j for j in range(32) if int(m["mask"]) >> j & 1]
        if int(m["addr_index"]) >= 0:
            addrs = [int(tr.lane_addrs[int(m["addr_index"]) + j]) for j in lanes]
        else:
            addrs = [int(m["base"]) + j * int(m["stride"]) for j in lanes]
        out.append((int(m["warp"]), addrs))
    return out


@pytest.mark.parametrize("name", ["mpu_maxp", "mpu_upsamp"])
def test_four_plane_layouts_keep_every_access_local(name: str) -> None:
    """MAXP's and UPSAMP's four-plane layouts (MPU-Sim's): every 32-B chunk a warp touches is in its own core's
    banks (core = block mod 128, 4 warps per block; counted by hand from the trace's lane addresses with the
    interleave of lsu.locate), and the engine sends no transaction to another core."""
    from ndpgpu.mechanisms.mpu.lsu import locate
    from ndpgpu.mechanisms.mpu.unit import MpuHardware
    from ndpgpu.timing.session import TimingSession
    from ndpgpu.workloads.runner import run_workload

    run = run_workload(name, "tiny", trace=True)
    assert run.passed
    remote = chunks = 0
    for tr in run.device.traces:
        for warp, addrs in _global_accesses(tr):
            core = (warp // 4) % 128
            for a in {a // 32 * 32 for a in addrs}:
                loc = locate(a)
                chunks += 1
                remote += loc.processor * 16 + loc.core != core
    assert chunks > 0 and remote == 0
    s = TimingSession("mpu")
    s.attach(MpuHardware(run.module, "annotation"))
    stats = [s.run_launch(tr) for tr in run.device.traces]
    assert sum(st.c("TX_REMOTE") for st in stats) == 0
    loads_stores = sum(len(_global_accesses(tr)) for tr in run.device.traces)
    assert sum(st.c("LD_OFFLOADED") + st.c("ST_OFFLOADED") for st in stats) == loads_stores


def test_kmeans_loads_each_feature_of_a_point_once() -> None:
    """KMEANS with its compile-time bounds (4 centres, 4 features): 4 global loads per point (one per feature)
    plus the one warp load per block that stages the 16 centres; one store per point."""
    from ndpgpu.trace.format import OP_CLASS, SPACE
    from ndpgpu.workloads.runner import run_workload

    run = run_workload("mpu_kmeans", "tiny", trace=True)
    assert run.passed
    p = WORKLOADS["mpu_kmeans"].params("tiny")
    (tr,) = run.device.traces
    lanes = {"load": 0, "store": 0}
    for m in tr.mem:
        cls = int(tr.static["op_class"][int(m["pc"])])
        if int(m["space"]) not in (SPACE["global"], SPACE["generic"]):
            continue
        for k in lanes:
            if cls == OP_CLASS[k]:
                lanes[k] += bin(int(m["mask"])).count("1")
    assert lanes["load"] == 4 * p["npoints"] + 16 * p["grid"]
    assert lanes["store"] == p["npoints"]
