"""The ``gpgpusim3`` overlay (GPGPU-Sim 3.x timing) and the ``gtx480-gpgpusim3`` preset: exactly the overlay's
fields change; L1D hits take one cycle and shared loads three (a dependent chain's cycles counted by hand);
misses read whole lines; host copies leave the L2 cold."""

from __future__ import annotations

import pytest
from tracegen import TraceBuilder, pointer_chase

from ndpgpu.timing import TimingSession, load_machine
from ndpgpu.timing.presets import list_machines, list_overlays

BASE = 1 << 32
NO_REFRESH = {"dram.refresh": False}
# the overlay's front end (fetch into a 2-entry buffer, a cold instruction cache) left out, where a test counts
# the cycles or DRAM bytes of the memory side alone
IDEAL_FRONT = {"core.ibuffer": 0, "l1i.enabled": False}

GPGPUSIM3_FIELDS = {"core.smem.latency", "icnt.allocator",
                    "l1d.latency", "l1d.sector_bytes", "l1d.set_index", "l1c.latency",
                    "l2.sector_bytes", "l2.return_queue", "l2.response_queue", "dram.read_burst_per_sector",
                    "dram.refresh", "dram.timing.tFAW", "pcie.place_in_l2", "dram.mapping.channel_xor",
                    "dram.mapping.bank_xor",
                    "core.ibuffer", "core.fetch_at_barrier", "core.branch_refetch", "l1c.kernel_params",
                    "l1c.keep_across_launches",
                    "l1i.enabled", "core.pipeline_depth", "core.pipeline_depth_mem", "l1d.allocate",
                    "l2.data_port_bytes", "l2.write_miss_fetch", "dram.partition_queue", "sim.drain_memory",
                    "dram.scheduler.impl", "core.atomic_segment_bytes", "core.atomic_warp_parts",
                    "core.cta_dispatch.carry_round_robin", "core.cta_dispatch.first_sm", "core.latency_table",
                    "core.mem_queue"}


