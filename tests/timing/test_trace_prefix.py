"""A trace cut by its size cap (``LaunchOptions.trace_overflow="prefix"``): the launch still runs to its end, each
warp keeps a prefix of exactly what a whole recording holds, and the timing reads it only within a window that
closes before a warp's prefix ends; past that, or without a window, it raises ``TracePrefixExhausted``."""

from __future__ import annotations

import numpy as np
import pytest

import ndpgpu
from ndpgpu.functional.launch import TraceTooLarge
from ndpgpu.timing import TimingSession
from ndpgpu.trace.format import KernelTrace, TracePrefixExhausted

ITERS, STEP, N = 300, 97, 4096
CTAS, THREADS = 8, 128
PTX = f""".version 7.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pout, .param .u32 n)
{{
  .reg .b32 %r<10>;
  .reg .b64 %rd<8>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [pa];
  ld.param.u64 %rd2, [pout];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mad.lo.u32 %r5, %r3, %r4, %r2;
  mov.u32 %r8, 0;
  mov.u32 %r6, 0;
L:
  mul.lo.u32 %r7, %r6, {STEP};
  add.u32 %r7, %r7, %r5;
  rem.u32 %r7, %r7, %r1;
  mul.wide.u32 %rd3, %r7, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r9, [%rd4];
  add.u32 %r8, %r8, %r9;
  add.u32 %r6, %r6, 1;
  setp.lt.u32 %p1, %r6, {ITERS};
  @%p1 bra L;
  mul.wide.u32 %rd5, %r5, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.u32 [%rd6], %r8;
  ret;
}}
"""


def _record(resident: int = 2, **options) -> tuple[KernelTrace, np.ndarray]:
    """One traced launch with ``resident`` CTAs at a time in the functional engine (2: later CTAs start after
    the cut) and its output."""
    a = (np.arange(N, dtype=np.uint32) * 2654435761) % 1000
    opts = ndpgpu.LaunchOptions(max_resident_ctas=resident, quantum=16, trace_chunk_records=256, **options)
    with ndpgpu.Device(trace=True, options=opts) as dev:
        da, out = ndpgpu.asarray(a), ndpgpu.zeros(CTAS * THREADS, np.uint32)
        ndpgpu.RawModule(ptx=PTX).get_function("k")((CTAS,), (THREADS,), (da, out, np.uint32(N)))
        trace = dev.traces[-1]
        result = out.get()
    gid = np.arange(CTAS * THREADS)
    expected = sum(a[(gid + STEP * i) % N].astype(np.uint64) for i in range(ITERS)).astype(np.uint32)
    np.testing.assert_array_equal(result, expected)  # the launch ran to its end either way
    return trace, result


def _pcs(trace: KernelTrace, w: int) -> np.ndarray:
    """Warp ``w``'s dynamic pc sequence."""
    seg = trace.segments[trace.warp_seg_start[w] : trace.warp_seg_start[w + 1]]
    return np.concatenate([np.arange(p, p + c) for p, c in zip(seg["pc"], seg["count"], strict=True)] or [[]])


@pytest.fixture(scope="module")
def traces() -> tuple[KernelTrace, KernelTrace]:
    whole, _ = _record()
    cut, _ = _record(trace_cap_bytes=400_000)
    return whole, cut


@pytest.fixture(scope="module")
def resident_traces() -> tuple[KernelTrace, KernelTrace]:
    """Every CTA resident in the functional engine: each warp has a prefix when the cap stops recording."""
    whole, _ = _record(CTAS)
    cut, _ = _record(CTAS, trace_cap_bytes=400_000)
    return whole, cut


