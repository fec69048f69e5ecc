"""The paper's configurations as (machine, kernel form, policy): the 15 of Fig. 11 and the comparisons of
Fig. 12. A kernel form is ``base`` (one thread per pixel, an ordinary grid), ``pa`` (PACA, grid = 8) or ``pa16``
(PACA, grid = 16, for IP-16)."""

from __future__ import annotations

from ...workloads.ipndp import IPNDP_PAPER_PAIRS, IPNDP_TYPES

BENCHMARKS = ("Conv2D", "Jacobi2D", "ConvSep", "DownSample", "Concat", "Dct8x8", "Denoising", "MatMul")
TYPES = dict(IPNDP_TYPES)

FAMILIES = {"Base-8": "ipndp-base8", "Base-8-LT": "ipndp-base8-lt", "IP-8-Base": "ipndp-ip8"}
SUFFIXES = {"": ("base", "rr"), "-PF": ("base", "rr+pf"), "-PACA": ("pa", "paca"), "-PF-PACA": ("pa", "paca+pf"),
            "-PWS-PACA": ("pa", "paca+pws")}

ABLATION: dict[str, tuple[str, str, str]] = {
    ("IP-8" if fam == "IP-8-Base" and suf == "-PF-PACA" else fam + suf): (machine, form, f"ipndp:{pol}")
    for fam, machine in FAMILIES.items() for suf, (form, pol) in SUFFIXES.items()
}
"""Fig. 11's 15 configurations (IP-8 is IP-8-Base-PF-PACA)."""

COMPARISONS: dict[str, tuple[str, str, str]] = {
    "Base-8-BCS": ("ipndp-base8", "base", "ipndp:bcs"),
    "Base-8-PL": ("ipndp-base8-pl", "base", "ipndp:rr+pl"),
    "Base-8-LT-BCS": ("ipndp-base8-lt", "base", "ipndp:bcs"),
    "Base-8-LT-PL": ("ipndp-base8-lt-pl", "base", "ipndp:rr+pl"),
    "IP-16": ("ipndp-ip16", "pa16", "ipndp:paca+pf"),
    "IP-8-literal": ("ipndp-ip8", "pa", "ipndp:paca+pf+literal"),
}
"""Fig. 12's prior-work comparisons, IP-16, and IP-8 with the paper's literal modified stride."""

CONFIGS = {**ABLATION, **COMPARISONS}


def workload(bench: str, form: str) -> str:
    """The registry workload configuration form ``form`` runs for benchmark ``bench``."""
    base, pa = IPNDP_PAPER_PAIRS[bench]
    return {"base": base, "pa": pa, "pa16": pa + "16"}[form]
