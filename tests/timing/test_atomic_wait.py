"""GPGPU-Sim holds a warp while one of its atomics is outstanding (``core.atomic_wait``; shd_warp_t::waiting in
3.2.2 and 4.0.1): the instructions after an atomic wait for its reply even when they do not read its result.
Checked against bounds made of the same machine's own two parts, the atomic's round trip and an ALU chain, each
timed alone: with the rule they add up, without it they overlap."""

from __future__ import annotations

import pytest
from tracegen import TraceBuilder

from ndpgpu.timing import TimingSession, load_machine

BASE = 1 << 32
CHAIN = 40  # dependent integer adds after the atomic
IDEAL_FRONT = {"core.ibuffer": 0, "l1i.enabled": False}


def kernel(space: str, *, atomic: bool = True, chain: int = CHAIN, use_result: bool = False) -> object:
    """One warp: an atomic (its result in r2), then ``chain`` dependent adds on r5 (or one add reading r2)."""
    b = TraceBuilder("atom_wait", 1, 32, shared_bytes=1024 if space == "shared" else 0)
    at = b.op(f"atom.{space}.add.u32", "atomic", dst=(2,), src=(1, 3), space=space, width=4)
    add = b.op("add.s32", "int", dst=(5,), src=(5, 6))
    use = b.op("add.s32", "int", dst=(7,), src=(2, 6))
    ex = b.op("exit", "branch")
    if atomic:
        b.run(0, at, base=BASE if space == "global" else 0)
    if use_result:
        b.run(0, use)
    for _ in range(chain):
        b.run(0, add)
    b.run(0, ex)
    return b.build()


def cycles(trace, machine: str, wait: bool) -> int:
    st = TimingSession(machine, {**IDEAL_FRONT, "core.atomic_wait": wait}).run_launch(trace)
    return int(st.get("kernel", "cycles"))


@pytest.mark.parametrize("machine", ["gtx480+gpgpusim", "gtx480-gpgpusim3"])
def test_a_global_atomic_holds_the_warp_until_its_reply(machine):
    trip = cycles(kernel("global", chain=0, use_result=True), machine, False)  # the atomic's round trip
    chain = cycles(kernel("global", atomic=False), machine, False)  # the adds alone
    assert trip > 100 and chain > 100  # both long enough for the bounds below to tell them apart
    on = cycles(kernel("global"), machine, True)
    off = cycles(kernel("global"), machine, False)
    assert on >= trip + chain - 20  # in sequence: the adds start after the reply
    assert off <= max(trip, chain) + 20  # overlapped: the adds run under the atomic
    # a kernel whose next instruction reads the result waits either way
    assert cycles(kernel("global", chain=0, use_result=True), machine, True) == trip


def test_a_shared_atomic_holds_the_warp_until_its_value_is_back():
    """A shared atomic's value is back after the shared-memory latency (plus its conflict cycles): the adds
    start that much later, no more."""
    machine = "gtx480+gpgpusim3"
    on = cycles(kernel("shared"), machine, True)
    off = cycles(kernel("shared"), machine, False)
    smem = load_machine(machine).core.smem.latency
    assert smem - 1 <= on - off <= 2 * smem + 2


def test_off_in_the_presets():
    for name in ("gtx480", "v100", "tom-baseline", "llc-mesh", "mpu"):
        assert not load_machine(name).core.atomic_wait
