"""Typed machine descriptions: pydantic Specs loaded from YAML presets, with dotted overrides.

A machine is a few orthogonal parts, each configured on its own: ``clocks``, ``core`` (SIMT cores, schedulers,
latency tables), ``l1d``, ``l1c`` (the constant cache), ``l2`` (optional), ``partition`` (the memory partition),
``icnt``, ``dram`` (with its address ``mapping``), ``pcie``, ``sim`` (run control) and ``energy``. Every field
has a default, a range and a unit (in its description); pluggable parts carry ``impl:`` naming a registered
implementation.

    m = load_machine("gtx480", overrides={"l1d.size_kb": 48, "l1d.assoc": 6})
    m.config_hash()   # stable across runs and library versions

This module holds the specs; loading presets, overlays and overrides is :mod:`.presets`, the config hash
:mod:`.confighash`. ``load_machine`` and the other loading names are still reachable here.
"""

from __future__ import annotations

import fnmatch
import math
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from .._lazy import lazy_getattr
from ..trace.format import OP_CLASSES
from . import registry

ATOM_BYTES = 32  # access granularity of sector masks: every line is split into 32-B atoms


class MachineConfigError(ValueError):
    """A machine description is invalid; the message names each field path and the allowed values."""


def F(default: Any, unit: str, doc: str, *, ge: float | None = None, le: float | None = None) -> Any:
    """A Spec field with a default, an optional range, and its unit appended to the description."""
    return Field(default, ge=ge, le=le, description=f"{doc} [{unit}]", json_schema_extra={"unit": unit})


class Spec(BaseModel):
    """Base of every spec: frozen, unknown keys refused, ``true``/``false`` refused for numbers."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _no_bools_for_numbers(cls, data):
        # pydantic's lax mode reads true as 1: `--set core.num_sms=true` must not build a 1-SM machine
        if isinstance(data, dict):
            for key, value in data.items():
                field = cls.model_fields.get(key)
                if isinstance(value, bool) and field is not None and field.annotation in (int, float):
                    raise ValueError(f"{key}: expected a number, got {str(value).lower()}")
        return data


def _impl_validator(kind: str):
    def check(cls, v: str) -> str:
        try:
            registry.lookup(kind, v)
        except registry.UnknownImplementation as e:
            raise ValueError(str(e)) from None
        return v

    return field_validator("impl")(check)


# ------------------------------------------------------------------------------------------------------
# clocks


class ClockSpec(Spec):
    """Clock domains. Latencies of each part are counted in its own domain's cycles."""

    core_mhz: float = F(700.0, "MHz", "SIMT core clock (statistics count cycles of this domain)", ge=1, le=10000)
    icnt_mhz: float = F(700.0, "MHz", "interconnect clock", ge=1, le=10000)
    l2_mhz: float = F(700.0, "MHz", "L2 / memory-partition clock", ge=1, le=10000)
    dram_mhz: float = F(924.0, "MHz", "DRAM command clock", ge=1, le=10000)


# ------------------------------------------------------------------------------------------------------
# core

UNIT_NAMES = ("sp", "int", "dp", "sfu", "ldst", "branch")


class OpTiming(Spec):
    """Timing of one operation class: result latency, issue interval on its unit, and the unit."""

    latency: int = F(4, "cycles", "issue to result available", ge=1, le=100000)
    interval: int = F(1, "cycles", "initiation interval: the unit accepts the next warp after this", ge=1, le=100000)
    unit: str = F("sp", "name", f"execution unit, one of {UNIT_NAMES}")

    @field_validator("unit")
    @classmethod
    def _unit(cls, v: str) -> str:
        if v not in UNIT_NAMES:
            raise ValueError(f"unknown unit {v!r}; valid: {', '.join(UNIT_NAMES)}")
        return v


class OpRule(OpTiming):
    """A per-opcode override, matched on the PTX opcode name (fnmatch pattern, first rule wins)."""

    match: str = F("*", "pattern", "fnmatch pattern on the PTX opcode, e.g. 'div.rn.f64' or 'sqrt.rn.*'")
    note: str = F("", "text", "why (the PTX expansion this stands for) and the source")


# the PTX opcodes GPGPU-Sim's latency table times (ptx_instruction::set_opcode_and_latency, src/cuda-sim/cuda-sim.cc,
# 3.2.2 and 4.0.1): ADD/SUB (with carry), MAX/MIN, MUL, MAD, DIV, the SFU functions, SHFL and the tensor-core MMA;
# every other opcode keeps latency and interval 1 (mul24/mad24, fma and rem included)
GPGPUSIM_TABLED_OPCODES = frozenset({"add", "addc", "sub", "subc", "max", "min", "mul", "mad", "madc", "div", "sqrt",
                                     "sin", "cos", "ex2", "lg2", "rsqrt", "rcp", "shfl", "mma", "wmma"})
MEMORY_CLASSES = frozenset({"load", "store", "atomic"})


def _default_op_classes() -> dict[str, OpTiming]:
    d = {c: OpTiming() for c in OP_CLASSES}
    d["branch"] = OpTiming(unit="branch")
    for c in ("load", "store", "atomic"):
        d[c] = OpTiming(latency=1, interval=1, unit="ldst")
    return d


class SchedulerSpec(Spec):
    """Warp scheduler of each sub-core."""

    impl: str = F("gto", "name", "registered warp_scheduler: lrr, gto, two_level")
    active_warps: int = F(8, "warps", "two_level: size of the active pool per scheduler", ge=1, le=64)

    check_impl = _impl_validator("warp_scheduler")


class CtaDispatchSpec(Spec):
    """CTA (thread block) dispatcher."""

    impl: str = F("round_robin", "name", "registered cta_dispatch policy")
    per_cycle: int = F(1, "CTAs/cycle", "CTAs the dispatcher can place per core cycle (whole GPU)", ge=1, le=1024)
    launch_latency: int = F(0, "cycles", "from dispatch to the CTA's first issue", ge=0, le=100000)
    kernel_launch_latency: int = F(0, "cycles", "before the first CTA of each launch", ge=0, le=10**7)
    carry_round_robin: bool = F(False, "flag", "the round robin over SMs carries over from one launch to the next: "
                                "a launch's first CTA goes to the SM after the last one the previous launch placed a "
                                "CTA on (GPGPU-Sim's m_last_cluster_issue, set once per simulation); false: every "
                                "launch starts at first_sm")
    first_sm: int = F(0, "SM", "the SM the simulation's first CTA goes to, and every launch's first CTA when "
                      "carry_round_robin is off (GPGPU-Sim 4.0.1: 0; 3.2.2: 1, its m_last_cluster_issue starting "
                      "at 0); taken modulo core.num_sms, as GPGPU-Sim's round robin is", ge=0, le=1023)
    refill: Literal["continuous", "batch"] = F(
        "continuous", "name", "continuous: an SM takes a CTA whenever one fits; batch: an SM takes CTAs while they "
        "fit, then none until every CTA of that batch has finished (a block scheduler that runs each batch to "
        "completion)")

    check_impl = _impl_validator("cta_dispatch")


class SharedMemSpec(Spec):
    banks: int = F(32, "banks", "shared memory banks", ge=1, le=64)
    bank_bytes: int = F(4, "bytes", "bank width", ge=1, le=16)
    latency: int = F(26, "cycles", "shared load latency without conflicts", ge=1, le=10000)


