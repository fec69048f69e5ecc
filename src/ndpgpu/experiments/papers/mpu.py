"""MPU (seed 003): a SIMT processor whose register files and ALUs sit beside the DRAM banks of a 3D stack.

``ndpgpu reproduce mpu [--scale small]``: the 12 workloads of Table I on machine ``mpu`` under the four
location policies (Fig. 15), with shared memory on the base die (Fig. 11), with 1 and 2 row buffers per bank
(Fig. 12) and as processing on the base die (PonB, Fig. 13), against the ``v100`` preset as the GPU proxy
(the paper measured a real Tesla V100); plus the static parts: Table II's arithmetic, Table III's area,
Algorithm 1 on the Fig. 7 example and the register split of Fig. 14.
"""

from __future__ import annotations

import functools
import math
from typing import Any

from ...workloads.mpu import MPU_WORKLOADS
from ..baselines import BaselineTiming
from ..plots import BarChart
from ..points import Point, SweepSpec
from ..report import Check, CheckRule, Reproduction, register_reproduction
from ..results import ResultSet, Table, geomean
from ._metrics import kernel_energy

BENCHMARKS = tuple(MPU_WORKLOADS)
MACHINE = "mpu"
GPU = "v100"
TIME = "kernel.time"
ROW_BUFFERS = "dram.max_open_subarrays"
# Table II's DRAM on the mpu preset (which has MPU-Sim's): its tCCD of 2 ns per bank and 1 KB rows
TABLE2_DRAM: dict[str, Any] = {"dram.timing.tCCD_L": 4, "dram.row_bytes": 1024, "dram.mapping.fields": "CCCCC.GG.XXXXX"}
# configuration -> (machine, policy, overrides)
CONFIGS: dict[str, tuple[str, str, dict[str, Any]]] = {
    "GPU": (GPU, "baseline", {"pcie.place_in_l2": False}),
    "annotation": (MACHINE, "mpu:annotation", {}),
    "hardware": (MACHINE, "mpu:hardware", {}),
    "all-near": (MACHINE, "mpu:all-near", {}),
    "all-far": (MACHINE, "mpu:all-far", {}),
    "far-smem": (MACHINE, "mpu:annotation+far-smem", {}),
    "PonB": (MACHINE, "mpu:ponb", {}),
    "1 RB": (MACHINE, "mpu:annotation", {ROW_BUFFERS: 1}),
    "2 RB": (MACHINE, "mpu:annotation", {ROW_BUFFERS: 2}),
    # the labelled second column: Table II's DRAM (4 banks of 256-bit IO per NBU, tCCD 2 ns, 1 KB rows) where
    # the preset has MPU-Sim's (8 banks of 16 B, tCCDL 4 ns: half the rate), declared before the rerun
    "Table II DRAM": (MACHINE, "mpu:annotation", TABLE2_DRAM),
}
POLICIES = ("annotation", "hardware", "all-near", "all-far")
PAPER = {"speedup": 3.45, "energy": 2.57, "hardware": 1.92, "all-near": 1.22, "all-far": 1.78,
         "near_smem": 1.48, "near_smem_tsv": 1.89, "rb2": 1.10, "rb4": 1.25, "rb_miss": (15.60, 9.20, 5.45),
         "ponb": 1.46, "split": (32.5, 63.7, 3.8), "v100_util": 0.559, "bandwidth": 4.13,
         "shares": {"ALU": 39.82, "RF+OPC": 15.47, "DRAM": 16.42, "TSV": 16.79, "network": 4.43}}
# Fig. 10's energy parts -> the power model's components (energy.<component>.total)
ENERGY_PARTS: dict[str, tuple[str, ...]] = {"ALU": ("alu",), "RF+OPC": ("regfile",), "DRAM": ("dram",),
                                             "TSV": ("tsv",), "network": ("noc",)}
SPEEDUP_RTOL = 0.25  # Fig. 8 / 15 values are read from bars: within 25%
SHARE_TOL = 8.0  # energy shares: within 8 percentage points
SPLIT_TOL = 5.0  # register split: within 5 percentage points

# Each check's definition, from the paper's text (Sec. VI unless named), fixed before any rerun. "On average" is
# read as the arithmetic mean of the per-workload values: the paper never names a geometric mean, and it uses
# the same words for quantities whose mean can only be arithmetic (Fig. 1's "On average ... 55.90% DRAM
# bandwidth utilization (503.10 GB/s)"; Fig. 14's "On average, 32.5% ... 63.7% ... 3.8%", which sum to 100.0
# as only arithmetic means of shares do). Its figures are not in the text we have, so no bar can be read.
_PROXY_BAND = ("25%, set before the first run: ours is a ratio against a simulated V100 proxy on our own input "
               "sizes (the paper measured a real V100 on inputs it does not state); not derived from the paper")
