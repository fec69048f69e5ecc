"""A hand-written parser for the PTX that nvcc emits (and hand-written PTX of the same dialect).

``parse_ptx(text)`` returns a :class:`~ndpgpu.frontend.ir.Module`. Malformed input raises
:class:`PTXParseError` with line and column. Registers declared in nested ``{ }`` scopes are renamed to
function-unique names (``name$sN``) so that later stages can key on names.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass

from .ir import (
    TYPE_NAMES,
    Addr,
    ArgList,
    Function,
    Imm,
    Instruction,
    Module,
    Operand,
    Param,
    PredPair,
    PtxType,
    Reg,
    Special,
    Sym,
    Variable,
    Vec,
)


class PTXParseError(Exception):
    """Malformed PTX; the message names line and column."""

    def __init__(self, message: str, line: int, col: int, source: str = "<ptx>"):
        super().__init__(f"{source}:{line}:{col}: {message}")
        self.line = line
        self.col = col


# Every modifier the PTX ISA defines for the memory instructions (state spaces, semantics and scopes,
# cache operators, eviction priorities and prefetch sizes, vectors, atomic operations, types). A modifier
# outside this list is a typo such as ``st.gloabl.u32``, which would otherwise run as a generic store.
MAX_PARAMETERIZED_REGS = 1 << 20  # `.reg .b32 %r<N>`: nvcc's largest kernels declare tens of thousands
UNPARSED_OPCODES = frozenset({"tex", "tld4", "txq", "suld", "sust", "sured", "suq", "istypep"})
MEMORY_OPCODES = frozenset({"ld", "ldu", "st", "atom", "red", "prefetch", "prefetchu"})
MEMORY_MODIFIERS = frozenset({
    "global", "shared", "local", "const", "param", "param::entry", "param::func", "shared::cta",
    "shared::cluster", "weak", "volatile", "relaxed", "acquire", "release", "acq_rel", "mmio", "cta",
    "cluster", "gpu", "sys", "ca", "cg", "cs", "lu", "cv", "wb", "wt", "nc", "unified",
    "L1::evict_normal", "L1::evict_unchanged", "L1::evict_first", "L1::evict_last", "L1::no_allocate",
    "L2::evict_normal", "L2::evict_first", "L2::evict_last", "L2::cache_hint", "L2::64B", "L2::128B",
    "L2::256B", "L1", "L2", "tensormap", "v2", "v4", "v8", "and", "or", "xor", "cas", "exch", "add", "inc",
    "dec", "min", "max", "noftz", "ftz", "e4m3", "e5m2", "e4m3x2", "e5m2x2",
    *TYPE_NAMES,
})

# Every instruction the PTX ISA (up to 8.x) defines, by its first dot-separated part. A name outside this set
# is not PTX (a typo such as ``frobnicate.u32``): a parse error when the module is loaded. A name inside it
# that the engine does not implement is refused by the decoder as UnsupportedPTX when a kernel using it is
# decoded.
PTX_OPCODES = frozenset("""
    abs activemask add addc alloca and applypriority atom bar barrier bfe bfi bfind bmsk bra brev brkpt brx
    call clusterlaunchcontrol clz cnot copysign cos cp createpolicy cvt cvta discard div dp2a dp4a elect
    ex2 exit fence fma fns getctarank griddepcontrol isspacep istypep ld ldmatrix ldu lg2 lop3 mad mad24
    madc mapa match max mbarrier membar min mma mov movmatrix mul mul24 multimem nanosleep neg not or
    pmevent popc prefetch prefetchu prmt rcp red redux rem ret rsqrt sad selp set setmaxnreg setp shf shfl
    shl shr sin slct sqrt st stackrestore stacksave stmatrix sub subc suld suq sured sust szext tanh
    tcgen05 tensormap testp tex tld4 trap txq vabsdiff vabsdiff2 vabsdiff4 vadd vadd2 vadd4 vavrg2 vavrg4
    vmad vmax vmax2 vmax4 vmin vmin2 vmin4 vote vset vset2 vset4 vshl vshr vsub vsub2 vsub4 wgmma wmma xor