class CoreSpec(Spec):
    """SIMT cores (SMs): resources, occupancy rules, issue, execution units and latency tables."""

    num_sms: int = F(15, "SMs", "streaming multiprocessors", ge=1, le=1024)
    sub_cores: int = F(2, "schedulers", "warp schedulers (sub-cores) per SM; warp w goes to w % sub_cores", ge=1, le=8)
    sub_core_units: bool = F(False, "flag", "each sub-core owns its units (Volta) instead of sharing the SM's")
    issue_width: int = F(1, "instr/cycle", "instructions one scheduler may issue per cycle (same warp)", ge=1, le=4)
    max_threads: int = F(1536, "threads", "resident threads per SM", ge=32, le=4096)
    max_ctas: int = F(8, "CTAs", "resident CTAs per SM", ge=1, le=128)
    registers: int = F(32768, "registers", "32-bit registers per SM", ge=1024, le=1 << 20)
    reg_alloc_unit: int = F(64, "registers", "register allocation unit (per warp)", ge=1, le=4096)
    max_regs_per_thread: int = F(63, "registers", "per-thread register limit", ge=1, le=1024)
    default_regs_per_thread: int = F(
        0, "registers", "used when the trace does not know ptxas' count (0: registers do not limit)", ge=0, le=1024)
    warp_alloc_granularity: int = F(2, "warps", "warps are allocated in groups of this size", ge=1, le=64)
    shared_mem_bytes: int = F(49152, "bytes", "shared memory per SM", ge=0, le=1 << 22)
    shared_alloc_unit: int = F(128, "bytes", "shared memory allocation unit", ge=1, le=1 << 16)
    scheduler: SchedulerSpec = SchedulerSpec()
    cta_dispatch: CtaDispatchSpec = CtaDispatchSpec()
    units: dict[str, int] = Field(
        default_factory=lambda: {"sp": 2, "int": 0, "dp": 0, "sfu": 1, "ldst": 1, "branch": 2},
        description="execution units per SM by name; 0 folds a unit's ops onto 'sp' [units]",
    )
    op_classes: dict[str, OpTiming] = Field(default_factory=_default_op_classes,
                                            description="timing per trace operation class [cycles]")
    opcodes: list[OpRule] = Field(default_factory=list, description="per-opcode overrides, first match wins")
    latency_table: Literal["machine", "gpgpusim"] = F(
        "machine", "name", "machine: every instruction takes its opcode rule's or its class's timing; gpgpusim: "
        "only the opcodes GPGPU-Sim's latency table names do (add, sub, max, min, mul, mad, div, the SFU functions, "
        "shfl: ptx_instruction::set_opcode_and_latency, 3.2.2 and 4.0.1), and every other instruction (fma, mov, "
        "cvt, setp, selp, logic, shifts, rem, branches, ...) takes latency 1 and interval 1 on its own unit")
    smem: SharedMemSpec = SharedMemSpec()
    param_latency: int = F(8, "cycles", "ld.param / constant-cache hit latency", ge=1, le=10000)
    wait_store_acks: bool = F(True, "flag", "a warp retires only when the L2 acknowledged its stores")
    fill_to_use: int = F(1, "cycles", "from an L1 fill (reply received) to the loaded value usable", ge=0, le=1000)
    pipeline_depth: int = F(0, "cycles", "cycles an ALU instruction spends in the pipeline besides its unit's "
                            "latency before a dependent can issue (operand collection, pipeline registers, "
                            "writeback); added to every ALU latency (0: results usable after the latency alone)",
                            ge=0, le=100)
    pipeline_depth_mem: int = F(0, "cycles", "cycles from a memory instruction's issue to its LD/ST unit's access "
                                "(operand collection); added to every memory result's latency: L1 and constant-"
                                "cache hits, fills, shared memory, ld.param", ge=0, le=100)
    mem_writeback_port: bool = F(False, "flag", "the LD/ST unit writes one memory result back a cycle: each "
                                 "access a fill answers (L1D, constant cache, reads past the L1, atomics) and "
                                 "each shared-memory load takes the first free writeback cycle at or after its "
                                 "data is ready, so the loads merged into one miss come back one a cycle; hits "
                                 "release their registers without it. false: any number a cycle")
    atomic_wait: bool = F(False, "flag", "a warp issues nothing while one of its atomics is outstanding: a global "
                          "atomic until its last transaction's reply, a shared one until its value is back "
                          "(GPGPU-Sim 3.2.2 and 4.0.1, shd_warp_t::waiting, a stall kept for their functional model); "
                          "false: only instructions that read the atomic's result wait")
    model: str = F("gpu", "name", "whose cores these are: gpu (the engine's SM) or the name of a mechanism whose "
                   "compiled hardware defines the core hooks core_receive, core_check, core_issue and core_tick "
                   "(they replace the SM's tick around the engine's warp schedulers; a launch needs that mechanism "
                   "attached, through its session policy)")
    ibuffer: int = F(0, "instructions", "decoded instructions per warp (0: an ideal front end). A warp whose buffer "
                     "is empty is fetched, one warp per SM per cycle in round-robin order, up to this many "
                     "instructions that issue from the next cycle, never past a control-flow change", ge=0, le=16)
    fetch_at_barrier: bool = F(False, "flag", "the fetch stage (ibuffer > 0) also fills the buffer of a warp "
                               "waiting at a barrier, so its next instructions are decoded when it is released; "
                               "false: only warps that can issue are fetched")
    branch_refetch: bool = F(False, "flag", "a taken branch costs a refetch as in GPGPU-Sim (ibuffer > 0): its "
                             "warp's fetch group and next fetch hold the instructions after the branch, which the "
                             "scheduler flushes when it next looks at the warp, and only then is the target fetched; "
                             "a fetch group also runs on where only the active mask changes (the next instruction "
                             "is at the next PC). False: the fetch stops at every change of trace segment and its "
                             "next fetch reads the target. No effect with an ideal front end (ibuffer 0)")
    result_buses: int = F(0, "buses", "writeback hazards as in GPGPU-Sim (its result buses, EX_WB's width): an ALU "
                          "instruction starts executing, in issue order through its unit's port, only on a unit "
                          "instance that completes nothing else in the cycle its result would, and only while fewer "
                          "than this many results complete in the SM that cycle; it waits otherwise (its result that "
                          "much later), the scheduler unaffected. 0: no such hazard", ge=0, le=64)
    mem_queue: int = F(0, "instructions", "memory instructions that can wait, issued, ahead of a busy LD/ST unit, "
                       "as in GPGPU-Sim, whose scheduler issues one into the memory pipeline register while the "
                       "unit still works on an earlier one (ID_OC_MEM, the memory collector units, OC_EX_MEM; "
                       "scheduler_unit::cycle, shader.cc): the warp goes on issuing; the unit takes them in issue "
                       "order, one a cycle once it is free. 0: a memory instruction issues only when the unit is "
                       "free (a shared-memory or ld.param access holds it for its passes)", ge=0, le=16)
    scheduler_rotation: bool = F(False, "flag", "the SM's warp schedulers take turns going first, one more place "
                                 "each cycle, for the units they share (GPGPU-Sim 4.0's shader_core_ctx::issue); "
                                 "false: scheduler 0 first every cycle (GPGPU-Sim 3.x)")
    atomic_segment_bytes: int = F(0, "bytes", "0: a warp's global atomic is one transaction per line its lanes "
                                  "touch, as a load is; 32, 64 or 128: GPGPU-Sim's rule, lanes grouped by segment of "
                                  "this size (32 B for 1-byte, at most 64 B for 2-byte lanes) and lanes to the same "
                                  "word in separate transactions, so a segment takes as many as the most lanes on one "
                                  "of its words", ge=0, le=128)
    atomic_warp_parts: int = F(1, "parts", "with atomic_segment_bytes: the warp's lanes in this many equal parts, "
                               "each coalesced on its own (GPGPU-Sim 3.2.2: 2 half-warps)", ge=1, le=32)

    @field_validator("units")
    @classmethod
    def _units(cls, v: dict[str, int]) -> dict[str, int]:
        for k, n in v.items():
            if k not in UNIT_NAMES:
                raise ValueError(f"unknown unit {k!r}; valid: {', '.join(UNIT_NAMES)}")
            if not 0 <= n <= 64:
                raise ValueError(f"units.{k} = {n} outside [0, 64]")
        if v.get("sp", 0) < 1 or v.get("ldst", 0) < 1:
            raise ValueError("units.sp and units.ldst must be at least 1")
        return v

    @field_validator("atomic_segment_bytes")
    @classmethod
    def _atomic_segment(cls, v: int) -> int:
        if v not in (0, 32, 64, 128):
            raise ValueError(f"atomic_segment_bytes = {v}: 0 (coalesce by line) or a segment of 32, 64 or 128 bytes")
        return v

    @field_validator("atomic_warp_parts")
    @classmethod
    def _atomic_parts(cls, v: int) -> int:
        if v not in (1, 2, 4, 8, 16, 32):
            raise ValueError(f"atomic_warp_parts = {v}: a power of two that divides the warp's 32 lanes")
        return v

    @field_validator("op_classes")
    @classmethod
    def _classes(cls, v: dict[str, OpTiming]) -> dict[str, OpTiming]:
        for k in v:
            if k not in OP_CLASSES:
                raise ValueError(f"unknown operation class {k!r}; valid: {', '.join(OP_CLASSES)}")
        full = _default_op_classes()
        full.update(v)
        return full

    @property
    def max_warps(self) -> int:
        return self.max_threads // 32

    def op_timing(self, op_class: str, opcode: str) -> OpTiming:
        """Timing of one static instruction: the first matching opcode rule, else its class (with
        ``latency_table: gpgpusim``, latency and interval 1 for an opcode outside GPGPU-Sim's table)."""
        timing = next((r for r in self.opcodes if fnmatch.fnmatchcase(opcode, r.match)), self.op_classes[op_class])
        if (self.latency_table == "gpgpusim" and op_class not in MEMORY_CLASSES
                and opcode.split(".", 1)[0] not in GPGPUSIM_TABLED_OPCODES):
            return OpTiming(latency=1, interval=1, unit=timing.unit)
        return timing


# ------------------------------------------------------------------------------------------------------
# caches

WritePolicy = Literal["write_back", "write_through", "write_evict"]


class CacheSpec(Spec):
    """A set-associative cache with sectors, MSHRs and a write policy."""

    enabled: bool = F(True, "flag", "False: every access misses and nothing is allocated")
    size_kb: float = F(16, "KiB", "capacity (per SM for L1, per slice for L2)", ge=0.125, le=1 << 16)
    assoc: int = F(4, "ways", "associativity", ge=1, le=1024)
    line_bytes: int = F(128, "bytes", "line (tag) size", ge=32, le=256)
    sector_bytes: int = F(128, "bytes", "fill granularity; line_bytes means not sectored", ge=32, le=256)
    latency: int = F(1, "cycles", "hit latency (tag + data)", ge=1, le=100000)
    write_policy: WritePolicy = F("write_through", "name", "write_back | write_through | write_evict")
    write_allocate: bool = F(False, "flag", "allocate a line on a write miss (write-validate sectors, no fetch)")
    replacement: Literal["lru", "fifo"] = F("lru", "name", "replacement policy")
    set_index: Literal["linear", "xor", "fermi"] = F(
        "linear", "name", "set index: low line bits (linear), XOR-folded upper bits (xor), or Fermi's hash "
        "(fermi: GPGPU-Sim 4.0's 'H', after Nugteren et al. HPCA 2014; 32 or 64 sets, L1 only)")
    mshr_entries: int = F(32, "entries", "miss status holding registers", ge=1, le=4096)
    mshr_merge: int = F(8, "requests", "requests merged into one MSHR entry", ge=1, le=64)
    ports: int = F(1, "accesses/cycle", "tag lookups per cycle", ge=1, le=16)
    miss_queue: int = F(8, "packets", "outbound queue toward the next level", ge=1, le=4096)

    @property
    def num_lines(self) -> int:
        return int(round(self.size_kb * 1024)) // self.line_bytes

    @property
    def num_sets(self) -> int:
        return self.num_lines // self.assoc

    @model_validator(mode="after")
    def _geometry(self) -> CacheSpec:
        size = self.size_kb * 1024
        if abs(size - round(size)) > 1e-9:
            raise ValueError(f"size_kb={self.size_kb} is not a whole number of bytes")
        for name in ("line_bytes", "sector_bytes"):
            v = getattr(self, name)
            if v & (v - 1) or v % ATOM_BYTES:
                raise ValueError(f"{name}={v} must be a power of two and a multiple of {ATOM_BYTES}")
        if self.sector_bytes > self.line_bytes:
            raise ValueError(f"sector_bytes={self.sector_bytes} exceeds line_bytes={self.line_bytes}")
        if round(size) % (self.line_bytes * self.assoc) or self.num_sets < 1:
            raise ValueError(
                f"size_kb={self.size_kb} is not a whole number of sets of {self.assoc} ways x {self.line_bytes} B")
        if self.set_index == "fermi" and self.num_sets not in (32, 64):
            raise ValueError(f"set_index=fermi needs 32 or 64 sets (Fermi's 16 KB L1: 32 sets of 4 ways; its 48 KB L1: "
                             f"64 sets of 6 ways, assoc 6), not {self.num_sets}: change assoc, or take set_index "
                             "linear or xor")
        return self


