"""A machine's analytic peaks, from its configuration alone (no engine)."""

from __future__ import annotations

from .spec import Machine


def dram_peak_gbs(m: Machine) -> float:
    """Peak DRAM bandwidth in GB/s: channels x bus bytes x transfers per clock x DRAM clock."""
    d = m.dram
    return d.scheduling_channels * d.bus_bits / 8 * d.data_rate * m.clocks.dram_mhz * 1e6 / 1e9
