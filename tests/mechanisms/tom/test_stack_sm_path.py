"""A stack SM's own path to its vaults: streaming from one stack reaches the stack's internal bandwidth.

Every warp offloads a block of ``LOADS`` independent loads of whole lines of one array that lives in stack 1
(its lines spread over the stack's 16 vaults, 32 lines of a vault per 4 KB row). The stack SM runs the
blocks; the only bound left is the vaults' (``bounds.vault_bound_gbs``: 16 x 10 GB/s less refresh). Before
the stack SM had a path of its own it moved replies through one GPU crossbar port (40-B flits at 1.25 GHz:
about 40 GB/s of 128-B lines), a quarter of that. The path's bandwidth counts packet bytes (8 B of header
per 128 B line), so at the stack's 160 GB/s it delivers 150.6 GB/s of data, 97% of the vaults' bound.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_block_offload import rows
from tracegen import TraceBuilder

from ndpgpu.mechanisms.tom.unit import OFFLOAD_INSTANCE_FIELDS, BlockOffload, BlockOffloadHardware, OffloadPlan
from ndpgpu.timing import TimingSession, load_machine
from ndpgpu.timing.bounds import vault_bound_gbs
from ndpgpu.timing.policies import ParityMapping

A = 1 << 32
LOADS = 64
# stack 1 only: vault = a[10:7], stack bit 0 = a[32] (1 in [2^32, 2^33)), stack bit 1 = a[40] (0 there);
# the line within a 4 KB row is a[15:11], bank a[19:16], row a[31:20]
STACK1 = ParityMapping(tuple(1 << b for b in (7, 8, 9, 10, 32, 40)), tuple(1 << b for b in (16, 17, 18, 19)),
                       ((1 << 32) - 1) & ~((1 << 20) - 1))


def stream(num_ctas: int, threads: int = 256):
    """Each warp: a mov, then ``LOADS`` independent full-line loads (its block), then exit."""
    return mixed(num_ctas, 0, threads)


class EveryWarp(BlockOffload):
    """One instance per warp: the loads (PCs 1..LOADS), decided at the first; one live-in register."""

    def plan(self, trace, machine):
        out = []
        for w in range(trace.num_warps):
            s, r = int(trace.warp_seg_start[w]), int(trace.warp_mem_start[w])
            row = dict(warp=w, seg0=s, off0=1, dseg=s, doff=1, seg1=s, off1=1 + LOADS, rec0=r, rec1=r + LOADS,
                       line=A + w * LOADS * 128, allowed=1, adds_tx=1, adds_rx=0, req_flits=9, ack_flits=1,
                       wl0=0, wl1=0)
            out.append([row[f] for f in OFFLOAD_INSTANCE_FIELDS])
        return OffloadPlan(np.array(out, np.int64), np.zeros(0, np.int64), mode="always")


def stream_gbs(**over) -> tuple[float, dict]:
    m = load_machine("tom-ndp", over or None)
    sess = TimingSession(m)
    sess.map_range(A, A + (1 << 31), STACK1)
    sess.attach(BlockOffloadHardware(EveryWarp()))
    r = rows(sess.run_launch(stream(num_ctas=48)))
    assert r["offload.blocks"]["completed"] == 48 * 8
    assert r["offload.stack_sm1"]["warp_instructions"] == 48 * 8 * LOADS
    nbytes = r["dram"]["reads"] * 128
    assert nbytes == 48 * 8 * LOADS * 128  # every line read once, from stack 1's vaults
    return nbytes / r["kernel"]["time"], r


def test_stack_sm_streams_at_the_stacks_internal_bandwidth():
    gbs, r = stream_gbs()
    bound = vault_bound_gbs(load_machine("tom-ndp"), stacks=1)
    assert 150 < bound < 160  # 16 vaults x 10 GB/s, less refresh
    assert gbs >= 0.9 * bound
    assert gbs <= bound * 1.001
    assert r["link"]["rx_bytes"] < 48 * 8 * 16 * 2  # the data never crossed the GPU's links


def test_the_path_and_the_mshrs_each_bind_when_narrowed():
    full, _ = stream_gbs()
    narrow, _ = stream_gbs(**{"stacks.sm_path_gbs": 40.0})
    assert narrow <= 40 * 128 / 136 * 1.001  # replies of 8 B header + 128 B data at 40 GB/s of port
    assert narrow >= 0.9 * 40 * 128 / 136
    few, _ = stream_gbs(**{"stacks.sm_mshr_entries": 16})
    assert few < 0.5 * full  # 16 lines in flight cannot cover the vaults' round trip


def test_half_the_tsvs_halve_the_stream():
    """TOM's "1x internal bandwidth" study: 32 TSVs per vault; the stack SM's path follows the vaults."""
    full, _ = stream_gbs()
    half, _ = stream_gbs(**{"stacks.tsvs_per_vault": 32, "dram.bus_bits": 32})
    bound = vault_bound_gbs(load_machine("tom-ndp", {"stacks.tsvs_per_vault": 32, "dram.bus_bits": 32}), stacks=1)
    assert half <= bound * 1.001 and half >= 0.9 * bound
    assert half == pytest.approx(full / 2, rel=0.1)


def mixed(offload_ctas: int, gpu_ctas: int, threads: int = 256):
    """The stream's warps (offloaded) first, then GPU warps that each load ``LOADS`` lines of another array
    of stack 1 (their data crosses stack 1's RX link to the GPU)."""
    b = TraceBuilder("mixed", offload_ctas + gpu_ctas, threads)
    pre = b.op("mov.u32", "int", dst=(1,), src=(0,))
    loads = [b.op("ld.global.f32", "load", dst=(10 + j,), src=(1,), space="global", width=4) for j in range(LOADS)]
    ex = b.op("exit", "branch")
    per_cta = threads // 32
    for w in range((offload_ctas + gpu_ctas) * per_cta):
        base = A if w < offload_ctas * per_cta else A + (1 << 30)
        b.run(w, pre)
        for j, pc in enumerate(loads):
            b.run(w, pc, base=base + (w * LOADS + j) * 128)
        b.run(w, ex)
    return b.build()


class FirstWarps(EveryWarp):
    """EveryWarp's plan for the first ``n`` warps only (the rest run on the GPU)."""

    def __init__(self, n: int) -> None:
        self.n = n

    def plan(self, trace, machine):
        full = super().plan(trace, machine)
        return OffloadPlan(full.instances[: self.n], full.written_lines, mode="always")


def test_local_data_does_not_wait_behind_the_gpus_link_traffic():
    """A vault's reply to its own stack's SM leaves by a return queue of its own: GPU reads of the same stack,
    whose data queues for the saturated RX link (about 3 us of backlog), do not hold it up."""
    times = []
    for gpu_ctas in (0, 96):
        sess = TimingSession(load_machine("tom-ndp"))
        sess.map_range(A, A + (1 << 31), STACK1)
        sess.attach(BlockOffloadHardware(FirstWarps(48 * 8)))
        r = rows(sess.run_launch(mixed(48, gpu_ctas)))
        assert r["offload.blocks"]["completed"] == 48 * 8
        if gpu_ctas:
            assert r["link.stack1.rx"]["utilisation"] > 0.8  # the GPU's reads keep stack 1's RX link busy
        times.append(r["offload.blocks"]["stack_time"])
    alone, contended = times
    assert contended < 2.5 * alone  # the vaults are shared (measured: 1.23x); the link's backlog is not