class PrefetchSpec(Spec):
    """L1 prefetcher (a compiled variant) and the priority class of its requests."""

    impl: str = F("none", "name", "registered prefetcher: none, next_line")
    degree: int = F(1, "lines", "lines fetched ahead per trigger", ge=1, le=16)
    priority: int = F(0, "class", "priority class of prefetch requests (0 lowest, 3 highest)", ge=0, le=3)

    check_impl = _impl_validator("prefetcher")


class L1Spec(CacheSpec):
    """Per-SM L1 data cache."""

    prefetch: PrefetchSpec = PrefetchSpec()

    cache_global: bool = F(True, "flag", "global loads allocate in L1 (False: L1 only for local memory)")
    fill_ports: int = F(1, "replies/cycle", "replies the SM accepts from the network per cycle", ge=1, le=16)
    miss_latency: int = F(1, "cycles", "from the tag lookup to the miss request entering the network queue",
                          ge=1, le=10000)
    miss_after_hit_latency: bool = F(False, "flag", "every access waits the hit latency before its tag lookup (a "
                                     "latency pipeline in front of the tags), so a load miss, and a store the "
                                     "L1D sees, leave for the L2 that much later (the SM's outbound queue holds "
                                     "l1d.latency more requests for it, besides miss_queue, in order of readiness: "
                                     "requests ready sooner pass those still in the pipeline); False: a miss is "
                                     "sent right after the lookup")
    allocate: Literal["fill", "miss"] = F("fill", "name", "when a load miss takes its line: at the fill, or when "
                                          "the miss is sent (the line reserved, its data evicted then, kept out of "
                                          "replacement until the fill; with every line of the set reserved the "
                                          "access stalls and retries)")
    read_miss_slack: int = F(0, "packets", "free miss-queue entries a load that misses, or that hits a line still "
                             "being fetched, needs beyond its own request, else it is refused and retried "
                             "(GPGPU-Sim's data_cache::rd_miss_base refuses unless the queue has room for two: 1)",
                             ge=0, le=64)

    @model_validator(mode="after")
    def _read_miss_fits(self) -> L1Spec:
        if self.read_miss_slack >= self.miss_queue:
            raise ValueError(f"read_miss_slack={self.read_miss_slack} leaves no room in miss_queue={self.miss_queue}: "
                             f"a load that misses could never be sent")
        return self


class L2Spec(CacheSpec):
    """L2 slices (memory sub-partitions); the size is per slice."""

    slices_per_channel: int = F(2, "slices", "L2 slices in front of each DRAM channel", ge=1, le=16)
    rop_latency: int = F(0, "cycles", "fixed delay from arrival at the slice to the tag lookup (the memory "
                         "partition's ROP queue; partition.rop_latency, when set, takes its place)", ge=0, le=100000)
    atomic_latency: int = F(4, "cycles", "extra latency of an atomic at the slice", ge=0, le=100000)
    return_queue: int = F(32, "packets", "DRAM-return queue per slice", ge=1, le=4096)
    response_queue: int = F(32, "packets", "replies waiting for the network per slice", ge=1, le=4096)
    sector_requests: bool = F(False, "flag", "a request is split into its 32-B sectors at the slice, which takes "
                              "one sector a cycle per port (a 128-B line four cycles), and the requests merged at a "
                              "missing line are answered sector by sector at its fill, one a cycle (merged request "
                              "i of n has its s sectors after (s - 1) n + i cycles); False: a whole request a cycle "
                              "per port, merged requests answered at the fill")
    data_port_bytes: int = F(0, "bytes/cycle", "width of a slice's data port: a hit holds the port for its bytes "
                             "over this width in cycles (0: no data-port limit)", ge=0, le=4096)
    input_queue: int = F(0, "requests", "0: a slice takes requests off the network while its ejection buffer and "
                         "ROP queue have room; n: GPGPU-Sim's icnt-to-L2 queue of n entries behind the ROP delay "
                         "(-gpgpu_dram_partition_queues' first value): the slice takes no request off the network "
                         "while fewer than input_queue_room of them are free, counting the requests that have passed "
                         "the ROP delay (memory_sub_partition::full)", ge=0, le=4096)
    input_queue_room: int = F(1, "requests", "free entries of input_queue a request off the network needs: 1 in "
                              "GPGPU-Sim 3.x (the queue full), 4 in 4.0 (room for a sectored request's four parts, "
                              "SECTOR_CHUNCK_SIZE)", ge=1, le=64)
    sector_acks: bool = F(False, "flag", "a write is acknowledged per 32-B sector it carried, one header-only "
                          "packet each on the reply network (GPGPU-Sim 4.0's sectored L2 splits a request into its "
                          "sectors and answers each, memory_sub_partition::push; the SM waits for all); false: one "
                          "acknowledgement per write")
    sector_mshrs: bool = F(False, "flag", "an MSHR entry per missing 32-B sector (GPGPU-Sim 4.0's sectored caches "
                           "key MSHRs by sector address, gpu-cache.h mshr_addr): a request for sectors that none of "
                           "its line's outstanding misses covers sends its own DRAM read; false (and where it "
                           "overlaps an outstanding miss in part) it waits at the head of the queue for the fill")
    sector_replies: bool = F(False, "flag", "each 32-B sector of a reply travels as a packet of its own, with its "
                             "own header (GPGPU-Sim 4.0's sectored L2 answers each sector request, l2cache.cc:"
                             "695-791, and the SM's L1 fills when the last has come): on the crossbar a reply's "
                             "sectors leave its slice one packet at a time, each arbitrating for the two ports "
                             "again, the reply complete when its last sector arrives; a write's per-sector "
                             "acknowledgements (sector_acks) likewise. false: a reply is one packet")
    write_miss_fetch: bool = F(False, "flag", "a write that misses is written through to DRAM and its whole line "
                               "read in, the line allocated clean when the read returns (GPGPU-Sim 3.x's "
                               "write-allocate 'W'); False: write_allocate's write-validate, or no allocation")
    lazy_fetch_on_read: bool = F(False, "flag", "with write_allocate, a sector a write miss allocates is readable only "
                                 "if that write covered all its 32 bytes; a read or atomic on an unreadable sector "
                                 "misses and fetches it from DRAM, and a write hit leaves readability as it was "
                                 "(GPGPU-Sim 4.0's lazy fetch-on-read write allocation, 'L': gpu-cache.cc "
                                 "wr_miss_wa_lazy_fetch_on_read and tag_array::probe). False: every written sector "
                                 "is readable")

    @model_validator(mode="after")
    def _fill_fits(self) -> L2Spec:
        # a fill replies to every request merged into its MSHR at once, into the slice's output queue
        # (response_queue + latency entries): one that can never fit would stop the slice for good
        if self.enabled and self.response_queue + self.latency < self.mshr_merge:
            raise ValueError(f"response_queue={self.response_queue} + latency={self.latency} is below "
                             f"mshr_merge={self.mshr_merge}: a fill replies to all its merged requests at once, "
                             f"so raise response_queue or lower mshr_merge")
        if self.input_queue and self.input_queue_room > self.input_queue:
            raise ValueError(f"input_queue_room={self.input_queue_room} exceeds input_queue={self.input_queue}: "
                             f"no request could ever leave the network for the slice")
        return self


class _ReadOnlyCacheSpec(Spec):
    """What the SM's read-only caches share (``l1i``, ``l1c``): their geometry and its checks. Each declares its
    own fields ``size_kb``, ``line_bytes`` and ``assoc``."""

    size_kb: float
    line_bytes: int
    assoc: int

    @property
    def num_sets(self) -> int:
        return int(round(self.size_kb * 1024)) // self.line_bytes // self.assoc

    @model_validator(mode="after")
    def _geometry(self) -> _ReadOnlyCacheSpec:
        size = self.size_kb * 1024
        v = self.line_bytes
        if v & (v - 1) or v % ATOM_BYTES:
            raise ValueError(f"line_bytes={v} must be a power of two and a multiple of {ATOM_BYTES}")
        if abs(size - round(size)) > 1e-9 or round(size) % (v * self.assoc) or self.num_sets < 1:
            raise ValueError(f"size_kb={self.size_kb} is not a whole number of sets of {self.assoc} ways x {v} B")
        return self


class InstCacheSpec(_ReadOnlyCacheSpec):
    """Per-SM instruction cache (GPGPU-Sim's L1I): read-only, allocated on fill, LRU, linear set index; off by
    default (an ideal front end). Needs ``core.ibuffer`` > 0: the fetch stage looks up the line holding a warp's
    next instruction (instruction ``i`` of a kernel at ``code_base`` + the kernel's offset + ``i x
    inst_bytes``; the offset places the kernel as GPGPU-Sim assembles its module, every defined function in PTX
    order, modules in the order of their first launch: ``LaunchInfo.code_offset``). A miss reads
    the line from the L2 like an L1D miss, taking one of ``mshr_entries`` MSHRs (a second warp missing on a
    pending line merges, up to ``mshr_merge``); the warp fetches nothing until the line returns, other warps
    fetch meanwhile. Launches do not invalidate it."""

    enabled: bool = F(False, "flag", "model the instruction cache (false: every fetch hits)")
    size_kb: float = F(2, "KiB", "capacity per SM", ge=0.0625, le=1024)
    line_bytes: int = F(128, "bytes", "line size", ge=32, le=256)
    assoc: int = F(4, "ways", "associativity", ge=1, le=256)
    mshr_entries: int = F(2, "entries", "instruction misses outstanding per SM (one line each)", ge=1, le=256)
    mshr_merge: int = F(32, "accesses", "fetches merged into one instruction MSHR entry", ge=1, le=256)
    inst_bytes: int = F(8, "bytes", "code bytes per (PTX) instruction", ge=1, le=64)
    code_base: int = F(0xF0000000, "address", "byte address of the first kernel's first instruction (a range no "
                       "data allocation or host copy reaches)", ge=0, le=(1 << 48))
    fill_to_fetch: bool = F(False, "flag", "a returned line goes straight to its waiting warps' fetch, one a "
                            "cycle, ahead of new fetches and without a second access (GPGPU-Sim 4.0); false: the "
                            "warps fetch again in turn, hitting (3.2.2)")


