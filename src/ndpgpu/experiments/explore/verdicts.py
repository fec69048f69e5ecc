"""Static verdicts: what each mechanism's compiler analysis says of the kernel before anything is timed.

One :class:`Verdict` per mechanism: whether its analysis finds anything to act on, a one-line summary, and the
rules that rejected the kernel's code, each with the CUDA source line where the PTX has line info.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable
from typing import Any


@dataclasses.dataclass
class Verdict:
    """A mechanism's static verdict on a module's launched kernels."""

    mechanism: str
    applies: bool
    summary: str
    rules: list[str] = dataclasses.field(default_factory=list)  # "reason (at k.cu:12 `text`)", most frequent first
    numbers: dict[str, float] = dataclasses.field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def where(module: Any, ptx_line: int | None) -> str:
    """``k.cu:12 `text``` for a PTX line, or ``PTX line N`` where there is no line info."""
    if ptx_line is None:
        return ""
    try:
        src = module.source_line(int(ptx_line))
    except Exception:  # a module given as PTX text, or a line outside it
        src = None
    return str(src) if src is not None else f"PTX line {ptx_line}"


def _ranked(items: list[tuple[str, str]], limit: int = 4) -> list[str]:
    """Distinct reasons, most frequent first, each with the first place it was found."""
    counts = Counter(reason for reason, _ in items)
    first: dict[str, str] = {}
    for reason, place in items:
        first.setdefault(reason, place)
    return [f"{r} (x{n}, first at {first[r]})" if n > 1 else f"{r} (at {first[r]})"
            for r, n in counts.most_common(limit)]


def _short(reason: str) -> str:
    """A rejection reason without its instance-specific tail (line numbers, operands) for grouping."""
    return reason.split(" at PTX line")[0].split(" (")[0].strip()


def _tom_reason(reason: str) -> str:
    """TOM's cost test in words (its rule: offload when the saved bandwidth BW_TX + BW_RX is negative)."""
    if reason.startswith("BW_TX"):
        return f"saves no link bandwidth: moving its live registers costs more than its loads and stores ({reason})"
    return _short(reason)


def tom(module: Any, kernels: list[str]) -> Verdict:
    from ...mechanisms.tom.cli import analyze_module

    tables = analyze_module(module, kernels)
    n = sum(len(t.candidates) for t in tables)
    bodies = {t.kernel: module.ir.functions[t.kernel].body for t in tables}
    rejected = [(_tom_reason(r.reason), where(module, bodies[t.kernel][min(r.begin, len(bodies[t.kernel]) - 1)].line))
                for t in tables for r in t.rejected if bodies[t.kernel]]
    rejected.sort(key=lambda x: not x[0].startswith("saves no"))  # the cost rule first: it is TOM's own test
    summary = (f"{n} offload candidate block(s) whose memory traffic exceeds their live registers' cost"
               if n else "no block saves link bandwidth by moving to the memory stacks")
    return Verdict("tom", n > 0, summary, _ranked(rejected), {"candidates": n, "rejected": len(rejected)})


def llc(module: Any, kernels: list[str]) -> Verdict:
    from ...mechanisms.llc.cli import analyze_module

    tables = analyze_module(module, kernels)
    chains = [c for t in tables for c in t.chains]
    patterns = sorted({c.pattern for c in chains})
    rejected = [(_short(r.reason), where(module, r.line)) for t in tables for r in t.rejected]
    omni = all(t.omni_allowed for t in tables)
    summary = (f"{len(chains)} load-compute-store chain(s), Table 1 pattern(s) {', '.join(map(str, patterns))}"
               + ("" if omni else "; Omni-Compute refused: the kernel's shared memory leaves no room for its queues")
               if chains else "no load-compute-store chain to compute at the LLC")
    rules = _ranked(rejected) or ([] if chains else [
        "no global load feeds an operation whose result is stored to global memory (none of Table 1's nine "
        "load-compute-store patterns has a root)"])
    return Verdict("llc", bool(chains), summary, rules,
                   {"chains": len(chains), "rejected": len(rejected), "omni_allowed": float(omni)})


