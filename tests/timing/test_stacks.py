"""Memory stacks, serial links, logic-die machines and energy tables (issue 4, the memory-stack part).

Expected values come from the presets' YAML values through ``ndpgpu.timing.bounds`` (docs/timing.md,
"Memory stacks and serial links"), never from the engine.
"""

from __future__ import annotations

import numpy as np
import pytest
from tracegen import TraceBuilder, streaming_read

from ndpgpu.power import load_params
from ndpgpu.timing import MachineConfigError, TimingSession, load_machine
from ndpgpu.timing.bounds import link_bounds, link_packet_bytes, vault_bound_gbs

BASE = 1 << 32


def line_stream(lines: list[int], num_ctas: int, threads: int, store: bool = False, base: int = BASE):
    """Each warp loads (or stores) whole 128-B lines ``lines[k * nw + w]`` (a grid-stride loop)."""
    b = TraceBuilder("lines", num_ctas, threads)
    kind = "store" if store else "load"
    if store:
        ops = [b.op("st.global.f32", "store", src=(2, 10 + r), space="global", width=4) for r in range(8)]
    else:
        ops = [b.op("ld.global.f32", "load", dst=(10 + r,), src=(1,), space="global", width=4) for r in range(8)]
    ex = b.op("exit", "branch")
    nw = num_ctas * threads // 32
    per = len(lines) // nw
    for w in range(nw):
        for k in range(per):
            b.run(w, ops[k % 8], base=base + lines[k * nw + w] * 128, stride=4)
        b.run(w, ex)
    assert kind
    return b.build()