class ConstCacheSpec(_ReadOnlyCacheSpec):
    """Per-SM constant cache (GPGPU-Sim's L1C): read-only, allocated on fill, LRU, linear set index.

    A warp's ``ld.const`` is one access per distinct ``line_bytes`` line its active lanes read (lanes reading
    one line are served by one access, broadcast to the warp; distinct lines serialize, ``ports`` a cycle), as
    GPGPU-Sim generates constant accesses. A hit's value is usable ``latency`` cycles after the access; a miss
    takes one of the SM's ``mshr_entries`` constant MSHRs (up to ``mshr_merge`` accesses wait on one line) and
    reads the line from the L2 like an L1 miss. Invalidated at each launch, like the L1D, unless
    ``keep_across_launches``. A mechanism's own
    core model (``core.model``) sees constant loads as global ones, as does every machine with ``enabled``
    false (they then go through the L1D)."""

    enabled: bool = F(True, "flag", "False: constant loads are global loads through the L1D")
    size_kb: float = F(8, "KiB", "capacity per SM", ge=0.0625, le=1024)
    line_bytes: int = F(64, "bytes", "line size: a warp's load is one access per distinct line", ge=32, le=256)
    assoc: int = F(2, "ways", "associativity", ge=1, le=256)
    latency: int = F(8, "cycles", "hit latency: from the access to the loaded value usable", ge=1, le=100000)
    mshr_entries: int = F(2, "entries", "constant misses outstanding per SM (one line each)", ge=1, le=256)
    mshr_merge: int = F(32, "accesses", "accesses merged into one constant MSHR entry", ge=1, le=256)
    ports: int = F(1, "accesses/cycle", "constant-cache accesses per cycle (a warp's distinct lines serialize)",
                   ge=1, le=16)
    kernel_params: bool = F(False, "flag", "kernel-parameter loads (ld.param) read the constant cache, one access "
                            "each, at param_base + the parameter's offset, as GPGPU-Sim reads them; false: they "
                            "take core.param_latency and touch no cache")
    param_base: int = F(0, "address", "byte address of the kernel-parameter buffer (kernel_params); every launch "
                        "places its parameters here", ge=0, le=(1 << 48))
    keep_across_launches: bool = F(False, "flag", "a launch leaves the constant cache's lines in place (GPGPU-Sim "
                                   "invalidates only its L1D between kernels); false: invalidated with the L1D")


class PartitionSpec(Spec):
    """The memory sub-partition in front of each DRAM channel (where each L2 slice sits), with or without an
    L2: requests from the interconnect wait ``rop_latency`` there before they are served, as GPGPU-Sim's
    memory sub-partition delays every request in its ROP queue whether or not its L2 is enabled."""

    rop_latency: int | None = F(
        None, "cycles", "fixed delay (L2 clock) from a request's arrival at the partition to its service, on "
        "every path into it; null: l2.rop_latency, or 0 on a machine without an l2 section", ge=0, le=100000)
    perfect_latency: int | None = F(
        None, "cycles", "perfect memory: every load, store and atomic an SM sends is served this many core cycles "
        "later, with no interconnect, L2, ROP queue or DRAM on its way (a measuring device; crossbar machines "
        "without stack SMs); null: the memory system as configured", ge=1, le=100000)


# ------------------------------------------------------------------------------------------------------
# interconnect


class RouterNetSpec(Spec):
    """What every router network shares (``icnt.mesh``, ``icnt.butterfly``, ``icnt.hmesh``): where the SMs and
    the L2 slices attach, and the routers: virtual channels, buffers, pipeline and link latencies, credit delay, switch
    allocator and priority classes. The compiled router is one (``engine/mesh.py``); only its routing, link
    and injection tables differ by topology (``timing/topology.py``).

    Simplified model (docs/timing.md, "Mesh"): packet-level virtual cut-through. A packet advances a hop
    only when a VC of the next router's input port has room for all its flits (credit-based, nothing
    dropped); its space is credited back ``credit_delay`` cycles after it leaves. ``allocator`` picks the
    switch allocation: ``round_robin`` (one step: input VCs scanned round-robin, a packet granted when its
    input and output ports are free) or ``islip`` (one request-grant-accept iteration per cycle); a granted
    packet holds its input and output ports for its flit count (one flit per link per cycle; the hierarchical
    mesh's links have their own widths). With
    ``priority_arbitration`` the highest priority class among competing head packets is served first.
    Requests and replies travel on two identical subnets (GPGPU-Sim's two networks).
    """

    sm_nodes: list[int] = Field(default_factory=list,
                                description="node of each SM, in SM order (length core.num_sms) [node ids]")
    llc_nodes: list[int] = Field(default_factory=list,
                                 description="node of each L2 slice / memory controller, in slice order [node ids]")
    vcs: int = F(8, "VCs", "virtual channels per router input port", ge=1, le=64)
    vc_buffers: int = F(8, "flits", "buffer per VC (a FIFO of packets); a packet enters a VC only when all its "
                        "flits fit (virtual cut-through); a larger packet needs an empty VC (not split over "
                        "routers as wormhole would)", ge=1, le=256)
    router_latency: int = F(3, "cycles", "router pipeline: from a head flit's arrival to its switch traversal",
                            ge=1, le=1000)
    link_latency: int = F(1, "cycles", "link traversal of a flit between neighbouring routers", ge=1, le=1000)
    credit_delay: int = F(0, "cycles", "credit round trip: a packet's buffer space becomes visible to the "
                          "upstream router (or the injection) this many icnt cycles after the packet leaves "
                          "(0: in the cycle it leaves)", ge=0, le=1000)
    allocator: Literal["round_robin", "islip"] = F(
        "round_robin", "name", "switch allocation per router and cycle: round_robin (input VCs scanned from a "
        "pointer that advances by one each cycle; a head packet is granted when its input and output ports "
        "are free) or islip (one iteration of request, grant by each output's round-robin pointer, accept by "
        "each input's pointer; pointers advance only on accepted grants)")
    priority_arbitration: bool = F(False, "flag", "the highest priority class among a router's competing head "
                                   "packets is served first (then the allocator's order); the crossbar's "
                                   "icnt.priority_arbitration does not apply to router networks")


class MeshSpec(RouterNetSpec):
    """A W x H 2D mesh (``icnt.impl: mesh``): placement, dimension-order routing, routers with VCs (the
    shared router fields: :class:`RouterNetSpec`)."""

    width: int = F(8, "nodes", "columns of the grid (x)", ge=1, le=64)
    height: int = F(8, "nodes", "rows of the grid (y); node id = y * width + x, row 0 at the top", ge=1, le=64)
    routing: Literal["xy", "yx"] = F("yx", "name", "dimension-order routing: xy (X first) or yx (Y first)")


class ButterflySpec(RouterNetSpec):
    """A k-ary n-fly (``icnt.impl: butterfly``): n stages of k**(n-1) routers with k inputs and k outputs,
    destination-tag routing, the mesh's routers (:class:`RouterNetSpec`). ``sm_nodes`` and ``llc_nodes``
    are terminals 0 .. k**n - 1: terminal t injects at stage-0 router t // k (input port t % k) and the
    last stage's router t // k ejects to it (output port t % k). Every packet crosses all n routers; the
    injection and ejection links take ``link_latency`` cycles each, as the links between stages do
    (docs/timing.md, "Butterfly")."""

    radix: int = F(4, "ports", "k: inputs and outputs per router", ge=2, le=16)
    stages: int = F(3, "stages", "n: router stages a packet crosses", ge=1, le=6)

    @property
    def terminals(self) -> int:
        return self.radix ** self.stages

    @model_validator(mode="after")
    def _size(self) -> ButterflySpec:
        if self.terminals > 1024:  # the routing table holds routers x terminals entries per subnet
            raise ValueError(f"radix**stages = {self.terminals} terminals; at most 1024 are supported")
        return self


