"""The power model: dynamic energy is counts x prices, static energy scales with time and clock, an idle
machine draws static power only, every shipped machine has a complete, sourced parameter set."""

from __future__ import annotations

import numpy as np
import pytest

from ndpgpu import power
from ndpgpu.power import PowerModelError, UnitEnergy, declare_unit_energies, evaluate, load_params
from ndpgpu.timing import engine as E
from ndpgpu.timing import list_machines, load_machine
from ndpgpu.timing.power import params as P
from ndpgpu.timing.power.events import EVENTS
from ndpgpu.timing.stats import LaunchStats
from ndpgpu.trace.format import OP_CLASS

UNIT_SET = """
name: unit-test
sources: {HAND: "round numbers for hand computation"}
events:
  warp_issue: {pj: 10.0, source: "[HAND]"}
  sm_active_cycle: {pj: 1.0, source: "[HAND]"}
  inst_int: {pj: 2.0, source: "[HAND]"}
  inst_imul: {pj: 0.0, source: "[HAND]"}
  inst_idiv: {pj: 0.0, source: "[HAND]"}
  inst_fp32: {pj: 3.0, source: "[HAND]"}
  inst_fdiv: {pj: 0.0, source: "[HAND]"}
  inst_fp64: {pj: 0.0, source: "[HAND]"}
  inst_sfu: {pj: 0.0, source: "[HAND]"}
  inst_ldst: {pj: 1.0, source: "[HAND]"}
  regfile_access: {pj: 5.0, source: "[HAND]"}
  l1d_access: {pj: 7.0, source: "[HAND]"}
  l1d_miss: {pj: 0.0, source: "[HAND]"}
  smem_access: {pj: 4.0, source: "[HAND]"}
  l2_access: {pj: 20.0, source: "[HAND]"}
  l2_fill: {pj: 0.0, source: "[HAND]"}
  l2_writeback: {pj: 0.0, source: "[HAND]"}
  l2_atomic: {pj: 0.0, source: "[HAND]"}
  icnt_flit: {pj: 6.0, source: "[HAND]"}
  dram_activate: {pj: 1000.0, source: "[HAND]"}
  dram_read_burst: {pj: 0.0, source: "[HAND]"}
  dram_write_burst: {pj: 0.0, source: "[HAND]"}
  dram_refresh: {pj: 0.0, source: "[HAND]"}
  dram_read_bit: {pj: 2.0, source: "[HAND]"}
  dram_write_bit: {pj: 2.0, source: "[HAND]"}
static:
  core: {w: 0.5, per: sm, clock: core, clock_pj: 100.0, source: "[HAND]"}
  dram: {w: 1.0, per: channel, source: "assumed: round"}
"""


@pytest.fixture
def unit_set(tmp_path, monkeypatch):
    """A parameter set ``unit-test`` with round prices, found beside the shipped ones."""
    (tmp_path / "unit-test.yaml").write_text(UNIT_SET)
    shipped = P.param_files()
    monkeypatch.setattr(P, "param_files", lambda: {**shipped, "unit-test": tmp_path / "unit-test.yaml"})
    P.load_params.cache_clear()
    yield
    P.load_params.cache_clear()


def stats(machine: str = "unit-test", *, time_ps: int = 1_000_000, core_mhz: float = 1000.0, num_sms: int = 2,
          channels: int = 3, **counters: int) -> LaunchStats:
    """Launch statistics made by hand: zero everywhere but the named counters."""
    ctr = np.zeros(E.NCTR, np.int64)
    for k, v in counters.items():
        if k in E.CTR_NAMES:
            ctr[E.CTR_NAMES.index(k)] = v
    per_class = np.zeros(32, np.int64)
    for k, v in counters.items():
        if k.startswith("class_"):
            per_class[OP_CLASS[k[6:]]] = v
    per_sm = np.zeros((num_sms, E.NSMS), np.int64)
    per_sm[0, E.SMS_BUSY] = counters.get("busy0", 0)
    kinds = np.zeros((E.NPK, 4), np.int64)
    kinds[0, 1] = counters.get("req_flits", 0)
    kinds[0, 3] = counters.get("rep_flits", 0)
    consts = {"core_mhz": core_mhz, "icnt_mhz": 500.0, "l2_mhz": 500.0, "dram_mhz": 800.0, "num_sms": num_sms,
              "channels": channels, "energy": {}, "static_power_w": 0.0}
    return LaunchStats("k", 0, machine, "h", 0, time_ps, ctr, per_sm, np.zeros((4, E.NSLS), np.int64),
                       np.zeros((channels, E.NCHS), np.int64), per_class, np.zeros((E.NPRIO, E.NPRS), np.int64),
                       np.zeros((2, 2, 1), np.int64), kinds, consts=consts,
                       extra={"rf_accesses": counters.get("rf", 0)})


