"""LLC-Compute / Omni-Compute workloads (suite ``llc``): registry and metadata, operand placement over the
memory partitions (ALIGNED / STRIDED), references, variant equivalence, and runs through the simulator."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest

import ndpgpu
from ndpgpu.trace.format import MEM_LOAD, MEM_STORE, SPACE
from ndpgpu.workloads.base import STANDARD_SCALES, RunContext, Workload, all_workloads, get_workload
from ndpgpu.workloads.llc import LLC_OFFLOAD_VARIANTS, LLC_WORKLOADS
from ndpgpu.workloads.llc._common import INTERLEAVE_BYTES, PARTITIONS, partition_of
from ndpgpu.workloads.runner import _module_for, run_workload

WORKLOADS: dict[str, type[Workload]] = {n: c for n, c in all_workloads().items() if c.suite == "llc"}
NAMES = sorted(WORKLOADS)
PLACED = {"llc_copy_aligned": "aligned", "llc_copy_strided": "strided", "llc_vecadd_aligned": "aligned",
          "llc_vecadd_strided": "strided", "llc_norm": "aligned", "llc_triad": "strided",
          "llc_triad_splitfma": "strided"}


def _inputs(name: str, scale: str = "tiny") -> tuple[Workload, dict[str, Any], dict[str, Any]]:
    cls = get_workload(name)
    w = cls()
    p = cls.params(scale)
    return w, w.inputs(p, np.random.default_rng(cls.seed)), p


@functools.cache
def _outputs(name: str) -> dict[str, np.ndarray]:
    """The workload's outputs at tiny (run once per test process)."""
    w, inp, p = _inputs(name)
    with ndpgpu.Device() as dev:
        return w.launch(RunContext(_module_for(type(w)), dev, "tiny", p), inp, p)


# -- registry and metadata ---------------------------------------------------------------------------------


def test_every_paper_benchmark_is_mapped_to_a_registered_workload() -> None:
    micro = {"COMPARE", "COPY-ALIGNED", "COPY-STRIDED", "DENSITY", "VECADD-ALIGNED", "VECADD-STRIDED", "NORM"}
    table3 = {"BFS", "FDTD", "KMN", "MVT", "RED", "SCP", "SRAD", "STREAM", "TRIAD"}
    assert micro | table3 <= set(LLC_WORKLOADS)
    assert "RED-Hybrid2" in LLC_WORKLOADS and LLC_OFFLOAD_VARIANTS["RED"] == LLC_WORKLOADS["RED-Hybrid2"]
    registry = all_workloads()
    for name in [*LLC_WORKLOADS.values(), *LLC_OFFLOAD_VARIANTS.values()]:
        assert name in registry, f"{name} is not registered"
    assert set(LLC_OFFLOAD_VARIANTS) <= table3
    # every llc workload is reachable from the paper's names, and only reused kernels live in other suites
    assert set(WORKLOADS) == {n for n in [*LLC_WORKLOADS.values(), *LLC_OFFLOAD_VARIANTS.values()]
                              if registry[n].suite == "llc"}
    assert {n for n in LLC_WORKLOADS.values() if registry[n].suite != "llc"} == {"bfs_rodinia", "kmeans", "scalarprod"}
    assert all(n.startswith("llc_") for n in WORKLOADS)


@pytest.mark.parametrize("name", NAMES)
def test_declaration(name: str) -> None:
    cls = WORKLOADS[name]
    assert set(STANDARD_SCALES) <= set(cls.scales)
    assert cls.papers == ("LLC-Compute", "Omni-Compute")
    assert cls.description and cls.deviations and cls.deviations != "none"
    assert cls.sources and all(path.is_file() for path in cls.source_paths())
    w, inp, p = _inputs(name)
    assert set(cls.tolerance) <= set(w.reference(inp, p)), "every tolerance names an output"