RULES: dict[str, CheckRule] = {
    "ran": CheckRule(
        "arithmetic", "one value (count of points)",
        "Sec. VI-A: the 12 workloads of Table I on MPU and on the GPU; every point must run",
        "none: bookkeeping, no failed point allowed"),
    "table2": CheckRule(
        "arithmetic", "one value (constants)",
        "Table II: \"Proc/(3D,Core)/(Subcore,NBU/Bank/RowBuf) 8/(4,16)/(4,4/4/4)\", \"Bank ... 16M\", TSV 1024 b "
        "at 2 GHz \"evenly divided among the cores\" (Sec. IV)",
        "equal: arithmetic on the table's constants"),
    "table3": CheckRule(
        "arithmetic", "one value (constants)",
        "Table III: \"Total - 19.80 20.62\"; Sec. VI-B: \"This brings the total area overhead from 30.74% to "
        "20.62%\"",
        "equal to the paper's two decimals: arithmetic on Table III"),
    "alg1": CheckRule(
        "arithmetic", "one value (static analysis of one kernel)",
        "Fig. 7 / Sec. V-B: \"Offloading the compute instruction in line 3 to near-bank compute logic can "
        "eliminate the data transfer on TSVs for registers %f1, %f2, and %f3\"",
        "equal: a deterministic pass on the paper's own example"),
    "axpy_moves": CheckRule(
        "measured", "one value (AXPY's moves down / warps; moves up)",
        "Sec. IV-B1: \"we optimize register locations in Sec.V-B, so a hit in the register track table will not "
        "cause register movement\" (Listing 1: alpha is the one value read far, used near)",
        "<= 1.05 moves per warp, 0 up: the one unavoidable move of alpha per warp, 5% slack set before the first "
        "run; the paper gives no number"),
    "headline": CheckRule(
        "measured", "arithmetic mean of the 12 per-workload kernel-time speedups",
        "Sec. VI-B: \"MPU achieves 3.45x speedup on average over the GPU as shown in Fig.8 (1)\" (3.46x in the "
        "abstract); Sec. VI-D, Fig. 15: \"On average ... we achieve 3.45x speedup w.r.t. GPU\"",
        _PROXY_BAND),
    "energy": CheckRule(
        "measured", "arithmetic mean of the 12 per-workload energy ratios (V100 proxy / MPU), kernels' window: "
        "dynamic + static x kernel.time / application.time (MPU's static is 0)",
        "Sec. VI-B: \"MPU achieves 2.57x energy reduction on average over the GPU (Fig.9)\"; the GPU's power "
        "from nvidia-smi while the kernels ran",
        _PROXY_BAND),
    "policy_order": CheckRule(
        "measured", "arithmetic means of the 12 per-workload speedups, one per policy",
        "Sec. VI-D, Fig. 15: \"we achieve 3.45x ... we achieve 1.92x, 1.22x, and 1.78x speedup, respectively\"",
        "strict order, no band on the values: the paper gives four means whose order is its claim"),
    "hardware": CheckRule(
        "measured", "arithmetic mean of the 12 per-workload speedups",
        "Sec. VI-D, Fig. 15: \"On average ... using hardware's default instruction location policy ... 1.92x\"",
        _PROXY_BAND),
    "all_far": CheckRule(
        "measured", "arithmetic mean of the 12 per-workload speedups",
        "Sec. VI-D, Fig. 15: \"offloading all instructions to far-bank compute-logic ... 1.78x\"",
        _PROXY_BAND),
    "all_near": CheckRule(
        "measured", "arithmetic mean of the 12 per-workload speedups",
        "Sec. VI-D, Fig. 15: \"offloading all instructions to near-bank compute-logic ... 1.22x\"",
        _PROXY_BAND),
    "smem_speedup": CheckRule(
        "measured", "arithmetic mean over all 12 workloads of far-bank / near-bank kernel time (those without "
        "shared memory count as 1)",
        "Sec. VI-C, Fig. 11: \"On average, near-bank shared memory design achieves 1.48x speedup\"; the figure "
        "holds every workload: \"For workloads that do not use shared memory, both the performance and TSV "
        "traffic are identical\"",
        "25%, set before the first run: MPU against MPU, but on our inputs and kernels' shared-memory use; not "
        "derived from the paper"),
    "smem_tsv": CheckRule(
        "measured", "arithmetic mean over all 12 workloads of far-bank / near-bank TSV bytes (those without "
        "shared memory count as 1)",
        "Sec. VI-C, Fig. 11: \"On average, near-bank shared memory design achieves ... 1.89x TSV traffic "
        "improvement\"",
        "25%, set before the first run: MPU against MPU on our inputs; not derived from the paper"),
    "smem_identical": CheckRule(
        "measured", "largest |ratio - 1| over the workloads without shared memory",
        "Sec. VI-C: \"For workloads that do not use shared memory, both the performance and TSV traffic are "
        "identical to the location of shared memory\"",
        "< 0.5%: \"identical\"; the slack only absorbs float rounding of two runs that differ in nothing used"),
    "rb_miss": CheckRule(
        "measured", "arithmetic mean of the 12 per-workload row-buffer miss rates, per row-buffer count",
        "Sec. VI-C, Fig. 12 (2): \"the miss rate reduces from 15.60% to 9.20% and 5.45%, respectively\"",
        "strictly falling, no band on the values: our rates depend on input sizes the paper does not give"),
    "rb2": CheckRule(
        "measured", "arithmetic mean of the 12 per-workload speedups over 1 row buffer",
        "Sec. VI-C, Fig. 12 (1): \"we compare the performance of all workloads ... the speedup numbers are 1.10x "
        "and 1.25x when we increase the number of activated row-buffers to 2 and 4\"",
        "10%, set before the first run: MPU against MPU, no V100 proxy in the ratio, so tighter than 25%"),
    "rb4": CheckRule(
        "measured", "arithmetic mean of the 12 per-workload speedups over 1 row buffer",
        "Sec. VI-C, Fig. 12 (1): \"the speedup numbers are 1.10x and 1.25x when we increase the number of "
        "activated row-buffers to 2 and 4, respectively\"",
        "10%, set before the first run: MPU against MPU, no V100 proxy in the ratio, so tighter than 25%"),
    "ponb": CheckRule(
        "measured", "arithmetic mean of the 12 per-workload speedups (PonB / MPU kernel time)",
        "Sec. VI-C, Fig. 13: \"on average MPU achieves 1.46x speedup up compared with the PonB solution\"",
        "25%, set before the first run: MPU against MPU-like PonB on our inputs; not derived from the paper"),
    "split": CheckRule(
        "arithmetic", "per-workload mean: each workload's N / F / B shares of its registers, averaged over the 12",
        "Sec. VI-D, Fig. 14: \"The breakdown of registers on different locations for all workloads is shown in "
        "Fig.14. On average, 32.5% registers only appear in near-bank locations, 63.7% ... 3.8% ...\"",
        "5 points, set before the first run: the analysis is static, but over nvcc 13's PTX registers, not the "
        "paper's own back end's"),
    "shares": CheckRule(
        "measured", "pooled: each part's kernel-window energy summed over the 12 workloads over the whole "
        "machine's, summed likewise (kernel window: dynamic + static x kernel.time / application.time)",
        "Sec. VI-B, Fig. 10 (one breakdown, no \"on average\"): \"most of the energy in MPU (92.94%) is spent on "
        "computation (ALU consumes 39.82%), data access (31.90%), and data movement (21.22%)\"",
        "8 points, set before the first run: the shares rest on per-event energies the paper does not all give "
        "(the ALU's, from [8][9]); not derived from the paper"),
    "trend": CheckRule(
        "measured", "one value per workload: the sign of its log-speedup residual from the least-squares line "
        "of log speedup on log memory intensity over the 12",
        "Sec. VI-B, Fig. 8 (2): \"some benchmarks show higher (KMEANS) and lower (TTRANS, UPSAMP) speedup "
        "numbers than their memory intensity\"",
        "signs only: Fig. 8 (2)'s values are only in the figure; the text names the three outliers"),
    "v100_util": CheckRule(
        "measured", "arithmetic mean of the 12 per-workload DRAM bus utilisations of the V100 proxy",
        "Sec. II, Fig. 1: \"On average, these benchmarks achieve 55.90% DRAM bandwidth utilization (503.10 "
        "GB/s)\"",
        "25%, set before the first run: Fig. 1 is a measured V100, ours a simulated proxy on our inputs"),
    "bandwidth": CheckRule(
        "measured", "suite-level ratio: arithmetic mean over the 12 of MPU's (annotation) achieved DRAM "
        "bandwidth over the same mean of the V100 proxy's (Fig. 1's 503.10 GB/s is such a mean)",
        "Sec. VI-B: \"As MPU provides more memory bandwidth than the GPU (4.13x in measurement), for benchmarks "
        "with simple memory access and compute patterns (e.g., AXPY), the speedup is proportional to the memory "
        "intensity\" (a machine-level claim; AXPY is the example of the consequence)",
        _PROXY_BAND),
}