def test_dynamic_energy_is_counts_times_prices(unit_set):
    st = stats(WARP_INSTS=10, THREAD_INSTS=160, class_fp32=6, class_int=3, class_load=1, L1_ACC=2, SMEM_ACC=3,
               SMEM_CONF_CYC=1, L2_ACC=5, DR_ACT=2, DR_RD_BYTES=64, DR_WR_BYTES=32, busy0=50, rf=30,
               req_flits=4, rep_flits=8)
    rep = evaluate(st)
    by = {e.name: e for e in rep.events}
    # 16 active lanes per warp instruction: 6 fp32 -> 96 lane-ops at 3 pJ; 3 int -> 48 at 2; 1 load -> 16 at 1
    assert by["inst_fp32"].count == 96 and by["inst_fp32"].energy_pj == 288.0
    assert by["inst_int"].energy_pj == 96.0 and by["inst_ldst"].energy_pj == 16.0
    assert by["smem_access"].count == 4  # the conflict cycle replays the access
    assert by["icnt_flit"].count == 12
    core = 10 * 10 + 50 * 1 + 288 + 96 + 16
    comp = rep.components()
    assert comp["core"][0] == pytest.approx(core)
    assert comp["regfile"][0] == 150.0 and comp["l1d"][0] == 14.0 and comp["smem"][0] == 16.0
    assert comp["l2"][0] == 100.0 and comp["noc"][0] == 72.0
    assert comp["dram"][0] == pytest.approx(2 * 1000 + 8 * 96 * 2)
    assert rep.dynamic_pj == pytest.approx(core + 150 + 14 + 16 + 100 + 72 + 2000 + 1536)
    # no links, stacks or mesh on this machine: those events are neither counted nor priced
    assert not {"tsv_bit", "link_tx_bit", "mesh_link_flit", "cross_link_bit"} & set(by)


def test_static_energy_scales_with_time_and_clock(unit_set):
    def static(**kw) -> dict[str, float]:
        return {c: s for c, (_d, s) in evaluate(stats(**kw)).components().items()}
    base = static()  # 1 us: core 2 SMs x (0.5 W + 100 pJ x 1 GHz) = 1.2 W -> 1.2e6 pJ; dram 3 x 1 W -> 3e6 pJ
    assert base["core"] == pytest.approx(1.2e6) and base["dram"] == pytest.approx(3e6)
    twice = static(time_ps=2_000_000)
    assert twice["core"] == pytest.approx(2 * base["core"]) and twice["dram"] == pytest.approx(2 * base["dram"])
    fast = static(core_mhz=2000.0)  # the clock part doubles, the leakage does not
    assert fast["core"] == pytest.approx(2 * (0.5 + 0.2) * 1e6) and fast["dram"] == base["dram"]
    assert static(num_sms=4)["core"] == pytest.approx(2 * base["core"])  # per unit


def test_idle_machine_draws_static_power_only(unit_set):
    rep = evaluate(stats(time_ps=5_000_000))
    assert rep.dynamic_pj == 0.0
    assert rep.total_pj == pytest.approx(rep.static_pj)
    assert rep.average_power_w == pytest.approx(1.2 + 3.0)


def test_rows_per_component_and_totals(unit_set):
    rows: dict[tuple[str, str], float] = {}
    power.put_rows(stats(WARP_INSTS=1, THREAD_INSTS=32, L2_ACC=1), lambda p, m, v, u: rows.__setitem__((p, m), v))
    assert rows[("energy.l2_access", "energy")] == 20.0 and rows[("energy.l2_access", "price")] == 20.0
    assert rows[("energy.l2", "total")] == 20.0
    assert rows[("energy", "total")] == pytest.approx(rows[("energy", "dynamic")] + rows[("energy", "static")])
    assert rows[("energy", "model")] == "unit-test"
    assert rows[("power", "average")] == pytest.approx(rows[("energy", "total")] * 1e-12 / 1e-6)


