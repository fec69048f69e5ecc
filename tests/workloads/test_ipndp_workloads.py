"""IP-NDP's eight benchmarks (suite ``ipndp``): registry and declarations, every workload against its NumPy
reference at tiny, the pattern-aware (PACA) forms bit-identical to the baselines at the default and at other SM
counts, the PACA launch geometry (grid = num_sms, 256 threads), the warp-sweep and no-barrier variants
bit-identical too, and checks of the references themselves."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest

from ndpgpu.workloads.base import STANDARD_SCALES, Workload, all_workloads
from ndpgpu.workloads.ipndp import IPNDP_PAPER_PAIRS, IPNDP_TYPES, IPNDP_WORKLOADS
from ndpgpu.workloads.ipndp._common import DEFAULT_NUM_SMS, PA_THREADS, PATTERNS, run_ipndp, tile_grid
from ndpgpu.workloads.ipndp.pa16 import IP16_SMS, PA16
from ndpgpu.workloads.ipndp.variants import FREE_SHAPE, NOBAR_FORMS, SWEEP_WARPS, WARP_FORMS, warp_form
from ndpgpu.workloads.runner import run_workload, toolchain_available

WORKLOADS: dict[str, type[Workload]] = {n: c for n, c in all_workloads().items() if c.suite == "ipndp"}
NAMES = sorted(WORKLOADS)
VARIANTS = sorted({c.name for c in WARP_FORMS.values()} | {c.name for c in NOBAR_FORMS.values()})
PAIRS = sorted(IPNDP_WORKLOADS.items())
OTHER_NUM_SMS = (5, 16)  # an odd count that leaves ragged and empty regions, and IP-16's
needs_toolchain = pytest.mark.skipif(not toolchain_available(), reason="nvcc is needed to compile the kernels")


@functools.cache
def _run(name: str, num_sms: int | None = None) -> tuple[dict[str, np.ndarray], list[Any]]:
    """Outputs and launch records of one tiny run (cached: each form runs once per worker)."""
    overrides = {} if num_sms is None else {"num_sms": num_sms}
    outputs, dev, _ = run_ipndp(name, "tiny", **overrides)
    return outputs, list(dev.launches)


def _bits(a: np.ndarray) -> tuple[str, tuple[int, ...], bytes]:
    a = np.ascontiguousarray(a)
    return str(a.dtype), a.shape, a.tobytes()


# -- registry ----------------------------------------------------------------------------------------------


def test_every_benchmark_has_both_forms() -> None:
    assert set(IPNDP_PAPER_PAIRS) == set(IPNDP_TYPES) == {
        "Conv2D", "Jacobi2D", "ConvSep", "DownSample", "Concat", "Dct8x8", "Denoising", "MatMul",
    }
    named = {n for pair in IPNDP_WORKLOADS.values() for n in pair}
    assert named | {c.name for c in PA16.values()} | set(VARIANTS) == set(WORKLOADS), \
        "IPNDP_WORKLOADS, the 16-SM forms and the study variants name exactly the suite's workloads"
    assert set(PA16) == {pa for _base, pa in IPNDP_WORKLOADS.values()}
    assert len(named) == 2 * len(IPNDP_WORKLOADS)
    for base, pa in IPNDP_WORKLOADS.values():
        assert base.startswith("ipndp_") and not base.endswith("_pa")
        assert pa == base + "_pa"
        assert not WORKLOADS[base].pattern_aware and WORKLOADS[pa].pattern_aware
    for base, pa in IPNDP_PAPER_PAIRS.values():
        assert not WORKLOADS[base].pattern_aware and WORKLOADS[pa].pattern_aware
    assert IPNDP_PAPER_PAIRS["ConvSep"] == ("ipndp_convsep_smem", "ipndp_convsep_l1_pa")  # Guideline 4


@pytest.mark.parametrize("name", NAMES)
def test_declaration(name: str) -> None:
    cls = WORKLOADS[name]
    assert cls.suite == "ipndp" and cls.papers == ("IP-NDP",)
    assert cls.__module__.startswith("ndpgpu.workloads.ipndp.")
    assert set(STANDARD_SCALES) <= set(cls.scales)
    assert cls.deviations and cls.deviations != "none"
    assert cls.description and cls.pattern in PATTERNS
    assert len(cls.sources) == 1 and cls.source_paths()[0].is_file()
    specs = cls().output_specs(cls.params("tiny"))
    assert set(cls.tolerance) <= set(specs), "every tolerance names an output"
    if cls.pattern_aware:
        sms = IP16_SMS if "_pa16" in name else DEFAULT_NUM_SMS
        assert all(cls.params(s)["num_sms"] == sms for s in STANDARD_SCALES)
        base = WORKLOADS[name[: name.rindex("_pa")]]
        assert cls.tolerance == base.tolerance and cls.pattern == base.pattern
        for s in STANDARD_SCALES:  # the same inputs and reference at every scale
            assert {k: v for k, v in cls.params(s).items() if k not in ("num_sms", "warps", "barrier")} \
                == base.params(s)
            assert cls.reference is base.reference and cls.inputs is base.inputs


def test_tile_grid_is_near_square() -> None:
    assert tile_grid(8) == (4, 2)
    assert tile_grid(16) == (4, 4)
    assert tile_grid(5) == (5, 1)
    assert tile_grid(1) == (1, 1)
    for n in range(1, 40):
        tx, ty = tile_grid(n)
        assert tx * ty == n and tx >= ty


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("scale", ["tiny", "small"])
def test_inputs_are_deterministic_and_reference_keeps_them(name: str, scale: str) -> None:
    cls = WORKLOADS[name]
    w, p = cls(), cls.params(scale)
    first = w.inputs(p, np.random.default_rng(cls.seed))
    second = w.inputs(p, np.random.default_rng(cls.seed))
    assert first.keys() == second.keys()
    for key in first:
        assert _bits(np.asarray(first[key])) == _bits(np.asarray(second[key])), f"{name}/{scale}: {key} differs"
    if scale == "tiny":
        ref = w.reference(first, p)
        for key, (shape, dtype) in w.output_specs(p).items():
            assert ref[key].shape == shape and ref[key].dtype == dtype
            assert np.isfinite(ref[key]).all()
        for key in first:
            assert _bits(np.asarray(first[key])) == _bits(np.asarray(second[key])), f"reference modified {key}"


# -- references --------------------------------------------------------------------------------------------


def _inputs(name: str, scale: str = "tiny") -> tuple[Workload, dict[str, Any], dict[str, Any]]:
    cls = WORKLOADS[name]
    p = cls.params(scale)
    return cls(), cls().inputs(p, np.random.default_rng(cls.seed)), p


def test_dct_reference_is_orthonormal_and_inverts() -> None:
    from ndpgpu.workloads.ipndp.dct8x8 import dct_matrix

    d = dct_matrix()
    np.testing.assert_allclose(d @ d.T, np.eye(8), atol=1e-12)
    w, inp, p = _inputs("ipndp_dct8x8")
    coeffs = w.reference(inp, p)["out"].astype(np.float64)
    blk = coeffs[8:16, 24:32]
    np.testing.assert_allclose(d.T @ blk @ d, inp["image"][8:16, 24:32], atol=1e-3)
    assert coeffs[0, 0] == pytest.approx(inp["image"][:8, :8].sum() / 8, rel=1e-6)  # DC = 8 * mean


def test_convsep_reference_matches_numpy_convolve() -> None:
    w, inp, p = _inputs("ipndp_convsep_l1")
    ref = w.reference(inp, p)
    image, k = inp["image"].astype(np.float64), inp["kernel"].astype(np.float64)
    rows = np.stack([np.convolve(r, k, mode="same") for r in image])
    out = np.stack([np.convolve(c, k, mode="same") for c in rows.T]).T
    np.testing.assert_array_equal(ref["rows"], rows.astype(np.float32))
    np.testing.assert_array_equal(ref["out"], out.astype(np.float32))


def test_conv2d_and_denoising_references_by_loops() -> None:
    w, inp, p = _inputs("ipndp_conv2d")
    img, wt = inp["image"].astype(np.float64), inp["weights"].astype(np.float64)
    h, wd = img.shape
    ref = w.reference(inp, p)["out"]
    for y, x in [(0, 0), (5, 7), (h - 1, wd - 1), (h - 1, 3)]:
        s = sum(wt[dy + 1, dx + 1] * img[min(max(y + dy, 0), h - 1), min(max(x + dx, 0), wd - 1)]
                for dy in (-1, 0, 1) for dx in (-1, 0, 1))
        assert ref[y, x] == pytest.approx(s, abs=1e-6)
    w, inp, p = _inputs("ipndp_denoising")
    img, inv_h2 = inp["image"].astype(np.float64), float(inp["inv_h2"])
    h, wd = img.shape
    ref = w.reference(inp, p)["out"]
    for y, x in [(0, 0), (10, 20), (h - 1, wd - 2)]:
        num = den = 0.0
        for i in range(-3, 4):
            for j in range(-3, 4):
                v = img[min(max(y + i, 0), h - 1), min(max(x + j, 0), wd - 1)]
                wgt = np.exp(-((v - img[y, x]) ** 2 * inv_h2 + (i * i + j * j) / 49))
                num, den = num + v * wgt, den + wgt
        assert ref[y, x] == pytest.approx(num / den, rel=1e-6)


def test_jacobi_downsample_concat_matmul_references() -> None:
    w, inp, p = _inputs("ipndp_jacobi2d")
    g = inp["grid"].astype(np.float64)
    one = w.reference(inp, {**p, "steps": 1})["out"]
    assert one[3, 4] == pytest.approx(np.float32(0.2) * (g[3, 4] + g[2, 4] + g[4, 4] + g[3, 3] + g[3, 5]), abs=1e-7)
    np.testing.assert_array_equal(w.reference(inp, p)["out"][0], inp["grid"][0])  # the border stays fixed
    w, inp, p = _inputs("ipndp_downsample")
    assert w.reference(inp, p)["out"][2, 3] == inp["image"][4:6, 6:8].mean()
    w, inp, p = _inputs("ipndp_concat")
    out = w.reference(inp, p)["out"]
    assert out[5, p["width_a"] + 2] == inp["b"][5, 2] and out[5, 2] == inp["a"][5, 2]
    w, inp, p = _inputs("ipndp_matmul")
    c = w.reference(inp, p)["C"]
    assert c[7, 9] == pytest.approx(float(np.dot(inp["A"][7].astype(np.float64), inp["B"][:, 9])), rel=1e-6)


# -- through the simulator -----------------------------------------------------------------------------------


@needs_toolchain
@pytest.mark.parametrize("name", sorted(set(NAMES) - set(VARIANTS)))  # the variants: bit-identity below
def test_workload_passes_at_tiny(name: str) -> None:
    result = run_workload(name, "tiny")
    failures = [c.message for c in result.checks if not c.passed]
    assert result.checks, f"{name}: the runner reported no checks"
    assert result.passed, f"{name} (tiny) failed:\n" + "\n".join(failures or ["(no failing check reported)"])


@needs_toolchain
@pytest.mark.parametrize("num_sms", [None, *OTHER_NUM_SMS], ids=["default", *map(str, OTHER_NUM_SMS)])
@pytest.mark.parametrize("benchmark", [b for b, _ in PAIRS])
def test_pattern_aware_form_is_bit_identical(benchmark: str, num_sms: int | None) -> None:
    base, pa = IPNDP_WORKLOADS[benchmark]
    want, _ = _run(base)
    got, launches = _run(pa, num_sms)
    assert want.keys() == got.keys()
    for key in want:
        assert _bits(got[key]) == _bits(want[key]), f"{pa} (num_sms={num_sms}) output {key!r} differs from {base}"
    # the PACA launch: one 1D grid of num_sms CTAs of 256 threads (2D blocks), for every launch
    expected = DEFAULT_NUM_SMS if num_sms is None else num_sms
    assert launches
    for rec in launches:
        assert tuple(rec.grid) == (expected, 1, 1), f"{pa}: grid {rec.grid}, expected {expected} CTAs"
        assert int(np.prod(rec.block)) == PA_THREADS, f"{pa}: block {rec.block} is not 256 threads"


@needs_toolchain
@pytest.mark.parametrize("name", VARIANTS)
def test_study_variant_is_bit_identical(name: str) -> None:
    """Every warp count and the no-barrier forms compute the baseline's bits; the launch has the CTA asked for."""
    cls = WORKLOADS[name]
    p = cls.params("tiny")
    bench = next(b for b, c in FREE_SHAPE.items() if name.startswith(c.name))
    base = IPNDP_WORKLOADS["ConvSep-L1" if bench == "ConvSep" else bench][0]
    want, _ = _run(base)
    got, launches = _run(name)
    for key in want:
        assert _bits(got[key]) == _bits(want[key]), f"{name}: output {key!r} differs from {base}"
    warps = p.get("warps", 8)
    for rec in launches:
        assert tuple(rec.grid) == (p["num_sms"], 1, 1) and tuple(rec.block) == (32, warps, 1), rec
        assert rec.kernel.endswith("_nobar") == (p.get("barrier", True) is False), rec.kernel


