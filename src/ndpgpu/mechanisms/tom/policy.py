"""TOM as a session policy: ``tom:<control>+<mapping>[,key=value...]`` (``ndpgpu.mechanisms.policy``).

* control: ``gpu`` (no offloading; the baseline and the mapping-only studies), ``always`` (no-ctrl),
  ``ctrl`` (dynamic control), ``ideal`` (the paper's bound, section 2: free offload packets, every stack-SM access
  local, no busy control and no pending limit, on the machine's own stack SMs),
  ``ideal-limited`` (ideal with the pending limit kept);
* mapping: ``bmap`` (G14 baseline XOR mapping everywhere), ``tmap`` (the mapping learned from the first
  0.1% of candidate instances, on the application allocations they touched; the rest keeps ``bmap``, and
  so does everything when every mapping scores the same), ``oracle`` (the mapping with the best
  co-location, every instance seen, on the allocations any instance touched);
* keys: ``threshold`` (busy monitor, G4), ``window`` (cycles), ``pending`` (pending-offload limit as a
  multiple of the stack SMs' warp capacity, G5), ``learn`` (learning fraction, G11), ``pcie_ns`` (the
  latency a learning-phase access adds by going to host memory over PCI-E, G11: 1000), ``score`` (the
  learning's score: ``first_stack``, TOM's step 4, or ``one_stack``, G12), ``local`` (1: the launches'
  local-memory windows can be remapped too; default 0, only the application's allocations, section 4.3
  step 3), ``coherence`` (0: none of section 4.4.2's three coherence steps, to measure their cost; default
  1), ``uniform`` (1: warp-uniform live-ins, such as launch constants, ``%ctaid`` and parameters, count once
  per warp in the cost model and travel once per offload request, ``CostParams.uniform_live_ins``; a
  refinement the paper's model does not have; default 0, the paper's model).

``prepare`` finds the candidates of the recording's kernels, their instances in each launch, learns the
mapping (instances in dispatch order: the first instance of every warp of the first launch, then the
second, ...; the functional run knows no time, so this stands for "first in time"), maps the address space
and attaches the offload plan. The learning phase's instances run on the GPU, and the learned mapping
applies from cycle 0, so ``kernel.cycles`` holds no cost of the learning phase. TOM charges only one
(section 5.1): "all memory accesses in the learning phase are modeled with the measured PCI-E bus latency"
(the data still sits in host memory); the copy that follows is the baseline's, only delayed, "so there is no
extra data remapping overhead" (section 3.2.3). :func:`learning_charge` computes that latency on the learning
phase's critical path and the policy reports it as ``tom.learning.charged_cycles`` (with
``tom.learning.waits`` and ``tom.learning.launches``); the reproduction adds it to ``kernel.cycles`` for
its charged speedups (docs/tom.md, "The learning phase").
"""

from __future__ import annotations

# isort: off
from ndpgpu import _numba_cache  # noqa: F401  (first: numba's cache stamps, before anything is decorated)
# isort: on
import dataclasses
from typing import Any

import numba as nb
import numpy as np

from ...timing.policies import ParityMapping
from ...trace.coalesce import coalesce_trace
from ...trace.format import MEM_ATOMIC, MEM_LOAD, SPACE
from ..policy import PolicyError, PolicyGrammar, SessionPolicy, Setting, register_policy
from .candidates import CandidateTable
from .config import TomConfig
from .cost import DEFAULT_PARAMS, CostParams
from .instances import I_OFF1, I_ORDINAL, I_SEG1, I_WARP, BlockInstances, _ranges
from .mapping import BASELINE, TOM_MAPPINGS, Instances, MemoryMapAnalyzer, StackMapping
from .plan import TomOffload
from .unit import STABLE_DECLINED, BlockOffloadHardware

CONTROL_NAMES = ("gpu", "always", "ctrl", "ideal", "ideal-limited")
MAPPING_NAMES = ("bmap", "tmap", "oracle")
ADDRESS_SPACE = 1 << 48


