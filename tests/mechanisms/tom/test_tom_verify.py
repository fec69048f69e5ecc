"""TOM's offload verifier (``ndpgpu.mechanisms.tom.verify``): emulated offloads of hand-written kernels and of
TOM workloads leave every output bit-identical under four poison patterns, mutations of the live sets and of
the rewriter are caught, and the lines each dynamic block instance writes agree with an independent run of
the rewritten kernel, with the affine addresses, and with a per-instruction walk of the trace."""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np
import pytest

import ndpgpu
from ndpgpu.analysis import analyze
from ndpgpu.analysis.cfg import branch_target
from ndpgpu.frontend import nvcc
from ndpgpu.frontend.ir import Function
from ndpgpu.functional.launch import LaunchOptions
from ndpgpu.mechanisms.tom.candidates import Candidate
from ndpgpu.mechanisms.tom.instances import I_OFF0, I_SEG0, I_WARP, find_instances
from ndpgpu.mechanisms.tom.verify import (
    LINE_BYTES,
    POISON_PATTERNS,
    BlockInstance,
    OffloadEmulator,
    OffloadError,
    OffloadMismatch,
    WorkloadHarness,
    block_instances,
    block_pcs,
    candidate_blocks,
    kernel_function,
    loop_blocks,
    match_records,
    offload_problems,
    outputs_differ,
    poison_value,
    rewrite_offload,
    straight_blocks,
    verify_block,
    verify_candidates,
    warp_pcs,
)
from ndpgpu.trace import format as tf

needs_nvcc = pytest.mark.skipif(not nvcc.nvcc_available(), reason="nvcc and a host C++ compiler are needed")
BUDGET = 200_000  # warp-instructions per launch: a poisoned trip count ends in an error, not a hang

# ---------------------------------------------------------------------------------------------------------
# Kernels

CUDA = r"""
extern "C" __global__ void dot_rows(const float *a, const float *b, float *prod, float *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
#pragma unroll 1
  for (int i = 0; i < n; i++) {
    float p = a[t * n + i] * b[t * n + i];
    prod[t * n + i] = p;
    s += p;
  }
  out[t] = s;
}

extern "C" __global__ void guarded(const float *x, float *y, float *z, int n, float k) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) {
    float v = x[t];
    y[t] = v * k + 1.0f;
    y[t + n] = v - k;
  }
  z[t] = (float)t * k;
}

extern "C" __global__ void strided_sum(const double *src, double *dst, long long pitch, int m) {
  long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const double *p = src + t;
  double acc = 0.0;
#pragma unroll 1
  for (int k = 0; k < m; k++) {
    acc = acc * 0.5 + *p;
    p += pitch;
  }
  dst[t] = acc;
  dst[t + pitch] = acc * 2.0;
}
"""

# Every register type across an offloaded loop that starts at a label on its first instruction's line; the
# predicate %p1 is computed before the loop and used after it, %p2 is used inside (live-in).
TYPES_PTX = r"""
.version 7.0
.target sm_75
.address_size 64

.visible .entry types(
	.param .u64 types_param_0,
	.param .u64 types_param_1,
	.param .u32 types_param_2
)
{
	.reg .pred 	%p<4>;
	.reg .b16 	%rs<3>;
	.reg .u16 	%us<2>;
	.reg .f16 	%h<2>;
	.reg .b32 	%r<100>;
	.reg .u32 	%u<3>;
	.reg .s32 	%s<2>;
	.reg .f32 	%f<4>;
	.reg .b64 	%rd<6>;
	.reg .u64 	%ud<2>;
	.reg .s64 	%sd<3>;
	.reg .f64 	%fd<2>;

	ld.param.u64 	%rd1, [types_param_0];
	ld.param.u64 	%rd2, [types_param_1];
	ld.param.u32 	%u1, [types_param_2];
	cvta.to.global.u64 	%rd1, %rd1;
	cvta.to.global.u64 	%rd2, %rd2;
	mov.u32 	%r1, %tid.x;
	mov.u32 	%r2, %ctaid.x;
	mov.u32 	%r3, %ntid.x;
	mad.lo.s32 	%s1, %r2, %r3, %r1;
	mul.wide.s32 	%sd1, %s1, 4;
	add.s64 	%rd3, %rd1, %sd1;
	ld.global.f32 	%f1, [%rd3];
	setp.gt.f32 	%p1, %f1, 0f3F000000;
	and.b32 	%r4, %s1, 1;
	setp.eq.u32 	%p2, %r4, 0;
	cvt.u16.u32 	%us1, %s1;
	cvt.rn.f16.f32 	%h1, %f1;
	cvt.u16.u32 	%rs1, %r2;
	xor.b16 	%rs1, %rs1, 0x1234;
	cvt.f64.f32 	%fd1, %f1;
	mul.wide.s32 	%sd2, %s1, 64;
	add.s64 	%rd4, %rd2, %sd2;
	cvt.u64.u32 	%ud1, %s1;
	mov.f32 	%f2, 0f00000000;
	mov.u32 	%u2, 0;
$Lloop: cvt.rn.f32.u32 	%f3, %u2;
	fma.rn.f32 	%f2, %f1, %f3, %f2;
	@%p2 add.f32 	%f2, %f2, 0f3F800000;
	st.global.f32 	[%rd4], %f2;
	add.u32 	%u2, %u2, 1;
	setp.lt.u32 	%p3, %u2, %u1;
	@%p3 bra 	$Lloop;
$Lafter:
	selp.u32 	%r5, 1, 2, %p1;
	st.global.u32 	[%rd4+4], %r5;
	st.global.u16 	[%rd4+8], %us1;
	st.global.b16 	[%rd4+10], %h1;
	st.global.b16 	[%rd4+12], %rs1;
	st.global.f64 	[%rd4+16], %fd1;
	st.global.u64 	[%rd4+24], %ud1;
	st.global.s64 	[%rd4+32], %sd1;
	st.global.s32 	[%rd4+40], %s1;
	st.global.f32 	[%rd4+44], %f2;
	ret;
}
"""