def test_a_cut_trace_keeps_a_prefix_of_every_warps_whole_stream(traces, tmp_path):
    whole, cut = traces
    assert not whole.truncated and whole.complete_warps().all()
    assert cut.truncated and cut.cut_warps and 0 < cut.unstarted_from < cut.num_warps
    complete = cut.complete_warps()
    assert not complete[cut.unstarted_from:].any() and not complete[cut.cut_warps].any()
    fields = ["pc", "mask", "space", "size", "base", "stride"]
    memory_pcs = np.unique(whole.mem["pc"])
    assert len(whole.mem) == np.isin(np.concatenate([_pcs(whole, w) for w in range(whole.num_warps)]),
                                     memory_pcs).sum()  # (one record per memory instruction in this kernel)
    for w in range(cut.num_warps):
        mine, full = _pcs(cut, w), _pcs(whole, w)
        assert np.array_equal(mine, full[: len(mine)])  # a prefix, instruction for instruction
        assert (len(mine) == len(full)) == bool(complete[w])
        m0, m1 = cut.warp_mem_start[w], cut.warp_mem_start[w + 1]
        f0 = whole.warp_mem_start[w]
        assert np.array_equal(cut.mem[fields][m0:m1], whole.mem[fields][f0 : f0 + m1 - m0])
        # segments and memory records end at the same instruction: one record per memory instruction kept
        assert m1 - m0 == np.isin(mine, memory_pcs).sum()
    assert 0 < cut.warp_instructions() < whole.warp_instructions()
    back = KernelTrace.load(cut.save(tmp_path / "cut.npz"))
    assert back.truncated and back.cut_warps == cut.cut_warps and back.unstarted_from == cut.unstarted_from


def test_error_mode_still_raises_and_the_option_is_checked():
    with pytest.raises(TraceTooLarge, match="trace_overflow='prefix'"):
        _record(trace_cap_bytes=120_000, trace_overflow="error")
    with pytest.raises(ValueError, match="trace_overflow must be"):
        ndpgpu.LaunchOptions(trace_overflow="drop")


def _cycles(trace: KernelTrace, window: int) -> int:
    session = TimingSession("gtx480", {"sim.max_warp_instructions": window})
    stats = session.run_launch(trace)
    assert stats.capped
    return stats.cycles


def test_a_window_inside_the_prefixes_times_exactly_as_the_whole_trace(resident_traces):
    whole, cut = resident_traces
    assert cut.truncated and cut.unstarted_from == cut.num_warps and len(cut.cut_warps) == cut.num_warps
    # no warp issues more than the window's instructions, so none reaches the end of its prefix (with room
    # for the few instructions issued in the cycle that reaches the window)
    window = min(len(_pcs(cut, w)) for w in cut.cut_warps) // 2
    assert window > 500
    assert _cycles(cut, window) == _cycles(whole, window)


def test_a_window_past_a_prefix_or_no_window_raises(traces, resident_traces):
    whole, cut = resident_traces
    with pytest.raises(TracePrefixExhausted, match="last instruction of their recorded prefix"):
        _cycles(cut, whole.warp_instructions() - 1)
    with pytest.raises(TracePrefixExhausted, match="within a window"):
        TimingSession("gtx480").run_launch(cut)
    # CTAs the functional engine had not started when recording stopped have no instructions: they run out
    with pytest.raises(TracePrefixExhausted, match=rf"first: {traces[1].unstarted_from}\)"):
        _cycles(traces[1], 64)


def test_a_workload_run_says_what_its_traces_hold():
    from ndpgpu.workloads.runner import run_workload

    def stats(**options):
        opts = ndpgpu.LaunchOptions(trace_chunk_records=256, **options)
        return run_workload("saxpy", "tiny", device=ndpgpu.Device(trace=True, options=opts))

    whole, cut = stats(), stats(trace_cap_bytes=20_000)
    assert whole.passed and cut.passed  # the launch ran to its end either way
    assert whole.stats["truncated_launches"] == 0
    assert whole.stats["traced_warp_instructions"] == whole.stats["warp_instructions"]
    assert cut.stats["truncated_launches"] == 1
    assert cut.stats["warp_instructions"] == whole.stats["warp_instructions"]
    assert 0 < cut.stats["traced_warp_instructions"] < cut.stats["warp_instructions"]
    assert "traced: a prefix of 1 launch(es)" in cut.summary() and "prefix" not in whole.summary()
