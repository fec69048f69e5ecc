"""GPGPU-Sim 4.0's sectored L2 answers sector by sector. Each 32-B sector of a write gets its own one-flit
acknowledgement (``l2.sector_acks``): a warp's 128-B store comes back as four packets' worth of reply flits, a
one-sector store as one; loads and the 3.x flavour (unsectored, one acknowledgement a write) are untouched. Misses
merged at a line are answered sector by sector (with ``l2.sector_requests``)."""

from __future__ import annotations

from tracegen import TraceBuilder, one_line_per_cta

from ndpgpu.timing import TimingSession, load_machine

BASE = 1 << 32
# the instruction fetch left out: every packet counted below is a load's or a store's
IDEAL_FRONT = {"core.ibuffer": 0, "l1i.enabled": False}


def stores(warps: int, lanes_mask: int, lines_per_warp: int, with_loads: bool = False) -> object:
    """Each warp stores ``lines_per_warp`` lines (its lanes in ``lanes_mask``, 4 B each, consecutive) and, with
    ``with_loads``, first loads each of those lines."""
    b = TraceBuilder("st", 1, 32 * warps)
    ld = b.op("ld.global.f32", "load", dst=(3,), src=(1,), space="global", width=4)
    st = b.op("st.global.f32", "store", src=(1, 2), space="global", width=4)
    ex = b.op("exit", "branch")
    for w in range(warps):
        for i in range(lines_per_warp):
            base = BASE + 128 * (w * lines_per_warp + i)
            if with_loads:
                b.run(w, ld, base=base)
            b.run(w, st, mask=lanes_mask, base=base)
        b.run(w, ex)
    return b.build()


def _run(trace, machine: str = "gtx480+gpgpusim", **over):
    return TimingSession(machine, {**IDEAL_FRONT, **over}).run_launch(trace)


def _ack_flits(st) -> tuple[int, int]:
    return (int(st.get("icnt.reply.kind.write_ack", "packets")), int(st.get("icnt.reply.kind.write_ack", "flits")))


def test_the_overlays_set_it_as_their_gpgpusim_versions_do():
    assert load_machine("gtx480+gpgpusim").l2.sector_acks
    assert load_machine("v100-gpgpusim").l2.sector_acks
    assert not load_machine("gtx480+gpgpusim3").l2.sector_acks
    assert not load_machine("gtx480").l2.sector_acks


def test_a_full_store_is_acknowledged_per_sector():
    """8 warps x 4 lines of full-warp float stores: 32 writes of 4 sectors. One acknowledgement packet per write,
    as the SM counts them, carrying one flit per sector (128 flits) instead of one (32)."""
    trace = stores(8, 0xFFFFFFFF, 4)
    on = _run(trace)
    off = _run(trace, **{"l2.sector_acks": False})
    assert _ack_flits(off) == (32, 32)
    assert _ack_flits(on) == (32, 128)
    assert on.get("l2", "accesses") == off.get("l2", "accesses")


def test_a_partial_store_is_acknowledged_per_sector_it_wrote():
    """Lanes 0-7 write one 32-B sector (one flit either way); lanes 0-15 write two (two flits)."""
    one = _run(stores(4, 0x000000FF, 2))
    two = _run(stores(4, 0x0000FFFF, 2))
    assert _ack_flits(one) == (8, 8)
    assert _ack_flits(two) == (8, 16)


def test_loads_are_untouched():
    """On a kernel of load-store pairs the read replies are the same packets and flits either way; the reply
    network carries three flits more per full store."""
    trace = stores(16, 0xFFFFFFFF, 8, with_loads=True)
    on = _run(trace)
    off = _run(trace, **{"l2.sector_acks": False})
    assert on.get("icnt.reply.kind.read", "flits") == off.get("icnt.reply.kind.read", "flits")
    assert on.get("icnt.reply", "flits") - off.get("icnt.reply", "flits") == 3 * 16 * 8


def test_no_l2_no_sector_acks():
    """Without an L2 the memory partition does not split writes: the field has no effect."""
    trace = stores(4, 0xFFFFFFFF, 2)
    a = _run(trace, "gtx480", **{"l2.enabled": False, "l2.sector_acks": True})
    b = _run(trace, "gtx480", **{"l2.enabled": False})
    assert _ack_flits(a) == _ack_flits(b) == (8, 8)
    assert a.cycles == b.cycles


def test_merged_misses_are_answered_sector_by_sector():
    """n SMs miss one line together and merge into its L2 MSHR entry (up to l2.mshr_merge = 4). GPGPU-Sim 4.0's
    slice answers the merged sector requests sector by sector, one a cycle (all n requests' first sector, then
    their second, ...), so request i has its whole line only after 3n + i others (a trace of slice 0's replies in
    GPGPU-Sim 4.0.1 shows that order); each reply then holds the SM-bound port for its 4 flits. The last SM's reply
    thus leaves 3n + 4(n - 1) cycles after a lone request's would. On 3.x (whole lines, no sector requests) the
    replies leave at the fill, 4 cycles apart: 4(n - 1)."""
    def cycles(machine: str, n: int) -> int:
        over = {**IDEAL_FRONT, "pcie.place_in_l2": False}
        return TimingSession(machine, over).run_launch(one_line_per_cta(n, BASE)).cycles

    g40 = {n: cycles("gtx480+gpgpusim", n) for n in (1, 2, 3, 4)}
    g3x = {n: cycles("gtx480+gpgpusim3", n) for n in (1, 2, 3, 4)}
    for n in (2, 3, 4):
        assert g40[n] - g40[1] == 3 * n + 4 * (n - 1)
        assert g3x[n] - g3x[1] == 4 * (n - 1)