# An inner loop (the block) whose store runs only in its first iteration, inside an outer loop: iterations
# 1-3 leave no memory record, so the trace cannot tell which instance the next record belongs to.
# With LOAD, an unguarded load in every iteration pins the records down.
SPARSE_PTX = r"""
.version 7.0
.target sm_75
.address_size 64

.visible .entry sparse(
	.param .u64 sparse_param_0,
	.param .u32 sparse_param_1
)
{
	.reg .pred 	%p<4>;
	.reg .b32 	%r<8>;
	.reg .b64 	%rd<5>;

	ld.param.u64 	%rd1, [sparse_param_0];
	ld.param.u32 	%r1, [sparse_param_1];
	cvta.to.global.u64 	%rd1, %rd1;
	mov.u32 	%r2, %tid.x;
	mul.wide.u32 	%rd2, %r2, 4;
	add.s64 	%rd3, %rd1, %rd2;
	mov.u32 	%r3, 0;
$Louter:
	mov.u32 	%r4, 0;
$Linner:
	setp.eq.u32 	%p1, %r4, 0;
	add.u32 	%r5, %r3, %r4;
LOAD
	@%p1 st.global.u32 	[%rd3], %r5;
	add.u32 	%r4, %r4, 1;
	setp.lt.u32 	%p2, %r4, 4;
	@%p2 bra 	$Linner;
$Lnext:
	add.s64 	%rd3, %rd3, 512;
	add.u32 	%r3, %r3, 1;
	setp.lt.u32 	%p3, %r3, %r1;
	@%p3 bra 	$Louter;
	ret;
}
"""


def sparse_ptx(load: bool) -> str:
    return SPARSE_PTX.replace("LOAD", "\tld.global.u32 \t%r6, [%rd3];" if load else "")


@cache
def cuda_ptx() -> str:
    return ndpgpu.RawModule(code=CUDA).ptx


# ---------------------------------------------------------------------------------------------------------
# Launching a hand-written kernel


@dataclasses.dataclass(frozen=True)
class Arg:
    """A kernel argument: an input array, an output array (``shape``, ``dtype``) or a scalar."""

    kind: str  # "in", "out", "scalar"
    value: Any = None
    name: str = ""


@dataclasses.dataclass
class Launched:
    outputs: dict[str, np.ndarray]
    trace: tf.KernelTrace | None
    program: Any
    params: dict[str, int]  # parameter name -> value, pointers as addresses


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    ptx: Callable[[], str]
    kernel: str
    grid: int
    block: int
    args: tuple[Arg, ...]
    block_range: Callable[[Function], tuple[int, int]]

    def launch(self, ptx: str, *, trace: bool = False) -> Launched:
        module = ndpgpu.RawModule(ptx=ptx)
        fn = module.get_function(self.kernel)
        dev = ndpgpu.Device(trace=trace, options=LaunchOptions(budget_warp_instructions=BUDGET), echo_printf=False)
        with dev:
            values: list[Any] = []
            outs: dict[str, Any] = {}
            params: dict[str, int] = {}
            for p, a in zip(fn.kernel.params, self.args, strict=True):
                if a.kind == "in":
                    v: Any = ndpgpu.asarray(a.value)
                elif a.kind == "out":
                    v = ndpgpu.zeros(*a.value)
                    outs[a.name] = v
                else:
                    v = a.value
                params[p.name] = v.data.ptr if a.kind != "scalar" else int(v)
                values.append(v)
            fn((self.grid,), (self.block,), tuple(values))
            outputs = {k: v.get() for k, v in outs.items()}
            program = fn.program(dev)
        return Launched(outputs, dev.traces[0] if trace else None, program, params)

    def run(self, ptx: str) -> dict[str, np.ndarray]:
        return self.launch(ptx).outputs

    def function(self) -> Function:
        return kernel_function(self.ptx(), self.kernel)

    def range(self) -> tuple[int, int]:
        return self.block_range(self.function())


def _labels(begin: str, end: str) -> Callable[[Function], tuple[int, int]]:
    return lambda fn: (fn.labels[begin], fn.labels[end])


