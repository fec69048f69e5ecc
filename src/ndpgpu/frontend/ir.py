"""The intermediate representation of a PTX module.

A :class:`Module` holds module-scope variables and :class:`Function`s (kernels are functions with
``is_entry``). A function body is a flat list of :class:`Instruction`; labels map to instruction indices.
Operands are small frozen dataclasses. Register names are unique per function (the parser renames
registers declared in nested ``{ }`` scopes), so analyses can key on names.
"""

from __future__ import annotations

import dataclasses

# ---------------------------------------------------------------------------------------------------------
# Types


@dataclasses.dataclass(frozen=True)
class PtxType:
    """A PTX fundamental type such as ``.u32`` or ``.f64``."""

    name: str  # without the dot: "u32", "f16x2", "pred"

    @property
    def kind(self) -> str:
        """One of ``u`` (unsigned), ``s`` (signed), ``b`` (bits), ``f`` (float), ``bf``, ``pred``."""
        if self.name == "pred":
            return "pred"
        if self.name.startswith("bf16"):
            return "bf"
        return self.name[0]

    @property
    def bits(self) -> int:
        if self.name == "pred":
            return 1
        if self.name in ("f16x2", "bf16x2"):
            return 32
        digits = "".join(ch for ch in self.name if ch.isdigit())
        return int(digits)

    @property
    def size(self) -> int:
        return max(1, self.bits // 8)

    def __str__(self) -> str:
        return "." + self.name


TYPE_NAMES = (
    "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "b8", "b16", "b32", "b64", "b128",
    "f16", "f16x2", "bf16", "bf16x2", "f32", "f64", "pred",
)


# ---------------------------------------------------------------------------------------------------------
# Operands


@dataclasses.dataclass(frozen=True)
class Reg:
    """A register operand, optionally negated (``!%p``)."""

    name: str
    negate: bool = False


@dataclasses.dataclass(frozen=True)
class Imm:
    """An immediate. ``value`` is an int, or a float; ``bits`` is set for hex float forms (0f..., 0d...)."""

    value: int | float
    float_bits: int | None = None  # raw IEEE bits for 0fXXXXXXXX (32) / 0dXXXXXXXXXXXXXXXX (64)
    float_width: int = 0  # 32 or 64 when float_bits is set


@dataclasses.dataclass(frozen=True)
class Special:
    """A special register such as ``%tid.x`` or ``%laneid``."""

    name: str


@dataclasses.dataclass(frozen=True)
class Sym:
    """A symbol used as a value: a variable's address, a label, or a function name."""

    name: str


@dataclasses.dataclass(frozen=True)
class Addr:
    """A memory address ``[base + offset]``; ``base`` is a register, a symbol, or None (absolute)."""

    base: Reg | Sym | None
    offset: int = 0


@dataclasses.dataclass(frozen=True)
class Vec:
    """A vector operand ``{a, b, c, d}``; elements may be ``None`` for the sink ``_``."""

    items: tuple[Operand | None, ...]


@dataclasses.dataclass(frozen=True)
class PredPair:
    """A destination pair ``%r|%p`` (``shfl``'s value and predicate; ``setp``'s p and !p)."""

    first: Reg
    second: Reg | None


@dataclasses.dataclass(frozen=True)
class ArgList:
    """A parenthesised argument list of ``call``."""

    items: tuple[Operand, ...]


Operand = Reg | Imm | Special | Sym | Addr | Vec | PredPair | ArgList


# ---------------------------------------------------------------------------------------------------------
# Instructions, functions, modules


@dataclasses.dataclass
class Instruction:
    """One PTX instruction: ``@guard opcode.mod1.mod2 operands``."""

    opcode: str
    mods: tuple[str, ...]
    operands: list[Operand]
    guard: Reg | None = None
    line: int = 0
    text: str = ""

    @property
    def full(self) -> str:
        """``opcode.mod1.mod2`` as written."""
        return ".".join((self.opcode, *self.mods))

    def has(self, mod: str) -> bool:
        return mod in self.mods

    def types(self) -> list[PtxType]:
        """The type modifiers in order of appearance."""
        return [PtxType(m) for m in self.mods if m in TYPE_NAMES]

    def __str__(self) -> str:
        return self.text or self.full


@dataclasses.dataclass
class Variable:
    """A declared variable (module scope or function scope) in some state space."""

    name: str
    space: str  # global, const, shared, local, param
    type: PtxType
    array: tuple[int, ...] = ()  # dimensions; (0,) for an unsized extern array
    align: int = 0
    init: list[int | float] | None = None  # flat initializer values
    extern: bool = False
    line: int = 0

    @property
    def elem_size(self) -> int:
        return self.type.size

    @property
    def size(self) -> int:
        n = 1
        for d in self.array:
            n *= d
        return n * self.elem_size

    @property
    def alignment(self) -> int:
        return self.align or self.elem_size


@dataclasses.dataclass
class Param:
    """A parameter of a kernel or function."""

    name: str
    type: PtxType
    array: tuple[int, ...] = ()
    align: int = 0
    ptr_space: str | None = None  # from .ptr.global etc.

    @property
    def size(self) -> int:
        n = 1
        for d in self.array:
            n *= d
        return n * self.type.size

    @property
    def alignment(self) -> int:
        return self.align or self.type.size


@dataclasses.dataclass
class Function:
    """A kernel (``.entry``) or device function (``.func``)."""

    name: str
    is_entry: bool
    params: list[Param]
    returns: list[Param]
    regs: dict[str, PtxType]
    variables: list[Variable]  # function-scope .local/.shared/.param (call-sequence params)
    body: list[Instruction]
    labels: dict[str, int]
    directives: dict[str, tuple[int, ...]]  # maxntid, reqntid, minnctapersm, ...
    line: int = 0
    defined: bool = True  # False for .extern declarations without a body

    def label_at(self) -> dict[int, list[str]]:
        out: dict[int, list[str]] = {}
        for name, idx in self.labels.items():
            out.setdefault(idx, []).append(name)
        return out


@dataclasses.dataclass
class Module:
    """A parsed PTX module."""

    version: str
    target: str
    address_size: int
    variables: dict[str, Variable]
    functions: dict[str, Function]
    source_name: str = "<ptx>"

    @property
    def kernels(self) -> dict[str, Function]:
        return {n: f for n, f in self.functions.items() if f.is_entry}

    def code_layout(self) -> tuple[dict[str, int], int]:
        """Where each defined function's first instruction sits, in instructions from the module's start, and
        the module's total: the functions one after another in the order the PTX defines them, one slot per
        instruction (GPGPU-Sim assembles each function as its parser ends it, labels taking no slot:
        ``function_info::ptx_assemble``, cuda-sim.cc, 4.0.1)."""
        offsets: dict[str, int] = {}
        at = 0
        for fn in sorted((f for f in self.functions.values() if f.defined), key=lambda f: f.line):
            offsets[fn.name] = at
            at += len(fn.body)
        return offsets, at