def stack_lines(m, stack: int, n: int) -> list[int]:
    """``n`` consecutive line indices of one stack (channel = line % channels, stack = channel // vaults)."""
    vps, nch = m.stacks.vaults_per_stack, m.dram.channels
    return [(i // vps) * nch + stack * vps + i % vps for i in range(n)]


# ------------------------------------------------------------------------------------------------------
# spec


def test_stack_and_link_spec_checks():
    m = load_machine("tom-baseline")
    assert m.stacks.vault_gbs() == 10.0  # 64 TSVs x 1.25 Gb/s / 8
    assert m.dram.bus_bits * m.dram.data_rate * m.clocks.dram_mhz / 8 / 1000 == 10.0
    with pytest.raises(MachineConfigError, match="vault's bus"):
        load_machine("tom-baseline", {"stacks.tsv_gbps": 2.0})
    with pytest.raises(MachineConfigError, match="must equal the DRAM"):
        load_machine("tom-baseline", {"stacks.vaults_per_stack": 8})
    with pytest.raises(MachineConfigError, match="need 'stacks'"):
        load_machine("tom-baseline", {"stacks": None})
    with pytest.raises(MachineConfigError, match="set links to null"):
        load_machine("tom-baseline", {"logic_die": {"stack": 0}})
    assert link_packet_bytes(m) == {"read_request": 16, "read_response": 144, "write": 144, "write_ack": 16}


# ------------------------------------------------------------------------------------------------------
# serial links: bound by the formula of docs/timing.md


def test_link_bound_read_stream_rx_binds():
    m = load_machine("tom-baseline")
    b = link_bounds(m, reads=1)
    assert b["binding"] == 1.0 and b["lowest"] == pytest.approx(4 * 40 * 128 / 144)
    sess = TimingSession(m, {"sim.time_series_interval": 1000})
    st = sess.run_launch(streaming_read(136, 256, 16))
    bw = st["dram.bandwidth"]
    assert 0.85 * b["lowest"] <= bw <= b["lowest"] * 1.0001, (bw, b)
    # every read crossed TX as a request and RX as a 9-flit response
    reads = st["dram.reads"]
    assert st["link.tx_bytes"] == reads * 16
    assert st["link.rx_bytes"] == reads * 144
    for s in range(4):
        assert st[f"link.stack{s}.rx.packets"] == reads // 4
        assert st[f"link.stack{s}.rx.utilisation"] <= 1.0
    # the utilisation time series (TOM's busy monitor) agrees with the totals and stays within [0, 1]
    u = sess.link_utilisation()
    rx = u["stack0.rx"]
    assert rx.min() >= 0 and rx.max() <= 1.0 + 1e-9
    assert rx.max() > 0.95
    busy = sess.launches[-1].time_series["link0_rx_busy_ps"][-1]
    assert busy <= st["link.stack0.rx.busy_time"] * 1000


def test_link_bound_write_stream_tx_binds():
    m = load_machine("tom-baseline")
    b = link_bounds(m, reads=0, writes=1)
    assert b["binding"] == 0.0 and b["lowest"] == pytest.approx(4 * 40 * 128 / 144)
    nl = 136 * 8 * 16
    st = TimingSession(m).run_launch(line_stream(list(range(nl)), 136, 256, store=True))
    # every store crossed TX as a 9-flit write when the L2 wrote it through (the last ones are still in the
    # vault queues when the kernel ends: the L2 acknowledges a write-through store once it is sent)
    assert st["link.tx_bytes"] == nl * 144
    assert st["dram.writes"] <= nl
    assert st["link.rx_bytes"] == st["dram.writes"] * 16  # an acknowledgement per completed write
    bw = st["dram.bandwidth"]  # data written into the vaults during the kernel
    assert 0.85 * b["lowest"] <= bw <= b["lowest"] * 1.0001, (bw, b)
    # busy time counts only up to the kernel's end (FIFO reservations beyond it belong to later time)
    assert 0.85 <= st["link.tx_utilisation"] <= 1.0


def test_link_latency_and_bandwidth_move_the_bound():
    """Halving RX bandwidth halves the read-stream bound, and the engine follows."""
    m = load_machine("tom-baseline", {"links.rx_gbs": 20.0})
    b = link_bounds(m, reads=1)
    st = TimingSession(m).run_launch(streaming_read(136, 256, 8))
    assert 0.85 * b["lowest"] <= st["dram.bandwidth"] <= b["lowest"] * 1.0001


# ------------------------------------------------------------------------------------------------------
# vaults: a stream confined to one stack reaches its vaults' aggregate bound


def test_vault_bandwidth_per_stack():
    # SMs with direct vault access (no links) so that the TSVs, not the links, bind
    # 272 warps with up to 8 loads each in flight cover the vaults' bandwidth x latency; many more only
    # queue in front of the 16 vaults and leave a long tail (136 x 256 threads reach about 57%)
    m = load_machine("tom-baseline", {"links": None})
    bound = vault_bound_gbs(m, 1)
    assert bound == pytest.approx(16 * 10 * (1 - 163 / 4875))
    nl = 68 * 4 * 32
    st = TimingSession(m).run_launch(line_stream(stack_lines(m, 2, nl), 68, 128))
    assert st["stacks.stack2.bytes"] == nl * 128
    for s in (0, 1, 3):
        assert st[f"stacks.stack{s}.bytes"] == 0
    bw = st["stacks.stack2.bandwidth"]
    assert 0.85 * bound <= bw <= bound * 1.0001, (bw, bound)
    assert "link" not in st.metrics()


# ------------------------------------------------------------------------------------------------------
# logic-die machines


def test_no_l2_every_l1_miss_goes_to_dram():
    m = load_machine("ipndp-base8", {"l2": None})
    st = TimingSession(m).run_launch(streaming_read(16, 256, 8, store=True))
    assert st["l1d.misses"] > 0
    assert st["dram.reads"] == st["l1d.misses"] - st["l1d.mshr_merges"] == 16 * 8 * 8
    assert st["l2.hits"] == 0


def test_no_l2_real_kernel():
    """The vecadd workload's real trace: a, b read once (two 128-B lines per 32 floats), c written."""
    import ndpgpu
    from ndpgpu.workloads.base import RunContext, get_workload
    from ndpgpu.workloads.runner import _module_for

    params = {"n": 1 << 14, "block": 256}
    cls = get_workload("vecadd")
    wl = cls()
    inputs = wl.inputs(params, np.random.default_rng(cls.seed))
    with ndpgpu.Device(trace=True) as dev:
        wl.launch(RunContext(_module_for(cls), dev, "test", params), inputs, params)
    sess = TimingSession("ipndp-base8", {"l2": None})
    for tr in dev.traces:
        st = sess.run_launch(tr)
    n = params["n"]
    assert st["dram.reads"] == st["l1d.misses"] - st["l1d.mshr_merges"] == 2 * n * 4 // 128


def test_logic_die_metadata_in_rows():
    m = load_machine("ipndp-base8")
    assert m.links is None and m.stacks.count == 1
    assert m.dram.channels * m.dram.bus_bits / 8 * m.dram.data_rate * m.clocks.dram_mhz / 1000 == 256.0
    st = TimingSession(m).run_launch(streaming_read(8, 256, 2))
    rows = {(p, k): v for p, k, v, _u in st.rows()}
    assert rows[("logic_die", "power_budget")] == 55.0
    assert (rows[("logic_die", "area_budget_min")], rows[("logic_die", "area_budget_max")]) == (50.0, 60.0)
    assert rows[("logic_die", "area_estimate")] == pytest.approx(8 * 4.84 + 39.0)


# ------------------------------------------------------------------------------------------------------
# energy tables


@pytest.mark.parametrize("name", ["tom-baseline", "ipndp-base8"])
def test_energy_total_is_counts_times_table(name):
    m = load_machine(name)
    st = TimingSession(m).run_launch(streaming_read(32, 256, 4, store=True))
    prices = load_params(name).events  # the machine's power parameter set (docs/power.md)
    total = 0.0
    for ev, price in prices.items():
        if f"energy.{ev}" not in st.metrics():  # a part this machine does not have
            continue
        cnt = st[f"energy.{ev}.count"]
        assert st[f"energy.{ev}.energy"] == pytest.approx(cnt * price.pj)
        total += cnt * price.pj
    assert st["energy.dynamic"] == pytest.approx(total)
    assert st["energy.total"] == pytest.approx(total + st["energy.static"])
    assert st["energy.static"] > 0
    # the counts are the statistics they re-price
    assert st["energy.dram_read_bit.count"] == 8 * st["dram.read_bytes"]
    assert st["energy.dram_write_bit.count"] == 8 * st["dram.write_bytes"]
    assert st["energy.dram_activate.count"] == st["dram.activates"]
    assert st["energy.tsv_bit.count"] == 8 * st["dram.bytes"]
    assert st["energy.regfile_access.count"] > 0
    if m.links is not None:
        assert st["energy.link_tx_bit.count"] == 8 * st["link.tx_bytes"]
        assert st["energy.link_rx_bit.count"] == 8 * st["link.rx_bytes"]
        idle = sum((st.time_ps - st[f"link.stack{s}.{d}.busy_time"] * 1000) * 1e-12 * 40e9 * 8
                   for s in range(4) for d in ("tx", "rx"))
        assert st["energy.link_idle_bit.count"] == pytest.approx(idle, abs=1)
    else:
        assert "energy.link_tx_bit" not in st.metrics()


@pytest.mark.parametrize("name", ["gtx480", "v100"])
def test_conventional_machines_have_no_near_data_rows(name):
    st = TimingSession(name).run_launch(streaming_read(4, 128, 2))
    paths = set(st.metrics())
    assert not {p for p in paths if p.startswith(("link", "stacks", "logic_die"))}
    for ev in ("link_tx_bit", "link_rx_bit", "link_idle_bit", "tsv_bit", "cross_link_bit"):
        assert f"energy.{ev}" not in paths
    assert st["energy.total"] > 0  # priced by their own parameter sets