def _flat(tree: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in tree.items():
        if isinstance(v, dict):
            out.update(_flat(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def _diff(a, b) -> set[str]:
    fa, fb = _flat(a.model_dump(mode="json")), _flat(b.model_dump(mode="json"))
    return {k for k in fa.keys() | fb.keys() if fa.get(k) != fb.get(k)}


def test_the_overlay_sets_3x_values_and_only_its_fields():
    assert "gpgpusim3" in list_overlays() and "gtx480-gpgpusim3" in list_machines()
    base, m = load_machine("gtx480"), load_machine("gtx480+gpgpusim3")
    assert _diff(base, m) - {"name"} <= GPGPUSIM3_FIELDS
    assert (m.l1d.latency, m.core.smem.latency, m.l1c.latency) == (1, 3, 1)
    assert (m.l1d.sector_bytes, m.l2.sector_bytes, m.l1d.set_index) == (128, 128, "linear")
    assert (m.l2.return_queue, m.l2.response_queue) == (8, 8)
    assert not (m.dram.read_burst_per_sector or m.dram.refresh or m.pcie.place_in_l2) and m.dram.timing.tFAW == 0
    assert m.rop_latency == base.rop_latency == 120  # 3.2.2's GTX480 -rop_latency, as 4.0's
    v = load_machine("v100+gpgpusim3")
    assert _diff(load_machine("v100"), v) - {"name"} <= GPGPUSIM3_FIELDS
    # an overlay adds no hardware: a machine without an L2 keeps none
    ip8 = load_machine("ipndp-ip8+gpgpusim3")
    assert ip8.l2 is None and ip8.rop_latency == 120


def test_the_gtx480_gpgpusim3_preset():
    preset, named = load_machine("gtx480-gpgpusim3"), load_machine("gtx480+gpgpusim3")
    assert _diff(preset, named) == {"name", "description", "l1d.mshr_entries", "l2.mshr_entries",
                                    "dram.scheduler.queue_size", "dram.mapping.fields"}
    assert (preset.l1d.mshr_entries, preset.l2.mshr_entries, preset.dram.scheduler.queue_size) == (32, 32, 16)


def dependent_l1_hits(n: int) -> object:
    """One lane chases one line: the first load misses, the next ``n`` hit in the L1D, each waiting for the last."""
    return pointer_chase([BASE] * (n + 1))


def dependent_shared(n: int) -> object:
    b = TraceBuilder("schain", 1, 32, shared_bytes=128)
    ld = b.op("ld.shared.u32", "load", dst=(1,), src=(1,), space="shared", width=4)
    ex = b.op("exit", "branch")
    for _ in range(n):
        b.run(0, ld, base=0, stride=4)
    b.run(0, ex)
    return b.build()


@pytest.mark.parametrize("name,per_load,depth", [("gtx480+gpgpusim3", 1, 4), ("gtx480", 35, 0)])
def test_a_chain_of_l1_hits_takes_one_cycle_a_load(name, per_load, depth):
    """A dependent chain of L1 hits: a hit issued at cycle k is usable at k + core.pipeline_depth_mem +
    l1d.latency, when the next load issues, so 12 more hits take 12 x (1 + 4) more cycles under 3.x (the LD/ST
    unit reaches each load 4 cycles after issue), 12 x 35 on the hardware preset. The front end is ideal here
    (no instruction cache, no fetch buffer), so only the loads' latency counts."""
    m = load_machine(name, {**NO_REFRESH, **IDEAL_FRONT})
    assert (m.l1d.latency, m.core.pipeline_depth_mem) == (per_load, depth)
    per_load += depth
    short = TimingSession(m).run_launch(dependent_l1_hits(4))
    long = TimingSession(m).run_launch(dependent_l1_hits(16))
    assert long.get("latency.load_to_use.l1", "loads") == 16
    assert long.get("latency.load_to_use.l1", "average") == pytest.approx(per_load, abs=1e-3)
    assert long.cycles - short.cycles == 12 * per_load


@pytest.mark.parametrize("name,per_load,depth", [("gtx480+gpgpusim3", 3, 4), ("gtx480", 26, 0)])
def test_a_chain_of_shared_loads_takes_the_shared_latency_a_load(name, per_load, depth):
    m = load_machine(name)
    assert (m.core.smem.latency, m.core.pipeline_depth_mem) == (per_load, depth)
    per_load += depth
    short = TimingSession(m).run_launch(dependent_shared(4))
    long = TimingSession(m).run_launch(dependent_shared(16))
    assert long.get("smem", "accesses") == 16 and long.get("smem", "bank_conflict_cycles") == 0
    assert long.cycles - short.cycles == 12 * per_load


def test_a_constant_hit_takes_one_cycle():
    b = TraceBuilder("cchain", 1, 32)
    ld = b.op("ld.const.u32", "load", dst=(1,), src=(1,), space="const", width=4)
    ex = b.op("exit", "branch")
    for _ in range(5):
        b.run(0, ld, addrs=[BASE] * 32)
    b.run(0, ex)
    for name in ("gtx480+gpgpusim3", "gtx480+gpgpusim"):
        st = TimingSession(name).run_launch(b.build())
        # one cycle of the constant cache's own after the 4 from issue to the LD/ST unit (core.pipeline_depth_mem)
        assert (st.get("const", "hits"), st.get("latency.load_to_use.l1", "average")) == (4, pytest.approx(5, abs=1e-3))


def test_misses_read_whole_lines():
    """One lane's 4-B load on v100 (32-B sectors): the hardware-faithful machine reads one sector from DRAM, 3.x
    the whole 128-B line (two 64-B atoms of its HBM2 channel, one request)."""
    one_lane = pointer_chase([BASE])
    hw = TimingSession("v100").run_launch(one_lane)
    g3 = TimingSession("v100+gpgpusim3", IDEAL_FRONT).run_launch(one_lane)
    assert hw.get("dram", "read_bytes") == 32
    assert g3.get("dram", "read_bytes") == 128
    assert g3.get("dram", "reads") == hw.get("dram", "reads") == 1


def stores_then_load(lines: list[int], load_line: int) -> object:
    """One warp stores a full 128-B line at each address of ``lines`` (32 lanes x 4 B), then loads one lane of
    ``load_line`` and waits for it."""
    b = TraceBuilder("wa", 1, 32)
    st = b.op("st.global.f32", "store", src=(1, 2), space="global", width=4)
    ld = b.op("ld.global.f32", "load", dst=(3,), src=(1,), space="global", width=4)
    use = b.op("add.f32", "fp32", dst=(4,), src=(3,))
    ex = b.op("exit", "branch")
    for a in lines:
        b.run(0, st, base=a, stride=4)
    b.run(0, ld, addrs=[load_line] * 32)
    b.run(0, use)
    b.run(0, ex)
    return b.build()


def test_a_write_miss_goes_through_and_reads_its_line_in_under_3x():
    """3.2.2's L2 write-allocate ('W'): each full-line store that misses the L2 is one DRAM write of its 128 B
    and one DRAM read of its line. The load right behind the stores waits on its line's outstanding read instead
    of reading it again (4 reads in all), and a later launch's load of another stored line hits the L2, whose
    lines came in clean (no write-back). The hardware-faithful preset (4.0's lazy fetch-on-read) moves nothing
    to or from DRAM: the stored lines are valid in the L2, dirty."""
    lines = [BASE + i * 128 for i in range(4)]
    assert load_machine("gtx480+gpgpusim3").l2.write_miss_fetch and not load_machine("gtx480").l2.write_miss_fetch
    sess = TimingSession("gtx480+gpgpusim3", {**NO_REFRESH, **IDEAL_FRONT})
    g3 = sess.run_launch(stores_then_load(lines, lines[2]))
    assert (g3.get("dram", "writes"), g3.get("dram", "write_bytes")) == (4, 4 * 128)
    assert (g3.get("dram", "reads"), g3.get("dram", "read_bytes")) == (4, 4 * 128)
    assert (g3.get("l2", "misses"), g3.get("l2", "mshr_merges"), g3.get("l2", "writebacks")) == (5, 1, 0)
    later = sess.run_launch(pointer_chase([lines[1]]))
    assert (later.get("l2", "hits"), later.get("dram", "reads")) == (1, 0)
    hw = TimingSession("gtx480", {**NO_REFRESH, **IDEAL_FRONT}).run_launch(stores_then_load(lines, lines[2]))
    assert (hw.get("dram", "writes"), hw.get("dram", "reads"), hw.get("l2", "hits")) == (0, 0, 1)


def one_lane_stores_to_a_line(warps: int, line: int) -> object:
    """``warps`` warps of one block each store one lane (4 B, its own word) of ``line``: the uncoalesced stores of
    a naive transpose, one L2 write request a warp."""
    b = TraceBuilder("st1", 1, 32 * warps)
    st = b.op("st.global.f32", "store", src=(1, 2), space="global", width=4)
    ex = b.op("exit", "branch")
    for w in range(warps):
        b.run(w, st, mask=1, addrs=[line + 4 * w] * 32)
        b.run(w, ex)
    return b.build()


@pytest.mark.parametrize("merge", [2, 4, 8])
def test_writes_to_a_line_being_fetched_join_its_mshr_entry_up_to_its_merge_limit(merge):
    """3.2.2's write-allocate (gpu-cache.cc:794-808) writes a miss through only while the line's MSHR entry has
    room (the write's read joins it, up to ``mshr_merge`` requests); a later write is refused until the fill and
    then hits the (write-back) L2. 16 warps' one-lane stores to one line: the first misses, sends its write and
    the line's read (1 request in the entry); ``merge - 1`` more join it and go through; the remaining
    ``16 - merge`` hit after the fill, with no DRAM traffic (the line stays dirty in the L2)."""
    m = load_machine("gtx480+gpgpusim3")
    assert m.l2.mshr_merge == 4 and m.l2.write_policy == "write_back"
    st = TimingSession("gtx480+gpgpusim3", {**NO_REFRESH, **IDEAL_FRONT, "l2.mshr_merge": merge}).run_launch(
        one_lane_stores_to_a_line(16, BASE))
    assert (st.get("dram", "writes"), st.get("dram", "reads")) == (merge, 1)
    assert (st.get("l2", "misses"), st.get("l2", "hits")) == (merge, 16 - merge)
    assert st.get("l2", "writebacks") == 0


def test_a_read_to_a_line_being_fetched_counts_the_writes_in_its_mshr_entry():
    """The read merge counts every request the entry holds: after 4 one-lane stores fill the entry of a line
    being fetched, a load of that line cannot merge and waits for the fill, then hits; with room (mshr_merge 8)
    it merges. Either way one DRAM read."""
    b = TraceBuilder("stld", 1, 32 * 5)
    st = b.op("st.global.f32", "store", src=(1, 2), space="global", width=4)
    ld = b.op("ld.global.f32", "load", dst=(3,), src=(1,), space="global", width=4)
    use = b.op("add.f32", "fp32", dst=(4,), src=(3,))
    ex = b.op("exit", "branch")
    for w in range(4):
        b.run(w, st, mask=1, addrs=[BASE + 4 * w] * 32)
        b.run(w, ex)
    b.run(4, use)  # the load's warp starts a little later, behind the stores
    b.run(4, use)
    b.run(4, ld, mask=1, addrs=[BASE + 64] * 32)
    b.run(4, use)
    b.run(4, ex)
    trace = b.build()
    for merge, merged, hits in ((4, 0, 1), (8, 1, 0)):
        got = TimingSession("gtx480+gpgpusim3", {**NO_REFRESH, **IDEAL_FRONT, "l2.mshr_merge": merge}).run_launch(
            trace)
        assert (got.get("l2", "mshr_merges"), got.get("l2", "hits")) == (merged, hits)
        assert (got.get("dram", "reads"), got.get("dram", "writes")) == (1, 4)


def test_host_copies_leave_the_l2_cold():
    """gtx480 places a host-to-device copy's lines in the L2 (GPGPU-Sim 4.0's perf_sim_memcpy); 3.x does not,
    so the kernel's first load misses the L2."""
    for name, placed, l2_hits in (("gtx480", True, 1), ("gtx480+gpgpusim3", False, 0)):
        sess = TimingSession(name)
        r = sess.copy(4096, "h2d", BASE)
        assert (r["lines_in_l2"] > 0) == placed
        st = sess.run_launch(pointer_chase([BASE]))
        assert st.get("l2", "hits") == l2_hits


# LLC-Compute's Table 2 under 3.2.2's decoder: 8 MCs, partition chunk 128 B (dramid@7), so the memory
# partition is address bits [9:7] (addrdec.cc:85-90), never hashed with higher bits (no 4.0 indexing).
# Worked by hand: 0x80 -> 1; 0x380 -> 7; 0x400 -> 0 (bit 10 is above the chip field); 0x12345680 -> bits
# [9:7] of 0x680 = 0b1101 0000000 -> 0b101 = 5; 0x1F80 -> 0b11_1111 -> 0b111 = 7; 0x20000 + 0x100 -> 2.
@pytest.mark.parametrize("addr,mc", [(0x0, 0), (0x7F, 0), (0x80, 1), (0x100, 2), (0x380, 7), (0x400, 0),
                                     (0x480, 1), (0x1F80, 7), (0x20100, 2), (0x1234_5680, 5)])
def test_llc_mesh_under_3x_decodes_the_partition_linearly(addr, mc):
    m = load_machine("llc-mesh+gpgpusim3")
    assert (m.dram.channels, m.dram.mapping.channel_bit, m.dram.mapping.channel_xor) == (8, 7, False)
    got = TimingSession("llc-mesh+gpgpusim3").state.map_address(addr)
    assert (got["channel"], got["slice"]) == (mc, mc)


def test_llc_mesh_under_3x_lines_1kb_apart_share_a_slice():
    """A 4.0-style XOR hash would spread a 1 KB stride over the slices; 3.2.2's linear decoder keeps it on one."""
    st = TimingSession("llc-mesh+gpgpusim3").state
    assert {st.map_address(0x300 + i * 1024)["channel"] for i in range(256)} == {6}
    hashed = TimingSession("llc-mesh+gpgpusim3", {"dram.mapping.channel_xor": True}).state
    assert len({hashed.map_address(0x300 + i * 1024)["channel"] for i in range(256)}) == 8



# Banks under 3.2.2's decoder: the bits the mapping marks 'B', never XORed with row bits (addrdec.cc:85-90,
# dram.cc:157; the hashing is 4.0's -dram_bnk_indexing_policy). tom-ndp: 64 vaults on bits [12:7], which the
# channel address drops, then "BBBB.CCCCCCC.XXXXX": address bits [21:18] are the bank, bits 22 up the row.
# Worked by hand: 0x40000 -> bank 1, row 0; 0x400000 (4 MB) -> bank 0, row 1; 0x440000 -> bank 1, row 1;
# 0x1400000 -> bank 0, row 5; 0x3C0000 -> bank 15, row 0. The preset alone XORs the row's low 4 bits into the
# bank (0x400000 -> 1, 0x440000 -> 0, 0x1400000 -> 5).
@pytest.mark.parametrize("addr,bank,row,hashed", [(0x40000, 1, 0, 1), (0x400000, 0, 1, 1), (0x440000, 1, 1, 0),
                                                  (0x1400000, 0, 5, 5), (0x3C0000, 15, 0, 15)])
def test_banks_under_3x_are_their_address_bits(addr, bank, row, hashed):
    assert load_machine("tom-ndp").dram.mapping.bank_xor
    assert not load_machine("tom-ndp+gpgpusim3").dram.mapping.bank_xor
    got = TimingSession("tom-ndp+gpgpusim3").state.map_address(addr)
    assert (got["channel"], got["bank"], got["row"]) == (0, bank, row)
    preset = TimingSession("tom-ndp").state.map_address(addr)
    assert (preset["bank"], preset["row"]) == (hashed, row)


def test_rows_one_bank_period_apart_conflict_in_one_bank_under_3x():
    """Lines 4 MB apart in tom-ndp (one bank period of a vault) fall in one bank, each in a row of its own, under
    3.2.2's decoder; the preset's permutation spreads them over the vault's 16 banks. llc-mesh already decodes
    banks linearly, so the overlay leaves its mapping as it is."""
    lin, xor = TimingSession("tom-ndp+gpgpusim3").state, TimingSession("tom-ndp").state
    addrs = [0x1080 + i * (4 << 20) for i in range(16)]
    assert {(lin.map_address(a)["channel"], lin.map_address(a)["bank"]) for a in addrs} == {(33, 0)}
    assert len({lin.map_address(a)["row"] for a in addrs}) == 16
    assert len({xor.map_address(a)["bank"] for a in addrs}) == 16
    assert load_machine("llc-mesh").dram.mapping == load_machine("llc-mesh+gpgpusim3").dram.mapping


def loads_of(lines: list[int]) -> object:
    """One warp loads one lane of each line in ``lines`` (one instruction, a line a lane) and uses the result."""
    b = TraceBuilder("spread", 1, 32)
    ld = b.op("ld.global.f32", "load", dst=(3,), src=(1,), space="global", width=4)
    use = b.op("add.f32", "fp32", dst=(4,), src=(3,))
    ex = b.op("exit", "branch")
    b.run(0, ld, addrs=lines)
    b.run(0, use)
    b.run(0, ex)
    return b.build()


def one_channels_lines(name: str, n: int) -> list[int]:
    """``n`` lines of one DRAM channel, each in a bank or row of its own, at most two to an L1D set (3.x's L1D
    allocates a line when its miss is sent, so more lines of one 4-way set than its ways would wait there)."""
    st = TimingSession(name).state
    l1d = load_machine(name).l1d
    sets = int(l1d.size_kb * 1024) // (l1d.assoc * l1d.line_bytes)
    seen, per_set, out = set(), {}, []
    addr = BASE
    while len(out) < n:
        got = st.map_address(addr)
        l1_set = (addr // l1d.line_bytes) % sets
        if got["channel"] == 0 and (got["bank"], got["row"]) not in seen and per_set.get(l1_set, 0) < 2:
            seen.add((got["bank"], got["row"]))
            per_set[l1_set] = per_set.get(l1_set, 0) + 1
            out.append(addr)
        addr += l1d.line_bytes
    return out


def test_the_dram_latency_queue_is_not_counted_by_the_scheduler_queue():
    """3.2.2's memory partition (l2cache.cc:195-250) keeps a request its dram_latency in a queue of its own, which
    the FR-FCFS queue's size does not count. With a one-entry scheduler queue, 32 reads of one channel therefore
    overlap their latencies under the overlay's front end, where without it each holds the only entry through
    its controller latency: at least 32 x 132 DRAM cycles, about 3,200 core cycles (700 / 924 MHz)."""
    m = load_machine("gtx480+gpgpusim3")
    assert (m.dram.partition_queue, m.dram.controller_latency) == (8, 132)
    lines = one_channels_lines("gtx480+gpgpusim3", 32)
    one = {**IDEAL_FRONT, "dram.scheduler.queue_size": 1}
    front = TimingSession("gtx480+gpgpusim3", one).run_launch(loads_of(lines))
    direct = TimingSession("gtx480+gpgpusim3", {**one, "dram.partition_queue": 0}).run_launch(loads_of(lines))
    bound = 32 * 132 * 700 / 924
    assert direct.cycles >= bound
    assert front.cycles < bound / 2
    # one request a DRAM cycle enters the latency queue: the last read is served at least 31 + 132 DRAM cycles
    # after the first arrives
    assert front.cycles >= (132 + 31) * 700 / 924
    assert front.get("dram", "reads") == direct.get("dram", "reads") == 32


def test_a_launch_under_3x_ends_when_its_stores_have_reached_dram():
    """GPGPU-Sim runs a kernel until its memory partitions are idle (gpu-sim.cc:655-676), so its cycles include
    the DRAM writes of its last stores (under 3.x's write-allocate each full-line store that misses is one DRAM
    write and one read of its line). Without ``sim.drain_memory`` the launch ends at its last CTA's end, its
    writes still in flight."""
    lines = [BASE + i * 128 for i in range(16)]
    b = TraceBuilder("st", 1, 32)
    st = b.op("st.global.f32", "store", src=(1, 2), space="global", width=4)
    ex = b.op("exit", "branch")
    for a in lines:
        b.run(0, st, base=a, stride=4)
    b.run(0, ex)
    trace = b.build()
    assert load_machine("gtx480+gpgpusim3").sim.drain_memory and not load_machine("gtx480").sim.drain_memory
    drained = TimingSession("gtx480+gpgpusim3", IDEAL_FRONT).run_launch(trace)
    assert (drained.get("dram", "write_bytes"), drained.get("dram", "read_bytes")) == (16 * 128, 16 * 128)
    cut = TimingSession("gtx480+gpgpusim3", {**IDEAL_FRONT, "sim.drain_memory": False}).run_launch(trace)
    assert cut.get("dram", "write_bytes") < 16 * 128
    assert cut.cycles < drained.cycles


def test_fills_write_back_their_victims_behind_a_full_front_end():
    """Under the front end with one-entry queues (scheduler, L2-to-DRAM, DRAM-to-L2), eight warps each make eight
    lines of one L2 set dirty (a load, then a full-line store that hits) and then read 32 other lines of that
    set: every fill evicts, so the 64 dirty lines are written back while reads wait for the scheduler. A fill's
    write-back takes the scheduler's own spare room, never a place behind the L2-to-DRAM queue (where it could
    wait on reads that cannot finish while their slice's return queue is full): the launch completes, each
    dirty line written back once (64 x 128 B) and each line read once (8 x 40 x 128 B)."""
    name = "gtx480+gpgpusim3"
    st = TimingSession(name).state
    home = st.map_address(BASE)["channel"]
    sets: dict[tuple[int, int], list[int]] = {}
    addr = BASE
    while len(sets) < 8 or any(len(v) < 40 for v in sets.values()):
        got = st.map_address(addr)
        key = (got["slice"], got["key"] % 64)  # an L2 slice's set (64 sets of 8 ways)
        if got["channel"] == home and (key in sets or len(sets) < 8) and len(sets.setdefault(key, [])) < 40:
            sets[key].append(addr)
        addr += 128
    b = TraceBuilder("wbfill", 8, 32)
    ld = b.op("ld.global.cg.f32", "load", dst=(3,), src=(1,), space="global", width=4)
    st_ = b.op("st.global.f32", "store", src=(1, 2), space="global", width=4)
    use = b.op("add.f32", "fp32", dst=(4,), src=(3,))
    ex = b.op("exit", "branch")
    for w, lines in enumerate(sets.values()):
        dirty, evict = lines[:8], lines[8:]
        b.run(w, ld, addrs=dirty * 4)
        b.run(w, use)
        for a in dirty:
            b.run(w, st_, base=a, stride=4)
        b.run(w, ld, addrs=evict)
        b.run(w, use)
        b.run(w, ex)
    ones = {**IDEAL_FRONT, "dram.scheduler.queue_size": 1, "dram.partition_queue": 1, "l2.return_queue": 1}
    r = TimingSession(name, ones).run_launch(b.build())
    assert (r.get("l2", "writebacks"), r.get("dram", "write_bytes")) == (64, 64 * 128)
    assert r.get("dram", "read_bytes") == 8 * 40 * 128


def test_the_front_end_holds_a_full_latency_queue_and_its_waiting_requests():
    """The front end's ring per channel holds its L2-to-DRAM entries (8 a slice) and the latency queue, which takes
    one request a DRAM cycle and keeps each ``controller_latency`` (132) DRAM cycles: at most 16 + 133 requests.
    Fifteen SMs' warps stream 1,920 L1-bypassing reads at one channel, the scheduler queue made large enough never
    to hold the latency queue back and the L2 given enough MSHRs to keep both full; every read still reaches DRAM
    once (a ring too small would overwrite requests it still holds)."""
    name = "gtx480+gpgpusim3"
    st = TimingSession(name).state
    home = st.map_address(BASE)["channel"]
    lines, addr = [], BASE
    while len(lines) < 15 * 4 * 32:
        if st.map_address(addr)["channel"] == home:
            lines.append(addr)
        addr += 128
    b = TraceBuilder("flood", 15, 32)
    ld = b.op("ld.global.cg.f32", "load", dst=(3,), src=(1,), space="global", width=4)
    use = b.op("add.f32", "fp32", dst=(4,), src=(3,))
    ex = b.op("exit", "branch")
    for w in range(15):
        for i in range(4):
            b.run(w, ld, addrs=lines[(w * 4 + i) * 32:(w * 4 + i + 1) * 32])
        b.run(w, use)
        b.run(w, ex)
    deep = {**IDEAL_FRONT, "dram.scheduler.queue_size": 1024, "l2.mshr_entries": 1024}
    r = TimingSession(name, deep).run_launch(b.build())
    assert r.get("dram", "reads") == len(lines)
