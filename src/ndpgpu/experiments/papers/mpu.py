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
from ..plots import BarChart
from ..points import Point, SweepSpec
from ..report import Check, Reproduction, register_reproduction
from ..results import ResultSet, Table, geomean
from ._metrics import kernel_energy

BENCHMARKS = tuple(MPU_WORKLOADS)
MACHINE = "mpu"
GPU = "v100"
TIME = "kernel.time"
ROW_BUFFERS = "dram.max_open_subarrays"
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
        "lacks from its authors' released simulator, each marked in the preset). Inputs are our own sizes after "
        "the released simulator's (the paper states none). Thread blocks go to cores round robin with continuous "
        "refill (the released simulator runs batches). Averages are arithmetic means (\"on average\"); geometric "
        "means are in the tables. The register split is static, over the 12 kernels' PTX registers as nvcc 13 "
        "emits them (the paper's are its own back end's)."
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

    def energy(self, results: ResultSet, config: str, bench: str) -> float | None:
        """A point's kernel energy (pJ; the V100 proxy's static power over the kernel's time only, as a board
        measurement during the kernel has it; MPU has no static power, as the paper's model)."""
        return kernel_energy(lambda metric: self._v(results, config, bench, metric))

    def energy_reduction(self, results: ResultSet) -> dict[str, float | None]:
        """The V100 proxy's kernel energy over MPU's (annotation), per workload."""
        out: dict[str, float | None] = {}
        for b in BENCHMARKS:
            g, m = self.energy(results, "GPU", b), self.energy(results, "annotation", b)
            out[b] = g / m if g is not None and m else None
        return out

    def energy_shares(self, results: ResultSet) -> dict[str, float | None]:
        """Fig. 10: each part's share of MPU's (annotation) energy summed over the 12, in percent."""
        totals = [self._v(results, "annotation", b, "energy.total") for b in BENCHMARKS]
        if None in totals or not sum(t for t in totals if t):
            return dict.fromkeys(ENERGY_PARTS)
        total = sum(t for t in totals if t)
        out: dict[str, float | None] = {}
        for part, comps in ENERGY_PARTS.items():
            vals = [self._v(results, "annotation", b, f"energy.{c}.total") for b in BENCHMARKS for c in comps]
            out[part] = None if None in vals else 100.0 * sum(v for v in vals if v) / total
        return out

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

    def tables(self, results: ResultSet) -> list[Table]:
        benches = BENCHMARKS
        pol = {p: self.speedups(results, p) for p in POLICIES}
        e = self.energy_reduction(results)
        it = self.intensity(results)
        res = self.trend_residuals(results)
        ponb = self.speedups(results, "annotation", "PonB")
        rows = [[b, it[b], *[pol[p][b] for p in POLICIES], ponb[b], e[b], res[b]] for b in benches]
        rows.append(["MEAN", None, *[mean(pol[p].values()) for p in POLICIES], mean(ponb.values()),
                     mean(e.values()), None])
        rows.append(["GMEAN", None, *[geomean(pol[p].values()) for p in POLICIES], geomean(ponb.values()),
                     geomean(e.values()), None])
        out = [Table("results", "Per workload: memory intensity (the V100 proxy's DRAM bytes per warp-instruction), "
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
                         note="Paper: 1.48x and 1.89x on average over the kernels that use shared memory; the "
                              "others identical."))
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
        out.append(Table("energy", "Fig. 10: MPU's energy by part (annotation, summed over the 12), percent",
                         ["part", "ours", "paper"], [[k, shares[k], PAPER["shares"][k]] for k in shares]))
        split = register_split()
        out.append(Table("registers", "Fig. 14: register split over the 12 kernels (static, percent of registers)",
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
        near_smem = mean(self._ratio(results, "far-smem", "annotation", TIME, smem).values()) if smem else None
        near_tsv = mean(self._ratio(results, "far-smem", "annotation", "mpu.tsv.bytes", smem).values()) if smem \
            else None
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
        bw = self._ratio(results, "annotation", "GPU", "dram.bandwidth", ("AXPY",))["AXPY"]
        fig7 = fig7_labels()
        mm2, share = area_overhead(16)
        _, share32 = area_overhead(32)
        return [
            Check("every point ran (functional outputs checked against NumPy; timing never changes them)", "all",
                  f"{ran} of {len(results.results)}", bool(results.results) and not results.failed,
                  criterion="no failed point"),
            Check("Table II arithmetic: banks / GB per processor, GB in all, TSV bytes per 0.5 ns per core",
                  "256 / 4 / 32 / 8", f"{cfg.banks_per_processor} / {cfg.processor_bytes >> 30} / "
                  f"{cfg.total_bytes >> 30} / {cfg.tsv_bytes_per_beat}",
                  (cfg.banks_per_processor, cfg.processor_bytes >> 30, cfg.total_bytes >> 30,
                   cfg.tsv_bytes_per_beat) == (256, 4, 32, 8), criterion="equal"),
            Check("Table III: 19.80 mm2 = 20.62% of a 96 mm2 DRAM die (30.74% with a 32 KB near-bank RF)",
                  "19.80 / 20.62% / 30.74%", f"{mm2:.2f} / {share:.2%} / {share32:.2%}",
                  f"{mm2:.2f} / {share:.2%} / {share32:.2%}" == "19.80 / 20.62% / 30.74%", criterion="equal"),
            Check("Algorithm 1 on Fig. 7: %f1-3 near, %rd1/7/8/9/10 far, add.f32 nb, add.s64 fb, converged",
                  "N f1 f2 f3; F rd1 rd7 rd8 rd9 rd10; nb fb", fig7,
                  fig7 == "N f1 f2 f3; F rd1 rd10 rd7 rd8 rd9; nb fb", criterion="equal"),
            Check("AXPY (annotation): alpha moved down once per warp, nothing moved up", "1 / 0",
                  None if per_warp is None else f"{per_warp:.2f} / {moves_up:g}",
                  per_warp is not None and per_warp <= 1.05 and moves_up == 0, criterion="<= 1.05 / == 0"),
            Check.close("headline: MPU (annotation) over the V100 proxy (mean of 12)", P["speedup"],
                        pol["annotation"], SPEEDUP_RTOL),
            Check.close("energy reduction over the V100 proxy (mean of 12)", P["energy"], energy, SPEEDUP_RTOL),
            Check("policy order annotation > hardware default > all-far > all-near (mean speedups)", "3.45 > 1.92 > "
                  "1.78 > 1.22", " > ".join("-" if x is None else f"{x:.2f}" for x in order), ordered,
                  criterion="strictly ordered"),
            Check.close("hardware default policy over the V100 proxy (mean)", P["hardware"], pol["hardware"],
                        SPEEDUP_RTOL),
            Check.close("all-far policy over the V100 proxy (mean)", P["all-far"], pol["all-far"], SPEEDUP_RTOL),
            Check.close("all-near policy over the V100 proxy (mean)", P["all-near"], pol["all-near"], SPEEDUP_RTOL),
            Check.close(f"near- over far-bank shared memory: speedup (mean of the {len(smem)} that use it)",
                        P["near_smem"], near_smem, SPEEDUP_RTOL),
            Check.close("near- over far-bank shared memory: TSV traffic cut (mean)", P["near_smem_tsv"], near_tsv,
                        SPEEDUP_RTOL),
            Check.below("kernels without shared memory: far-bank shared memory changes nothing (max |ratio - 1|)",
                        same_dev, 0.005, paper="identical"),
            Check("row-buffer miss rate falls over 1 -> 2 -> 4 row buffers (mean, %)", "15.60 > 9.20 > 5.45",
                  " > ".join("-" if x is None else f"{100 * x:.2f}" for x in miss), falling,
                  criterion="strictly falling"),
            Check.close("2 row buffers over 1 (mean speedup)", P["rb2"], rb2, 0.10),
            Check.close("4 row buffers over 1 (mean speedup)", P["rb4"], rb4, 0.10),
            Check.close("MPU over PonB (mean speedup)", P["ponb"], ponb, SPEEDUP_RTOL),
            Check.below(f"register split N / F / B within {SPLIT_TOL:g} points of 32.5 / 63.7 / 3.8% (largest "
                        "difference)", split_dev, SPLIT_TOL, paper="32.5 / 63.7 / 3.8", unit="points"),
            Check.below(f"energy shares ALU / RF+OPC / DRAM / TSV / network within {SHARE_TOL:g} points of the "
                        "paper's (largest difference)", share_dev, SHARE_TOL,
                        paper="39.8 / 15.5 / 16.4 / 16.8 / 4.4", unit="points"),
            Check("Fig. 8 trend: KMEANS above the speedup-intensity line, TTRANS and UPSAMP below",
                  "KMEANS +, TTRANS -, UPSAMP -", trend, trend_ok, criterion="signs of the log residuals"),
            Check.close("V100 proxy's DRAM bandwidth utilisation (mean of 12)", P["v100_util"], util, SPEEDUP_RTOL),
            Check.close("AXPY's achieved DRAM bandwidth, MPU / V100 proxy", P["bandwidth"], bw, SPEEDUP_RTOL),
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
def register_split() -> dict[str, float] | None:
    """Fig. 14: shares (percent) of N, F, B and U over every register of the 12 kernels; None without nvcc."""
    from collections import Counter

    from ...mechanisms.analyze import load_module
    from ...mechanisms.mpu.cli import analyze_module
    from ...workloads.runner import toolchain_available

    if not toolchain_available():
        return None
    counts: Counter[str] = Counter()
    for w in MPU_WORKLOADS.values():
        module, _ = load_module(w)
        for t in analyze_module(module):
            counts.update(t.registers.values())
    total = sum(counts.values())
    return {lab: 100.0 * counts.get(lab, 0) / total for lab in "NFBU"} if total else None
