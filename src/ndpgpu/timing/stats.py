"""Statistics of timed launches: raw engine counters and the metrics derived from them, with units.

A :class:`LaunchStats` keeps the raw counters of one launch (or the sum over several, for totals) and
derives every metric from them on demand, so a total is exactly the same arithmetic over summed
counters. Export as rows ``(path, metric, value, unit)`` (STYLE.md habit 7), a nested dict, or a
readable table.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

import numpy as np

from ..trace.format import OP_CLASSES
from . import engine as E
from . import registry

Row = tuple[str, str, Any, str]

_CTR_INDEX = {name: i for i, name in enumerate(E.CTR_NAMES)}
STALL_NAMES = ("idle", "memory", "scoreboard", "barrier", "unit_busy", "ldst_busy", "memory_structural", "drain")


@dataclasses.dataclass
class LaunchStats:
    """Raw counters of one launch (or of several, summed); metrics derive from them."""

    kernel: str
    launch_id: int
    machine: str
    config_hash: str
    cycles: int  # core-clock cycles of the launch(es)
    time_ps: int
    ctr: np.ndarray
    per_sm: np.ndarray
    per_slice: np.ndarray
    per_channel: np.ndarray
    per_class: np.ndarray
    per_prio: np.ndarray
    net_ports: np.ndarray
    packet_kinds: np.ndarray
    per_pc: np.ndarray | None = None
    pc_info: list[tuple[str, int]] | None = None  # (opcode, PTX line) per PC
    time_series: dict[str, np.ndarray] | None = None
    consts: dict[str, float] = dataclasses.field(default_factory=dict)
    occupancy: dict[str, Any] = dataclasses.field(default_factory=dict)
    copies: dict[str, float] = dataclasses.field(default_factory=dict)
    capped: bool = False
    launches: int = 1
    extra: dict[str, int] = dataclasses.field(default_factory=dict)
    packet_names: dict[int, str] = dataclasses.field(default_factory=dict)
    mesh: dict[str, Any] | None = None  # 2D mesh counters (build.EngineState.mesh_snapshot)
    mechanism: str | None = None  # the attached mechanism's name (``mechanism.MechanismHardware``)
    mechanism_counters: dict[str, int] = dataclasses.field(default_factory=dict)
    mechanism_metrics: Any = None  # its ``metrics(stats, put, ratio)``, which declares its rows

    # -------------------------------------------------------------- raw access
    def c(self, name: str) -> int:
        """Raw counter ``name``: the engine's (``engine.CTR_NAMES``) or the attached mechanism's."""
        if name in self.mechanism_counters:
            return int(self.mechanism_counters[name])
        return int(self.ctr[_CTR_INDEX[name]])

    def counters(self) -> dict[str, int]:
        """Every raw counter by name, the engine's then the mechanism's."""
        return {**{n: int(v) for n, v in zip(E.CTR_NAMES, self.ctr, strict=True)}, **self.mechanism_counters}

    # -------------------------------------------------------------- derived metrics
    def metrics(self) -> dict[str, dict[str, tuple[Any, str]]]:
        """``{path: {metric: (value, unit)}}``."""
        out: dict[str, dict[str, tuple[Any, str]]] = {}
        K = self.consts
        cyc = max(self.cycles, 1)
        core_ps = 1e6 / K["core_mhz"]
        c = self.c

        def put(path: str, metric: str, value: Any, unit: str) -> None:
            out.setdefault(path, {})[metric] = (value, unit)

        def ratio(a: float, b: float) -> float:
            return float(a) / b if b else 0.0

        wi, ti = c("WARP_INSTS"), c("THREAD_INSTS")
        put("kernel", "cycles", self.cycles, "cycles")
        put("kernel", "time", self.time_ps / 1000.0, "ns")
        put("kernel", "launches", self.launches, "launches")
        put("kernel", "warp_instructions", wi, "warp-instr")
        put("kernel", "thread_instructions", ti, "thread-instr")
        put("kernel", "ipc_warp", ratio(wi, cyc), "warp-instr/cycle")
        put("kernel", "ipc_thread", ratio(ti, cyc), "thread-instr/cycle")
        put("kernel", "ctas", c("CTAS_LAUNCHED"), "CTAs")
        put("kernel", "warps", c("WARPS_LAUNCHED"), "warps")
        put("kernel", "capped", int(self.capped), "flag")
        nsm, maxw = K["num_sms"], K["max_warps"]
        occ = float(self.per_sm[:nsm, E.SMS_OCC].sum())  # the GPU's SMs (stack SMs run no CTAs)
        busy = float(self.per_sm[:nsm, E.SMS_BUSY].sum())
        put("core", "occupancy", ratio(occ, nsm * maxw * cyc), "fraction")
        put("core", "occupancy_active", ratio(occ, maxw * busy), "fraction")
        for k, v in self.occupancy.items():
            put("core", k, v, "fraction" if k == "occupancy_theoretical" else ("CTAs" if k == "ctas_per_sm" else ""))
        sched = c("SCHED_CYCLES")
        put("core.issue", "scheduler_cycles", sched, "cycles")
        put("core.issue", "issue_cycles", c("ISSUE_SLOTS"), "cycles")
        put("core.issue", "issue_rate", ratio(c("ISSUE_SLOTS"), sched), "fraction")
        for i, name in enumerate(STALL_NAMES):
            v = int(self.ctr[E.T_ST_IDLE + i])
            put("core.stalls", name, v, "cycles")
            put("core.stalls", name + "_fraction", ratio(v, sched), "fraction")
        for i, name in enumerate(OP_CLASSES):
            if self.per_class[i]:
                put("core.instructions", name, int(self.per_class[i]), "warp-instr")
        put("core", "loads", c("LOADS"), "warp-instr")
        put("core", "stores", c("STORES"), "warp-instr")
        put("core", "atomics", c("ATOMICS"), "warp-instr")
        put("core", "barriers", c("BARRIERS"), "warp-instr")
        acc, hit = c("L1_ACC"), c("L1_HIT")
        put("l1d", "accesses", acc, "transactions")
        put("l1d", "hits", hit, "transactions")
        put("l1d", "misses", c("L1_MISS"), "transactions")
        put("l1d", "hit_rate", ratio(hit, acc), "fraction")
        put("l1d", "sector_misses", c("L1_SECT_MISS"), "transactions")
        put("l1d", "mshr_merges", c("L1_MERGE"), "transactions")
        put("l1d", "reservation_fails", c("L1_MSHR_FULL"), "events")
        put("l1d", "stores", c("L1_ST"), "transactions")
        put("l1d", "store_hits", c("L1_ST_HIT"), "transactions")
        put("l1d", "evictions", c("L1_EVICT"), "lines")
        put("l1d", "writebacks", c("L1_WB"), "lines")
        put("smem", "accesses", c("SMEM_ACC"), "warp-instr")
        put("smem", "bank_conflict_cycles", c("SMEM_CONF_CYC"), "cycles")
        a2, h2 = c("L2_ACC"), c("L2_HIT")
        put("l2", "accesses", a2, "requests")
        put("l2", "hits", h2, "requests")
        put("l2", "misses", c("L2_MISS"), "requests")
        put("l2", "hit_rate", ratio(h2, a2), "fraction")
        put("l2", "miss_rate", ratio(c("L2_MISS"), a2), "fraction")
        put("l2", "mshr_merges", c("L2_MERGE"), "requests")
        put("l2", "writebacks", c("L2_WB"), "lines")
        put("l2", "fills", c("L2_FILL"), "lines")
        put("l2", "atomics", c("L2_ATOM"), "requests")
        put("l2", "blocked", c("L2_BLOCK"), "cycles")
        secs = self.time_ps * 1e-12
        flit = K["flit_bytes"]
        tot_flits = 0
        for net, nname in ((0, "icnt.request"), (1, "icnt.reply")):
            pk = int(self.packet_kinds[:, 2 * net].sum())
            fl = int(self.packet_kinds[:, 2 * net + 1].sum())
            tot_flits += fl
            put(nname, "packets", pk, "packets")
            put(nname, "flits", fl, "flits")
            put(nname, "bytes", fl * flit, "bytes")
            icyc = self.time_ps / (1e6 / K["icnt_mhz"])
            ports = self.net_ports[net]
            put(nname, "max_port_utilisation", ratio(float(ports.max()) if ports.size else 0.0, icyc), "fraction")
            for kd in range(E.NPK):
                if self.packet_kinds[kd, 2 * net]:
                    kn = self.packet_names.get(kd, f"type{kd}")
                    put(nname + ".kind." + kn, "packets", int(self.packet_kinds[kd, 2 * net]), "packets")
                    put(nname + ".kind." + kn, "flits", int(self.packet_kinds[kd, 2 * net + 1]), "flits")
        put("icnt", "flits", tot_flits, "flits")
        put("l2", "bandwidth", ratio(tot_flits * flit, secs) / 1e9, "GB/s")
        rd, wr = c("DR_RD"), c("DR_WR")
        rb, wb = c("DR_RD_BYTES"), c("DR_WR_BYTES")
        put("dram", "reads", rd, "requests")
        put("dram", "writes", wr, "requests")
        put("dram", "read_bytes", rb, "bytes")
        put("dram", "write_bytes", wb, "bytes")
        put("dram", "bytes", rb + wb, "bytes")
        put("dram", "activates", c("DR_ACT"), "commands")
        put("dram", "precharges", c("DR_PRE"), "commands")
        put("dram", "refreshes", c("DR_REF"), "commands")
        bursts = c("DR_BURST")
        put("dram", "bursts", bursts, "bursts")
        put("dram", "read_bursts", bursts - c("DR_WBURST"), "bursts")
        put("dram", "write_bursts", c("DR_WBURST"), "bursts")
        hits = c("DR_ROWHIT")
        put("dram", "row_hits", hits, "requests")
        put("dram", "row_misses", c("DR_ROWMISS"), "requests")
        put("dram", "row_conflicts", c("DR_ROWCONF"), "requests")
        put("dram", "row_buffer_hit_rate", ratio(hits, rd + wr), "fraction")
        put("dram", "row_locality", ratio(rd + wr, c("DR_ACT")), "accesses/activate")
        put("dram", "read_to_write_turnarounds", c("DR_RTW"), "events")
        put("dram", "write_to_read_turnarounds", c("DR_WTR"), "events")
        put("dram", "bandwidth", ratio(rb + wb, secs) / 1e9, "GB/s")
        put("dram", "peak_bandwidth", K["dram_peak_gbs"], "GB/s")
        dcyc = self.time_ps / (1e6 / K["dram_mhz"])
        busy_c = float(self.per_channel[:, E.CHS_BUSY].sum())
        put("dram", "bus_utilisation", ratio(busy_c, K["channels"] * dcyc), "fraction")
        put("dram", "efficiency", ratio(rb + wb, bursts * K["dram_atom_bytes"]), "fraction")
        for ch in range(self.per_channel.shape[0]):
            p = f"dram.channel{ch}"
            put(p, "reads", int(self.per_channel[ch, E.CHS_RD]), "requests")
            put(p, "writes", int(self.per_channel[ch, E.CHS_WR]), "requests")
            put(p, "activates", int(self.per_channel[ch, E.CHS_ACT]), "commands")
            put(p, "bytes", int(self.per_channel[ch, E.CHS_BYTES]), "bytes")
            put(p, "bus_utilisation", ratio(float(self.per_channel[ch, E.CHS_BUSY]), dcyc), "fraction")
        n = c("LAT_N")
        put("latency", "memory_fetches", n, "requests")
        put("latency", "average", ratio(c("LAT_SUM"), n) / core_ps, "cycles")
        put("latency", "queueing", ratio(c("LAT_Q"), n) / core_ps, "cycles")
        put("latency", "network", ratio(c("LAT_NET"), n) / core_ps, "cycles")
        put("latency", "service", ratio(c("LAT_SVC"), n) / core_ps, "cycles")
        put("latency", "dram_queueing", ratio(c("LAT_DQ"), n) / core_ps, "cycles")
        for lvl, name in ((1, "l1"), (2, "l2"), (3, "dram"), (0, "other")):
            cnt = c(f"LU_N{lvl}")
            put("latency.load_to_use." + name, "loads", cnt, "warp-instr")
            put("latency.load_to_use." + name, "average", ratio(c(f"LU_S{lvl}"), cnt) / core_ps, "cycles")
        for p in range(E.NPRIO):
            if self.per_prio[p, E.PRS_N]:
                put(f"priority.class{p}", "requests", int(self.per_prio[p, E.PRS_N]), "requests")
                put(f"priority.class{p}", "average_latency",
                    ratio(self.per_prio[p, E.PRS_LAT], self.per_prio[p, E.PRS_N]) / core_ps, "cycles")
                put(f"priority.class{p}", "dram_served", int(self.per_prio[p, E.PRS_DRAM]), "requests")
        put("prefetch", "issued", c("PF_ISSUED"), "requests")
        put("prefetch", "useful", c("PF_USEFUL"), "requests")
        put("prefetch", "dropped", self.extra.get("pf_drop", 0), "requests")
        put("preload", "lines", c("PRELOADS"), "lines")
        put("offload", "instructions", c("OFFLOADS"), "warp-instr")
        if self.mechanism_metrics is not None:
            self.mechanism_metrics(self, put, ratio)
        if K.get("stack_sms"):
            self._stack_metrics(put, ratio, secs)
        for k, v in self.copies.items():
            put("pcie", k, v, "ns" if k.endswith("time") else ("bytes" if k.endswith("bytes") else "copies"))
        if self.per_pc is not None:
            for pc in range(self.per_pc.shape[0]):
                row = self.per_pc[pc]
                if not row.any():
                    continue
                p = f"pc.{pc}"
                if self.pc_info is not None and pc < len(self.pc_info):
                    put(p, "opcode", self.pc_info[pc][0], "")
                    put(p, "ptx_line", self.pc_info[pc][1], "line")
                put(p, "issued", int(row[E.PCS_ISSUED]), "warp-instr")
                put(p, "stall_cycles", int(row[E.PCS_STALL]), "cycles")
                put(p, "l1_misses", int(row[E.PCS_L1_MISS]), "transactions")
                put(p, "l2_misses", int(row[E.PCS_L2_MISS]), "requests")
        self._near_data_metrics(put, ratio, secs)
        self._mesh_metrics(put, ratio)
        # energy events last: they read the metrics above
        self._metrics_cache = out
        prices = K.get("energy", {})
        total = 0.0
        for name in registry.names("energy_event"):
            cnt = registry.lookup("energy_event", name)(self)
            if cnt is None:  # an event the machine does not have (links on a machine without them)
                continue
            put(f"energy.{name}", "count", cnt, "events")
            if name in prices:
                pj = cnt * prices[name]
                total += pj
                put(f"energy.{name}", "energy", pj, "pJ")
        static_w = K.get("static_power_w", 0.0)
        put("energy", "static", static_w * secs * 1e12, "pJ")
        put("energy", "total", total + static_w * secs * 1e12, "pJ")
        return out

    def _near_data_metrics(self, put, ratio, secs: float) -> None:
        """Memory stacks (per-stack vault bandwidth), serial links (per channel) and logic-die metadata."""
        K = self.consts
        st = K.get("stacks")
        if st:
            vps = st["vaults_per_stack"]
            put("stacks", "count", st["count"], "stacks")
            put("stacks", "vaults_per_stack", vps, "vaults")
            put("stacks", "tsvs_per_vault", st["tsvs_per_vault"], "TSVs")
            put("stacks", "tsv_rate", st["tsv_gbps"], "Gb/s")
            put("stacks", "vault_peak_bandwidth", st["vault_gbs"], "GB/s")
            put("stacks", "internal_peak_bandwidth", st["vault_gbs"] * vps, "GB/s")
            put("stacks", "tsv_bits", 8 * int(self.per_channel[:, E.CHS_BYTES].sum()), "bits")
            for s in range(st["count"]):
                b = int(self.per_channel[s * vps:(s + 1) * vps, E.CHS_BYTES].sum())
                put(f"stacks.stack{s}", "bytes", b, "bytes")
                put(f"stacks.stack{s}", "bandwidth", ratio(b, secs) / 1e9, "GB/s")
        lk = K.get("links")
        if lk:
            x = self.extra
            for name in ("tx", "rx"):
                tb = tbusy = 0
                for s in range(st["count"]):
                    p = f"link.stack{s}.{name}"
                    busy = x.get(f"link{s}.{name}.busy_ps", 0)
                    nb = x.get(f"link{s}.{name}.bytes", 0)
                    put(p, "packets", x.get(f"link{s}.{name}.packets", 0), "packets")
                    put(p, "flits", nb // lk["flit_bytes"], "flits")
                    put(p, "bytes", nb, "bytes")
                    put(p, "busy_time", busy / 1000.0, "ns")
                    put(p, "utilisation", ratio(busy, self.time_ps), "fraction")
                    tb += nb
                    tbusy += busy
                put("link", f"{name}_bytes", tb, "bytes")
                put("link", f"{name}_bandwidth", ratio(tb, secs) / 1e9, "GB/s")
                put("link", f"{name}_utilisation", ratio(tbusy, self.time_ps * st["count"]), "fraction")
                put("link", f"{name}_peak_bandwidth", lk[f"{name}_gbs"] * st["count"], "GB/s")
        xl = K.get("cross_links")
        if xl:  # a logic die's links to the other stacks: row t holds home -> t (tx) and t -> home (rx)
            x, h = self.extra, xl["home"]
            tb = tbusy = 0
            for s in range(st["count"]):
                if s == h:
                    continue
                for name, p in (("tx", f"cross_link.stack{h}to{s}"), ("rx", f"cross_link.stack{s}to{h}")):
                    busy = x.get(f"link{s}.{name}.busy_ps", 0)
                    nb = x.get(f"link{s}.{name}.bytes", 0)
                    put(p, "packets", x.get(f"link{s}.{name}.packets", 0), "packets")
                    put(p, "flits", nb // xl["flit_bytes"], "flits")
                    put(p, "bytes", nb, "bytes")
                    put(p, "busy_time", busy / 1000.0, "ns")
                    put(p, "utilisation", ratio(busy, self.time_ps), "fraction")
                    tb += nb
                    tbusy += busy
            nlinks = 2 * (st["count"] - 1)
            put("cross_link", "links", nlinks, "links")
            put("cross_link", "bytes", tb, "bytes")
            put("cross_link", "bandwidth", ratio(tb, secs) / 1e9, "GB/s")
            put("cross_link", "utilisation", ratio(tbusy, self.time_ps * nlinks), "fraction")
            put("cross_link", "peak_bandwidth", xl["gbs"] * nlinks, "GB/s")
        ld = K.get("logic_die")
        if ld:
            put("logic_die", "stack", ld["stack"], "index")
            put("logic_die", "area_budget_min", ld["area_budget_mm2_min"], "mm^2")
            put("logic_die", "area_budget_max", ld["area_budget_mm2_max"], "mm^2")
            put("logic_die", "power_budget", ld["power_budget_w"], "W")
            put("logic_die", "area_estimate", ld["area_mm2"], "mm^2")

    def _stack_metrics(self, put, ratio, secs: float) -> None:
        """The SMs inside the memory stacks, and the cross-stack links."""
        K, x = self.consts, self.extra
        ss = K["stack_sms"]
        first = ss["first"]
        for i in range(ss["count"]):
            put(f"offload.stack_sm{i}", "warp_instructions", int(self.per_sm[first + i, E.SMS_INSTS]), "warp-instr")
        tb = tbusy = 0
        for a, b in ss["pairs"]:
            for u, v in ((a, b), (b, a)):
                busy = x.get(f"xlink{u}to{v}.busy_ps", 0)
                nb = x.get(f"xlink{u}to{v}.bytes", 0)
                q = f"cross_link.stack{u}to{v}"
                put(q, "packets", x.get(f"xlink{u}to{v}.packets", 0), "packets")
                put(q, "flits", nb // ss["cross_flit_bytes"], "flits")
                put(q, "bytes", nb, "bytes")
                put(q, "utilisation", ratio(busy, self.time_ps), "fraction")
                tb += nb
                tbusy += busy
        nlinks = 2 * len(ss["pairs"])
        if nlinks:
            put("cross_link", "links", nlinks, "links")
            put("cross_link", "bytes", tb, "bytes")
            put("cross_link", "bandwidth", ratio(tb, secs) / 1e9, "GB/s")
            put("cross_link", "utilisation", ratio(tbusy, self.time_ps * nlinks), "fraction")
            put("cross_link", "peak_bandwidth", ss["cross_gbs"] * nlinks, "GB/s")

    def _mesh_metrics(self, put, ratio) -> None:
        """2D mesh: per subnet totals, hops and weighted hops (flits x hops) per packet kind, per-link flits."""
        ms = self.mesh
        if not ms:
            return
        K = self.consts
        icyc = self.time_ps / (1e6 / K["icnt_mhz"])
        w = ms["width"]
        hops = whops = 0
        for net, nname in ((0, "mesh.request"), (1, "mesh.reply")):
            for i, name in enumerate(E.MS_NAMES):
                put(nname, name, int(ms["totals"][net, i]), "packets" if i < 2 or i == 5 else "events")
            kinds = ms["kinds"][net]
            put(nname, "hops", int(kinds[:, 1].sum()), "hops")
            put(nname, "weighted_hops", int(kinds[:, 2].sum()), "flit-hops")
            hops += int(kinds[:, 1].sum())
            whops += int(kinds[:, 2].sum())
            for kd in range(E.NPK):
                if kinds[kd, 0]:
                    p = nname + ".kind." + self.packet_names.get(kd, f"type{kd}")
                    put(p, "packets", int(kinds[kd, 0]), "packets")
                    put(p, "hops", int(kinds[kd, 1]), "hops")
                    put(p, "weighted_hops", int(kinds[kd, 2]), "flit-hops")
                    put(p, "average_hops", ratio(kinds[kd, 1], kinds[kd, 0]), "hops/packet")
            ports = ms["ports"][net]
            busiest = int(np.argmax(ports[:, 0])) if ports.size else 0
            put(nname, "max_link_utilisation", ratio(float(ports[busiest, 0]), icyc), "fraction")
            for pi in np.nonzero(ports[:, 0])[0]:
                node, d = divmod(int(pi), 5)
                p = f"{nname}.link.x{node % w}y{node // w}.{E.MESH_DIRS[d] if d < 4 else 'eject'}"
                put(p, "flits", int(ports[pi, 0]), "flits")
                put(p, "packets", int(ports[pi, 1]), "packets")
                put(p, "credit_waits", int(ports[pi, 2]), "events")
                put(p, "utilisation", ratio(float(ports[pi, 0]), icyc), "fraction")
        put("mesh", "hops", hops, "hops")
        put("mesh", "weighted_hops", whops, "flit-hops")

    # -------------------------------------------------------------- access and export
    def get(self, path: str, metric: str, default: Any = None) -> Any:
        """One metric's value (``default`` when absent)."""
        m = getattr(self, "_metrics_cache", None)
        if m is None:
            m = self.metrics()
        v = m.get(path, {}).get(metric)
        return default if v is None else v[0]

    def __getitem__(self, key: str) -> Any:
        """``st["l2.hit_rate"]``: the last dotted part is the metric."""
        path, _, metric = key.rpartition(".")
        v = self.get(path, metric)
        if v is None:
            raise KeyError(key)
        return v

    def rows(self) -> list[Row]:
        """``[(path, metric, value, unit), ...]`` with the launch's identity first."""
        base: list[Row] = [("launch", "kernel", self.kernel, ""), ("launch", "launch_id", self.launch_id, ""),
                           ("launch", "machine", self.machine, ""), ("launch", "config_hash", self.config_hash, "")]
        return base + [(p, k, v, u) for p, d in self.metrics().items() for k, (v, u) in d.items()]

    def as_dict(self) -> dict[str, Any]:
        """Nested dict mirroring the paths: ``d["l2"]["hit_rate"]``."""
        out: dict[str, Any] = {}
        for p, d in self.metrics().items():
            node = out
            for part in p.split("."):
                node = node.setdefault(part, {})
            for k, (v, _u) in d.items():
                node[k] = v
        return out

    def table(self, paths: Iterable[str] | None = None) -> str:
        """Readable text: one block per path (per-channel and per-PC blocks only when asked for)."""
        m = self.metrics()
        want = list(paths) if paths is not None else [
            p for p in m if not (p.startswith("dram.channel") or p.startswith("pc.") or ".kind." in p
                                 or (p.startswith("energy.") and not any(k == "energy" for k in m[p])))]
        lines = [f"{self.kernel} (launch {self.launch_id}) on {self.machine} [{self.config_hash}]"]
        for p in want:
            if p not in m:
                continue
            lines.append(f"  {p}")
            for k, (v, u) in m[p].items():
                if isinstance(v, float):
                    vs = f"{v:,.4g}" if abs(v) < 1e6 else f"{v:,.0f}"
                elif isinstance(v, (int, np.integer)):
                    vs = f"{int(v):,}"
                else:
                    vs = str(v)
                lines.append(f"    {k:<28} {vs:>18} {u}")
        return "\n".join(lines)

    def pc_table(self) -> str:
        """Per-PC issued instructions, stall cycles and misses, busiest first."""
        if self.per_pc is None:
            return "(no per-PC statistics in totals)"
        order = np.argsort(-(self.per_pc[:, E.PCS_STALL] + self.per_pc[:, E.PCS_ISSUED]), kind="stable")
        lines = [f"{'pc':>5} {'opcode':<22} {'line':>5} {'issued':>10} {'stalls':>12} {'l1 miss':>9} {'l2 miss':>9}"]
        for pc in order:
            row = self.per_pc[pc]
            if not row.any():
                continue
            op, ln = self.pc_info[pc] if self.pc_info else ("", 0)
            lines.append(f"{pc:>5} {op:<22} {ln:>5} {row[E.PCS_ISSUED]:>10} {row[E.PCS_STALL]:>12} "
                         f"{row[E.PCS_L1_MISS]:>9} {row[E.PCS_L2_MISS]:>9}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"<LaunchStats {self.kernel} launch={self.launch_id} cycles={self.cycles} "
                f"ipc={self.get('kernel', 'ipc_thread'):.1f} on {self.machine}>")


