"""Budgets and hangs: a runaway kernel stops under a default budget that grows with the grid (not after 2^32
warp-instructions, about 20 minutes), naming how to raise it; a long launch prints progress lines on stderr;
blocks that spin on a flag another resident block sets finish, as on the device (every block the device holds
at once is resident and takes turns); a grid larger than the resident-block limit whose blocks wait on a
later block is reported as such; a SIGINT sent to a sweep's own process stops it promptly."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import ndpgpu
from ndpgpu.api import ctas_per_sm
from ndpgpu.functional.launch import BUDGET_ENV, launch_budget

HEADER = ".version 9.0\n.target sm_75\n.address_size 64\n"
# the last block sets *flag; every other block spins until it is set
WAIT_FOR_LAST = HEADER + """.visible .entry wait(.param .u64 flag)
{
  .reg .pred %p<3>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [flag];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %nctaid.x;
  add.s32 %r3, %r2, -1;
  setp.eq.s32 %p1, %r1, %r3;
  @%p1 bra SET;
LOOP:
  ld.volatile.global.u32 %r4, [%rd1];
  setp.eq.s32 %p2, %r4, 0;
  @%p2 bra LOOP;
  ret;
SET:
  st.volatile.global.u32 [%rd1], 1;
  ret;
}
"""
SPIN = HEADER + """.visible .entry spin()
{
LOOP:
  bra LOOP;
}
"""


def test_blocks_polling_a_flag_another_resident_block_sets_complete() -> None:
    """100 blocks of 32 threads all fit on the default 80-SM device (16 per SM on sm_75): the spinning
    blocks yield to the last one, which sets the flag."""
    assert ndpgpu.LaunchOptions().max_resident_ctas is None  # the device's residency, per kernel
    assert ctas_per_sm("sm_75", (32, 1, 1)) == 16 and ctas_per_sm("sm_75", (1024, 1, 1)) == 1
    assert ctas_per_sm("sm_80", (256, 1, 1), registers=64) == 4  # the register file limits it
    assert ctas_per_sm("sm_75", (32, 1, 1), shared_bytes=32 * 1024) == 2  # shared memory limits it
    fn = ndpgpu.RawModule(ptx=WAIT_FOR_LAST).get_function("wait")
    with ndpgpu.Device() as dev:
        flag = ndpgpu.zeros(1, np.uint32)
        fn((100,), (32,), (flag,))
        assert flag.get()[0] == 1 and dev.launches[-1].grid == (100, 1, 1)
        fn((80 * 16,), (32,), (ndpgpu.zeros(1, np.uint32),))  # exactly the device's residency


def test_a_wait_on_a_block_that_is_not_resident_names_the_limit() -> None:
    fn = ndpgpu.RawModule(ptx=WAIT_FOR_LAST).get_function("wait")
    options = ndpgpu.LaunchOptions(max_resident_ctas=64, budget_warp_instructions=1_000_000)
    with ndpgpu.Device(options=options):
        with pytest.raises(ndpgpu.InstructionBudgetExceeded) as e:
            fn((65,), (32,), (ndpgpu.zeros(1, np.uint32),))
    message = str(e.value)
    assert "1 of the grid's 65 blocks never started: the resident-block limit is 64" in message
    assert "LaunchOptions.max_resident_ctas=64" in message and "max_resident_ctas=N" in message
    expected = (r"the resident-block limit is 64 \(the device's residency for these blocks: 4 SMs x 16, "
                r"LaunchOptions.max_resident_ctas=None\).*on a GPU of this size too")
    with ndpgpu.Device(num_sms=4, options=ndpgpu.LaunchOptions(budget_warp_instructions=1_000_000)):
        with pytest.raises(ndpgpu.InstructionBudgetExceeded, match=expected):
            fn((65,), (32,), (ndpgpu.zeros(1, np.uint32),))  # 4 SMs hold 64 such blocks


def test_the_default_budget_grows_with_the_grid_and_names_how_to_raise_it(monkeypatch) -> None:
    monkeypatch.delenv(BUDGET_ENV, raising=False)
    default = ndpgpu.LaunchOptions()
    assert default.budget_warp_instructions is None
    assert launch_budget(default, warps=1) == 1 << 28  # a runaway single block stops in about a minute
    assert launch_budget(default, warps=1 << 16) == 1 << 32  # 65,536 per warp of a large grid
    assert launch_budget(ndpgpu.LaunchOptions(budget_warp_instructions=7), warps=1 << 16) == 7
    monkeypatch.setenv(BUDGET_ENV, "5000")
    assert launch_budget(default, warps=1) == 5000
    fn = ndpgpu.RawModule(ptx=SPIN).get_function("spin")
    with ndpgpu.Device(), pytest.raises(ndpgpu.InstructionBudgetExceeded) as e:
        fn((1,), (32,), ())  # the environment's budget: stops at once
    assert f"budget of 5,000 warp-instructions (${BUDGET_ENV})" in str(e.value)
    assert f"budget_warp_instructions=N)) or ${BUDGET_ENV}=N" in str(e.value)
    monkeypatch.setenv(BUDGET_ENV, "lots")
    with pytest.raises(ValueError, match=BUDGET_ENV):
        launch_budget(default, warps=1)


def test_a_long_launch_prints_progress_on_stderr(capfd) -> None:
    fn = ndpgpu.RawModule(ptx=SPIN).get_function("spin")
    options = ndpgpu.LaunchOptions(budget_warp_instructions=200_000, slice_warp_instructions=50_000,
                                   progress_seconds=0)  # a line at every return to Python
    with ndpgpu.Device(options=options), pytest.raises(ndpgpu.InstructionBudgetExceeded):
        fn((1,), (32,), ())
    err = capfd.readouterr().err
    lines = [line for line in err.splitlines() if "still running" in line]
    assert len(lines) >= 3  # written to a pipe here: not only to a terminal
    assert "kernel 'spin' still running after" in lines[0] and "of a budget of 200,000" in lines[0]
    assert "0 of 1 blocks done, 1 running" in lines[0]
    with ndpgpu.Device(options=ndpgpu.LaunchOptions(budget_warp_instructions=200_000,
                                                    slice_warp_instructions=50_000, progress_seconds=None)):
        with pytest.raises(ndpgpu.InstructionBudgetExceeded):
            fn((1,), (32,), ())
    assert "still running" not in capfd.readouterr().err


def test_sigint_to_the_sweep_process_alone_stops_it_promptly(tmp_path: Path) -> None:
    """``kill -INT PID`` reaches the sweep's main process only (a terminal's Ctrl-C reaches its workers too):
    it stops the workers instead of waiting for their tasks (here: an hour each)."""
    log = tmp_path / "log.jsonl"
    spec = tmp_path / "spec.yaml"
    spec.write_text(json.dumps({
        "name": "sig", "executor": "fake", "executor_options": {"hang": ["saxpy"], "log": str(log)},
        "grid": {"workloads": ["saxpy"], "scales": ["tiny"], "machines": ["gtx480", "llc-mesh"]}}))
    proc = subprocess.Popen([sys.executable, "-m", "ndpgpu", "sweep", str(spec), "--store", str(tmp_path / "s.duckdb"),
                             "--traces", str(tmp_path / "traces"), "--jobs", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(600):  # the recording is done: the two points' tasks are being handed to the workers
            if log.exists() and "record" in log.read_text():
                break
            time.sleep(0.2)
        time.sleep(2.0)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)  # without stopping the workers: an hour
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "interrupted" in err and "2 not run" in err