def test_split_fma_variants_compile_without_contraction() -> None:
    """-fmad=false removes the kernels' own FMAs (expf/logf keep the math library's explicit ones)."""
    for base, variant in LLC_OFFLOAD_VARIANTS.items():
        if not variant.endswith("_splitfma"):
            continue
        cls, base_cls = get_workload(variant), get_workload(LLC_WORKLOADS[base])
        assert "-fmad=false" in cls.options and "-fmad=false" not in base_cls.options, variant
        assert cls.scales == base_cls.scales
        fused = _module_for(base_cls).ptx.count("fma.rn.f32")
        split = _module_for(cls).ptx.count("fma.rn.f32")
        assert split < fused, f"{variant}: {split} FMAs left of {fused}"
        if base != "SRAD":
            assert split == 0, variant


# -- placement -------------------------------------------------------------------------------------------


def _element_partitions(arr: ndpgpu.DeviceArray, partitions: int, interleave: int) -> np.ndarray:
    addrs = np.uint64(arr.ptr) + np.arange(arr.size, dtype=np.uint64) * np.uint64(arr.dtype.itemsize)
    return partition_of(addrs, partitions, interleave)


@pytest.mark.parametrize("name", sorted(PLACED))
@pytest.mark.parametrize("mapping", [(PARTITIONS, INTERLEAVE_BYTES), (6, 256), (16, 512)])
def test_operand_placement(name: str, mapping: tuple[int, int]) -> None:
    """ALIGNED: element i of every operand in one partition; STRIDED: in pairwise different partitions."""
    partitions, interleave = mapping
    w, inp, p = _inputs(name)
    p = {**p, "partitions": partitions, "interleave_bytes": interleave}
    with ndpgpu.Device():
        arrays = w.device_arrays(inp, p)
        parts = np.stack([_element_partitions(a, partitions, interleave) for a in arrays.values()])
        for key, arr in arrays.items():  # the carved arrays hold the inputs
            if key in inp:
                np.testing.assert_array_equal(arr.get(), inp[key])
    assert len(arrays) >= 2
    if PLACED[name] == "aligned":
        assert (parts == parts[0]).all()
    else:
        for i in range(len(parts)):
            for j in range(i + 1, len(parts)):
                assert (parts[i] != parts[j]).all()
    # each operand still walks every partition (no degenerate placement)
    assert all(len(np.unique(row)) == partitions for row in parts)


@pytest.mark.parametrize("name", ["llc_vecadd_aligned", "llc_vecadd_strided", "llc_copy_aligned",
                                  "llc_copy_strided"])