def combine(stats: list[LaunchStats], *, copies: dict[str, float] | None = None, time_ps: int | None = None,
            machine: str = "", config_hash: str = "", consts: dict | None = None) -> LaunchStats:
    """Totals over several launches: counters and cycles summed, metrics re-derived."""
    if not stats:
        zero = np.zeros(E.NCTR, np.int64)
        return LaunchStats("(no launches)", -1, machine, config_hash, 0, time_ps or 0, zero,
                           np.zeros((1, E.NSMS), np.int64), np.zeros((1, E.NSLS), np.int64),
                           np.zeros((1, E.NCHS), np.int64), np.zeros(32, np.int64),
                           np.zeros((E.NPRIO, E.NPRS), np.int64), np.zeros((2, 2, 1), np.int64),
                           np.zeros((E.NPK, 4), np.int64), consts=dict(consts or {}), copies=dict(copies or {}),
                           launches=0)
    first = stats[0]
    extra: dict[str, int] = {}
    for s in stats:
        for k, v in s.extra.items():
            extra[k] = extra.get(k, 0) + v
    return LaunchStats(
        kernel="(total)", launch_id=-1, machine=first.machine, config_hash=first.config_hash,
        cycles=sum(s.cycles for s in stats), time_ps=time_ps if time_ps is not None else sum(s.time_ps for s in stats),
        ctr=sum(s.ctr for s in stats), per_sm=sum(s.per_sm for s in stats), per_slice=sum(s.per_slice for s in stats),
        per_channel=sum(s.per_channel for s in stats), per_class=sum(s.per_class for s in stats),
        per_prio=sum(s.per_prio for s in stats), net_ports=sum(s.net_ports for s in stats),
        packet_kinds=sum(s.packet_kinds for s in stats), consts=first.consts, copies=dict(copies or {}),
        capped=any(s.capped for s in stats), launches=sum(s.launches for s in stats), extra=extra,
        packet_names=first.packet_names, mesh=_combine_mesh(stats), **_combine_mechanism(stats),
    )


def _combine_mechanism(stats: list[LaunchStats]) -> dict[str, Any]:
    """The mechanism's counters summed over the launches it ran in."""
    with_mech = [s for s in stats if s.mechanism is not None]
    if not with_mech:
        return {}
    counters: dict[str, int] = {}
    for s in with_mech:
        for k, v in s.mechanism_counters.items():
            counters[k] = counters.get(k, 0) + v
    first = with_mech[0]
    return {"mechanism": first.mechanism, "mechanism_counters": counters, "mechanism_metrics": first.mechanism_metrics}


def _combine_mesh(stats: list[LaunchStats]) -> dict[str, Any] | None:
    """Mesh counters summed over launches (the maximum router occupancy is the maximum)."""
    ms = [s.mesh for s in stats if s.mesh]
    if not ms:
        return None
    totals = sum(m["totals"] for m in ms)
    totals[:, E.MS_MAX_OCC] = np.max([m["totals"][:, E.MS_MAX_OCC] for m in ms], axis=0)
    return {"width": ms[0]["width"], "ports": sum(m["ports"] for m in ms), "totals": totals,
            "kinds": sum(m["kinds"] for m in ms)}