def fig7_ptx() -> str:
    """The paper's Fig. 7 example as a whole PTX kernel."""
    from ...mechanisms.mpu.locations import FIG7_BODY

    return (".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry fig7()\n{\n"
            f"    .reg .b64 %rd<12>;\n    .reg .f32 %f<4>;\n{FIG7_BODY}}}\n")


def mean(values: Any) -> float | None:
    """Arithmetic mean ("on average", as the paper says); None when any value is missing."""
    vs = list(values)
    return None if not vs or any(v is None for v in vs) else sum(vs) / len(vs)


@register_reproduction
class MpuReproduction(Reproduction):
    name = "mpu"
    title = "MPU: a memory-centric SIMT processor with near-bank register files and ALUs"
    paper = ("X. Xie et al., MPU: Memory-centric SIMT Processor via In-DRAM Near-bank Computing, MICRO 2021 "
             "(seed 003)")
    default_scale = "small"
    baseline_timing = BaselineTiming(
        "preset",
        paper_says="We compare with a Tesla V100 GPU card with 4 HBM stacks ... We develop an event-driven "
        "simulator using SimPy, which adapts the simulation framework from GPGPU-Sim for SIMT core model "
        "(section VI, Simulation Methodology)",
        why="the paper's baseline is a real V100 (measured), and its MPU runs in its own simulator, not "
        "GPGPU-Sim: hardware-faithful presets (v100 as the GPU proxy)",
        columns=(),
    )
    paper_numbers = dict(PAPER)
    key_metrics = (TIME, "kernel.cycles", "kernel.warp_instructions", "kernel.warps", "dram.bytes",
                   "dram.bandwidth", "dram.bus_utilisation", "dram.row_buffer_hit_rate",
                   "mpu.dram.row_buffer_miss_rate", "mpu.instructions.near_bank", "mpu.instructions.far_bank_alu",
                   "mpu.instructions.near_share_of_alu", "mpu.registers.moves_down", "mpu.registers.moves_up",
                   "mpu.tsv.bytes", "mpu.tsv.utilisation", "mpu.lsu.loads_offloaded", "mpu.lsu.stores_offloaded",
                   "mpu.lsu.transactions_local", "mpu.lsu.transactions_remote", "mpu.lsu.smem_accesses",
                   "energy.total", "energy.dynamic", "energy.static", "application.time",
                   *(f"energy.{c}.total" for parts in ENERGY_PARTS.values() for c in parts))
    differences = (
        "The paper compares with a real Tesla V100 (nvprof, nvidia-smi); ours with the `v100` preset, a simulated "
        "V100 (80 SMs, 900 GB/s HBM2) running the same kernels, as the GPU proxy: speedups are kernel-time ratios "
        "(ns), with every kernel starting from DRAM (the host copies leave no lines in the V100's L2: "
        "`pcie.place_in_l2 = false`: the paper chose data-intensive inputs, and at our smaller scales the 6 MB L2 "
        "would otherwise still hold inputs the host had just copied), "
        "energies the power model's totals (the V100's with static power, as a board measurement has; "
        "MPU's dynamic only, as the paper's model). MPU runs on machine `mpu` (Table II; the values the paper "
        "lacks from its authors' released simulator, each marked in the preset), with the released simulator's "
        "DRAM (8 banks of 16 B per NBU, 4 ns between a bank's column commands: half Table II's rate) and the ALU "
        "energies it loads, as the configuration that produced the paper's numbers; Table II's DRAM and the "
        "simulator's README ALU energies are second columns (table second_columns). Data layouts are the "
        "released benchmarks' (MAXP's input and UPSAMP's output in four planes; KMEANS compiled with its bounds). "
        "Inputs are our own sizes after "
        "the released simulator's (the paper states none). Thread blocks go to cores round robin with continuous "
        "refill (the released simulator runs batches). Averages are arithmetic means of the per-workload values "
        "(\"on average\": the paper names no geometric mean and uses the words for Fig. 1's utilisation and Fig. "
        "14's shares, which sum to 100.0, both arithmetic); geometric means are in the tables (at `paper` the "
        "headline's is about half its arithmetic mean: the 12 speedups are bimodal). The register split is "
        "static, over the 12 kernels' PTX registers as nvcc 13 emits them (the paper's are its own back end's), "
        "and is the mean of the 12 workloads' splits (\"On average, 32.5% registers ...\"), no longer pooled over "
        "all their registers. Fig. 11's means are over all 12 workloads, those without shared memory at 1 (the "
        "paper calls them \"identical\"), no longer over the shared-memory users alone. The bandwidth claim "
        "(\"MPU provides more memory bandwidth than the GPU (4.13x in measurement)\") is compared as the ratio of "
        "the mean achieved DRAM bandwidths over the 12, no longer AXPY's alone. Fig. 10's shares are each part's "
        "energy over the kernels' window, pooled over the 12 (the paper gives one breakdown, not a mean)."
    )

    def spec(self, scale: str) -> SweepSpec:
        points = [Point(workload=MPU_WORKLOADS[b], scale=scale, machine=m, policy=pol, overrides=ov)
                  for m, pol, ov in CONFIGS.values() for b in BENCHMARKS]
        return SweepSpec(name=f"mpu-{scale}", description="MPU (seed 003): the 12 workloads on the V100 proxy "
                         "and on MPU under 4 location policies, far-bank shared memory, 1/2 row buffers and PonB",
                         points=points)

    # ---------------------------------------------------------------------------------------------- helpers
    @staticmethod
    def _v(results: ResultSet, config: str, bench: str, metric: str) -> float | None:
        machine, policy, ov = CONFIGS[config]
        return results.value(MPU_WORKLOADS[bench], machine, metric, policy=policy, overrides=ov)

    def _ratio(self, results: ResultSet, num: str, den: str, metric: str = TIME,
               benches: tuple[str, ...] = BENCHMARKS) -> dict[str, float | None]:
        """``num``'s metric over ``den``'s per benchmark (a speedup when ``num`` is the slower: pass the
        baseline as ``num``)."""
        out: dict[str, float | None] = {}
        for b in benches:
            a, d = self._v(results, num, b, metric), self._v(results, den, b, metric)
            out[b] = a / d if a is not None and d else None
        return out

    def speedups(self, results: ResultSet, config: str, base: str = "GPU",
                 benches: tuple[str, ...] = BENCHMARKS) -> dict[str, float | None]:
        """``base``'s kernel time over ``config``'s."""
        return self._ratio(results, base, config, TIME, benches)

    def smem_benches(self, results: ResultSet) -> tuple[str, ...]:
        """The workloads that use shared memory (their annotation run accessed it)."""
        return tuple(b for b in BENCHMARKS if (self._v(results, "annotation", b, "mpu.lsu.smem_accesses") or 0) > 0)

    def energy(self, results: ResultSet, config: str, bench: str, alu_scale: float = 1.0) -> float | None:
        """A point's kernel energy (pJ; the V100 proxy's static power over the kernel's time only, as a board
        measurement during the kernel has it; MPU has no static power, as the paper's model). ``alu_scale``
        reprices MPU's ALU energy (``readme_alu_factor()``: the README's prices, the second column)."""
        def get(metric: str) -> float | None:
            return self._v(results, config, bench, metric)

        total = kernel_energy(get)
        if total is None or alu_scale == 1.0 or config == "GPU":
            return total
        alu = kernel_energy(get, "alu")
        return None if alu is None else total - (1.0 - alu_scale) * alu

    def energy_reduction(self, results: ResultSet, config: str = "annotation",
                         alu_scale: float = 1.0) -> dict[str, float | None]:
        """The V100 proxy's kernel energy over MPU's (``config``), per workload."""
        out: dict[str, float | None] = {}
        for b in BENCHMARKS:
            g, m = self.energy(results, "GPU", b), self.energy(results, config, b, alu_scale)
            out[b] = g / m if g is not None and m else None
        return out

    def energy_shares(self, results: ResultSet, alu_scale: float = 1.0) -> dict[str, float | None]:
        """Fig. 10: each part's share of MPU's (annotation) energy, in percent, pooled over the 12 (the paper
        gives one breakdown, "most of the energy in MPU (92.94%)", not an average of 12): each part's energy
        and the whole machine's over the kernels' window (``kernel_energy``), summed over the workloads; the ALU
        repriced by ``alu_scale`` (second column)."""
        def get(b: str) -> Any:
            return lambda metric: self._v(results, "annotation", b, metric)

        totals = [self.energy(results, "annotation", b, alu_scale) for b in BENCHMARKS]
        if None in totals or not sum(t for t in totals if t):
            return dict.fromkeys(ENERGY_PARTS)
        total = sum(t for t in totals if t)
        out: dict[str, float | None] = {}
        for part, comps in ENERGY_PARTS.items():
            scale = alu_scale if part == "ALU" else 1.0
            vals = [kernel_energy(get(b), c) for b in BENCHMARKS for c in comps]
            out[part] = None if None in vals else 100.0 * scale * sum(v for v in vals if v) / total
        return out

    def headline_spread(self, results: ResultSet, config: str = "annotation") -> dict[str, Any]:
        """The headline's per-workload speedups with their arithmetic mean (the paper's "on average"),
        geometric mean, smallest and largest."""
        sp = self.speedups(results, config)
        known = {b: v for b, v in sp.items() if v is not None}
        lo = min(known, key=known.__getitem__) if known else None
        hi = max(known, key=known.__getitem__) if known else None
        return {"speedups": sp, "mean": mean(sp.values()), "geomean": geomean(sp.values()) if known else None,
                "min": (lo, known[lo]) if lo else None, "max": (hi, known[hi]) if hi else None}

    def bandwidth_ratio(self, results: ResultSet, config: str = "annotation") -> float | None:
        """MPU's (annotation) achieved DRAM bandwidth over the V100 proxy's, suite-level: the ratio of the
        arithmetic means over the 12 (the paper: "MPU provides more memory bandwidth than the GPU (4.13x in
        measurement)", a claim about the machines, beside Fig. 1's mean of 503.10 GB/s on the V100)."""
        m = mean(self._v(results, config, b, "dram.bandwidth") for b in BENCHMARKS)
        g = mean(self._v(results, "GPU", b, "dram.bandwidth") for b in BENCHMARKS)
        return m / g if m is not None and g else None

    def intensity(self, results: ResultSet) -> dict[str, float | None]:
        """Memory intensity (Fig. 8): the GPU proxy's DRAM bytes per warp-instruction."""
        out: dict[str, float | None] = {}
        for b in BENCHMARKS:
            by, wi = self._v(results, "GPU", b, "dram.bytes"), self._v(results, "GPU", b, "kernel.warp_instructions")
            out[b] = by / wi if by is not None and wi else None
        return out

    def trend_residuals(self, results: ResultSet) -> dict[str, float | None]:
        """Each workload's log-speedup above (+) or below (-) the least-squares line of log speedup on log
        memory intensity over the 12 (Fig. 8's trend)."""
        sp, it = self.speedups(results, "annotation"), self.intensity(results)
        pts = {b: (math.log(it[b]), math.log(sp[b])) for b in BENCHMARKS if sp[b] and it[b]}
        if len(pts) < 3:
            return dict.fromkeys(BENCHMARKS)
        n = len(pts)
        mx = sum(x for x, _ in pts.values()) / n
        my = sum(y for _, y in pts.values()) / n
        sxx = sum((x - mx) ** 2 for x, _ in pts.values())
        slope = sum((x - mx) * (y - my) for x, y in pts.values()) / sxx if sxx else 0.0
        return {b: (pts[b][1] - (my + slope * (pts[b][0] - mx))) if b in pts else None for b in BENCHMARKS}

    # ---------------------------------------------------------------------------------------------- report
    def figures(self, results: ResultSet) -> list[BarChart]:
        benches = list(BENCHMARKS)
        smem = list(self.smem_benches(results)) or benches
        pol = {p: self.speedups(results, p) for p in POLICIES}
        e = self.energy_reduction(results)
        shares = self.energy_shares(results)
        return [
            BarChart(name="speedup", title="Fig. 8: MPU (annotation) over the V100 proxy", ylabel="speedup (x)",
                     categories=benches, series={"MPU": [pol["annotation"][b] for b in benches]},
                     reference_line=1.0, caption="Paper: 3.45x on average; speedup tracks memory intensity."),
            BarChart(name="energy", title="Fig. 9: energy reduction over the V100 proxy", ylabel="V100 / MPU energy",
                     categories=benches, series={"MPU": [e[b] for b in benches]}, reference_line=1.0,
                     caption="Paper: 2.57x on average, roughly proportional to the speedup."),
            BarChart(name="energy_breakdown", title="Fig. 10: MPU's energy by part (annotation, all 12)",
                     ylabel="% of energy", categories=list(shares), series={"ours": list(shares.values())},
                     paper={"ours": [PAPER["shares"][k] for k in shares]}, mean=None,
                     caption="Paper: ALU 39.8%, RF+OPC 15.5%, DRAM 16.4%, TSV 16.8%, network 4.4%."),
            BarChart(name="near_smem", title="Fig. 11: near-bank over far-bank shared memory", ylabel="ratio",
                     categories=smem, series={"speedup": [self._ratio(results, "far-smem", "annotation")[b]
                                                          for b in smem],
                                              "TSV traffic cut": [self._ratio(results, "far-smem", "annotation",
                                                                              "mpu.tsv.bytes")[b] for b in smem]},
                     reference_line=1.0, caption="Paper: 1.48x speedup and 1.89x less TSV traffic on average."),
            BarChart(name="row_buffers", title="Fig. 12: 2 and 4 row buffers over 1", ylabel="speedup (x)",
                     categories=benches, series={"2 RB": [self._ratio(results, "1 RB", "2 RB")[b] for b in benches],
                                                 "4 RB": [self._ratio(results, "1 RB", "annotation")[b]
                                                          for b in benches]},
                     reference_line=1.0, caption="Paper: 1.10x and 1.25x; miss rate 15.60 -> 9.20 -> 5.45%."),
            BarChart(name="ponb", title="Fig. 13: MPU over processing on the base die (PonB)", ylabel="speedup (x)",
                     categories=benches, series={"MPU / PonB": [self.speedups(results, "annotation", "PonB")[b]
                                                                for b in benches]},
                     reference_line=1.0, caption="Paper: 1.46x on average."),
            BarChart(name="policies", title="Fig. 15: location policies over the V100 proxy", ylabel="speedup (x)",
                     categories=benches, series={p: [pol[p][b] for b in benches] for p in POLICIES},
                     reference_line=1.0, caption="Paper: annotation 3.45x, hardware 1.92x, all-near 1.22x, "
                                                 "all-far 1.78x."),
        ]

    def second_columns(self, results: ResultSet) -> Table:
        """The declared configuration (MPU-Sim's DRAM, the ALU energies MPU-Sim loads) beside the labelled second
        columns: Table II's DRAM (a separate run of the annotation policy) and MPU-Sim's README ALU energies
        (the same runs, the ALU repriced: every README price is the loaded one over one factor)."""
        from ...mechanisms.mpu.energy import readme_alu_factor

        f = readme_alu_factor()
        dec, t2 = self.headline_spread(results), self.headline_spread(results, "Table II DRAM")

        def spread(h: dict[str, Any]) -> str | None:
            if h["min"] is None:
                return None
            return f"{h['min'][0]} {h['min'][1]:.3g} .. {h['max'][0]} {h['max'][1]:.3g}"

        sh, sh_readme = self.energy_shares(results), self.energy_shares(results, f)

        def shares(x: dict[str, float | None]) -> str | None:
            return None if None in x.values() else " / ".join(f"{v:.1f}" for v in x.values())

        rows = [
            ["headline, arithmetic mean of 12", PAPER["speedup"], dec["mean"], t2["mean"], dec["mean"]],
            ["headline, geometric mean", None, dec["geomean"], t2["geomean"], dec["geomean"]],
            ["headline, spread (smallest .. largest)", None, spread(dec), spread(t2), spread(dec)],
            ["DRAM bandwidth, MPU / V100 proxy (means of 12)", PAPER["bandwidth"], self.bandwidth_ratio(results),
             self.bandwidth_ratio(results, "Table II DRAM"), self.bandwidth_ratio(results)],
            ["energy reduction (mean of 12)", PAPER["energy"], mean(self.energy_reduction(results).values()),
             mean(self.energy_reduction(results, "Table II DRAM").values()),
             mean(self.energy_reduction(results, "annotation", f).values())],
            ["energy shares ALU / RF+OPC / DRAM / TSV / network (%)", "39.8 / 15.5 / 16.4 / 16.8 / 4.4", shares(sh),
             None, shares(sh_readme)],
        ]
        return Table("second_columns", "Declared configuration beside the second columns (annotation policy): "
                     "MPU-Sim's DRAM and the ALU energies MPU-Sim loads (the checks) against Table II's DRAM and "
                     "MPU-Sim's README ALU energies",
                     ["quantity", "paper", "declared: MPU-Sim's DRAM, loaded ALU energies",
                      "second column: Table II's DRAM", "second column: README ALU energies"], rows,
                     note=f"README ALU energies: the loaded ones x {f:.6f} (1 / {1 / f:.2f}), every class alike.")

    def tables(self, results: ResultSet) -> list[Table]:
        benches = BENCHMARKS
        pol = {p: self.speedups(results, p) for p in POLICIES}
        h = self.headline_spread(results)
        head = Table("headline", "The headline as the paper computes it (\"on average\": the arithmetic mean of the "
                     "12 per-workload speedups of MPU (annotation) over the V100 proxy), with its geometric mean and "
                     "the per-workload spread",
                     ["workload", "speedup"],
                     [*([b, h["speedups"][b]] for b in benches), ["arithmetic mean (the headline)", h["mean"]],
                      ["geometric mean", h["geomean"]],
                      ["smallest", None if h["min"] is None else f"{h['min'][0]} {h['min'][1]:.4g}"],
                      ["largest", None if h["max"] is None else f"{h['max'][0]} {h['max'][1]:.4g}"]],
                     note="Paper: 3.45x on average (Sec. VI-B); it gives no geometric mean.")
        e = self.energy_reduction(results)
        it = self.intensity(results)
        res = self.trend_residuals(results)
        ponb = self.speedups(results, "annotation", "PonB")
        rows = [[b, it[b], *[pol[p][b] for p in POLICIES], ponb[b], e[b], res[b]] for b in benches]
        rows.append(["MEAN", None, *[mean(pol[p].values()) for p in POLICIES], mean(ponb.values()),
                     mean(e.values()), None])
        rows.append(["GMEAN", None, *[geomean(pol[p].values()) for p in POLICIES], geomean(ponb.values()),
                     geomean(e.values()), None])
        out = [head, self.second_columns(results),
               Table("results", "Per workload: memory intensity (the V100 proxy's DRAM bytes per warp-instruction), "
                     "speedup over the V100 proxy under each location policy, MPU (annotation) over PonB, energy "
                     "reduction over the V100 proxy, and the log-speedup's residual from Fig. 8's trend line",
                     ["workload", "B/warp-instr", *POLICIES, "MPU / PonB", "energy V100 / MPU", "trend residual"],
                     rows, note="Paper: 3.45 / 1.92 / 1.22 / 1.78; PonB 1.46; energy 2.57 (averages).")]

        def v(config: str, b: str, metric: str) -> float | None:
            return self._v(results, config, b, metric)

        mrows = [[b, v("annotation", b, "mpu.instructions.near_share_of_alu"),
                  v("annotation", b, "mpu.registers.moves_down"), v("annotation", b, "mpu.registers.moves_up"),
                  v("hardware", b, "mpu.registers.moves_down"), v("hardware", b, "mpu.registers.moves_up"),
                  v("annotation", b, "mpu.lsu.loads_offloaded"), v("annotation", b, "mpu.lsu.transactions_local"),
                  v("annotation", b, "mpu.lsu.transactions_remote"), v("annotation", b, "mpu.tsv.utilisation"),
                  v("GPU", b, "dram.bus_utilisation")] for b in benches]
        out.append(Table("mechanism", "Where MPU's work went (annotation unless named): near-bank share of ALU "
                         "instructions, warp registers moved down / up (annotation, hardware default), offloaded "
                         "loads, local and remote 32-B transactions, TSV utilisation; the V100 proxy's DRAM bus "
                         "utilisation",
                         ["workload", "near share", "moves down", "moves up", "moves down (hw)", "moves up (hw)",
                          "loads offloaded", "tx local", "tx remote", "TSV util", "V100 DRAM util"], mrows))
        smem = self.smem_benches(results)
        srows = [[b, b in smem, self._ratio(results, "far-smem", "annotation")[b],
                  self._ratio(results, "far-smem", "annotation", "mpu.tsv.bytes")[b]] for b in benches]
        out.append(Table("smem", "Near-bank over far-bank shared memory: speedup and TSV-traffic cut",
                         ["workload", "uses shared memory", "speedup", "TSV bytes far / near"], srows,
                         note="Paper: 1.48x and 1.89x on average over the workloads of Fig. 11, those that do "
                              "not use shared memory being identical (1)."))
        rb = {k: [v(k, b, "mpu.dram.row_buffer_miss_rate") for b in benches] for k in ("1 RB", "2 RB", "annotation")}
        rrows = [[b, *(100 * x if x is not None else None for x in (rb["1 RB"][i], rb["2 RB"][i],
                                                                    rb["annotation"][i])),
                  self._ratio(results, "1 RB", "2 RB")[b], self._ratio(results, "1 RB", "annotation")[b]]
                 for i, b in enumerate(benches)]
        rrows.append(["MEAN", *(None if mean(rb[k]) is None else 100 * mean(rb[k])  # type: ignore[operator]
                                for k in ("1 RB", "2 RB", "annotation")),
                      mean(self._ratio(results, "1 RB", "2 RB").values()),
                      mean(self._ratio(results, "1 RB", "annotation").values())])
        out.append(Table("row_buffers", "Row buffers per bank: row-buffer miss rate (%) with 1, 2 and 4, and the "
                         "speedups of 2 and 4 over 1",
                         ["workload", "miss 1 RB", "miss 2 RB", "miss 4 RB", "2 RB / 1", "4 RB / 1"], rrows,
                         note="Paper: 15.60 / 9.20 / 5.45%; 1.10x and 1.25x."))
        shares = self.energy_shares(results)
        out.append(Table("energy", "Fig. 10: MPU's energy by part (annotation, over the kernels' window, summed "
                         "over the 12), percent",
                         ["part", "ours", "paper"], [[k, shares[k], PAPER["shares"][k]] for k in shares]))
        split = register_split()
        out.append(Table("registers", "Fig. 14: register split, the mean of the 12 workloads' shares (static, "
                         "percent of each workload's registers)",
                         ["label", "ours", "paper"],
                         [[lab, split.get(lab) if split else None, p]
                          for lab, p in zip(("N", "F", "B", "U"), (*PAPER["split"], None), strict=True)]))
        return out

    def checks(self, results: ResultSet) -> list[Check]:
        from ...mechanisms.mpu.config import MpuConfig, area_overhead

        P = PAPER
        cfg = MpuConfig()
        ran = len(results.results) - len(results.failed)
        pol = {p: mean(self.speedups(results, p).values()) for p in POLICIES}
        order = [pol[p] for p in ("annotation", "hardware", "all-far", "all-near")]
        ordered = None not in order and all(a > b for a, b in zip(order, order[1:], strict=False))
        smem = self.smem_benches(results)
        others = tuple(b for b in BENCHMARKS if b not in smem)
        # Fig. 11's averages are over every workload of the figure: the paper says of those without shared
        # memory that "both the performance and TSV traffic are identical" (ratio 1), so they count (this was
        # the mean of the workloads that use shared memory only)
        near_smem = mean(self._ratio(results, "far-smem", "annotation", TIME).values())
        near_tsv = mean(self._ratio(results, "far-smem", "annotation", "mpu.tsv.bytes").values())
        same = [self._ratio(results, "far-smem", "annotation", TIME, others)[b] for b in others]
        same_dev = None if not same or None in same else max(abs(x - 1) for x in same if x is not None)
        miss = [mean(self._v(results, k, b, "mpu.dram.row_buffer_miss_rate") for b in BENCHMARKS)
                for k in ("1 RB", "2 RB", "annotation")]
        falling = None not in miss and miss[0] > miss[1] > miss[2]  # type: ignore[operator]
        rb2 = mean(self._ratio(results, "1 RB", "2 RB").values())
        rb4 = mean(self._ratio(results, "1 RB", "annotation").values())
        ponb = mean(self.speedups(results, "annotation", "PonB").values())
        energy = mean(self.energy_reduction(results).values())
        shares = self.energy_shares(results)
        share_dev = None if None in shares.values() else max(abs(shares[k] - P["shares"][k])  # type: ignore[operator]
                                                             for k in shares)
        split = register_split()
        split_dev = None if not split else max(abs(split[lab] - p) for lab, p in zip("NFB", P["split"], strict=True))
        res = self.trend_residuals(results)
        trend = None if None in (res["KMEANS"], res["TTRANS"], res["UPSAMP"]) else \
            f"KMEANS {res['KMEANS']:+.2f}, TTRANS {res['TTRANS']:+.2f}, UPSAMP {res['UPSAMP']:+.2f}"
        trend_ok = trend is not None and res["KMEANS"] > 0 > max(res["TTRANS"], res["UPSAMP"])  # type: ignore[operator]
        moves = self._v(results, "annotation", "AXPY", "mpu.registers.moves_down")
        warps = self._v(results, "annotation", "AXPY", "kernel.warps")
        moves_up = self._v(results, "annotation", "AXPY", "mpu.registers.moves_up")
        per_warp = moves / warps if moves is not None and warps else None
        util = mean(self._v(results, "GPU", b, "dram.bus_utilisation") for b in BENCHMARKS)
        # suite-level, as the paper's sentence is (this was AXPY's ratio alone)
        bw = self.bandwidth_ratio(results)
        fig7 = fig7_labels()
        mm2, share = area_overhead(16)
        _, share32 = area_overhead(32)
        R = RULES
        return [
            Check("every point ran (functional outputs checked against NumPy; timing never changes them)", "all",
                  f"{ran} of {len(results.results)}", bool(results.results) and not results.failed,
                  criterion="no failed point").ruled(R["ran"]),
            Check("Table II arithmetic: banks / GB per processor, GB in all, TSV bytes per 0.5 ns per core",
                  "256 / 4 / 32 / 8", f"{cfg.banks_per_processor} / {cfg.processor_bytes >> 30} / "
                  f"{cfg.total_bytes >> 30} / {cfg.tsv_bytes_per_beat}",
                  (cfg.banks_per_processor, cfg.processor_bytes >> 30, cfg.total_bytes >> 30,
                   cfg.tsv_bytes_per_beat) == (256, 4, 32, 8), criterion="equal").ruled(R["table2"]),
            Check("Table III: 19.80 mm2 = 20.62% of a 96 mm2 DRAM die (30.74% with a 32 KB near-bank RF)",
                  "19.80 / 20.62% / 30.74%", f"{mm2:.2f} / {share:.2%} / {share32:.2%}",
                  f"{mm2:.2f} / {share:.2%} / {share32:.2%}" == "19.80 / 20.62% / 30.74%",
                  criterion="equal").ruled(R["table3"]),
            Check("Algorithm 1 on Fig. 7: %f1-3 near, %rd1/7/8/9/10 far, add.f32 nb, add.s64 fb, converged",
                  "N f1 f2 f3; F rd1 rd7 rd8 rd9 rd10; nb fb", fig7,
                  fig7 == "N f1 f2 f3; F rd1 rd10 rd7 rd8 rd9; nb fb", criterion="equal").ruled(R["alg1"]),
            Check("AXPY (annotation): alpha moved down once per warp, nothing moved up", "1 / 0",
                  None if per_warp is None else f"{per_warp:.2f} / {moves_up:g}",
                  per_warp is not None and per_warp <= 1.05 and moves_up == 0,
                  criterion="<= 1.05 / == 0").ruled(R["axpy_moves"]),
            Check.close("headline: MPU (annotation) over the V100 proxy (mean of 12)", P["speedup"],
                        pol["annotation"], SPEEDUP_RTOL).ruled(R["headline"]),
            Check.close("energy reduction over the V100 proxy (mean of 12)", P["energy"], energy,
                        SPEEDUP_RTOL).ruled(R["energy"]),
            Check("policy order annotation > hardware default > all-far > all-near (mean speedups)", "3.45 > 1.92 > "
                  "1.78 > 1.22", " > ".join("-" if x is None else f"{x:.2f}" for x in order), ordered,
                  criterion="strictly ordered").ruled(R["policy_order"]),
            Check.close("hardware default policy over the V100 proxy (mean)", P["hardware"], pol["hardware"],
                        SPEEDUP_RTOL).ruled(R["hardware"]),
            Check.close("all-far policy over the V100 proxy (mean)", P["all-far"], pol["all-far"],
                        SPEEDUP_RTOL).ruled(R["all_far"]),
            Check.close("all-near policy over the V100 proxy (mean)", P["all-near"], pol["all-near"],
                        SPEEDUP_RTOL).ruled(R["all_near"]),
            Check.close(f"near- over far-bank shared memory: speedup (mean of 12; {len(smem)} use it)",
                        P["near_smem"], near_smem, SPEEDUP_RTOL).ruled(R["smem_speedup"]),
            Check.close("near- over far-bank shared memory: TSV traffic cut (mean of 12)", P["near_smem_tsv"],
                        near_tsv, SPEEDUP_RTOL).ruled(R["smem_tsv"]),
            Check.below("kernels without shared memory: far-bank shared memory changes nothing (max |ratio - 1|)",
                        same_dev, 0.005, paper="identical").ruled(R["smem_identical"]),
            Check("row-buffer miss rate falls over 1 -> 2 -> 4 row buffers (mean, %)", "15.60 > 9.20 > 5.45",
                  " > ".join("-" if x is None else f"{100 * x:.2f}" for x in miss), falling,
                  criterion="strictly falling").ruled(R["rb_miss"]),
            Check.close("2 row buffers over 1 (mean speedup)", P["rb2"], rb2, 0.10).ruled(R["rb2"]),
            Check.close("4 row buffers over 1 (mean speedup)", P["rb4"], rb4, 0.10).ruled(R["rb4"]),
            Check.close("MPU over PonB (mean speedup)", P["ponb"], ponb, SPEEDUP_RTOL).ruled(R["ponb"]),
            Check.below(f"register split N / F / B (mean of the 12 workloads' shares) within {SPLIT_TOL:g} points "
                        "of 32.5 / 63.7 / 3.8% (largest difference)", split_dev, SPLIT_TOL,
                        paper="32.5 / 63.7 / 3.8", unit="points").ruled(R["split"]),
            Check.below(f"energy shares ALU / RF+OPC / DRAM / TSV / network (kernels' window, pooled over 12) within "
                        f"{SHARE_TOL:g} points of the paper's (largest difference)", share_dev, SHARE_TOL,
                        paper="39.8 / 15.5 / 16.4 / 16.8 / 4.4", unit="points").ruled(R["shares"]),
            Check("Fig. 8 trend: KMEANS above the speedup-intensity line, TTRANS and UPSAMP below",
                  "KMEANS +, TTRANS -, UPSAMP -", trend, trend_ok,
                  criterion="signs of the log residuals").ruled(R["trend"]),
            Check.close("V100 proxy's DRAM bandwidth utilisation (mean of 12)", P["v100_util"], util,
                        SPEEDUP_RTOL).ruled(R["v100_util"]),
            Check.close("achieved DRAM bandwidth, MPU (annotation) / V100 proxy (means of 12)", P["bandwidth"], bw,
                        SPEEDUP_RTOL).ruled(R["bandwidth"]),
        ]


