"""Which kernel parameter a memory instruction's address comes from (pointer provenance, for bounds checking).

A flow-insensitive union over every definition of each register: ``ld.param`` of a 64-bit kernel parameter
gives that parameter; ``mov``/``cvta``/``cvt``/arithmetic pass on the union of their operands' origins (a
parameter plus an offset, even one loaded from memory, is still that parameter's pointer); a 64-bit value
loaded from memory, a global symbol's address or any other definition is an unknown pointer. An access
whose address register has exactly one origin, a kernel parameter, indexes that parameter's allocation:
``Device(bounds_check=True)`` then reports an access outside it, even one that lands inside a neighbouring
allocation, which the check against every allocation cannot see.
"""

from __future__ import annotations

from ..frontend.ir import Addr, Function, Imm, Instruction, Reg, Special, Vec

UNKNOWN = "?"
_PASS = frozenset({"mov", "cvta", "cvt", "add", "sub", "mul", "mad", "and", "or", "xor", "shl", "shr", "selp",
                   "neg", "min", "max", "not", "abs"})
_LOADS = frozenset({"ld", "ldu", "atom"})
_MEMORY = frozenset({"ld", "ldu", "st", "atom", "red"})
_OTHER_SPACES = frozenset({"param", "shared", "local", "const"})


def _dests(ins: Instruction) -> list[str]:
    if not ins.operands:
        return []
    first = ins.operands[0]
    if isinstance(first, Reg):
        return [first.name]
    if isinstance(first, Vec):
        return [x.name for x in first.items if isinstance(x, Reg)]
    return []


def _is_64(fn: Function, reg: str) -> bool:
    t = fn.regs.get(reg)
    return t is not None and t.name.endswith("64")


def param_pointers(fn: Function) -> dict[int, str]:
    """PTX line -> the kernel parameter whose pointer the global (or generic) load, store or atomic on that
    line indexes, for each such instruction whose address register has that one origin."""
    params = {p.name for p in fn.params if p.type.name.endswith("64") and not p.array}
    origin: dict[str, frozenset[str]] = {}

    def of(op) -> frozenset[str]:
        if isinstance(op, Reg):
            return origin.get(op.name, frozenset())
        if isinstance(op, (Imm, Special)) or op is None:
            return frozenset()
        return frozenset({UNKNOWN})  # a symbol's address, a vector, ...

    changed = True
    while changed:
        changed = False
        for ins in fn.body:
            dests = _dests(ins)
            if not dests:
                continue
            if ins.opcode == "ld" and "param" in ins.mods:
                addr = ins.operands[1] if len(ins.operands) > 1 else None
                name = getattr(getattr(addr, "base", None), "name", None)
                new = frozenset({name}) if name in params else frozenset({UNKNOWN})
            elif ins.opcode in _LOADS:
                new = frozenset({UNKNOWN})
            elif ins.opcode in _PASS:
                new = frozenset().union(*(of(op) for op in ins.operands[1:]))
                if new - {UNKNOWN}:
                    new = new - {UNKNOWN}  # a pointer plus an offset (loaded or not) is that pointer
            else:
                new = frozenset({UNKNOWN})
            for d in dests:
                if not _is_64(fn, d):
                    new_d = frozenset()  # a 32-bit value is no device pointer
                else:
                    new_d = origin.get(d, frozenset()) | new
                if new_d != origin.get(d, frozenset()):
                    origin[d] = new_d
                    changed = True

    found: dict[int, set[str]] = {}  # PTX line -> origins of the accesses on it (one, when a line holds several)
    for ins in fn.body:
        if ins.opcode not in _MEMORY or _OTHER_SPACES & set(ins.mods):
            continue
        addr = next((op for op in ins.operands if isinstance(op, Addr)), None)
        if addr is None or not isinstance(addr.base, Reg):
            continue
        got = origin.get(addr.base.name, frozenset())
        one = next(iter(got)) if len(got) == 1 else UNKNOWN
        found.setdefault(ins.line, set()).add(one if one in params else UNKNOWN)
    return {line: next(iter(names)) for line, names in found.items() if len(names) == 1 and UNKNOWN not in names}