def test_study_variants_cover_the_sweep() -> None:
    assert set(WARP_FORMS) == {(b, w) for b in FREE_SHAPE for w in SWEEP_WARPS}
    assert set(NOBAR_FORMS) == {c.name for c in FREE_SHAPE.values()} | {PA16[c.name].name for c in FREE_SHAPE.values()}
    assert warp_form("Conv2D", 8) == "ipndp_conv2d_pa" and warp_form("Conv2D", 16) == "ipndp_conv2d_pa_w16"
    assert WORKLOADS["ipndp_convsep_l1_pa_w2"].params("small")["warps"] == 2
    assert WORKLOADS["ipndp_denoising_pa16_nobar"].params("tiny")["num_sms"] == IP16_SMS
    with pytest.raises(KeyError, match="no warp-sweep form"):
        warp_form("MatMul", 4)


@pytest.mark.parametrize("bad", [{"warps": 0}, {"warps": 33}, {"warps": 2.0}, {"barrier": "no"}])
def test_bad_study_parameters_are_refused(bad: dict[str, Any]) -> None:
    name = "ipndp_conv2d_pa_w4" if "warps" in bad else "ipndp_conv2d_pa_nobar"
    with pytest.raises(ValueError, match=next(iter(bad))):
        run_ipndp(name, "tiny", **bad)


