"""Every registered machine preset times a small trace: the engine composes for each of them."""

from __future__ import annotations

import pytest
from tracegen import streaming_read

from ndpgpu.timing import TimingSession, list_machines


@pytest.mark.parametrize("preset", list_machines())
def test_every_preset_times_a_small_trace(preset):
    trace = streaming_read(8, 128, 2, store=True)
    s = TimingSession(preset)
    if s.machine.core.model == "mpu":  # its cores are MPU's model: attach it (a synthetic trace has no PTX)
        from ndpgpu.mechanisms.mpu.unit import MpuHardware

        s.attach(MpuHardware(None))
    st = s.run_launch(trace)
    warps = 8 * 4
    assert st.cycles > 0
    assert st["kernel.warp_instructions"] == warps * (2 * 2 + 1)  # two loads and two stores, exit
    assert st["core.loads"] == st["core.stores"] == warps * 2
    if s.machine.partition.perfect_latency is None:
        assert st["dram.reads"] > 0
    else:  # perfect memory serves every request without DRAM (test_perfect_memory.py)
        assert st["dram.reads"] == 0