@dataclasses.dataclass(frozen=True)
class TomPolicySpec:
    control: str = "ctrl"
    mapping: str = "tmap"
    threshold: float = 0.8
    window: int = 1000
    pending: float = 1.0
    learn: float = 0.001
    pcie_ns: float = 1000.0
    score: str = "first_stack"
    local: int = 0
    coherence: int = 1
    uniform: int = 0

    @classmethod
    def parse(cls, spec: str) -> TomPolicySpec:
        """``control+mapping[,key=value...]`` (:data:`GRAMMAR`) -> the spec; PolicyError on a bad one."""
        parsed = GRAMMAR.parse(spec)
        if len(parsed.switches) != 1:
            raise PolicyError(f"tom:{spec}: expected {GRAMMAR.usage()}: one mapping after the control")
        return cls(control=parsed.head, mapping=parsed.switches[0], **parsed.settings)


def _flag(value: str) -> int:
    if value not in ("0", "1"):
        raise ValueError("0 or 1")
    return int(value)


GRAMMAR = PolicyGrammar("tom", heads=CONTROL_NAMES, switches=MAPPING_NAMES, settings=(
    Setting("threshold", float), Setting("window"), Setting("pending", float), Setting("learn", float),
    Setting("pcie_ns", float), Setting("score", ("first_stack", "one_stack")), Setting("local", _flag),
    Setting("coherence", _flag), Setting("uniform", _flag)),
    form=f"tom:<control>+<mapping>[,key=value...] with control in {', '.join(CONTROL_NAMES)} and mapping in "
         f"{', '.join(MAPPING_NAMES)}")


def parity(mapping: StackMapping) -> ParityMapping:
    """The engine's descriptor of ``mapping``: channel = stack x vaults-per-stack + vault."""
    return ParityMapping(tuple(mapping.vault_masks) + tuple(mapping.stack_masks), tuple(mapping.bank_masks),
                         mapping.row_mask)


def candidate_tables(source: Any, params: CostParams = DEFAULT_PARAMS) -> dict[str, CandidateTable]:
    """The candidate table of every kernel of a recording's module (or of a registered workload, by name),
    compiled as it runs, priced with ``params``."""
    from types import SimpleNamespace

    from ..analyze import recording_module
    from .cli import analyze_module

    recording = SimpleNamespace(workload=source) if isinstance(source, str) else source
    return {t.kernel: t for t in analyze_module(recording_module(recording), params=params)}


def analyzer_instances(per_launch: list[BlockInstances]) -> tuple[Instances, list[tuple[int, np.ndarray]]]:
    """All launches' instances in dispatch order, and for each of them its (launch, instance index)."""
    starts, chunks, cands, owner = [0], [], [], []
    for li, inst in enumerate(per_launch):
        if not len(inst):
            continue
        order = np.lexsort((inst.table[:, I_WARP], inst.table[:, I_ORDINAL]))
        for i in order:
            seg = inst.lines[inst.lines_start[i]:inst.lines_start[i + 1]]
            chunks.append(seg)
            starts.append(starts[-1] + len(seg))
            cands.append(inst.table[i, 1])
        owner.append((li, order))
    lines = np.concatenate(chunks).astype(np.uint64) if chunks else np.zeros(0, np.uint64)
    return Instances(np.array(starts, np.int64), lines, np.array(cands, np.int64)), owner