@needs_toolchain
def test_all_convsep_forms_agree() -> None:
    """The shared-memory (SDK tiling) and L1 codes compute every output in the same order: the same bits."""
    want, _ = _run("ipndp_convsep_smem")
    for name in ("ipndp_convsep_l1", "ipndp_convsep_smem_pa", "ipndp_convsep_l1_pa", "ipndp_convsep_l1px",
                 "ipndp_convsep_l1px_pa"):
        got, _ = _run(name)
        for key in want:
            assert _bits(got[key]) == _bits(want[key]), f"{name}: {key} differs from the shared-memory code"


@needs_toolchain
@pytest.mark.parametrize("name", ["ipndp_convsep_l1", "ipndp_convsep_l1_pa"])
def test_register_blocked_convsep_matches_numpy(name: str) -> None:
    """Guideline 4's register-blocked L1 kernels (8 outputs per thread) against np.convolve, on a 600x200 image:
    wide and tall enough that outputs take the unchecked path (every tap inside: rows x in [8, 591], columns y
    in [8, 191] of a whole 8-output step) and the checked one (near each edge), with a width that is not a
    multiple of the 128- or 256-pixel row step and a height not a multiple of the 64-row column step."""
    w, h = 600, 200
    outputs, dev, p = run_ipndp(name, "tiny", width=w, height=h)
    cls = WORKLOADS[name]
    inp = cls().inputs(p, np.random.default_rng(cls.seed))
    image, k = inp["image"].astype(np.float64), inp["kernel"].astype(np.float64)
    rows = np.stack([np.convolve(r, k, mode="same") for r in image])
    out = np.stack([np.convolve(c, k, mode="same") for c in rows.T]).T
    np.testing.assert_array_equal(outputs["rows"], rows.astype(np.float32))
    np.testing.assert_array_equal(outputs["out"], out.astype(np.float32))
    threads = sum(int(np.prod(r.grid)) * int(np.prod(r.block)) for r in dev.launches)
    if not cls.pattern_aware:  # the SDK's geometry: 8 outputs per thread in each pass
        assert threads == -(-w // 128) * -(-h // 4) * 64 + -(-w // 16) * -(-h // 64) * 128


@needs_toolchain
def test_baselines_use_an_ordinary_grid() -> None:
    _, launches = _run("ipndp_conv2d")
    (rec,) = launches
    p = WORKLOADS["ipndp_conv2d"].params("tiny")
    assert tuple(rec.grid) == (p["width"] // 32, p["height"] // 8, 1) and tuple(rec.block) == (32, 8, 1)


@needs_toolchain
def test_num_sms_none_takes_the_devices_count() -> None:
    _, dev, _ = run_ipndp("ipndp_conv2d_pa", "tiny", num_sms=None)
    assert [tuple(r.grid) for r in dev.launches] == [(dev.num_sms, 1, 1)]