@functools.cache
def fig7_labels() -> str:
    """Algorithm 1 on the paper's Fig. 7 PTX: ``N <regs>; F <regs>; <hint of add.f32> <hint of add.s64>``."""
    from ...frontend.parser import parse_ptx
    from ...mechanisms.mpu.locations import F, N, annotate

    t = annotate(parse_ptx(fig7_ptx()).functions["fig7"])

    def regs(label: str) -> str:
        return " ".join(sorted(r.lstrip("%") for r, v in t.registers.items() if v == label))

    return f"N {regs(N)}; F {regs(F)}; {t.hints[2]} {t.hints[3]}"


@functools.cache
def register_splits() -> dict[str, dict[str, float]] | None:
    """Fig. 14 per workload: the shares (percent) of N, F, B and U among each workload's registers (all its
    kernels); None without nvcc."""
    from collections import Counter

    from ...mechanisms.analyze import load_module
    from ...mechanisms.mpu.cli import analyze_module
    from ...workloads.runner import toolchain_available

    if not toolchain_available():
        return None
    out: dict[str, dict[str, float]] = {}
    for b, w in MPU_WORKLOADS.items():
        module, _ = load_module(w)
        counts: Counter[str] = Counter()
        for t in analyze_module(module):
            counts.update(t.registers.values())
        total = sum(counts.values())
        if total:
            out[b] = {lab: 100.0 * counts.get(lab, 0) / total for lab in "NFBU"}
    return out


def register_split() -> dict[str, float] | None:
    """Fig. 14's average: each workload's shares, then their arithmetic mean over the 12 (the paper: "On
    average, 32.5% registers only appear in near-bank locations"). This was pooled over every register of the
    12, which weights the workloads with most registers; None without nvcc or when a workload has none."""
    splits = register_splits()
    if not splits or len(splits) != len(MPU_WORKLOADS):
        return None
    return {lab: sum(s[lab] for s in splits.values()) / len(splits) for lab in "NFBU"}
