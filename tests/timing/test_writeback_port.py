"""GPGPU-Sim's LD/ST unit writes one memory result back a cycle (``core.mem_writeback_port``): the loads merged
into one L1 miss get their data one a cycle after the fill, where without the port they all get it at once. Hits
release their registers without the port. Checked on the load-to-use latency sums, which only the completion
times move (every load issues before the fill arrives)."""

from __future__ import annotations

import pytest
from tracegen import TraceBuilder

from ndpgpu.timing import TimingSession, load_machine

BASE = 1 << 32
IDEAL_FRONT = {"core.ibuffer": 0, "l1i.enabled": False}


def same_line(warps: int, space: str = "global") -> object:
    """One CTA of ``warps`` warps; each loads the same line (or shared-memory word) once and exits."""
    b = TraceBuilder("same", 1, 32 * warps, shared_bytes=4096 if space == "shared" else 0)
    ld = b.op(f"ld.{space}.f32", "load", dst=(3,), src=(1,), space=space, width=4)
    ex = b.op("exit", "branch")
    for w in range(warps):
        b.run(w, ld, base=BASE if space == "global" else 0)
        b.run(w, ex)
    return b.build()


def _run(trace, port: bool, machine: str = "gtx480+gpgpusim3"):
    return TimingSession(machine, {**IDEAL_FRONT, "core.mem_writeback_port": port}).run_launch(trace)


def _sum(st, level: str) -> tuple[int, float]:
    n = int(st.get(f"latency.load_to_use.{level}", "loads"))
    return n, n * st.get(f"latency.load_to_use.{level}", "average")


def test_off_in_every_flavour_until_adopted():
    """Measured neutral on the correlation (docs/timing.md): a field to set, not in the overlays."""
    for name in ("gtx480", "gtx480+gpgpusim", "gtx480+gpgpusim3", "v100-gpgpusim"):
        assert not load_machine(name).core.mem_writeback_port


@pytest.mark.parametrize("warps", [2, 8])
def test_loads_merged_into_one_miss_come_back_one_a_cycle(warps):
    """``warps`` loads of one line: one miss, the rest merged (the L1's merge limit is 8). With the port the
    i-th answered waits i cycles more: the latency sum grows by 0 + 1 + ... + (warps - 1)."""
    on = _sum(_run(same_line(warps), True), "dram")
    off = _sum(_run(same_line(warps), False), "dram")
    assert on[0] == off[0] == warps
    assert on[1] - off[1] == pytest.approx(warps * (warps - 1) / 2, abs=0.01 * warps)  # (edges round to ps)


def test_shared_loads_of_one_cycle_do_not_wait():
    """Shared-memory loads reach the writeback one a cycle anyway (the LD/ST unit takes one a cycle), so alone
    they are not delayed: the same cycles with and without the port."""
    on = _run(same_line(8, "shared"), True)
    off = _run(same_line(8, "shared"), False)
    assert on.get("kernel", "cycles") == off.get("kernel", "cycles")