def test_machine_override_wins_and_missing_price_is_a_typed_error(unit_set, tmp_path, monkeypatch):
    st = stats(L2_ACC=3)
    st.consts["energy"] = {"l2_access": 1.0}
    assert {e.name: e.energy_pj for e in evaluate(st).events}["l2_access"] == 3.0
    (tmp_path / "holey.yaml").write_text(UNIT_SET.replace("name: unit-test", "name: holey")
                                         .replace('  l2_atomic: {pj: 0.0, source: "[HAND]"}\n', ""))
    files = P.param_files()
    monkeypatch.setattr(P, "param_files", lambda: {**files, "holey": tmp_path / "holey.yaml"})
    with pytest.raises(PowerModelError, match=r"machine 'holey'.*l2_atomic"):
        evaluate(stats("holey"))


def test_machine_without_a_set_shows_no_energy():
    assert evaluate(stats("no-such-machine", L2_ACC=3)) is None


def test_uncited_value_is_refused(tmp_path, monkeypatch):
    (tmp_path / "bad.yaml").write_text("name: bad\nsources: {A: a}\nevents:\n"
                                       "  l2_access: {pj: 1.0, source: 'from somewhere'}\n"
                                       "  l1d_access: {pj: 1.0, source: '[B] unknown key'}\n")
    monkeypatch.setattr(P, "param_files", lambda: {"bad": tmp_path / "bad.yaml"})
    P.load_params.cache_clear()
    try:
        with pytest.raises(P.PowerParamsError, match=r"l2_access.source.*l1d_access.source: B not in"):
            load_params("bad")
    finally:
        P.load_params.cache_clear()


def test_mechanism_units_are_priced_from_their_declaration(unit_set):
    declare_unit_energies("unit-mech", {"UM_OPS": UnitEnergy("llc_alu", 2.5, "assumed: test")})
    st = stats()
    st.mechanism, st.mechanism_counters = "unit-mech", {"UM_OPS": 4}
    assert evaluate(st).components()["llc_alu"] == (10.0, 0.0)
    st.consts["energy"] = {"UM_OPS": 1.0}  # a machine may re-price a mechanism's unit
    assert evaluate(st).components()["llc_alu"] == (4.0, 0.0)
    with pytest.raises(ValueError, match="built-in"):
        declare_unit_energies("unit-mech", {"l2_access": UnitEnergy("x", 1.0, "assumed: x")})


def test_tom_declares_its_counters():
    from ndpgpu.mechanisms.tom import hardware as H

    units = power.declared_unit_energies("tom")
    assert units and set(units) <= set(H.COUNTER_NAMES)
    assert all(u.source for u in units.values())


def required_events(name: str) -> set[str]:
    """The built-in events a machine counts, from its description (independent of the model's count rules)."""
    m = load_machine(name)
    need = {e for e in EVENTS if not e.startswith(("mesh_", "icnt_", "tsv_", "link_", "cross_link_"))}
    need |= {"mesh_link_flit", "mesh_router_flit"} if m.icnt.impl in ("mesh", "butterfly") else {"icnt_flit"}
    if m.stacks is not None:
        need.add("tsv_bit")
    if m.links is not None:
        need |= {"link_tx_bit", "link_rx_bit", "link_idle_bit"}
    if m.num_stack_sms or (m.logic_die is not None and m.logic_die.cross_stack is not None):
        need |= {"cross_link_bit", "cross_link_idle_bit"}
    return need


@pytest.mark.parametrize("name", list_machines())
def test_every_preset_has_a_complete_sourced_set(name):
    params = load_params(name)  # raises when a value is uncited
    missing = required_events(name) - set(params.events)
    assert not missing, f"{name}: no price for {sorted(missing)}"
    assert "core" in params.static and "dram" in params.static
    for key in params.assumed():
        entry = params.events.get(key.split(".", 1)[1]) if key.startswith("events.") else params.static[key[7:]]
        assert len(entry.source) > len("assumed: ") + 10, f"{name} {key}: say why"