def teleport(module: Any, kernels: list[str]) -> Verdict:
    from ...mechanisms.teleport.classify import classify_reads

    reads = [r for k in kernels for r in classify_reads(module.ir.functions[k])]
    usable = [r for r in reads if r.usable]
    classes = Counter(r.cls for r in reads)
    rejected = [(f"{r.cls} index: not precalculable" if r.cls not in ("static", "quasi-static") else
                 "precalculable but of %ctaid degree > 1 or on no single array", where(module, r.line))
                for r in reads if not r.usable]
    summary = (f"{len(usable)} of {len(reads)} global read(s) precalculable (classes: "
               + ", ".join(f"{k} {v}" for k, v in sorted(classes.items())) + ")") if reads else "no global read"
    rules = _ranked(rejected) or ([] if usable else ["no global read: nothing for a thread block to preload"])
    return Verdict("teleport", bool(usable), summary, rules,
                   {"reads": len(reads), "precalculable": len(usable)})


def mpu(module: Any, kernels: list[str]) -> Verdict:
    from ...mechanisms.mpu.locations import annotate

    tables = [annotate(module.ir.functions[k]) for k in kernels]
    hints = [h for t in tables for h in t.hints]
    near = sum(h == "nb" for h in hints)
    split = Counter(label for t in tables for label in t.registers.values())
    total_regs = sum(split.values()) or 1
    share = near / max(1, len(hints))
    summary = (f"{near} of {len(hints)} instruction(s) annotated near-bank ({share:.0%}); registers "
               + ", ".join(f"{k} {v / total_regs:.0%}" for k, v in sorted(split.items())))
    rules = [] if near else ["no instruction's operands live in near-bank registers: every ALU operation stays "
                             "on the base die (location annotation)"]
    return Verdict("mpu", near > 0, summary, rules, {"near_instructions": near, "instructions": len(hints),
                                                     "near_share": share})


def ipndp(module: Any, kernels: list[str], launches: list[Any], workload: str) -> Verdict:
    two_d = [tr for tr in launches if tr.grid[1] > 1 or tr.block[1] > 1]
    if workload.startswith("ipndp_"):
        return Verdict("ipndp", True, "an IP-NDP image kernel: the prefetch table comes from its image shapes")
    if two_d:
        tr = two_d[0]
        return Verdict("ipndp", True, f"a 2-D launch (grid {tuple(tr.grid)}, block {tuple(tr.block)}): treated as "
                       f"an image {tr.grid[0] * tr.block[0]} elements wide for the boundary-aware prefetcher")
    tr = launches[0] if launches else None
    width = tr.grid[0] * tr.block[0] if tr is not None else 0
    return Verdict("ipndp", False, f"a 1-D launch: no image rows; the prefetcher sees one row of {width} elements",
                   ["no 2-D image traversal (gridDim.y = blockDim.y = 1): the boundary-aware prefetcher has no row "
                    "boundary to jump and pattern-aware CTA allocation needs the kernel rewritten (grid = SMs)"])


STATIC: dict[str, Callable[..., Verdict]] = {"tom": tom, "llc": llc, "teleport": teleport, "mpu": mpu}


def all_verdicts(module: Any, kernels: list[str], launches: list[Any], workload: str,
                 mechanisms: list[str]) -> dict[str, Verdict]:
    """The verdict of each of ``mechanisms`` on ``kernels`` of ``module``; an analysis that fails says so."""
    out: dict[str, Verdict] = {}
    for m in mechanisms:
        try:
            out[m] = ipndp(module, kernels, launches, workload) if m == "ipndp" else STATIC[m](module, kernels)
        except Exception as exc:  # the analysis cannot read this kernel: the timed rows still stand
            out[m] = Verdict(m, False, f"the analysis failed: {type(exc).__name__}: {exc}")
    return out