def allocation_table(recording: Any, traces: list[Any], local: bool = True) -> np.ndarray:
    """(start, length) of every device allocation and, with ``local``, of each launch's local-memory window."""
    rows = [(int(a["addr"]), int(a["bytes"])) for a in getattr(recording, "allocations", []) if a["bytes"] > 0]
    for tr in traces if local else ():
        L = tr.launch
        if L.local_bytes_per_thread:
            per_warp = -(-L.local_bytes_per_thread * 32 // 128) * 128
            rows.append((int(L.local_base), per_warp * tr.num_warps))
    rows = sorted(set(rows))
    merged: list[tuple[int, int]] = []
    for s, n in rows:  # local windows of several launches coincide: keep one range per address span
        if merged and s < merged[-1][0] + merged[-1][1]:
            ps, pn = merged[-1]
            merged[-1] = (ps, max(ps + pn, s + n) - ps)
        else:
            merged.append((s, n))
    return np.array(merged, np.int64).reshape(-1, 2)


# the memory records whose data sits in memory, i.e. in host memory during the learning phase (shared memory
# never does; a record with no active lane makes no access); generic records as the recording resolved them
_HOST_SPACES = (SPACE["global"], SPACE["local"], SPACE["generic"], SPACE["const"])


@dataclasses.dataclass(frozen=True)
class LearningCharge:
    """The learning phase's PCI-E latency (:func:`learning_charge`)."""

    waits: int  # accesses whose PCI-E latency the critical path waits for, one per wait
    launches: int  # launches the learning phase spans (up to the last one that holds a learning instance)
    cycles: float  # waits x pcie_ns, in core cycles


@nb.njit(cache=True)
def _waits(seg_pc, seg_cnt, wseg, rec_pc, wrec, access, dst, src, warps, stop_seg, stop_off, nreg):
    """Per warp of ``warps``: how often it waits for an access in flight, from its first instruction up to
    (``stop_seg``, ``stop_off``), exclusive (``stop_seg`` -1: to its end). An access (a load or atomic that
    returns a value) marks its destination registers in flight; the first instruction that reads or writes one
    of them waits, and every access issued before it has then returned (they left together, each with the
    same latency). Stores are not waited for. An access still in flight at the end counts as one wait."""
    out = np.zeros(len(warps), np.int64)
    mark = np.zeros(nreg, np.int64)  # register r is in flight when mark[r] == epoch
    for k in range(len(warps)):
        w = warps[k]
        epoch = 2 * k + 2  # fresh marks per warp
        inflight = False
        waits = 0
        ri = wrec[w]
        rend = wrec[w + 1]
        done = False
        for si in range(wseg[w], wseg[w + 1]):
            n = seg_cnt[si]
            if si == stop_seg[k]:
                n = stop_off[k]
                done = True
            for off in range(n):
                pc = seg_pc[si] + off
                if inflight:
                    hit = False
                    for j in range(src.shape[1]):
                        r = src[pc, j]
                        if r >= 0 and mark[r] == epoch:
                            hit = True
                    for j in range(dst.shape[1]):
                        r = dst[pc, j]
                        if r >= 0 and mark[r] == epoch:
                            hit = True
                    if hit:
                        waits += 1
                        epoch += 2 * len(warps)  # every access in flight has returned
                        inflight = False
                if ri < rend and rec_pc[ri] == pc:
                    if access[ri]:
                        for j in range(dst.shape[1]):
                            r = dst[pc, j]
                            if r >= 0:
                                mark[r] = epoch
                                inflight = True
                    ri += 1
            if done:
                break
        out[k] = waits + (1 if inflight else 0)
    return out


def host_accesses(trace: Any, line_bytes: int = 128) -> np.ndarray:
    """Per memory record of ``trace``: whether it is an access to memory that returns a value: a load or
    atomic, with an active lane, in a space held in memory (global, local, const), that touches a line its
    warp has not loaded before in this launch. A line the warp loaded before is served by its caches, so only
    a warp's first load of each line reaches memory (no capacity misses assumed: never a hit charged)."""
    mem = trace.mem
    access = (np.isin(mem["space"].astype(np.int64), _HOST_SPACES) & (mem["mask"] != 0)
              & ((mem["flags"] & (MEM_LOAD | MEM_ATOMIC)) != 0))
    idx = np.flatnonzero(access)
    if not len(idx):
        return access
    co = coalesce_trace(trace, line_bytes)
    ntx = co.rec_ntx[idx].astype(np.int64)
    lines = co.tx_line[_ranges(co.rec_tx_start[idx].astype(np.int64), ntx)].astype(np.int64)
    owner = np.repeat(idx, ntx)  # in record order: a warp's records in program order
    key = (mem["warp"][owner].astype(np.int64) << 41) | (lines >> 7)  # (warp, line); lines < 2^48
    _, first = np.unique(key, return_index=True)  # each (warp, line)'s first load
    new = np.zeros(len(mem), bool)
    new[owner[first]] = True
    return access & new


def warp_waits(trace: Any, warps: np.ndarray, stop_seg: np.ndarray | None = None,
               stop_off: np.ndarray | None = None) -> np.ndarray:
    """How many times each of ``warps`` waits for a host-memory access (see ``_waits``), up to the stream
    positions (``stop_seg``, ``stop_off``) or, without them, to the warp's end."""
    warps = np.asarray(warps, np.int64)
    if stop_seg is None or stop_off is None:
        stop_seg, stop_off = np.full(len(warps), -1, np.int64), np.zeros(len(warps), np.int64)
    mem, static = trace.mem, trace.static
    access = host_accesses(trace)
    dst, src = static["dst"].astype(np.int64), static["src"].astype(np.int64)
    nreg = int(max(dst.max(initial=-1), src.max(initial=-1))) + 1
    seg = trace.segments
    return _waits(seg["pc"].astype(np.int64), seg["count"].astype(np.int64),
                  np.asarray(trace.warp_seg_start, np.int64), mem["pc"].astype(np.int64),
                  np.asarray(trace.warp_mem_start, np.int64), access.astype(np.bool_), dst, src, warps,
                  np.asarray(stop_seg, np.int64), np.asarray(stop_off, np.int64), max(nreg, 1))


def learning_charge(traces: list[Any], per_launch: list[BlockInstances], learning: dict[int, np.ndarray],
                    pcie_ns: float, core_mhz: float) -> LearningCharge:
    """The learning phase's cost as TOM charges it (section 5.1: "all memory accesses in the learning phase are
    modeled with the measured PCI-E bus latency"; section 3.2.3: "no extra data remapping overhead"): every
    access to memory (:func:`host_accesses`: a warp's first load of a line) on the phase's critical path pays
    ``pcie_ns`` where the warp waits for it (:func:`warp_waits`: loads in flight together wait once, stores
    are not waited for), and nothing else (no copy, no bandwidth). ``kernel.cycles`` already holds these
    accesses at the GPU memory's latency; ``pcie_ns`` is what going to host memory adds to each (G11).

    ``learning``: launch index -> the indices (into ``per_launch[li]``) of its learning instances. The phase
    runs from the first launch until the last learning instance ends: each launch before the last one that
    holds a learning instance runs whole inside it (its longest warp's waits), and in that last launch the
    phase ends with the slowest learning warp (its waits from its first instruction to the end of its last
    learning instance). Warps of one launch run side by side, launches one after the other."""
    if not learning:
        return LearningCharge(0, 0, 0.0)
    last = max(learning)
    waits = 0
    for li in range(last + 1):
        tr = traces[li]
        if li < last:
            waits += int(warp_waits(tr, np.arange(tr.num_warps)).max(initial=0))
            continue
        t = per_launch[li].table[learning[li]]
        ends: dict[int, tuple[int, int]] = {}  # warp -> its last learning instance's end (segment, offset)
        for w, s1, o1 in zip(t[:, I_WARP], t[:, I_SEG1], t[:, I_OFF1], strict=True):
            ends[int(w)] = max(ends.get(int(w), (-1, 0)), (int(s1), int(o1)))
        warps = np.array(sorted(ends), np.int64)
        stop = np.array([ends[int(w)] for w in warps], np.int64).reshape(-1, 2)
        waits += int(warp_waits(tr, warps, stop[:, 0], stop[:, 1]).max(initial=0))
    return LearningCharge(waits, last + 1, waits * pcie_ns * core_mhz / 1000.0)


class TomPolicy(SessionPolicy):
    """One TOM configuration applied to a recording (see the module docstring)."""

    def __init__(self, spec: TomPolicySpec) -> None:
        self.spec = spec
        self._rows: list[tuple[str, str, float, str]] = []

    def prepare(self, session: Any, recording: Any, traces: list[Any]) -> None:
        sp = self.spec
        machine = session.machine
        params = dataclasses.replace(DEFAULT_PARAMS, uniform_live_ins=bool(sp.uniform))
        tables = candidate_tables(recording, params)
        config = TomConfig(control=sp.control if sp.control != "gpu" else "ctrl", busy_threshold=sp.threshold,
                           busy_window_cycles=sp.window, pending_factor=sp.pending, coherence=bool(sp.coherence),
                           cost=params)
        offload = TomOffload(tables, config)
        per_launch = [offload.instances(tr)[1] for tr in traces]
        inst, owner = analyzer_instances(per_launch)
        allocs = allocation_table(recording, traces, local=bool(sp.local))
        put = self._put
        put("tom", "candidates", sum(len(t.candidates) for t in tables.values()), "blocks")
        put("tom", "max_candidates_per_kernel", max((len(t.candidates) for t in tables.values()), default=0), "blocks")
        put("tom", "max_live_regs", max((c.live_regs for t in tables.values() for c in t.candidates), default=0),
            "registers")
        put("tom", "instances", len(inst), "instances")
        analyzer = MemoryMapAnalyzer(TOM_MAPPINGS)
        mapping_lo: list[tuple[int, int, StackMapping]] = []
        if len(inst):
            learned = analyzer.learn(inst, sp.learn, which=sp.score, allocations=allocs)
            oracle = analyzer.oracle(inst, allocations=allocs)  # the best co-location (Fig. 6)
            put("tom.colocation", "baseline", MemoryMapAnalyzer.colocation(inst, BASELINE), "fraction")
            put("tom.colocation", "learned", MemoryMapAnalyzer.colocation(inst, learned.mapping), "fraction")
            put("tom.colocation", "oracle", MemoryMapAnalyzer.colocation(inst, oracle.mapping), "fraction")
            for frac in (0.005, 0.01):  # Fig. 6's longer learning phases
                longer = analyzer.learn(inst, frac, which=sp.score, allocations=allocs)
                put("tom.colocation", f"learned_{frac:g}", MemoryMapAnalyzer.colocation(inst, longer.mapping),
                    "fraction")
            put("tom.mapping", "learned_start_bit", float(learned.start_bit), "bit")  # -1: baseline kept
            put("tom.mapping", "oracle_start_bit", float(oracle.start_bit), "bit")
            for m, v in zip(analyzer.mappings, learned.scores, strict=True):
                put("tom.mapping.scores", f"s{m.start_bit}", float(v), "accesses" if sp.score == "first_stack"
                    else "instances")
            chosen = {"tmap": learned, "oracle": oracle}.get(sp.mapping)
            if chosen is not None and chosen.mapping is not None:
                for (s, n), flag in zip(allocs, chosen.offload, strict=True):
                    if flag:
                        mapping_lo.append((int(s), int(s + n), chosen.mapping))
            if chosen is not None:
                put("tom.mapping", "remapped_bytes", float(sum(h - lo for lo, h, _ in mapping_lo)), "bytes")
                put("tom.colocation", "applied", MemoryMapAnalyzer.colocation(
                    inst, chosen.mapping, [(lo, h) for lo, h, _ in mapping_lo]), "fraction")
            if sp.mapping == "tmap":
                self._learning_phase(offload, learned.n_learn, owner, per_launch, traces, machine)
        elif sp.mapping == "tmap":  # no candidate instance: nothing to learn or remap, no learning phase
            for metric, unit in (("instances", "instances"), ("launches", "launches"), ("waits", "accesses"),
                                 ("charged_cycles", "cycles")):
                put("tom.learning", metric, 0.0, unit)
        for lo, hi, mp in mapping_lo:
            session.map_range(lo, hi, parity(mp))
        session.map_range(0, ADDRESS_SPACE, parity(BASELINE))
        if sp.control != "gpu":
            session.attach(BlockOffloadHardware(offload))

    def _learning_phase(self, offload: TomOffload, n_learn: int, owner: list[tuple[int, np.ndarray]],
                        per_launch: list[BlockInstances], traces: list[Any], machine: Any) -> None:
        """The first ``n_learn`` instances run on the GPU with data in host memory (section 4.3); their PCI-E
        latency is charged by :func:`learning_charge`."""
        left = n_learn
        learning: dict[int, np.ndarray] = {}
        for li, order in owner:
            take = order[:left]
            if len(take):
                offload.learning[int(traces[li].launch.launch_id)] = take
                learning[li] = take
            left -= len(take)
            if left <= 0:
                break
        charge = learning_charge(traces, per_launch, learning, self.spec.pcie_ns, machine.clocks.core_mhz)
        self._put("tom.learning", "instances", n_learn, "instances")
        self._put("tom.learning", "launches", charge.launches, "launches")
        self._put("tom.learning", "waits", charge.waits, "accesses")
        self._put("tom.learning", "charged_cycles", charge.cycles, "cycles")

    def _put(self, path: str, metric: str, value: float, unit: str) -> None:
        self._rows.append((path, metric, float(value), unit))

    def rows(self) -> list[tuple[str, str, float, str]]:
        return list(self._rows)

    def may_decline_sampling(self, kind: str) -> str | None:
        if kind == "stable":
            return STABLE_DECLINED
        return None


# the words of a tom: spec, for "did you mean" suggestions
@register_policy(GRAMMAR)
def make_tom_policy(spec: str) -> TomPolicy:
    return TomPolicy(TomPolicySpec.parse(spec))