""".split())
# How many operands an instruction with a fixed operand list takes (the destination, a predicate pair
# ``p|q`` and a vector ``{a, b}`` count as one): a wrong count would otherwise decode with a source
# silently missing. Instructions not listed (memory, calls, warp and tensor-core instructions) are checked
# by the decoder.
_N = {
    (0,): "ret exit",
    (1,): "bra",
    (2,): "mov abs neg not cnot popc clz bfind brev rcp sqrt rsqrt sin cos lg2 ex2 tanh testp cvta isspacep",
    (3,): "add sub mul mul24 div rem and or xor shl shr copysign bmsk szext addc subc",
    (4,): "mad mad24 madc sad fma selp slct prmt shf bfe fns dp4a dp2a",
    (5,): "bfi",
    (3, 4): "min max setp set",  # setp/set with a boolean operation take a predicate c; 3-input min/max
    (2, 3, 4): "cvt",  # cvt.rn.f16x2.f32 d, a, b; cvt.pack.sat.u8.s32.b32 d, a, b, c; cvt.rs ... rbits
    (5, 6): "lop3",  # lop3.BoolOp.b32 d|p, a, b, c, immLut, q
}
OPERAND_COUNTS = {op: counts for counts, ops in _N.items() for op in ops.split()}

_TOKEN_RE = re.compile(
    r"""
    (?P<ws>[ \t\r]+)
  | (?P<nl>\n)
  | (?P<lcomment>//[^\n]*)
  | (?P<bcomment>/\*.*?\*/)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<hexf>0[fF][0-9a-fA-F]{8}|0[dD][0-9a-fA-F]{16})
  | (?P<num>0[xX][0-9a-fA-F]+U?|0[bB][01]+U?|[0-9]+\.[0-9]*(?:[eE][-+]?[0-9]+)?|[0-9]+[eE][-+]?[0-9]+|[0-9]+U?)
  | (?P<dir>\.[A-Za-z_][A-Za-z0-9_]*)
  | (?P<ident>[A-Za-z_$%][A-Za-z0-9_$]*(?:\.[A-Za-z0-9_$]+(?:::[A-Za-z0-9_$]+)*)*)
  | (?P<punct>[{}()\[\],;:+\-!@|<>=*])
    """,
    re.VERBOSE | re.DOTALL,
)

SPECIAL_PREFIXES = (
    "%tid", "%ntid", "%ctaid", "%nctaid", "%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid",
    "%gridid", "%lanemask_eq", "%lanemask_le", "%lanemask_lt", "%lanemask_ge", "%lanemask_gt",
    "%clock", "%clock64", "%globaltimer", "%dynamic_smem_size", "%total_smem_size", "%envreg",
    "%aggr_smem_size", "%is_explicit_cluster", "%clusterid", "%nclusterid", "%cluster_ctaid",
    "%cluster_nctaid", "%cluster_ctarank", "%cluster_nctarank", "%current_graph_exec",
)

STATE_SPACES = ("global", "const", "shared", "local", "param", "tex")
_LINKAGE = (".visible", ".extern", ".weak", ".common")
_PERF_DIRECTIVES = (".maxntid", ".reqntid", ".minnctapersm", ".maxnctapersm", ".maxnreg", ".pragma",
                    ".noreturn", ".explicitcluster", ".reqnctapercluster", ".maxclusterrank")


@dataclass
class Token:
    kind: str
    text: str
    line: int
    col: int


def tokenize(text: str, source: str = "<ptx>") -> list[Token]:
    """Split PTX text into tokens (comments and white space dropped)."""
    tokens: list[Token] = []
    pos = 0
    line = 1
    line_start = 0
    n = len(text)
    match = _TOKEN_RE.match
    while pos < n:
        m = match(text, pos)
        if m is None:
            raise PTXParseError(f"unexpected character {text[pos]!r}", line, pos - line_start + 1, source)
        kind = m.lastgroup
        tok = m.group()
        if kind == "nl":
            line += 1
            line_start = m.end()
        elif kind == "bcomment":
            nls = tok.count("\n")
            if nls:
                line += nls
                line_start = pos + tok.rfind("\n") + 1
        elif kind not in ("ws", "lcomment"):
            tokens.append(Token(kind, tok, line, pos - line_start + 1))  # type: ignore[arg-type]
        pos = m.end()
    tokens.append(Token("eof", "", line, pos - line_start + 1))
    return tokens


def _parse_int(text: str) -> int:
    t = text.rstrip("U")
    if t[:2] in ("0x", "0X"):
        return int(t[2:], 16)
    if t[:2] in ("0b", "0B"):
        return int(t[2:], 2)
    if len(t) > 1 and t[0] == "0" and t.isdigit():
        return int(t, 8)
    return int(t)


class _Parser:
    def __init__(self, text: str, source: str):
        self.source = source
        self.toks = tokenize(text, source)
        self.i = 0

    # -- token helpers --------------------------------------------------------------------------
    def peek(self, k: int = 0) -> Token:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def int_literal(self, tok: Token) -> int:
        try:
            return _parse_int(tok.text)
        except ValueError:
            raise self.error(f"malformed integer literal {tok.text!r}", tok) from None

    def next(self) -> Token:
        tok = self.toks[min(self.i, len(self.toks) - 1)]  # the last token is "eof": it is never passed
        self.i += 1
        return tok

    def error(self, message: str, tok: Token | None = None) -> PTXParseError:
        tok = tok or self.peek()
        return PTXParseError(message, tok.line, tok.col, self.source)

    def expect(self, text: str) -> Token:
        tok = self.next()
        if tok.text != text:
            raise self.error(f"expected {text!r}, found {tok.text or 'end of input'!r}", tok)
        return tok

    def accept(self, text: str) -> bool:
        if self.peek().text == text:
            self.i += 1
            return True
        return False

    def expect_int(self) -> int:
        neg = self.accept("-")
        tok = self.next()
        if tok.kind != "num" or "." in tok.text:
            raise self.error(f"expected an integer, found {tok.text!r}", tok)
        value = self.int_literal(tok)
        return -value if neg else value

    def skip_line(self, directive: Token) -> None:
        """Skip the rest of ``directive``'s line: ``.loc`` and ``.file`` end at the line, with no semicolon."""
        while self.peek().kind != "eof" and self.peek().line == directive.line:
            self.next()

    def skip_statement(self) -> None:
        depth = 0
        while True:
            tok = self.next()
            if tok.kind == "eof":
                return
            if tok.text == "{":
                depth += 1
            elif tok.text == "}":
                depth -= 1
                if depth <= 0:
                    return
            elif tok.text == ";" and depth == 0:
                return

    # -- module ---------------------------------------------------------------------------------
    def parse_module(self) -> Module:
        mod = Module(version="", target="", address_size=64, variables={}, functions={}, source_name=self.source)
        while self.peek().kind != "eof":
            tok = self.peek()
            t = tok.text
            if t == ".version":
                self.next()
                mod.version = self.next().text
            elif t == ".target":
                self.next()
                targets = [self.next().text]
                while self.accept(","):
                    targets.append(self.next().text)
                mod.target = ",".join(targets)
            elif t == ".address_size":
                self.next()
                mod.address_size = self.expect_int()
            elif t == ".file":
                self.skip_line(self.next())
            elif t == ".section":
                self.next()
                self.skip_statement()
            elif t in _LINKAGE or t in (".entry", ".func") or t[1:] in STATE_SPACES:
                linkage: set[str] = set()
                while self.peek().text in _LINKAGE:
                    linkage.add(self.next().text)
                nt = self.peek().text
                if nt in (".entry", ".func"):
                    fn = self.parse_function(extern=".extern" in linkage)
                    old = mod.functions.get(fn.name)
                    if old is None or not old.defined:
                        mod.functions[fn.name] = fn
                else:
                    for var in self.parse_variable_decl(extern=".extern" in linkage):
                        mod.variables[var.name] = var
            elif t == ";":
                self.next()
            else:
                raise self.error(f"unexpected {t!r} at module scope")
        return mod

    # -- declarations ---------------------------------------------------------------------------
    def parse_variable_decl(self, extern: bool = False) -> list[Variable]:
        """``.space [.align N] [.vN] .type name[dims] [= init] (, name ...)* ;``"""
        space_tok = self.next()
        space = space_tok.text[1:]
        if space not in STATE_SPACES:
            raise self.error(f"unknown state space {space_tok.text!r}", space_tok)
        align = 0
        vec = 1
        vtype: PtxType | None = None
        while True:
            t = self.peek().text
            if t == ".align":
                self.next()
                align = self.expect_int()
            elif t in (".v2", ".v4", ".v8"):
                vec = int(self.next().text[2:])
            elif t.startswith(".") and t[1:] in TYPE_NAMES:
                vtype = PtxType(self.next().text[1:])
            elif t in (".ptr", ".attribute") or t.startswith(".ptr"):
                self.next()
            else:
                break
        if vtype is None:
            raise self.error("variable declaration without a type")
        out = []
        while True:
            name_tok = self.next()
            if name_tok.kind != "ident":
                raise self.error(f"expected a variable name, found {name_tok.text!r}", name_tok)
            dims: list[int] = []
            while self.accept("["):
                if self.accept("]"):
                    dims.append(0)
                    continue
                dims.append(self.expect_int())
                self.expect("]")
            if vec > 1:
                dims = [*dims, vec] if dims else [vec]
            init = None
            if self.accept("="):
                init = self.parse_initializer()
                if dims and dims[0] == 0:
                    dims[0] = len(init) // max(1, _prod(dims[1:]))
            out.append(
                Variable(name_tok.text, space, vtype, tuple(dims), align, init, extern, name_tok.line)
            )
            if not self.accept(","):
                break
        self.expect(";")
        return out

    def parse_initializer(self) -> list:
        values: list = []

        def item() -> None:
            if self.accept("{"):
                if not self.accept("}"):
                    item()
                    while self.accept(","):
                        item()
                    self.expect("}")
                return
            tok = self.peek()
            if tok.kind == "ident" and tok.text in ("generic",):
                self.next()
                self.expect("(")
                name = self.next().text
                self.expect(")")
                off = self.expect_int() if self.accept("+") else 0
                values.append(("generic", name, off))
                return
            if tok.kind == "ident":
                self.next()
                off = 0
                if self.accept("+"):
                    off = self.expect_int()
                values.append(("addr", tok.text, off))
                return
            imm = self.parse_number()
            values.append(imm.value if imm.float_bits is None else imm)

        item()
        return values

    def parse_number(self) -> Imm:
        neg = self.accept("-")
        tok = self.next()
        if tok.kind == "hexf":
            bits = int(tok.text[2:], 16)
            width = 32 if tok.text[1] in "fF" else 64
            if width == 32:
                value = struct.unpack("<f", struct.pack("<I", bits))[0]
            else:
                value = struct.unpack("<d", struct.pack("<Q", bits))[0]
            if neg:
                bits ^= 1 << (width - 1)
                value = -value
            return Imm(value, bits, width)
        if tok.kind != "num":
            raise self.error(f"expected a number, found {tok.text!r}", tok)
        if "." in tok.text or ("e" in tok.text.lower() and not tok.text.lower().startswith("0x")):
            value_f = float(tok.text)
            return Imm(-value_f if neg else value_f)
        value_i = self.int_literal(tok)
        if value_i >= 1 << 64 or (neg and value_i > 1 << 63):
            raise self.error(f"integer literal {'-' if neg else ''}{tok.text} does not fit in 64 bits", tok)
        return Imm(-value_i if neg else value_i)

    def parse_param_list(self) -> list[Param]:
        params: list[Param] = []
        self.expect("(")
        if self.accept(")"):
            return params
        while True:
            self.expect(".param") if self.peek().text == ".param" else self.expect(".reg")
            align = 0
            ptype: PtxType | None = None
            ptr_space = None
            while True:
                t = self.peek().text
                if t == ".align":
                    self.next()
                    align = self.expect_int()
                elif t.startswith(".") and t[1:] in TYPE_NAMES:
                    ptype = PtxType(self.next().text[1:])
                elif t == ".ptr":
                    self.next()
                elif t[1:] in STATE_SPACES and t.startswith("."):
                    ptr_space = self.next().text[1:]
                else:
                    break
            name = self.next()
            if ptype is None:
                raise self.error("parameter without a type", name)
            dims: list[int] = []
            while self.accept("["):
                dims.append(self.expect_int())
                self.expect("]")
            params.append(Param(name.text, ptype, tuple(dims), align, ptr_space))
            if not self.accept(","):
                break
        self.expect(")")
        return params

    # -- functions ------------------------------------------------------------------------------
    def parse_function(self, extern: bool) -> Function:
        kind_tok = self.next()
        is_entry = kind_tok.text == ".entry"
        returns: list[Param] = []
        if not is_entry and self.peek().text == "(":
            returns = self.parse_param_list()
        name_tok = self.next()
        if name_tok.kind != "ident":
            raise self.error(f"expected a function name, found {name_tok.text!r}", name_tok)
        params = self.parse_param_list() if self.peek().text == "(" else []
        directives: dict[str, tuple[int, ...]] = {}
        while self.peek().text in _PERF_DIRECTIVES:
            d = self.next().text
            if d == ".pragma":
                self.next()
                self.expect(";")
                continue
            vals: list[int] = []
            if self.peek().kind == "num":
                vals.append(self.expect_int())
                while self.accept(","):
                    vals.append(self.expect_int())
            directives[d[1:]] = tuple(vals)
        fn = Function(
            name=name_tok.text, is_entry=is_entry, params=params, returns=returns, regs={}, variables=[],
            body=[], labels={}, directives=directives, line=name_tok.line, defined=False,
        )
        if self.accept(";"):
            return fn
        fn.defined = True
        self.parse_body(fn)
        return fn

    def parse_body(self, fn: Function) -> None:
        self.expect("{")
        scopes: list[dict[str, str]] = [{}]
        scope_counter = 0
        pending_labels: list[str] = []
        label_lines: dict[str, tuple[int, int]] = {}  # label -> the line and block depth it is defined at

        def rename(name: str) -> str:
            for scope in reversed(scopes):
                if name in scope:
                    return scope[name]
            return name

        while True:
            tok = self.peek()
            t = tok.text
            if tok.kind == "eof":
                raise self.error(f"end of input inside the body of {fn.name}", tok)
            if t == "}":
                self.next()
                scopes.pop()
                if not scopes:
                    break
                continue
            if t == "{":
                self.next()
                scope_counter += 1
                scopes.append({})
                continue
            if t == ".reg":
                self.next()
                self.parse_reg_decl(fn, scopes, scope_counter)
                continue
            if t in (".local", ".shared", ".param", ".global", ".const"):
                for var in self.parse_variable_decl():
                    if len(scopes) > 1 and var.space in ("param", "local"):
                        unique = f"{var.name}$s{scope_counter}"
                        scopes[-1][var.name] = unique
                        var.name = unique
                    fn.variables.append(var)
                continue
            if t in (".loc", ".file"):
                self.skip_line(self.next())
                continue
            if t == ".pragma":
                self.next()
                self.skip_statement()
                continue
            if tok.kind == "ident" and self.peek(1).text == ":" and self.peek(2).text == ".callprototype":
                # the declared signature of an indirect call; the call itself is refused by the decoder
                self.skip_statement()
                continue
            if tok.kind == "ident" and self.peek(1).text == ":":
                self.next()
                self.next()
                if tok.text in label_lines:
                    first_line, first_depth = label_lines[tok.text]
                    note = "" if first_depth == len(scopes) == 1 else (
                        "; a label repeated in separate { } blocks is not supported either: the engine keeps one "
                        "label namespace per function")
                    raise self.error(f"duplicate label {tok.text!r} in {fn.name} (first defined at line "
                                     f"{first_line}){note}", tok)
                label_lines[tok.text] = (tok.line, len(scopes))
                fn.labels[tok.text] = len(fn.body)
                pending_labels.append(tok.text)
                continue
            fn.body.append(self.parse_instruction(fn, rename))
        # resolve symbols that are registers (inline-asm style names without %)
        for ins in fn.body:
            ins.operands = [_resolve_regs(op, fn.regs) for op in ins.operands]

    def parse_reg_decl(self, fn: Function, scopes: list[dict[str, str]], scope_id: int) -> None:
        rtype: PtxType | None = None
        vec = 1
        while self.peek().text.startswith("."):
            t = self.next().text
            if t[1:] in TYPE_NAMES:
                rtype = PtxType(t[1:])
            elif t in (".v2", ".v4"):
                vec = int(t[2:])
        if rtype is None:
            raise self.error(".reg declaration without a type")
        if vec != 1:
            raise self.error("vector registers are not supported")
        while True:
            name_tok = self.next()
            if name_tok.kind != "ident":
                raise self.error(f"expected a register name, found {name_tok.text!r}", name_tok)
            if self.accept("<"):
                count_tok = self.peek()
                count = self.expect_int()
                if count > MAX_PARAMETERIZED_REGS:
                    raise self.error(f"{count} registers in one declaration (at most {MAX_PARAMETERIZED_REGS})",
                                     count_tok)
                self.expect(">")
                for k in range(count):
                    fn.regs[f"{name_tok.text}{k}"] = rtype
            else:
                name = name_tok.text
                if len(scopes) > 1:
                    unique = f"{name}$s{scope_id}"
                    scopes[-1][name] = unique
                    name = unique
                fn.regs[name] = rtype
            if not self.accept(","):
                break
        self.expect(";")

    def parse_instruction(self, fn: Function, rename) -> Instruction:
        start = self.peek()
        guard = None
        if self.accept("@"):
            neg = self.accept("!")
            g = self.next()
            if g.kind != "ident":
                raise self.error(f"expected a guard predicate, found {g.text!r}", g)
            guard = Reg(rename(g.text), neg)
        op_tok = self.next()
        if op_tok.kind != "ident":
            raise self.error(f"expected an instruction, found {op_tok.text!r}", op_tok)
        parts = op_tok.text.split(".")
        if parts[0] in UNPARSED_OPCODES:
            # texture and surface instructions: their operands are kept unparsed; decoding one raises
            # UnsupportedPTX naming it (a syntax error here would point at the wrong place)
            while self.peek().text != ";":
                if self.peek().kind == "eof":
                    raise self.error(f"end of input inside {op_tok.text!r}")
                self.next()
            self.expect(";")
            return Instruction(parts[0], tuple(parts[1:]), [], guard, start.line, op_tok.text)
        if parts[0] not in PTX_OPCODES:
            raise self.error(f"unknown instruction {parts[0]!r} (in {op_tok.text!r}): not a PTX instruction",
                             op_tok)
        if parts[0] in MEMORY_OPCODES:
            for mod in parts[1:]:
                if mod not in MEMORY_MODIFIERS:
                    raise self.error(f"unknown modifier .{mod} of {parts[0]} in {op_tok.text!r}", op_tok)
        operands: list[Operand] = []
        if self.peek().text != ";":
            operands.append(self.parse_operand(rename))
            while self.accept(","):
                operands.append(self.parse_operand(rename))
        end = self.expect(";")
        del end
        counts = OPERAND_COUNTS.get(parts[0])
        if counts is not None and len(operands) not in counts:
            want = " or ".join(str(c) for c in counts)
            raise self.error(f"{op_tok.text} takes {want} operand{'s' if counts != (1,) else ''}, found "
                             f"{len(operands)}", op_tok)
        text = f"{'@' + ('!' if guard and guard.negate else '') + guard.name + ' ' if guard else ''}{op_tok.text}"
        return Instruction(parts[0], tuple(parts[1:]), operands, guard, start.line, text)

    def parse_operand(self, rename) -> Operand:
        tok = self.peek()
        t = tok.text
        if t == "[":
            self.next()
            base: Reg | Sym | None = None
            offset = 0
            first = self.peek()
            if first.kind == "ident":
                self.next()
                base = self._name(first.text, rename)  # type: ignore[assignment]
                if isinstance(base, Special):
                    raise self.error("a special register cannot be an address base", first)
            else:
                offset = self.expect_int()
            while self.peek().text in ("+", "-"):
                sign = -1 if self.next().text == "-" else 1
                offset += sign * self.expect_int()
            self.expect("]")
            return Addr(base, offset)
        if t == "{":
            self.next()
            items: list[Operand | None] = []
            if not self.accept("}"):
                while True:
                    if self.peek().text == "_":
                        self.next()
                        items.append(None)
                    else:
                        items.append(self.parse_operand(rename))
                    if not self.accept(","):
                        break
                self.expect("}")
            return Vec(tuple(items))
        if t == "(":
            self.next()
            args: list[Operand] = []
            if not self.accept(")"):
                while True:
                    args.append(self.parse_operand(rename))
                    if not self.accept(","):
                        break
                self.expect(")")
            return ArgList(tuple(args))
        if t == "!":
            self.next()
            name = self.next()
            return Reg(rename(name.text), True)  # only predicates are negated
        if t == "_" or (tok.kind == "ident" and t == "_"):
            self.next()
            return Reg("_")
        if tok.kind == "ident":
            self.next()
            op = self._name(t, rename)
            if self.peek().text == "|":
                self.next()
                second_tok = self.next()
                second = None if second_tok.text == "_" else Reg(rename(second_tok.text))
                if isinstance(op, Sym):  # a register declared without % (inline asm's own temporaries)
                    op = Reg(op.name)
                if not isinstance(op, Reg):
                    raise self.error("a register pair needs a register", tok)
                return PredPair(op, second)
            if self.peek().text in ("+", "-") and isinstance(op, Sym) and self.peek(1).kind == "num":
                sign = -1 if self.next().text == "-" else 1
                return Addr(op, sign * self.expect_int())  # symbol+offset used as a value
            return op
        if tok.kind in ("num", "hexf") or t == "-":
            return self.parse_number()
        raise self.error(f"unexpected {t!r} in operand", tok)

    @staticmethod
    def _name(text: str, rename) -> Operand:
        if text.startswith("%"):
            base = text.split(".")[0]
            if base in SPECIAL_PREFIXES or base.startswith(("%envreg", "%pm")):
                return Special(text)
            return Reg(rename(text))
        return Sym(rename(text))  # registers without % are resolved after the body is parsed


def _prod(xs) -> int:
    n = 1
    for x in xs:
        n *= x
    return n


def _resolve_regs(op: Operand, regs: dict) -> Operand:
    if isinstance(op, Sym) and op.name in regs:
        return Reg(op.name)
    if isinstance(op, Addr) and isinstance(op.base, Sym) and op.base.name in regs:
        return Addr(Reg(op.base.name), op.offset)
    if isinstance(op, Vec):
        return Vec(tuple(None if it is None else _resolve_regs(it, regs) for it in op.items))
    return op


def parse_ptx(text: str, source: str = "<ptx>") -> Module:
    """Parse PTX text into a :class:`Module`; raises :class:`PTXParseError` on malformed input."""
    return _Parser(text, source).parse_module()