def test_placement_seen_by_the_kernel(name: str) -> None:
    """From the trace: per warp, the lanes' load and store addresses fall in the same / different partitions."""
    result = run_workload(name, "tiny", trace=True)
    assert result.passed
    (trace,) = result.device.traces
    mem = trace.mem
    checked = 0
    for w in range(trace.num_warps):
        recs = range(int(trace.warp_mem_start[w]), int(trace.warp_mem_start[w + 1]))
        recs = [i for i in recs if mem[i]["space"] == SPACE["global"]]
        if not recs:
            continue
        kinds = [("ld" if mem[i]["flags"] & MEM_LOAD else "st" if mem[i]["flags"] & MEM_STORE else "?") for i in recs]
        assert kinds[-1] == "st" and set(kinds[:-1]) == {"ld"}
        masks = {int(mem[i]["mask"]) for i in recs}
        assert len(masks) == 1
        mask = masks.pop()
        lanes = np.array([(mask >> lane) & 1 for lane in range(32)], bool)
        parts = np.stack([partition_of(trace.lane_addresses(i)[lanes]) for i in recs])
        if name.endswith("aligned"):
            assert (parts == parts[0]).all()
        else:
            assert all((parts[i] != parts[j]).all() for i in range(len(parts)) for j in range(i + 1, len(parts)))
        checked += 1
    assert checked == -(-WORKLOADS[name].params("tiny")["n"] // 32)


# -- references -------------------------------------------------------------------------------------------


def test_red_reference_is_the_sum() -> None:
    w, inp, p = _inputs("llc_red", "small")
    ref = w.reference(inp, p)
    exact = inp["data"].astype(np.float64)
    np.testing.assert_allclose(ref["total"][0], exact.sum(), rtol=1e-5)
    blocks = p["blocks"]
    per_block = exact.reshape(-1, blocks, 512).sum(axis=(0, 2))
    np.testing.assert_allclose(ref["partials"], per_block, rtol=1e-5)


@pytest.mark.parametrize("name", ["llc_mvt", "llc_mvt_splitfma"])
def test_mvt_reference_is_a_matrix_vector_product(name: str) -> None:
    w, inp, p = _inputs(name)
    ref = w.reference(inp, p)
    a = inp["a"].astype(np.float64).reshape(p["n"], p["n"])
    np.testing.assert_allclose(ref["x1"], inp["x1"] + a @ inp["y1"], rtol=1e-5)
    np.testing.assert_allclose(ref["x2"], inp["x2"] + a.T @ inp["y2"], rtol=1e-5)


def test_fdtd_reference_matches_the_loop_form() -> None:
    from ndpgpu.workloads.llc.fdtd import fdtd_reference

    rng = np.random.default_rng(3)
    nx, ny, tmax = 6, 5, 3
    ex, ey, hz = (rng.random((nx, ny)) for _ in range(3))
    fict = np.arange(tmax, dtype=np.float64)
    e = [x.astype(np.float32) for x in (ex, ey, hz)]
    got = fdtd_reference(*e, fict.astype(np.float32), tmax, split=True)
    ex, ey, hz = (x.astype(np.float64) for x in e)
    for t in range(tmax):
        for j in range(ny):
            ey[0, j] = fict[t]
        for i in range(1, nx):
            for j in range(ny):
                ey[i, j] -= 0.5 * (hz[i, j] - hz[i - 1, j])
        for i in range(nx):
            for j in range(1, ny):
                ex[i, j] -= 0.5 * (hz[i, j] - hz[i, j - 1])
        for i in range(nx - 1):
            for j in range(ny - 1):
                hz[i, j] -= 0.7 * (ex[i, j + 1] - ex[i, j] + ey[i + 1, j] - ey[i, j])
    for g, r in zip(got, (ex, ey, hz), strict=True):
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-5)


def test_srad_reference_matches_a_float64_direct_form() -> None:
    from ndpgpu.workloads.llc.srad import speckled_image, srad_reference

    nr, nc, niter, lam = 12, 9, 3, 0.5
    image = speckled_image(nr, nc, np.random.default_rng(4))
    got = srad_reference(image, nr, nc, niter, lam).reshape(nc, nr)
    img = np.exp(image.astype(np.float64).reshape(nc, nr) / 255.0)
    for _ in range(niter):
        q0 = img.var() / img.mean() ** 2
        pad = np.pad(img, 1, mode="edge")
        jc = img
        dn, ds = pad[1:-1, :-2] - jc, pad[1:-1, 2:] - jc  # rows are the second axis ([col, row])
        dw, de = pad[:-2, 1:-1] - jc, pad[2:, 1:-1] - jc
        g2 = (dn**2 + ds**2 + dw**2 + de**2) / jc**2
        lap = (dn + ds + dw + de) / jc
        qsqr = (0.5 * g2 - lap**2 / 16) / (1 + 0.25 * lap) ** 2
        c = np.clip(1 / (1 + (qsqr - q0) / (q0 * (1 + q0))), 0, 1)
        cpad = np.pad(c, 1, mode="edge")
        img = img + 0.25 * lam * (c * dn + cpad[1:-1, 2:] * ds + c * dw + cpad[2:, 1:-1] * de)
    np.testing.assert_allclose(got, np.log(img) * 255, rtol=1e-4, atol=1e-3)