def _after_params_to_ret(fn: Function) -> tuple[int, int]:
    """From the first instruction after the parameter loads to the final ``ret`` (a loop inside)."""
    begin = max(i for i, ins in enumerate(fn.body) if ins.full.startswith("ld.param")) + 1
    end = max(i for i, ins in enumerate(fn.body) if ins.opcode == "ret")
    return begin, end


RNG = np.random.default_rng(7)
N_DOT, T_DOT = 7, 128
PITCH, M = 160, 5
CASES = {
    "dot_rows": Case(
        "dot_rows", cuda_ptx, "dot_rows", 2, 64,
        (Arg("in", RNG.random(N_DOT * T_DOT, dtype=np.float32)), Arg("in", RNG.random(N_DOT * T_DOT, dtype=np.float32)),
         Arg("out", (N_DOT * T_DOT, np.float32), "prod"), Arg("out", (T_DOT, np.float32), "out"),
         Arg("scalar", np.int32(N_DOT))),
        _labels("$L__BB0_2", "$L__BB0_3")),
    # threads 100-191 skip the block: warp 3 partly, warps 4 and 5 entirely
    "guarded": Case(
        "guarded", cuda_ptx, "guarded", 3, 64,
        (Arg("in", RNG.random(192, dtype=np.float32)), Arg("out", (200, np.float32), "y"),
         Arg("out", (192, np.float32), "z"), Arg("scalar", np.int32(100)), Arg("scalar", np.float32(1.5))),
        _labels("$L__BB1_1", "$L__BB1_2")),
    "strided_sum": Case(
        "strided_sum", cuda_ptx, "strided_sum", 2, 64,
        (Arg("in", RNG.random(PITCH * M)), Arg("out", (PITCH + 128, np.float64), "dst"),
         Arg("scalar", np.int64(PITCH)), Arg("scalar", np.int32(M))),
        _after_params_to_ret),
    "types": Case(
        "types", lambda: TYPES_PTX, "types", 3, 32,
        (Arg("in", RNG.random(96, dtype=np.float32)), Arg("out", (96 * 8, np.uint64), "o"),
         Arg("scalar", np.uint32(5))),
        _labels("$Lloop", "$Lafter")),
    "sparse_load": Case(
        "sparse_load", lambda: sparse_ptx(True), "sparse", 1, 128,
        (Arg("out", (3 * 128, np.uint32), "out"), Arg("scalar", np.uint32(3))),
        _labels("$Linner", "$Lnext")),
}
NVCC_CASES = ("dot_rows", "guarded", "strided_sum")


def case_param(name: str) -> Any:
    return pytest.param(name, marks=needs_nvcc) if name in NVCC_CASES else name


ALL_CASES = [case_param(n) for n in CASES]

# ---------------------------------------------------------------------------------------------------------
# The rewriting


def test_poison_values_fill_each_width() -> None:
    rng = np.random.default_rng(0)
    assert [poison_value(p, 32, rng) for p in ("zero", "ones", "nan")] == [0, 0xFFFFFFFF, 0x7FC00000]
    assert poison_value("nan", 16, rng) == 0x7E00 and poison_value("nan", 64, rng) == 0x7FF8000000000000
    assert poison_value("ones", 64, rng) == (1 << 64) - 1 and poison_value("ones", 1, rng) == 1
    draws = [poison_value("random", 64, rng) for _ in range(64)]
    assert all(0 <= d < 1 << 64 for d in draws) and max(draws) >= 1 << 63 and len(set(draws)) == 64
    assert {poison_value("random", 1, rng) for _ in range(64)} == {0, 1}
    with pytest.raises(ValueError, match="unknown poison pattern"):
        poison_value("deadbeef", 32, rng)


