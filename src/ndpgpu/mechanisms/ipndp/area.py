"""IP-NDP's logic-die area and power arithmetic (the paper's section 5.5 and its prose on Table 5).

A Fermi SM is 16 mm^2 at 40 nm; scaled to 22 nm it is 16 x (22/40)^2 = 4.84 mm^2 (the baseline SM). The IP SM
is 55% of it (2.662 mm^2). The HBM logic die offers 50-60 mm^2 and 55 W. The L2 with its logic is not given:
39 mm^2 is back-solved (calibrated) from the paper's perf/area figures, so that Base-8 is 8 x 4.84 + 39 =
77.72 mm^2.
"""

from __future__ import annotations

import math

FERMI_SM_MM2_40NM = 16.0
BASE_SM_MM2 = FERMI_SM_MM2_40NM * (22 / 40) ** 2  # 4.84
IP_SM_FRACTION = 0.55
IP_SM_MM2 = IP_SM_FRACTION * BASE_SM_MM2  # 2.662
L2_MM2 = 39.0  # calibrated: back-solved from perf/area 4.27 (IP-8) and 3.38 (IP-16)
DIE_MM2 = (50.0, 60.0)
DIE_POWER_W = 55.0
IP_SM_STATIC_FRACTION = 0.752
EPS = 1e-9


def sms_that_fit(budget_mm2: float, sm_mm2: float, l2_mm2: float = 0.0) -> int:
    """SMs that fit ``budget_mm2`` beside an L2 of ``l2_mm2``."""
    if sm_mm2 <= 0:
        raise ValueError(f"SM area must be positive, got {sm_mm2}")
    return max(0, math.floor((budget_mm2 - l2_mm2) / sm_mm2 + EPS))


def chip_area(num_sms: int, sm_mm2: float, l2_mm2: float = 0.0) -> float:
    return num_sms * sm_mm2 + l2_mm2


def base8_area() -> float:
    return chip_area(8, BASE_SM_MM2, L2_MM2)


def ip_area(num_sms: int) -> float:
    return chip_area(num_sms, IP_SM_MM2)


def perf_per_area(speedup: float, area_mm2: float, ref_area_mm2: float | None = None) -> float:
    """Performance per area relative to Base-8: speedup x (Base-8's area / this area)."""
    ref = base8_area() if ref_area_mm2 is None else ref_area_mm2
    return speedup * ref / area_mm2