class HMeshSpec(RouterNetSpec):
    """A hierarchical mesh (``icnt.impl: hmesh``): a ``chips_x`` x ``chips_y`` grid of chips, each a
    ``nodes_x`` x ``nodes_y`` on-chip mesh of routers; one gateway router per chip links to the gateways of
    the neighbouring chips (the off-chip mesh). Several terminals may share a router, each on its own local
    port. Dimension-order routing on both levels: across the chip to its gateway, gateway to gateway, then
    across the destination chip. Router ids: chip * nodes_per_chip + node (chip = cy * chips_x + cx, node =
    y * nodes_x + x). ``sm_nodes`` and ``llc_nodes`` hold router ids (repeats allowed); left empty, SM i sits
    at router i * routers // num_sms and slice j at router j * routers // num_slices. The shared router fields
    (:class:`RouterNetSpec`) apply; ``link_latency`` is the on-chip links' (docs/timing.md, "Hierarchical
    mesh")."""

    chips_x: int = F(4, "chips", "columns of the chip grid", ge=1, le=16)
    chips_y: int = F(2, "chips", "rows of the chip grid; chip id = cy * chips_x + cx", ge=1, le=16)
    nodes_x: int = F(4, "routers", "columns of each chip's on-chip mesh", ge=1, le=16)
    nodes_y: int = F(4, "routers", "rows of each chip's on-chip mesh; node = y * nodes_x + x", ge=1, le=16)
    gateway: int = F(5, "node", "the on-chip node whose router holds the chip's off-chip links (the same node "
                     "in every chip)", ge=0, le=255)
    routing: Literal["xy", "yx"] = F("xy", "name", "dimension-order routing on both levels: xy (X first) or yx")
    link_bytes: int = F(32, "bytes/cycle", "width of an on-chip link and of a local (terminal) port", ge=1,
                        le=4096)
    offchip_link_bytes: int = F(16, "bytes/cycle", "width of an off-chip link between gateways", ge=1, le=4096)
    offchip_link_latency: int = F(1, "cycles", "traversal of an off-chip link between gateways", ge=1, le=1000)

    @model_validator(mode="after")
    def _gateway(self) -> HMeshSpec:
        if self.gateway >= self.nodes_x * self.nodes_y:
            raise ValueError(f"gateway={self.gateway} outside the {self.nodes_x}x{self.nodes_y} on-chip mesh "
                             f"(nodes 0 .. {self.nodes_x * self.nodes_y - 1})")
        return self

    @property
    def routers(self) -> int:
        return self.chips_x * self.chips_y * self.nodes_x * self.nodes_y

    def placement(self, num_sms: int, num_slices: int) -> tuple[list[int], list[int]]:
        """The router of each SM and of each slice (the spec's lists, or the even spread where they are empty)."""
        sm = list(self.sm_nodes) or [i * self.routers // num_sms for i in range(num_sms)]
        sl = list(self.llc_nodes) or [j * self.routers // num_slices for j in range(num_slices)]
        return sm, sl

    def local_ports(self, num_sms: int, num_slices: int) -> int:
        """Local ports per router: the most terminals any router holds."""
        sm, sl = self.placement(num_sms, num_slices)
        count: dict[int, int] = {}
        for r in sm + sl:
            count[r] = count.get(r, 0) + 1
        return max(count.values(), default=1)


class IcntSpec(Spec):
    """On-chip network between SMs and L2 slices (two networks: requests and replies)."""

    impl: str = F("crossbar", "name", "registered interconnect")
    flit_bytes: int = F(32, "bytes", "flit size; a port moves one flit per icnt cycle", ge=4, le=1024)
    header_bytes: int = F(8, "bytes", "packet header (read requests and acks are header only)", ge=0, le=256)
    latency: int = F(8, "cycles", "traversal latency of the first flit", ge=1, le=100000)
    input_buffer: int = F(8, "packets", "per-source injection queue", ge=1, le=4096)
    eject_buffer: int = F(16, "packets", "per-destination ejection queue", ge=1, le=4096)
    priority_arbitration: bool = F(True, "flag", "higher priority classes win arbitration first")
    output_buffer: int = F(
        0, "flits", "crossbar only: flits that may wait at a destination port behind the one it is ejecting (the "
        "switch's output side and the ejection buffer it holds credits for, as BookSim's routers in GPGPU-Sim "
        "have): a packet crosses while at most this many wait, one packet a cycle, and is ejected after them; "
        "0: a packet crosses only to a free port", ge=0, le=4096)
    allocator: Literal["round_robin", "islip"] = F(
        "round_robin", "name", "crossbar only: how a destination port chooses among the sources whose head packet "
        "asks for it: round_robin (the sources scanned from one pointer that advances by one every cycle, so a "
        "source keeps a port it won until the pointer passes it) or islip (each destination port grants the "
        "asking source nearest at or after its own pointer, which then moves to one past that source, as "
        "BookSim's iSLIP allocators in GPGPU-Sim do: sources contending for a port take turns packet by packet)")
    mesh: MeshSpec | None = Field(None, description="2D mesh geometry and routers (impl: mesh only)")
    butterfly: ButterflySpec | None = Field(None, description="k-ary n-fly and its routers (impl: butterfly only)")
    hmesh: HMeshSpec | None = Field(None, description="hierarchical mesh (chips of on-chip meshes) and its routers "
                                    "(impl: hmesh only)")

    check_impl = _impl_validator("interconnect")


# ------------------------------------------------------------------------------------------------------
# DRAM


class DramTiming(Spec):
    """DRAM timing parameters in DRAM command-clock cycles."""

    tRCD: int = F(12, "tCK", "ACT to column command", ge=1, le=1000)
    tRP: int = F(12, "tCK", "PRE to ACT", ge=1, le=1000)
    tRAS: int = F(28, "tCK", "ACT to PRE", ge=1, le=1000)
    tRC: int = F(40, "tCK", "ACT to ACT, same bank", ge=1, le=1000)
    tCL: int = F(12, "tCK", "read column command to data", ge=1, le=1000)
    tCWL: int = F(4, "tCK", "write column command to data", ge=0, le=1000)
    tCCD_S: int = F(2, "tCK", "column to column, different bank group", ge=1, le=1000)
    tCCD_L: int = F(3, "tCK", "column to column, same bank group", ge=1, le=1000)
    tRRD_S: int = F(6, "tCK", "ACT to ACT, different bank group", ge=1, le=1000)
    tRRD_L: int = F(6, "tCK", "ACT to ACT, same bank group", ge=1, le=1000)
    tFAW: int = F(23, "tCK", "window holding at most four ACTs", ge=0, le=10000)
    tWR: int = F(12, "tCK", "end of write data to PRE", ge=0, le=1000)
    tWTR: int = F(5, "tCK", "end of write data to read command", ge=0, le=1000)
    tRTW: int = F(12, "tCK", "read command to write command (bus turnaround)", ge=0, le=1000)
    tRTP: int = F(2, "tCK", "read command to PRE", ge=0, le=1000)
    tREFI: int = F(3604, "tCK", "refresh interval", ge=0, le=10**7)
    tRFC: int = F(102, "tCK", "refresh cycle time (all banks)", ge=0, le=100000)


class MappingSpec(Spec):
    """Physical address -> (channel, slice, bank group, bank, row) by bit fields, with XOR options.

    The channel is ``(addr >> channel_bit) % channels`` (XOR-folded with higher bits when
    ``channel_xor``); removing it leaves a compact channel address whose bits ``fields`` names from the
    most significant listed bit down to bit 0: R row, B bank, G bank group, P slice, C column, X byte
    offset; ``b`` and ``g`` mark a bank (bank-group) bit that also selects the slice, as GPGPU-Sim derives a
    channel's sub-partition from the low bits of the bank it decodes (addrdec.cc). Bank and bank-group bits are
    packed lowest first. Bits above the string are row bits. Separators ``._ `` are ignored.
    """

    impl: str = F("bitfields", "name", "registered address_mapping")
    channel_bit: int = F(8, "bit", "lowest address bit of the channel index (interleave granularity)", ge=5, le=40)
    channel_xor: bool = F(False, "flag", "XOR-fold the row bits into the channel index")
    bank_xor: bool = F(True, "flag", "XOR the low row bits into bank and bank group (permutation interleave)")
    fields: str = F("BB.GG.CCCCC.P.CC.XXXXX", "bits", "MSB..LSB of the compact channel address")

    check_impl = _impl_validator("address_mapping")

    def field_bits(self) -> dict[str, list[int]]:
        """Bit positions of each letter in the compact channel address."""
        s = [c for c in self.fields if c not in "._ "]
        out: dict[str, list[int]] = {k: [] for k in "RBGPCX"}
        for i, c in enumerate(reversed(s)):
            if c in ("b", "g"):  # a bank (group) bit that also selects the slice
                out[c.upper()].append(i)
                out["P"].append(i)
            elif c in out:
                out[c].append(i)
            else:
                raise ValueError(f"mapping.fields: unknown letter {c!r}; valid: R B G P C X b g")
        return out


class DramSchedulerSpec(Spec):
    impl: str = F("frfcfs", "name", "registered dram_scheduler: frfcfs (row hits first, then oldest, over the "
                  "whole queue), fcfs, frfcfs_bank (GPGPU-Sim's: each bank serves one request at a time, taken "
                  "from the queue one bank a cycle, its open row's oldest else its oldest; dram_sched.cc, "
                  "dram.cc)")
    queue_size: int = F(64, "requests", "scheduler queue per channel (frfcfs_bank: the requests no bank has "
                        "taken yet, as GPGPU-Sim's -gpgpu_frfcfs_dram_sched_queue_size counts them)", ge=1, le=4096)

    check_impl = _impl_validator("dram_scheduler")


class DramSpec(Spec):
    """DRAM channels with banks, bank groups, timing and a scheduler."""

    impl: str = F("gddr5", "name", "registered DRAM standard: gddr5, hbm2")
    channels: int = F(6, "channels", "independent channels (controllers)", ge=1, le=1024)
    pseudo_channels: int = F(1, "per channel", "HBM2 pseudo channels per channel (1: legacy mode); each is "
                             "scheduled as a channel, and bus_bits / row_bytes are per pseudo channel", ge=1, le=2)
    bank_groups: int = F(4, "groups", "bank groups per channel", ge=1, le=16)
    banks_per_group: int = F(4, "banks", "banks per bank group", ge=1, le=64)
    row_bytes: int = F(4096, "bytes", "row (page) size per bank of a (pseudo) channel", ge=256, le=1 << 16)
    subarrays_per_bank: int = F(1, "subarrays", "subarrays per bank, each with its own row buffer (MASA-style "
                                "subarray-level parallelism); row r lies in subarray r mod this (1: one row "
                                "buffer per bank)", ge=1, le=64)
    max_open_subarrays: int = F(0, "subarrays", "most subarrays of a bank open at once (e.g. 4 of 8); an ACT "
                                "beyond it first precharges the bank's least-recently-used open subarray, and a "
                                "subarray counts from its ACT until tRP after its PRE (0: no cap; at most "
                                "subarrays_per_bank)", ge=0, le=64)
    bus_bits: int = F(64, "bits", "data bus width per (pseudo) channel", ge=8, le=1024)
    burst_length: int = F(8, "transfers", "burst length", ge=1, le=64)
    data_rate: int = F(4, "transfers/tCK", "data transfers per command clock (DDR 2, GDDR5 4)", ge=1, le=16)
    dual_command_bus: bool = F(False, "flag", "a row and a column command may issue in the same cycle")
    page_policy: Literal["open", "closed"] = F("open", "name", "open: rows stay open; closed: auto-precharge")
    refresh: bool = F(True, "flag", "model all-bank refresh (tREFI / tRFC)")
    read_burst_per_sector: bool = F(False, "flag", "each 32-B sector read a DRAM access of its own, one whole burst "
                                    "(GPGPU-Sim's sectored L2); off: a request's sectors share the bursts they touch")
    controller_latency: int = F(0, "tCK", "fixed controller + PHY latency added to every request", ge=0,
                                le=100000)
    partition_queue: int = F(0, "requests", "0: an L2 miss enters the scheduler's queue directly and holds its "
                             "entry through controller_latency; N > 0: GPGPU-Sim's memory-partition front end: each "
                             "L2 slice's DRAM requests wait in an N-entry L2-to-DRAM queue (its slices' entries "
                             "pooled per channel), one a DRAM cycle moves on, when the scheduler's queue has room, "
                             "into a latency queue that scheduler.queue_size does not count, and leaves it for the "
                             "scheduler's queue after controller_latency, again one a cycle and when there is room "
                             "(-gpgpu_dram_partition_queues, memory_partition_unit::dram_cycle); only where L2 slices "
                             "sit in front of the channels: a machine without an L2, or with memory stacks, keeps "
                             "0's path", ge=0, le=1024)
    timing: DramTiming = DramTiming()
    scheduler: DramSchedulerSpec = DramSchedulerSpec()
    mapping: MappingSpec = MappingSpec()

    check_impl = _impl_validator("dram")

    @model_validator(mode="after")
    def _open_cap(self) -> DramSpec:
        if self.max_open_subarrays > self.subarrays_per_bank:
            raise ValueError(f"max_open_subarrays={self.max_open_subarrays} exceeds subarrays_per_bank="
                             f"{self.subarrays_per_bank}")
        if self.scheduler.impl == "frfcfs_bank" and (self.subarrays_per_bank != 1 or self.page_policy != "open"):
            raise ValueError(f"dram.scheduler.impl=frfcfs_bank models GPGPU-Sim's banks (one row buffer, open rows): "
                             f"it needs subarrays_per_bank=1 and page_policy=open, not {self.subarrays_per_bank} "
                             f"and {self.page_policy}")
        return self

    @property
    def banks(self) -> int:
        return self.bank_groups * self.banks_per_group

    @property
    def atom_bytes(self) -> int:
        """Bytes one burst moves."""
        return self.bus_bits // 8 * self.burst_length

    @property
    def burst_cycles(self) -> int:
        """Command-clock cycles one burst occupies the data bus."""
        return max(1, math.ceil(self.burst_length / self.data_rate))

    @property
    def scheduling_channels(self) -> int:
        """Independently scheduled units (channels x pseudo channels)."""
        return self.channels * self.pseudo_channels


# ------------------------------------------------------------------------------------------------------
# host link, run control, energy


class PcieSpec(Spec):
    bandwidth_gbs: float = F(8.0, "GB/s", "host link bandwidth per direction", ge=0.001, le=10000)
    latency_us: float = F(5.0, "us", "fixed latency per transfer", ge=0, le=1e6)
    place_in_l2: bool = F(True, "flag", "host-to-device copies leave their lines in L2 (GPGPU-Sim perf_sim_memcpy)")


class SimSpec(Spec):
    watchdog_cycles: int = F(200000, "cycles", "stop when nothing progressed for this long", ge=100, le=10**12)
    max_warp_instructions: int = F(0, "warp-instr", "stop all timing after this many (0: unlimited)", ge=0)
    time_series_interval: int = F(0, "cycles", "sample counters every N core cycles (0: off)", ge=0)
    record_dram_commands: bool = F(False, "flag", "keep a DRAM command log (tests; slow for large runs)")
    drain_memory: bool = F(False, "flag", "a launch ends when its last CTA has finished and every memory request "
                           "it made has completed, its stores' DRAM writes included (GPGPU-Sim, whose "
                           "gpgpu_sim::active() holds the kernel while a memory partition is busy); off: at its "
                           "last CTA's end, what is still in flight finishing under the next launch")
    sample_waves: int = F(0, "waves", "sampled timing: time the first N waves of CTAs of a long launch in detail "
                          "and project the rest from their steady state (0: every CTA timed; docs/sampling.md)",
                          ge=0, le=1000)
    sample_min_waves: int = F(8, "waves", "with sample_waves: launches of fewer waves (CTAs over the CTAs the GPU "
                              "holds at once) are timed in full", ge=2, le=100000)
    sample_launches: int = F(0, "launches", "sampled timing across launches: of launches alike (same kernel, grid "
                             "and block, recorded warp-instructions within sample_launch_tolerance), time the first N "
                             "and project each later one from the last timed (0: every launch timed; docs/sampling.md)",
                             ge=0, le=100000)
    sample_launch_tolerance: float = F(0.02, "fraction", "with sample_launches: launches are alike when their recorded "
                                       "warp-instructions differ by at most this share", ge=0, le=1)
    sample_stable_window: float = F(0.0, "fraction", "sampled timing of a launch too short for sample_waves: "
                                    "time it until its issue rate has been stable over this share of its recorded "
                                    "warp-instructions, then stop issue and project the rest (0: off; "
                                    "docs/sampling.md)", ge=0, le=0.5)
    sample_stable_tolerance: float = F(0.1, "fraction", "with sample_stable_window: the rate is stable when each of "
                                       "the window's 8 intervals is within this share of their mean", ge=0, le=1)
    sample_stable_min_insts: int = F(2000, "warp-instr", "with sample_stable_window: launches whose warps record "
                                     "fewer warp-instructions on average are timed in full", ge=1)


class EnergySpec(Spec):
    """Price overrides on top of the machine's power parameter set (``ndpgpu.power``, docs/power.md)."""

    events: dict[str, float] = Field(default_factory=dict, description="event name -> energy [pJ], overriding the set")
    static_power_w: float = F(0.0, "W", "extra whole-chip static power beyond the set's components", ge=0)


# ------------------------------------------------------------------------------------------------------
# memory stacks, serial links, logic die (near-data machines)


class StacksSpec(Spec):
    """3D memory stacks: each stack is ``vaults_per_stack`` consecutive DRAM channels (vaults) behind TSVs.

    A vault is scheduled as a DRAM channel whose data bus is the vault's TSVs: ``dram.bus_bits x
    dram.data_rate x dram_mhz`` must equal ``tsvs_per_vault x tsv_gbps`` (checked)."""

    count: int = F(4, "stacks", "memory stacks", ge=1, le=64)
    vaults_per_stack: int = F(16, "vaults", "vaults (channels) per stack; channel c is in stack c // this",
                              ge=1, le=256)
    tsvs_per_vault: int = F(64, "TSVs", "data TSVs per vault", ge=1, le=4096)
    tsv_gbps: float = F(1.25, "Gb/s", "signalling rate per TSV", ge=0.001, le=100)
    sms_per_stack: int = F(0, "SMs", "SMs in each stack's logic layer, taking no CTAs: they run the guest "
                           "warps a mechanism sends them (engine SMs core.num_sms onwards, stack s's first); 0: none",
                           ge=0, le=16)
    sm_max_warps: int = F(48, "warps", "warps one stack SM runs at once (its warp capacity)", ge=1, le=256)
    sm_path_gbs: float | None = F(None, "GB/s", "bandwidth of a stack SM's own port to its stack's vaults (crossbar "
                                  "machines); null: the stack's internal bandwidth, vaults_per_stack x the vault's",
                                  ge=0.001, le=100000)
    sm_mshr_entries: int | None = F(None, "entries", "L1 MSHRs of a stack SM (null: l1d.mshr_entries, as a GPU SM)",
                                    ge=1, le=4096)

    def vault_gbs(self) -> float:
        return self.tsvs_per_vault * self.tsv_gbps / 8

    def internal_gbs(self) -> float:
        """The stack's internal bandwidth: its vaults' TSVs together."""
        return self.vaults_per_stack * self.vault_gbs()

    def sm_port_gbs(self) -> float:
        """The bandwidth of a stack SM's path to its vaults (``sm_path_gbs``, else the internal bandwidth)."""
        return self.sm_path_gbs if self.sm_path_gbs is not None else self.internal_gbs()


class CrossLinksSpec(Spec):
    """Point-to-point links between stacks (fully connected: each pair linked both ways).

    Timed for the SMs of a logic die (``logic_die.cross_stack``): a request to another stack's vault
    crosses the link home -> t, read data and write acknowledgements come back over t -> home, packets in
    flits as on the GPU links. Under ``links`` they are timed when the stacks hold SMs (``stacks.sms_per_stack``):
    a stack SM reaches another stack's vaults over them; without stack SMs nothing uses them."""

    topology: Literal["fully_connected"] = F("fully_connected", "name", "which stacks are linked")
    gbs: float = F(20.0, "GB/s", "bandwidth per direction of one stack-to-stack link", ge=0.001, le=10000)
    latency_ns: float = F(8.0, "ns", "latency of one stack-to-stack link", ge=0, le=1e6)
    flit_bytes: int = F(16, "bytes", "flit size", ge=1, le=1024)
    request_flits: int = F(1, "flits", "read request (header and tail, no data)", ge=1, le=64)
    response_header_flits: int = F(1, "flits", "read response: flits besides its data flits", ge=0, le=64)
    write_header_flits: int = F(1, "flits", "write request: flits besides its data flits", ge=0, le=64)
    ack_flits: int = F(1, "flits", "write acknowledgement", ge=1, le=64)


class LinksSpec(Spec):
    """HMC-style serial links: per stack a TX (GPU -> stack) and an RX (stack -> GPU) channel.

    Requests pay TX serialisation and latency before they enter a vault queue; read data and write
    acknowledgements pay RX before they reach the L2. Packet sizes are in flits."""

    tx_gbs: float = F(40.0, "GB/s", "TX (GPU -> stack) bandwidth per stack", ge=0.001, le=10000)
    rx_gbs: float = F(40.0, "GB/s", "RX (stack -> GPU) bandwidth per stack", ge=0.001, le=10000)
    tx_latency_ns: float = F(8.0, "ns", "TX latency after the last bit is serialised", ge=0, le=1e6)
    rx_latency_ns: float = F(8.0, "ns", "RX latency after the last bit is serialised", ge=0, le=1e6)
    flit_bytes: int = F(16, "bytes", "flit size", ge=1, le=1024)
    request_flits: int = F(1, "flits", "read request (header and tail, no data)", ge=1, le=64)
    response_header_flits: int = F(1, "flits", "read response: flits besides its data flits", ge=0, le=64)
    write_header_flits: int = F(1, "flits", "write request: flits besides its data flits", ge=0, le=64)
    ack_flits: int = F(1, "flits", "write acknowledgement", ge=1, le=64)
    cross_stack: CrossLinksSpec | None = None


class LogicDieSpec(Spec):
    """SMs on a stack's logic die (direct vault access, no links): budgets recorded as metadata."""

    stack: int = F(0, "index", "the stack whose logic die holds the SMs", ge=0, le=63)
    area_budget_mm2_min: float = F(50.0, "mm^2", "logic-die area available, low end", ge=0, le=10000)
    area_budget_mm2_max: float = F(60.0, "mm^2", "logic-die area available, high end", ge=0, le=10000)
    power_budget_w: float = F(55.0, "W", "logic-die power limit", ge=0, le=10000)
    sm_area_mm2: float = F(0.0, "mm^2", "area of one SM (0: not stated)", ge=0, le=10000)
    l2_area_mm2: float = F(0.0, "mm^2", "area of the L2 and its logic (0: not stated)", ge=0, le=10000)
    cross_stack: CrossLinksSpec | None = Field(
        None, description="links from this stack to the others (timed): other stacks' vaults are reached over "
                          "them; null: the SMs reach only their own stack's vaults as if all were local")

    def area_mm2(self, num_sms: int, has_l2: bool) -> float:
        """Estimated area of the SMs (and L2) on the die."""
        return num_sms * self.sm_area_mm2 + (self.l2_area_mm2 if has_l2 else 0.0)


# ------------------------------------------------------------------------------------------------------
# machine


class Machine(Spec):
    """A whole GPU: the YAML tree of a preset mirrors these fields."""

    name: str = F("custom", "name", "machine name")
    description: str = F("", "text", "one-line description")
    clocks: ClockSpec = ClockSpec()
    core: CoreSpec = CoreSpec()
    l1d: L1Spec = L1Spec()
    l2: L2Spec | None = L2Spec(size_kb=64, assoc=8, sector_bytes=32, write_policy="write_back",
                               write_allocate=True)
    l1c: ConstCacheSpec = ConstCacheSpec()
    l1i: InstCacheSpec = InstCacheSpec()
    partition: PartitionSpec = PartitionSpec()
    icnt: IcntSpec = IcntSpec()
    dram: DramSpec = DramSpec()
    pcie: PcieSpec = PcieSpec()
    sim: SimSpec = SimSpec()
    energy: EnergySpec = EnergySpec()
    stacks: StacksSpec | None = None
    links: LinksSpec | None = None
    logic_die: LogicDieSpec | None = None
    mechanisms: dict[str, Any] = Field(
        default_factory=dict, json_schema_extra={"unit": "tree"},
        description="each mechanism's machine parameters under its name, a subtree validated by the spec the "
                    "mechanism registers (registry.register_machine_params; docs/extending.md) [tree]")

    @field_validator("mechanisms", mode="before")
    @classmethod
    def _mechanism_params(cls, value: Any) -> dict[str, Any]:
        if not value:
            return {}
        if not isinstance(value, dict):
            raise ValueError("mechanisms: expected a mapping of a mechanism's name to its parameters")
        out = {}
        for name, params in value.items():
            try:
                spec = registry.lookup(registry.MECHANISM_PARAMS, name)
            except registry.UnknownImplementation as e:
                raise ValueError(f"mechanisms.{name}: {e}") from None
            out[name] = params if isinstance(params, spec) else spec.model_validate(params or {})
        return out

    def mechanism(self, name: str) -> Any:
        """Mechanism ``name``'s machine parameters (``mechanisms.<name>``), or its spec's defaults where this
        machine sets none."""
        if name in self.mechanisms:
            return self.mechanisms[name]
        return registry.lookup(registry.MECHANISM_PARAMS, name)()

    @model_validator(mode="after")
    def _stacks_links(self) -> Machine:
        st, d = self.stacks, self.dram
        if st is not None:
            if d.scheduling_channels != st.count * st.vaults_per_stack:
                raise ValueError(f"stacks: {st.count} x {st.vaults_per_stack} vaults must equal the DRAM's "
                                 f"{d.scheduling_channels} (pseudo) channels")
            bus = d.bus_bits * d.data_rate * self.clocks.dram_mhz / 1000  # Gb/s per vault
            tsv = st.tsvs_per_vault * st.tsv_gbps
            if abs(bus - tsv) > 1e-6 * tsv:
                raise ValueError(f"stacks: a vault's bus (dram.bus_bits x data_rate x dram_mhz = {bus:g} Gb/s) must "
                                 f"equal its TSVs (tsvs_per_vault x tsv_gbps = {tsv:g} Gb/s)")
        if self.links is not None and st is None:
            raise ValueError("links: serial links need 'stacks' (which vaults sit behind each link)")
        if st is not None and st.sms_per_stack > 0 and self.links is None:
            raise ValueError("stacks.sms_per_stack: SMs in the stacks run blocks offloaded by a GPU behind serial "
                             "links; set 'links'")
        if self.logic_die is not None:
            if self.links is not None:
                raise ValueError("logic_die: SMs on a logic die reach the vaults directly; set links to null")
            if st is not None and self.logic_die.stack >= st.count:
                raise ValueError(f"logic_die.stack={self.logic_die.stack} outside the {st.count} stacks")
            if self.logic_die.cross_stack is not None and st is None:
                raise ValueError("logic_die.cross_stack: cross-stack links need 'stacks' (which vaults are remote)")
        return self

    @model_validator(mode="after")
    def _mesh_nodes(self) -> Machine:
        ic = self.icnt
        if ic.impl != "hmesh" and ic.hmesh is not None:
            raise ValueError("icnt.hmesh is set but icnt.impl is not 'hmesh'")
        if ic.impl == "hmesh":
            if ic.hmesh is None:
                raise ValueError("icnt.impl: hmesh needs an icnt.hmesh section (chips_x, chips_y, nodes_x, nodes_y, "
                                 "gateway)")
            if ic.mesh is not None or ic.butterfly is not None:
                raise ValueError("icnt.mesh / icnt.butterfly is set but icnt.impl is 'hmesh'")
            self._check_hmesh(ic.hmesh)
            return self
        if ic.impl != "butterfly" and ic.butterfly is not None:
            raise ValueError("icnt.butterfly is set but icnt.impl is not 'butterfly'")
        if ic.impl == "butterfly":
            bs = ic.butterfly
            if bs is None:
                raise ValueError("icnt.impl: butterfly needs an icnt.butterfly section (radix, stages, sm_nodes, "
                                 "llc_nodes)")
            if ic.mesh is not None:
                raise ValueError("icnt.mesh is set but icnt.impl is not 'mesh'")
            self._check_terminals("icnt.butterfly", bs, bs.terminals,
                                  f"the {bs.radix}-ary {bs.stages}-fly's {bs.terminals} terminals")
            return self
        if ic.impl != "mesh":
            if ic.mesh is not None:
                raise ValueError("icnt.mesh is set but icnt.impl is not 'mesh'")
            return self
        ms = ic.mesh
        if ms is None:
            raise ValueError("icnt.impl: mesh needs an icnt.mesh section (width, height, sm_nodes, llc_nodes)")
        self._check_terminals("icnt.mesh", ms, ms.width * ms.height, f"the {ms.width}x{ms.height} grid")
        return self

    def _check_hmesh(self, hs: HMeshSpec) -> None:
        """Every SM and every slice at a router 0 .. routers - 1 (several per router allowed), at most 55 per
        router (with the 8 mesh ports, 63 ports: the iSLIP allocator's grant mask is one int64)."""
        for name, nodes, count in (("sm_nodes", hs.sm_nodes, self.num_sms), ("llc_nodes", hs.llc_nodes,
                                                                               self.num_slices)):
            if nodes and len(nodes) != count:
                raise ValueError(f"icnt.hmesh.{name} has {len(nodes)} routers for {count} "
                                 f"{'SMs' if name == 'sm_nodes' else 'L2 slices'} (or leave it empty)")
            bad = [n for n in nodes if not 0 <= n < hs.routers]
            if bad:
                raise ValueError(f"icnt.hmesh.{name}: routers {bad} outside the {hs.routers} routers "
                                 f"({hs.chips_x}x{hs.chips_y} chips of {hs.nodes_x}x{hs.nodes_y})")
        local = hs.local_ports(self.num_sms, self.num_slices)
        if local > 55:
            raise ValueError(f"icnt.hmesh: a router holds {local} terminals; at most 55 are supported")

    def _check_terminals(self, where: str, spec: RouterNetSpec, count: int, what: str) -> None:
        """Every SM and every slice placed once, at distinct nodes (terminals) 0 .. count - 1."""
        if len(spec.sm_nodes) != self.num_sms:
            raise ValueError(f"{where}.sm_nodes has {len(spec.sm_nodes)} nodes for {self.num_sms} SMs")
        if len(spec.llc_nodes) != self.num_slices:
            raise ValueError(f"{where}.llc_nodes has {len(spec.llc_nodes)} nodes for {self.num_slices} L2 slices")
        nodes = list(spec.sm_nodes) + list(spec.llc_nodes)
        if len(nodes) > count:
            raise ValueError(f"{where}: {len(nodes)} SMs and L2 slices do not fit {what}")
        bad = [n for n in nodes if not 0 <= n < count]
        if bad:
            raise ValueError(f"{where}: nodes {bad} outside {what}")
        if len(set(nodes)) != len(nodes):
            raise ValueError(f"{where}: a node holds at most one SM or one L2 slice (placement repeats a node)")

    @model_validator(mode="after")
    def _cross(self) -> Machine:
        if self.l2 is not None and self.l2.set_index == "fermi":
            raise ValueError("l2.set_index=fermi: Fermi's hash indexes an L1's sets by whole-address bits; an L2 "
                             "slice takes linear or xor")
        if self.l2 is not None and self.l2.line_bytes != self.l1d.line_bytes:
            raise ValueError(f"l2.line_bytes={self.l2.line_bytes} must equal l1d.line_bytes={self.l1d.line_bytes}")
        if self.const_cache_on and self.l1c.line_bytes > self.l1d.line_bytes:
            raise ValueError(f"l1c.line_bytes={self.l1c.line_bytes} exceeds l1d.line_bytes={self.l1d.line_bytes}: a "
                             "constant miss reads one line of the L2 (whose line is the L1D's)")
        if self.inst_cache_on:
            if self.core.ibuffer < 1:
                raise ValueError("l1i.enabled needs core.ibuffer >= 1: the instruction cache is looked up by the "
                                 "fetch stage, which an ideal front end (ibuffer 0) does not have")
            if self.l1i.line_bytes > self.l1d.line_bytes:
                raise ValueError(f"l1i.line_bytes={self.l1i.line_bytes} exceeds l1d.line_bytes="
                                 f"{self.l1d.line_bytes}: a miss reads one line of the L2 (whose line is the L1D's)")
        d = self.dram
        bits = d.mapping.field_bits()
        need = {"B": d.banks_per_group, "G": d.bank_groups,
                "P": self.l2.slices_per_channel if self.l2 is not None else 1}
        for letter, count in need.items():
            if (1 << len(bits[letter])) != count:
                raise ValueError(
                    f"dram.mapping.fields has {len(bits[letter])} '{letter}' bits but the machine has {count} "
                    f"(needs {int(math.log2(count)) if count & (count - 1) == 0 else 'a power of two'})")
        row_bits = len(bits["C"]) + len(bits["X"])
        if (1 << row_bits) != d.row_bytes:
            raise ValueError(f"dram.mapping.fields: C+X bits ({row_bits}) must address one row of {d.row_bytes} B")
        if (1 << len(bits["X"])) < ATOM_BYTES:
            raise ValueError(f"dram.mapping.fields needs at least {int(math.log2(ATOM_BYTES))} X bits")
        return self

    @property
    def num_sms(self) -> int:
        return self.core.num_sms

    @property
    def rop_latency(self) -> int:
        """The memory partition's ROP delay (L2 cycles) on every request into it: ``partition.rop_latency``,
        else ``l2.rop_latency`` (an L2 enabled or not), else 0."""
        if self.partition.rop_latency is not None:
            return self.partition.rop_latency
        return self.l2.rop_latency if self.l2 is not None else 0

    @property
    def const_cache_on(self) -> bool:
        """Whether constant loads use the constant cache (``l1c``): enabled, on the engine's own SMs."""
        return self.l1c.enabled and self.core.model == "gpu"

    @property
    def inst_cache_on(self) -> bool:
        """Whether fetches look up the instruction cache (``l1i``): enabled, on the engine's own SMs."""
        return self.l1i.enabled and self.core.model == "gpu"

    @property
    def params_in_const_cache(self) -> bool:
        """Whether ``ld.param`` reads the constant cache (``l1c.kernel_params``, with the constant cache on)."""
        return self.l1c.kernel_params and self.const_cache_on

    @property
    def num_stack_sms(self) -> int:
        """SMs inside the memory stacks (they follow the GPU's SMs in the engine's numbering)."""
        return self.stacks.count * self.stacks.sms_per_stack if self.stacks is not None else 0

    @property
    def num_slices(self) -> int:
        per = self.l2.slices_per_channel if self.l2 is not None else 1
        return self.dram.scheduling_channels * per

    def config_hash(self) -> str:
        """A stable hash of the full configuration (defaults included), independent of library versions."""
        tree = self.model_dump(mode="json")
        if tree["core"].get("model") == "gpu":  # the default core model leaves every earlier machine's hash as it was
            del tree["core"]["model"]
        if tree["core"]["cta_dispatch"].get("refill") == "continuous":  # as is the default CTA refill
            del tree["core"]["cta_dispatch"]["refill"]
        if tree["partition"].get("perfect_latency", 0) is None:  # and the real memory system
            del tree["partition"]["perfect_latency"]
        if not tree["core"]["fetch_at_barrier"]:  # and a fetch stage that skips warps at a barrier
            del tree["core"]["fetch_at_barrier"]
        if not tree["core"]["branch_refetch"]:  # and a fetch that stops at a taken branch
            del tree["core"]["branch_refetch"]
        if not tree["core"]["result_buses"]:  # and no writeback hazard
            del tree["core"]["result_buses"]
        if not tree["core"]["mem_queue"]:  # and no memory instruction issued past a busy LD/ST unit
            del tree["core"]["mem_queue"]
        if tree.get("l2") and not tree["l2"].get("lazy_fetch_on_read", True):  # and every written sector readable
            del tree["l2"]["lazy_fetch_on_read"]
        # and the crossbar's one round-robin pointer (a router network ignores the field: its hash keeps it out)
        if tree["icnt"].get("allocator") == "round_robin" or tree["icnt"]["impl"] != "crossbar":
            del tree["icnt"]["allocator"]
        # and no output buffer at a crossbar's destination ports (a router network ignores the field)
        if not tree["icnt"].get("output_buffer") or tree["icnt"]["impl"] != "crossbar":
            del tree["icnt"]["output_buffer"]
        if tree["core"].get("latency_table") == "machine":  # and every opcode timed by its rule or class
            del tree["core"]["latency_table"]
        if not tree["core"]["scheduler_rotation"]:  # and scheduler 0 first every cycle
            del tree["core"]["scheduler_rotation"]
        if not tree["core"]["cta_dispatch"]["carry_round_robin"]:  # and every launch's round robin from SM 0
            del tree["core"]["cta_dispatch"]["carry_round_robin"]
        if tree["core"]["cta_dispatch"].get("first_sm") == 0:  # and the first CTA on SM 0
            del tree["core"]["cta_dispatch"]["first_sm"]
        if not tree["core"]["mem_writeback_port"]:  # and memory results written back any number a cycle
            del tree["core"]["mem_writeback_port"]
        if not tree["core"]["atomic_wait"]:  # and warps that wait on an atomic only for its result
            del tree["core"]["atomic_wait"]
        if not tree["l1d"]["read_miss_slack"]:  # and a load miss that needs only its own miss-queue entry
            del tree["l1d"]["read_miss_slack"]
        if not tree["core"]["atomic_segment_bytes"] and tree["core"]["atomic_warp_parts"] == 1:  # and atomics
            del tree["core"]["atomic_segment_bytes"], tree["core"]["atomic_warp_parts"]  # coalesced by line
        if not tree["l1i"]["enabled"]:  # and the ideal instruction cache
            del tree["l1i"]
        if not tree["l1c"]["kernel_params"] and tree["l1c"]["param_base"] == 0:  # and ld.param at a fixed latency
            del tree["l1c"]["kernel_params"], tree["l1c"]["param_base"]
        if not tree["l1c"]["keep_across_launches"]:  # and the constant cache invalidated at each launch
            del tree["l1c"]["keep_across_launches"]
        if not tree["sim"]["drain_memory"]:  # and a launch that ends with its last CTA
            del tree["sim"]["drain_memory"]
        if not tree["dram"]["partition_queue"]:  # and an L2 miss in the scheduler's queue from its arrival
            del tree["dram"]["partition_queue"]
        if tree["l2"] is not None and not tree["l2"]["write_miss_fetch"]:  # and an L2 write miss without a fetch
            del tree["l2"]["write_miss_fetch"]
        if tree["l2"] is not None and not tree["l2"]["input_queue"]:  # and a slice bounded by its queues alone
            del tree["l2"]["input_queue"], tree["l2"]["input_queue_room"]
        if tree["l2"] is not None and not tree["l2"]["sector_acks"]:  # and one acknowledgement per write
            del tree["l2"]["sector_acks"]
        if tree["l2"] is not None and not tree["l2"]["sector_mshrs"]:  # and one outstanding miss a line
            del tree["l2"]["sector_mshrs"]
        if tree["l2"] is not None and not tree["l2"]["sector_replies"]:  # and a reply in one packet
            del tree["l2"]["sector_replies"]
        if not tree["mechanisms"]:  # and no mechanism's machine parameters
            del tree["mechanisms"]
        sim, default_sim = tree["sim"], SimSpec().model_dump(mode="json")
        if not sim["sample_waves"] and not sim["sample_launches"] and not sim["sample_stable_window"]:
            # and every launch timed in full
            for key in ("sample_waves", "sample_min_waves", "sample_launches", "sample_launch_tolerance"):
                if sim[key] == default_sim[key]:
                    del sim[key]
        if not sim["sample_stable_window"]:  # hashes from before the fields existed
            for key in ("sample_stable_window", "sample_stable_tolerance", "sample_stable_min_insts"):
                if sim[key] == default_sim[key]:
                    del sim[key]
        from .confighash import config_hash

        return config_hash(tree)

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.model_dump(mode="json"), sort_keys=False)


# the loading names, from their module on first use (``from ndpgpu.timing.spec import load_machine`` keeps working)
__getattr__ = lazy_getattr("ndpgpu.timing", {n: "presets" for n in (
    "PRESET_DIR", "MECHANISMS_DIR", "OVERLAY_DIR", "MachineDefaultsWarning", "defaulted_fields", "preset_files",
    "overlay_files", "list_overlays", "list_machines", "apply_overrides", "load_machine")}
    | {"config_hash": "confighash", "HASH_SCHEMA": "confighash"}, globals())
