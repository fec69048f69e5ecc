"""A guarded instruction reads its guard predicate: the trace lists the predicate among the registers it reads, so
the scoreboard makes `@%p bra` wait for the `setp` that writes `%p` (as hardware and GPGPU-Sim do). Checked on
hand-written PTX against the registers the `setp` rows write."""

from __future__ import annotations

import numpy as np

import ndpgpu

PTX = r"""
.version 7.0
.target sm_75
.address_size 64
.visible .entry guarded(.param .u64 out, .param .u32 n)
{
  .reg .pred %p<3>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  setp.ge.u32 %p1, %r2, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd2, %rd2, %rd3;
  setp.eq.u32 %p2, %r2, 3;
  @!%p2 st.global.u32 [%rd2], %r2;
DONE:
  ret;
}
"""


def _trace():
    mod = ndpgpu.RawModule(ptx=PTX)
    with ndpgpu.Device(trace=True) as dev:
        out = ndpgpu.zeros(32, np.uint32)
        mod.get_function("guarded")((1,), (32,), (out, np.uint32(16)))
    expected = np.where(np.arange(32) < 16, np.arange(32), 0)
    expected[3] = 0
    np.testing.assert_array_equal(out.get(), expected)
    return dev.traces[0]


def test_guarded_instructions_name_their_predicate():
    tr = _trace()
    names = [tr.opcode_names[int(o)] for o in tr.static["opcode"]]
    setp_dsts = [int(tr.static[pc]["dst"][0]) for pc, n in enumerate(names) if n.startswith("setp")]
    assert len(setp_dsts) == 2
    bra = next(pc for pc, n in enumerate(names) if n.startswith("bra"))
    st = next(pc for pc, n in enumerate(names) if n.startswith("st"))
    assert int(tr.static[bra]["guard"]) == setp_dsts[0]
    assert int(tr.static[st]["guard"]) == setp_dsts[1]  # a negated guard (@!%p) is read the same
    others = [pc for pc in range(len(names)) if pc not in (bra, st)]
    assert (tr.static["guard"][others] == -1).all()


def test_the_scoreboard_holds_a_guarded_branch_until_its_predicate():
    """One warp: `setp` (latency 4 on gtx480) then `@%p bra`: guarded, the branch issues when the predicate is
    written, 3 cycles later than unguarded (the cycle after the setp)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parents[1] / "timing"))
    from tracegen import TraceBuilder

    from ndpgpu.timing import TimingSession

    def cycles(guarded: bool) -> int:
        b = TraceBuilder("g", 1, 32)
        setp = b.op("setp.lt.s32", "setp", dst=(5,), src=(1, 2))
        bra = b.op("bra", "branch")
        ex = b.op("exit", "branch")
        for pc in (setp, bra, ex):
            b.run(0, pc)
        tr = b.build()
        if guarded:
            tr.static["guard"][bra] = 5
        return TimingSession("gtx480").run_launch(tr).cycles

    assert cycles(True) - cycles(False) == 3