def test_rewrite_handles_every_register_type_and_vector_declarations() -> None:
    case = CASES["types"]
    begin, end = case.range()
    rw = rewrite_offload(TYPES_PTX, "types", begin, end, "nan", scope="function")
    assert rw.live.live_in == {"%f1", "%f2", "%p2", "%rd4", "%u1", "%u2"} and rw.live.live_out == {"%f2"}
    text = rw.ptx
    for line in ("mov.pred %p1, 1;", "mov.b16 %h1, 0x7e00;", "mov.b16 %us1, 0x7e00;", "mov.b16 %rs1, 0x7e00;",
                 "mov.b32 %r99, 0x7fc00000;", "mov.b32 %s1, 0x7fc00000;", "mov.b32 %f3, 0x7fc00000;",
                 "mov.b64 %fd1, 0x7ff8000000000000;", "mov.b64 %ud1, 0x7ff8000000000000;",
                 "mov.b64 %sd1, 0x7ff8000000000000;"):
        assert line in text, line
    # %r<100> is %r0 ... %r99; every register is either live-in or poisoned, and restored unless live-out
    fn = kernel_function(TYPES_PTX, "types")
    assert len(fn.regs) == 4 + 3 + 2 + 2 + 100 + 3 + 2 + 4 + 6 + 2 + 3 + 2
    assert rw.poisoned == set(fn.regs) - rw.live.live_in
    assert rw.restored == set(fn.regs) - {"%f2"}
    for reg in ("%p1", "%h1", "%us1", "%rs1", "%fd1", "%ud1", "%sd1", "%s1", "%r99"):
        shadow = re.search(rf"mov\.\w+ (%tomv_s\d+), {re.escape(reg)};", text)
        assert shadow, reg
        assert re.search(rf"mov\.\w+ {re.escape(reg)}, {shadow.group(1)};", text), f"{reg} is not restored"
    # the entry code follows the label that shared its line with the loop's first instruction
    new = kernel_function(text, "types")
    assert new.labels["$Lloop"] == rw.entry and new.body[rw.entry].full == "bra"
    assert new.body[rw.exit].full == "bra" and new.labels["$Lafter"] == rw.exit
    assert branch_target(new.body[rw.exit - 1]) == "$Lloop"
    # "block" scope handles only the registers the block names
    small = rewrite_offload(TYPES_PTX, "types", begin, end, "nan")
    assert small.poisoned == {"%f3", "%p3"} and small.restored == {"%f1", "%f3", "%p2", "%p3", "%rd4", "%u1", "%u2"}


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas (CUDA toolkit) is needed to assemble the PTX")
@pytest.mark.parametrize("pattern", POISON_PATTERNS)
def test_rewritten_ptx_assembles(tmp_path, pattern: str) -> None:
    begin, end = CASES["types"].range()
    for scope in ("block", "function"):
        src = tmp_path / f"{pattern}_{scope}.ptx"
        src.write_text(rewrite_offload(TYPES_PTX, "types", begin, end, pattern, scope=scope, seed=3).ptx)
        proc = subprocess.run(["ptxas", "-arch=sm_75", str(src), "-o", str(tmp_path / "out.cubin")],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, proc.stderr


@needs_nvcc
def test_not_offloadable_blocks_are_refused() -> None:
    ptx = cuda_ptx()
    dot = kernel_function(ptx, "dot_rows")
    b, e = dot.labels["$L__BB0_2"], dot.labels["$L__BB0_3"]
    assert offload_problems(dot, b, e) == []
    assert any("entered other than" in p for p in offload_problems(dot, b - 1, b + 2))  # the back edge enters
    assert any(f"leaves to instruction {b}," in p for p in offload_problems(dot, b + 1, e))  # ... or leaves
    strided = kernel_function(ptx, "strided_sum")
    guard = next(i for i, ins in enumerate(strided.body) if ins.full == "bra" and ins.guard is not None)
    assert any("leaves to instruction" in p for p in offload_problems(strided, 0, guard + 1))
    with pytest.raises(OffloadError, match="leaves to instruction"):
        rewrite_offload(ptx, "strided_sum", 0, guard + 1)
    with pytest.raises(OffloadError, match="not a range"):
        rewrite_offload(ptx, "dot_rows", e, b)
    with pytest.raises(OffloadError, match="no function"):
        rewrite_offload(ptx, "nope", b, e)
    with pytest.raises(OffloadError, match="not live-in"):
        rewrite_offload(ptx, "dot_rows", b, e, drop_live_in=["%f6"])
    with pytest.raises(ValueError, match="unknown poison pattern"):
        rewrite_offload(ptx, "dot_rows", b, e, "sevens")


def test_forbidden_instructions_and_shared_lines_are_refused() -> None:
    body = TYPES_PTX.replace("\tst.global.f32 \t[%rd4], %f2;", "\tst.global.f32 \t[%rd4], %f2;\n\tbar.sync \t0;")
    fn = kernel_function(body, "types")
    begin, end = fn.labels["$Lloop"], fn.labels["$Lafter"]
    assert any("bar.sync" in p for p in offload_problems(fn, begin, end))
    two = TYPES_PTX.replace("\tadd.u32 \t%u2, %u2, 1;\n", "\tadd.u32 \t%u2, %u2, 1; mov.u32 %r7, 1;\n")
    fn = kernel_function(two, "types")
    with pytest.raises(OffloadError, match="several instructions"):
        OffloadEmulator(two, "types", fn.labels["$Lloop"], fn.labels["$Lafter"] - 4)  # end: the add.u32


# ---------------------------------------------------------------------------------------------------------
# Live sets: emulated offloads are transparent, and mutations are caught


@pytest.mark.parametrize("scope", ["block", "function"])
@pytest.mark.parametrize("name", ALL_CASES)
def test_emulated_offload_keeps_outputs_bit_identical(name: str, scope: str) -> None:
    case = CASES[name]
    begin, end = case.range()
    result = verify_block(case.ptx(), case.kernel, begin, end, case.run, scope=scope)
    assert result.ok and set(result.equal) == set(POISON_PATTERNS)
    assert result.live_in and result.poisoned, "the check poisons something"
    assert result.poisoned.isdisjoint(result.live_in)
    # with every register handled, the restores are exercised: registers read after the block come back
    fn = case.function()
    after = set().union(*(analyze(fn).defuse.uses[i] for i in range(end, len(fn.body))))
    if scope == "function" and name != "strided_sum":  # strided_sum's block runs to the final ret
        assert result.restored & after - result.live_out


@pytest.mark.parametrize("name", ALL_CASES)
def test_poisoning_a_live_in_is_caught(name: str) -> None:
    case = CASES[name]
    begin, end = case.range()
    base = verify_block(case.ptx(), case.kernel, begin, end, case.run, ("zero",))
    caught = []
    for reg in sorted(base.live_in):
        res = verify_block(case.ptx(), case.kernel, begin, end, case.run, ("nan", "random"), drop_live_in=reg)
        assert res.mutation == f"live-in {reg} poisoned"
        if not res.ok:
            caught.append(reg)
    assert caught, f"{name}: poisoning no live-in register changed an output"
    if name == "types":
        assert "%p2" in caught and "%u1" in caught  # the predicate read inside; the trip count (budget error)


@pytest.mark.parametrize("name", ALL_CASES)
def test_restoring_a_live_out_is_caught(name: str) -> None:
    case = CASES[name]
    begin, end = case.range()
    live_out = sorted(verify_block(case.ptx(), case.kernel, begin, end, case.run, ("zero",)).live_out)
    if not live_out:
        assert name in ("guarded", "strided_sum", "sparse_load")  # blocks whose results all go to memory
        return
    res = verify_block(case.ptx(), case.kernel, begin, end, case.run, drop_live_out=live_out[0])
    assert not res.ok and res.mutation == f"live-out {live_out[0]} restored"
    with pytest.raises(OffloadMismatch, match="restored"):
        verify_block(case.ptx(), case.kernel, begin, end, case.run, ("random",), drop_live_out=live_out[0],
                     strict=True)


@needs_nvcc
def test_skip_path_restores_nothing() -> None:
    """Threads that jump over the block reach ``end`` without a saved state: restoring there would clobber
    the registers they still use (their thread index, read inside the block and after it)."""
    case = CASES["guarded"]
    begin, end = case.range()
    rw = rewrite_offload(case.ptx(), case.kernel, begin, end, "random")
    assert outputs_differ(case.run(case.ptx()), case.run(rw.ptx)) == ()
    broken = re.sub(r"\t@!%tomv_in bra \$tomv_leave;\n", "", rw.ptx)
    assert broken != rw.ptx
    assert outputs_differ(case.run(case.ptx()), case.run(broken)) == ("z",)


def test_restores_are_needed() -> None:
    """Without the exit's restores, registers poisoned at the entry and read after the block (the predicate
    %p1 and every other type) reach the outputs."""
    case = CASES["types"]
    begin, end = case.range()
    rw = rewrite_offload(TYPES_PTX, "types", begin, end, "nan", scope="function")
    broken = re.sub(r"\tmov\.\w+ %[a-z]+\d+, %tomv_s\d+;\n", "", rw.ptx)
    assert broken.count("%tomv_s") < rw.ptx.count("%tomv_s")
    ref, bad = case.run(TYPES_PTX), case.run(broken)
    assert outputs_differ(ref, case.run(rw.ptx)) == ()
    assert outputs_differ(ref, bad) == ("o",)
    o_ref, o_bad = ref["o"].reshape(-1, 8), bad["o"].reshape(-1, 8)
    assert (o_ref[:, 0] >> 32 != o_bad[:, 0] >> 32).any()  # the selp of %p1 (1 or 2) now reads poison
    assert (o_ref[:, 1:5] != o_bad[:, 1:5]).all(axis=0).all()  # u16/f16/b16, f64, u64, s64 lanes


def test_liveness_bugs_are_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """An analysis that forgets a live-in (the predicate read inside the loop) or its live-outs fails."""
    from ndpgpu.analysis.liveness import Liveness

    case = CASES["types"]
    begin, end = case.range()
    real_in, real_out = Liveness.range_live_in, Liveness.range_live_out
    monkeypatch.setattr(Liveness, "range_live_in", lambda self, s, e: real_in(self, s, e) - {"%p2"})
    with pytest.raises(OffloadMismatch, match="types"):
        verify_block(TYPES_PTX, "types", begin, end, case.run)
    monkeypatch.setattr(Liveness, "range_live_in", real_in)
    monkeypatch.setattr(Liveness, "range_live_out", lambda self, s, e: set())
    with pytest.raises(OffloadMismatch, match="types"):
        verify_block(TYPES_PTX, "types", begin, end, case.run)
    monkeypatch.setattr(Liveness, "range_live_out", real_out)
    assert verify_block(TYPES_PTX, "types", begin, end, case.run).ok


def test_strict_mismatch_names_the_pattern() -> None:
    case = CASES["types"]
    begin, end = case.range()
    with pytest.raises(OffloadMismatch, match=r"types \[\d+, \d+\) \(live-in %p2 poisoned\).*nan"):
        verify_block(TYPES_PTX, "types", begin, end, case.run, ("nan",), drop_live_in="%p2", strict=True)


# ---------------------------------------------------------------------------------------------------------
# Written lines


def _decode_lines(rec: np.void, lane_addrs: np.ndarray) -> set[int]:
    """Lines of one record, decoded here from the raw fields (base + lane * stride, by rows of ``row_lanes``
    lanes with ``row_stride`` between rows, or the lane table)."""
    mask = int(rec["mask"])
    lanes = [lane for lane in range(32) if mask >> lane & 1]
    if int(rec["addr_index"]) < 0:
        w = int(rec["row_lanes"]) or 32
        addrs = [int(rec["base"]) + lane % w * int(rec["stride"]) + lane // w * int(rec["row_stride"])
                 for lane in lanes]
    else:
        j = int(rec["addr_index"])
        addrs = [int(lane_addrs[j + lane]) for lane in lanes]
    size = int(rec["size"])
    return {a // LINE_BYTES * LINE_BYTES for a in addrs} | {(a + size - 1) // LINE_BYTES * LINE_BYTES for a in addrs}


def walk_instances(trace: tf.KernelTrace, warp: int, begin_pc: int, end_pc: int) -> list[tuple[set[int], list[int]]]:
    """One instruction at a time, with the timing engine's rule (a record belongs to the next instruction
    of its PC): per instance, the lines stored to and the records issued."""
    out: list[tuple[set[int], list[int]]] = []
    ri, rend = int(trace.warp_mem_start[warp]), int(trace.warp_mem_start[warp + 1])
    was_inside = False
    for s in range(int(trace.warp_seg_start[warp]), int(trace.warp_seg_start[warp + 1])):
        seg = trace.segments[s]
        for pc in range(int(seg["pc"]), int(seg["pc"]) + int(seg["count"])):
            inside = begin_pc <= pc < end_pc
            if inside and not was_inside:
                out.append((set(), []))
            if ri < rend and int(trace.mem[ri]["pc"]) == pc:
                rec = trace.mem[ri]
                if inside:
                    out[-1][1].append(ri)
                    if rec["flags"] & tf.MEM_STORE:
                        out[-1][0].update(_decode_lines(rec, trace.lane_addrs))
                ri += 1
            was_inside = inside
    assert ri == rend
    return out


def affine_lines(fn: Function, program: Any, trace: tf.KernelTrace, inst: BlockInstance,
                 params: dict[str, int]) -> set[int]:
    """The lines the instance's stores write according to the affine analysis of their addresses, evaluated
    per lane with the launch's thread indices, parameters and loop iterations counted in the trace."""
    an = analyze(fn)
    ir_of_line = {ins.line: i for i, ins in enumerate(fn.body)}
    pcs, _, _ = warp_pcs(trace, inst.warp)
    left, _ = match_records(trace, inst.warp)
    r0 = int(trace.warp_mem_start[inst.warp])
    launch = trace.launch
    cta, wic = divmod(inst.warp, launch.warps_per_cta)
    (bx, by, _), (gx, gy, gz) = launch.block, launch.grid
    base = {"%ntid.x": bx, "%ntid.y": by, "%ntid.z": launch.block[2], "%nctaid.x": gx, "%nctaid.y": gy,
            "%nctaid.z": gz, "%ctaid.x": cta % gx, "%ctaid.y": cta // gx % gy, "%ctaid.z": cta // (gx * gy), **params}
    lines: set[int] = set()
    for r in inst.records:
        rec = trace.mem[r]
        if not rec["flags"] & tf.MEM_STORE:
            continue
        i = ir_of_line[int(program.line_of_pc[int(rec["pc"])])]
        expr = an.affine.address(i)
        assert expr is not None, an.affine.reason(i)
        pos = int(left[r - r0])
        values = dict(base)
        for atom in expr.atoms():
            if atom.startswith("loop:"):
                loop = an.loops.loop(atom[5:])
                blocks = [an.cfg.blocks[b] for b in loop.blocks]
                loop_pcs = {int(program.pc_of_line[fn.body[k].line]) for b in blocks for k in range(b.start, b.end)}
                header = int(program.pc_of_line[fn.body[an.cfg.blocks[loop.header].start].line])
                it = -1
                for q in range(pos + 1):
                    if pcs[q] == header:
                        it = it + 1 if q > 0 and int(pcs[q - 1]) in loop_pcs else 0
                values[atom] = it
        size = int(rec["size"])
        for lane in range(32):
            if int(rec["mask"]) >> lane & 1:
                lin = wic * 32 + lane
                addr = expr.evaluate({**values, "%tid.x": lin % bx, "%tid.y": lin // bx % by,
                                      "%tid.z": lin // (bx * by)})
                lines |= {addr // LINE_BYTES * LINE_BYTES, (addr + size - 1) // LINE_BYTES * LINE_BYTES}
    return lines


def check_instances(trace: tf.KernelTrace, begin_pc: int, end_pc: int) -> list[BlockInstance]:
    """Invariants of ``block_instances`` on one trace, against the per-instruction walk."""
    insts = block_instances(trace, begin_pc, end_pc)
    attributed: set[int] = set()
    for inst in insts:
        seg = trace.segments[inst.segment]
        assert int(seg["warp"]) == inst.warp and int(seg["pc"]) + inst.offset == begin_pc
        assert inst.offset < int(seg["count"]) and inst.mask == int(seg["mask"])
        for r in inst.records:  # nothing outside the block is attributed to it
            assert begin_pc <= int(trace.mem[r]["pc"]) < end_pc
            assert int(trace.mem[r]["warp"]) == inst.warp
        attributed.update(inst.records)
    # every record of a block PC is some instance's: no store inside the block is missed
    in_block = np.flatnonzero((trace.mem["pc"] >= begin_pc) & (trace.mem["pc"] < end_pc))
    assert attributed == set(in_block.tolist())
    by_warp: dict[int, list[BlockInstance]] = {}
    for inst in insts:
        by_warp.setdefault(inst.warp, []).append(inst)
    for w in range(trace.num_warps):
        walked = walk_instances(trace, w, begin_pc, end_pc)
        mine = by_warp.get(w, [])
        assert len(walked) == len(mine)
        for inst, (lines, recs) in zip(mine, walked, strict=True):
            if inst.exact:
                assert inst.lines == lines and list(inst.records) == recs
    return insts


@pytest.mark.parametrize("name", ALL_CASES)
def test_written_lines_agree_with_rewritten_run_and_affine_addresses(name: str) -> None:
    case = CASES[name]
    begin, end = case.range()
    fn = case.function()
    orig = case.launch(case.ptx(), trace=True)
    rw = rewrite_offload(case.ptx(), case.kernel, begin, end, "random", seed=11)
    new = case.launch(rw.ptx, trace=True)
    assert outputs_differ(orig.outputs, new.outputs) == ()
    bpc, epc = block_pcs(orig.program, fn, begin, end)
    insts = check_instances(orig.trace, bpc, epc)
    assert insts and all(i.exact for i in insts)
    assert any(i.lines for i in insts), "the block stores something"
    rbpc, repc = block_pcs(new.program, kernel_function(rw.ptx, case.kernel), rw.entry, rw.exit)
    assert (rbpc, repc) != (bpc, epc) and repc - rbpc > epc - bpc
    rinsts = check_instances(new.trace, rbpc, repc)
    assert [(i.warp, i.mask, i.lines) for i in rinsts] == [(i.warp, i.mask, i.lines) for i in insts]
    for inst in insts:
        assert inst.lines == affine_lines(fn, orig.program, orig.trace, inst, orig.params)
    if name == "guarded":
        assert {i.warp for i in insts} == {0, 1, 2, 3} and insts[3].mask == (1 << 4) - 1  # threads 96-99
    if name == "dot_rows":
        prod = orig.params["dot_rows_param_2"]
        assert len(insts) == 4
        assert set().union(*(i.lines for i in insts)) == {a // LINE_BYTES * LINE_BYTES
                                                          for a in range(prod, prod + N_DOT * T_DOT * 4, 4)}


def test_fully_guarded_off_stores_make_attribution_inexact() -> None:
    """Without a record for a store whose lanes were all guarded off, the next record could belong to either
    instance: the instances say so instead of guessing. An unguarded load in each iteration settles it."""
    for load in (False, True):
        ptx = sparse_ptx(load)
        case = dataclasses.replace(CASES["sparse_load"], ptx=lambda ptx=ptx: ptx)
        fn = case.function()
        begin, end = case.range()
        run = case.launch(ptx, trace=True)
        bpc, epc = block_pcs(run.program, fn, begin, end)
        insts = check_instances(run.trace, bpc, epc)
        assert len(insts) == 4 * 3  # 4 warps, 3 outer iterations
        out = run.params["sparse_param_0"]
        if load:
            assert all(i.exact for i in insts)
            for k, inst in enumerate(insts):
                row = out + (k % 3) * 512 + inst.warp * 128
                assert inst.lines == {a // LINE_BYTES * LINE_BYTES for a in range(row, row + 128, 4)}
        else:
            assert not any(i.exact for i in insts)
            left, right = match_records(run.trace, 0)
            assert (left < right).all()


def test_block_instances_rejects_entry_in_the_middle() -> None:
    case = CASES["types"]
    run = case.launch(TYPES_PTX, trace=True)
    fn = case.function()
    begin, end = case.range()
    bpc, epc = block_pcs(run.program, fn, begin, end)
    with pytest.raises(OffloadError, match="enters"):
        block_instances(run.trace, bpc - 1, bpc + 2)  # the loop's back edge jumps to its second PC
    assert block_instances(run.trace, bpc, epc, warps=[1])[0].warp == 1


# ---------------------------------------------------------------------------------------------------------
# TOM workloads

@dataclasses.dataclass(frozen=True)
class WorkloadSpec:
    """How a TOM workload is checked: parameter overrides of its tiny scale, where its blocks come from
    (the candidate pass, and natural loops or straight-line runs), and the poison patterns."""

    overrides: dict[str, Any] = dataclasses.field(default_factory=dict)
    sources: tuple[str, ...] = ("candidates", "loops")
    patterns: tuple[str, ...] = POISON_PATTERNS


WORKLOADS = {
    # tiny's 2048 elements per vector never enter scalarprod's 4x-unrolled loop (the candidate); 4096 do
    "scalarprod": WorkloadSpec({"element_n": 4096}),
    "reduction": WorkloadSpec(),
    "backprop": WorkloadSpec(),
    # portfolio_b's loops (TOM's Fig. 4) and the forward kernel's candidate; libor's natural loops are whole
    # path loops of thousands of instructions, and each run takes about a second
    "libor": WorkloadSpec(sources=("candidates",), patterns=("nan", "random")),
}
WORKLOAD_PARAMS = [pytest.param(n, marks=[needs_nvcc, *([pytest.mark.slow] if n == "libor" else [])])
                   for n in WORKLOADS]


@cache
def harness(name: str) -> WorkloadHarness:
    return WorkloadHarness(name, "tiny", overrides=WORKLOADS[name].overrides)


def workload_blocks(name: str) -> list[tuple[str, int, int]]:
    """The blocks of every launched kernel, from each of the workload's sources."""
    h = harness(name)
    out = []
    for kernel in h.kernels:
        fn = h.function(kernel)
        blocks: set[tuple[int, int]] = set()
        for source in WORKLOADS[name].sources:
            blocks |= set(candidate_blocks(fn, source, h.programs[kernel]))
        out += [(kernel, b, e) for b, e in sorted(blocks)]
    return out


@pytest.mark.parametrize("name", WORKLOAD_PARAMS)
def test_workload_blocks_are_transparent_and_mutations_caught(name: str) -> None:
    h = harness(name)
    blocks = workload_blocks(name)
    assert blocks
    for kernel, begin, end in blocks:
        res = verify_block(h.ptx, kernel, begin, end, h.run, WORKLOADS[name].patterns, baseline=h.baseline)
        assert res.ok
        mutations = [{"drop_live_in": r} for r in sorted(res.live_in)[:4]]
        mutations += [{"drop_live_out": r} for r in sorted(res.live_out)[:2]]
        caught = any(not verify_block(h.ptx, kernel, begin, end, h.run, ("nan",), baseline=h.baseline, **m).ok
                     for m in mutations)  # stops at the first mutation caught
        assert caught, f"{name} {kernel} [{begin}, {end}): no mutation of the live sets changed an output"


def span_candidate(kernel: str, begin_pc: int, end_pc: int) -> Candidate:
    """A block as the offload plan sees it (only its PC range matters to ``find_instances``)."""
    return Candidate(index=0, kernel=kernel, begin=0, end=0, begin_pc=begin_pc, end_pc=end_pc, live_in=(),
                     live_out=(), reg_tx=0, reg_rx=0, n_ld_fixed=0, n_st_fixed=0, n_ld_iter=0, n_st_iter=0,
                     trip="none", trip_count=None, header_pc=None, tmin=None)


@pytest.mark.parametrize("name", WORKLOAD_PARAMS)
def test_workload_written_lines(name: str) -> None:
    """The lines each instance writes, as the acknowledgement reports them (``instances.find_instances``),
    equal those of an independently traced run of the rewritten (poisoned) kernel."""
    h = harness(name)
    orig = h.traced(h.ptx)
    for kernel, begin, end in workload_blocks(name):
        fn = h.function(kernel)
        rw = rewrite_offload(h.ptx, kernel, begin, end, "random", seed=5)
        new = h.traced(rw.ptx)
        assert outputs_differ(orig.outputs, new.outputs) == ()
        bpc, epc = block_pcs(orig.programs[kernel], fn, begin, end)
        rbpc, repc = block_pcs(new.programs[kernel], kernel_function(rw.ptx, kernel), rw.entry, rw.exit)
        checked = 0
        for t_orig, t_new in zip(orig.traces_of(kernel), new.traces_of(kernel), strict=True):
            insts = check_instances(t_orig, bpc, epc)
            rinsts = check_instances(t_new, rbpc, repc)
            assert [(i.warp, i.mask, i.lines) for i in rinsts] == [(i.warp, i.mask, i.lines) for i in insts]
            assert all(i.exact for i in insts)
            # the offload plan's instances (the engine's acknowledgement lists) against this reference
            plan = find_instances(t_orig, [span_candidate(kernel, bpc, epc)])
            assert list(plan.table[:, I_WARP]) == [i.warp for i in insts]
            assert list(plan.table[:, I_SEG0]) == [i.segment for i in insts]
            assert list(plan.table[:, I_OFF0]) == [i.offset for i in insts]
            acks = [set(plan.written[plan.written_start[k]:plan.written_start[k + 1]].tolist())
                    for k in range(len(plan))]
            assert acks == [i.lines for i in insts]
            checked += len(insts)
        assert checked, f"{name} {kernel} [{begin}, {end}) never runs: its verification would be vacuous"


@needs_nvcc
def test_candidate_pcs_match_block_pcs() -> None:
    from ndpgpu.mechanisms.tom.candidates import find_candidates

    h = harness("libor")
    for kernel in h.kernels:
        fn = h.function(kernel)
        for c in find_candidates(fn, h.programs[kernel]).candidates:
            assert block_pcs(h.programs[kernel], fn, c.begin, c.end) == (c.begin_pc, c.end_pc)


@needs_nvcc
def test_verify_candidates_and_natural_blocks() -> None:
    h = harness("reduction")
    results = verify_candidates("reduction", patterns=("nan",), source="loops", harness=h)
    assert [(r.kernel, r.begin, r.end) for r in results] == [
        (k, b, e) for k in h.kernels for b, e in loop_blocks(h.function(k))]
    assert all(r.ok and r.live_in for r in results)
    bp = harness("backprop")
    assert not any(loop_blocks(bp.function(k)) for k in bp.kernels)
    assert all(straight_blocks(bp.function(k)) for k in bp.kernels)
