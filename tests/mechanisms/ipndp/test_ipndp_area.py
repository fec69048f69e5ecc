"""IP-NDP's logic-die arithmetic, exactly as the paper's prose gives it (section 5.5)."""

from __future__ import annotations

import pytest

from ndpgpu.mechanisms.ipndp import area as A
from ndpgpu.timing import load_machine


def test_sm_areas() -> None:
    assert A.BASE_SM_MM2 == pytest.approx(4.84, abs=1e-12)  # 16 x (22/40)^2
    assert A.IP_SM_MM2 == pytest.approx(2.662, abs=1e-12)  # 55 %


def test_sms_that_fit_a_60_mm2_die() -> None:
    assert A.sms_that_fit(60.0, A.BASE_SM_MM2) == 12  # 58.08 mm^2
    assert A.sms_that_fit(60.0, A.BASE_SM_MM2, A.L2_MM2) == 4  # 19.36 + 39 = 58.36
    assert A.sms_that_fit(60.0, A.IP_SM_MM2) == 22  # 58.564
    assert A.sms_that_fit(50.0, A.IP_SM_MM2) == 18


def test_perf_per_area() -> None:
    assert A.base8_area() == pytest.approx(77.72)
    assert A.perf_per_area(1.17, A.ip_area(8)) == pytest.approx(4.27, abs=0.005)
    assert A.perf_per_area(1.85, A.ip_area(16)) == pytest.approx(3.38, abs=0.005)


def test_presets_carry_the_areas() -> None:
    base, ip8, ip16 = (load_machine(n) for n in ("ipndp-base8", "ipndp-ip8", "ipndp-ip16"))
    assert base.logic_die.area_mm2(base.core.num_sms, base.l2 is not None) == pytest.approx(A.base8_area())
    assert ip8.logic_die.area_mm2(8, False) == pytest.approx(A.ip_area(8))
    assert ip16.core.num_sms == 16 and ip16.logic_die.area_mm2(16, False) == pytest.approx(A.ip_area(16))
    assert ip16.logic_die.area_mm2(16, False) <= ip16.logic_die.area_budget_mm2_max


def test_lightweight_sm() -> None:
    base, ip8, lt = (load_machine(n) for n in ("ipndp-base8", "ipndp-ip8", "ipndp-base8-lt"))
    assert (base.core.max_threads, base.core.registers, base.l1d.size_kb) == (1536, 32768, 32)
    assert (ip8.core.max_threads, ip8.core.registers, ip8.l1d.size_kb) == (256, 8192, 8)
    assert (lt.core.max_threads, lt.core.registers, lt.l1d.size_kb) == (256, 32768, 32)
    assert base.l2 is not None and lt.l2 is not None
    assert ip8.l2 is None or not ip8.l2.enabled


def test_power_sets() -> None:
    from ndpgpu.timing.power.params import load_params

    base, ip8 = load_params("ipndp-base8"), load_params("ipndp-ip8")
    assert base.events["dram_read_bit"].pj == ip8.events["dram_read_bit"].pj == 3.59
    assert ip8.static["core"].w == pytest.approx(0.752 * base.static["core"].w)
    assert ip8.static["l2"].w == 0.0


def test_occupancy_bounds() -> None:
    """Occupancy by hand: a 256-thread CTA fills the IP SM (8 warps); Base-8 holds 6 of them (1536 threads), and
    the IP SM's 8,192 registers allow 32 per thread (kernels compiled for more are capped)."""
    from ndpgpu.timing.occupancy import occupancy

    base, ip8 = load_machine("ipndp-base8"), load_machine("ipndp-ip8")
    assert occupancy(base.core, 256, 20, 0).ctas_per_sm == 6
    ip = occupancy(ip8.core, 256, 36, 0, cap_registers=True)
    assert ip.ctas_per_sm == 1 and ip.warps_per_cta == 8 and ip.regs_per_cta == 8192
    assert occupancy(ip8.core, 128, 32, 0).ctas_per_sm == 2
