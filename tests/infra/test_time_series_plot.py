"""A timed run over time: ndpgpu.timeseries derives IPC, DRAM bandwidth and occupancy per
sim.time_series_interval and draws them; `ndpgpu run W --machine M --plot out.png` writes the figure."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ndpgpu
from ndpgpu.cli import main
from ndpgpu.frontend.nvcc import nvcc_available
from ndpgpu.timeseries import NoTimeSeries, derive, plot_time_series

needs_nvcc = pytest.mark.skipif(not nvcc_available(), reason="nvcc and a host compiler are required")

SRC = r"""
extern "C" __global__ void twice(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i];
}"""


@pytest.fixture(scope="module")
def traces() -> list:
    fn = ndpgpu.RawModule(code=SRC).get_function("twice")
    n = 1 << 15
    with ndpgpu.Device(trace=True) as dev:
        x, y = ndpgpu.asarray(np.ones(n, np.float32)), ndpgpu.zeros(n, np.float32)
        for _ in range(2):
            fn((n // 256,), (256,), (x, y, np.int32(n)))
    return dev.traces


@needs_nvcc
def test_derived_series_agree_with_the_launch_totals(traces, tmp_path: Path) -> None:
    from ndpgpu.timing import TimingSession

    sess = TimingSession("gtx480", overrides={"sim.time_series_interval": 50})
    stats = [sess.run_launch(t) for t in traces]
    for st in stats:
        d = derive(st)
        dcyc = np.diff(d["cycle"], prepend=0)
        assert len(d["cycle"]) == st.cycles // 50 and (dcyc == 50).all()
        insts = np.nansum(d["ipc"] * dcyc)  # the samples add up to the counter at the last one
        assert insts == st.time_series["warp_insts"][-1] <= st["kernel.warp_instructions"]
        assert insts > 0.9 * st["kernel.warp_instructions"]
        assert np.nanmax(d["occupancy"]) <= 1.0 and np.nanmin(d["occupancy"]) >= 0.0
        assert (np.nan_to_num(d["dram_gbs"]) >= 0).all()
    for suffix in ("png", "svg"):
        out = plot_time_series(stats, tmp_path / f"ts.{suffix}", series=("ipc", "dram_gbs", "occupancy",
                                                                        "l2_miss_rate"))
        assert out.stat().st_size > 1000
    assert (tmp_path / "ts.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in (tmp_path / "ts.svg").read_text()[:2000]


@needs_nvcc
def test_no_samples_is_an_error_naming_the_setting(traces, tmp_path: Path) -> None:
    from ndpgpu.timing import TimingSession

    st = TimingSession("gtx480").run_launch(traces[0])
    with pytest.raises(NoTimeSeries, match="sim.time_series_interval"):
        plot_time_series(st, tmp_path / "none.png")
    with pytest.raises(ValueError, match="png"):
        plot_time_series(st, tmp_path / "x.jpg")


@needs_nvcc
def test_run_plot_writes_the_figure(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "vecadd.png"
    assert main(["run", "vecadd", "--machine", "gtx480", "--set", "sim.time_series_interval=50",
                 "--plot", str(out)]) == 0
    text = capsys.readouterr().out
    assert out.stat().st_size > 1000 and out.read_bytes()[:4] == b"\x89PNG"
    assert f"drawn to {out}" in text and "samples" in text
    assert main(["run", "vecadd", "--plot", str(out)]) == 2  # no machine: nothing is timed
    assert "--machine" in capsys.readouterr().err
    assert main(["run", "vecadd", "--machine", "gtx480", "--plot", str(tmp_path / "x.gif")]) == 2