def test_streamcluster_kernel_reference_is_the_weighted_distance() -> None:
    from ndpgpu.workloads.llc.streamcluster import center_table_of, initial_state, kernel_reference

    _, inp, _ = _inputs("llc_streamcluster")
    coord = inp["coord"]
    state = initial_state(coord)
    x = int(inp["candidates"][0])
    work, switch = kernel_reference(coord, state, x, center_table_of(state["is_center"]), 1, split=False)
    c64 = coord.astype(np.float64)
    d_x = ((c64 - c64[:, [x]]) ** 2).sum(axis=0)
    d_0 = ((c64 - c64[:, [0]]) ** 2).sum(axis=0)
    clear = np.abs(d_x - d_0) > 1e-4 * d_0
    np.testing.assert_array_equal(switch[clear], (d_x < d_0)[clear])
    np.testing.assert_allclose(work[:, 1], np.where(switch, d_x - d_0, 0), atol=1e-4)
    np.testing.assert_allclose(work[:, 0], np.where(switch, 0, d_0 - d_x), atol=1e-4)


# -- variants ----------------------------------------------------------------------------------------------


def _assert_same(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> None:
    assert a.keys() == b.keys()
    for key in a:
        assert a[key].dtype == b[key].dtype and a[key].tobytes() == b[key].tobytes(), key


@pytest.mark.parametrize("variant", ["llc_red_hybrid1", "llc_red_hybrid2", "llc_red_hybrid3", "llc_red_global"])
def test_red_variants_compute_the_same_sums(variant: str) -> None:
    _assert_same(_outputs(variant), _outputs("llc_red"))


@pytest.mark.parametrize("pair", [("llc_copy_aligned", "llc_copy_strided"),
                                  ("llc_vecadd_aligned", "llc_vecadd_strided")])
def test_placement_does_not_change_the_result(pair: tuple[str, str]) -> None:
    _assert_same(_outputs(pair[0]), _outputs(pair[1]))


@pytest.mark.parametrize("base", ["TRIAD", "MVT", "FDTD", "SRAD", "STREAM", "SCP"])
def test_split_fma_variants_agree_with_the_base(base: str) -> None:
    base_out = _outputs(LLC_WORKLOADS[base])
    split_out = _outputs(LLC_OFFLOAD_VARIANTS[base])
    assert base_out.keys() == split_out.keys()
    for key in base_out:
        b, s = base_out[key], split_out[key]
        if b.dtype.kind in "iub":
            np.testing.assert_array_equal(b, s, err_msg=key)
        else:
            scale = float(np.abs(b).max()) or 1.0
            np.testing.assert_allclose(s, b, rtol=1e-4, atol=1e-5 * scale, err_msg=key)


# -- through the simulator -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_workload_passes_at_tiny(name: str) -> None:
    result = run_workload(name, "tiny")
    failures = [c.message for c in result.checks if not c.passed]
    assert result.checks, f"{name}: the runner reported no checks"
    assert result.passed, f"{name} (tiny) failed:\n" + "\n".join(failures or ["(no failing check reported)"])


@pytest.mark.parametrize("name", ["llc_compare", "llc_density"])
def test_counting_microbenchmarks_keep_no_global_counter(name: str) -> None:
    """COMPARE and DENSITY (Sec. 5) count per warp into the warp's own word: no atomic in the kernel, and the
    words, summed, are NumPy's count of differing bytes / zeros (n = 4001: a partial last warp)."""
    ptx = _module_for(get_workload(name)).ptx
    body = ptx[ptx.index(f".entry {name}"):]
    body = body[: body.index("\n}") + 2]
    assert "atom." not in body and "red." not in body
    cls = get_workload(name)
    w = cls()
    p = {**cls.params("tiny"), "n": 4001}
    inp = w.inputs(p, np.random.default_rng(7))
    with ndpgpu.Device() as dev:
        got = w.launch(RunContext(_module_for(cls), dev, "tiny", p), inp, p)["count"]
    hits = inp["a"] != inp["b"] if name == "llc_compare" else inp["a"] == 0
    assert got.shape == (126,)  # ceil(4001 / 32) warps' words
    for k in range(126):
        assert got[k] == np.count_nonzero(hits[32 * k: 32 * k + 32])
    assert int(got.sum()) == int(np.count_nonzero(hits))
