"""The README runs as written: every ``python`` block is executed, in order, in one namespace, and every command
line of its ``bash`` blocks is run (with tiny inputs where the README's would take minutes) through the same
entry point as the ``ndpgpu`` script. A README line missing from :data:`CLI_PLAN` fails the test, so a new
command cannot go untested by accident; the few lines not run here say why. A ``python`` block is skipped only
when its first line says why (``# not run: ...``: set-up, paper scale, an hour or more), as :data:`PY_NOT_RUN`
checks.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


@dataclass(frozen=True)
class NotRun:
    """A README line this test does not run, and why (shown in the test's output)."""

    reason: str


# The README's command lines (comments stripped) -> what this test runs (tiny inputs), or why it is not run.
CLI_PLAN: dict[str, str | NotRun] = {
    "bash scripts/main.sh": NotRun("creates .venv and installs packages: the set-up itself; the job it then runs is "
                                   "`ndpgpu main`, i.e. `ndpgpu reproduce all`, which "
                                   "tests/experiments/test_exp_html.py runs with a fast fake executor"),
    "bash .ci/run": NotRun("runs this whole test suite (which includes this test)"),
    "pip install .": NotRun("installs into the running environment; this test runs the checkout it is in"),
    "pip install '.[nvcc]'": NotRun("installs into the running environment; this test runs the checkout it is in"),
    "ndpgpu warmup": "ndpgpu warmup",
    "ndpgpu --version": "ndpgpu --version",
    "ndpgpu workloads": "ndpgpu workloads",
    "ndpgpu run sgemm_tiled --scale small": "ndpgpu run sgemm_tiled --scale tiny",
    "ndpgpu run vecadd --scale paper --machine gtx480 --set l2.size_kb=128":
        "ndpgpu run vecadd --scale tiny --machine gtx480 --set l2.size_kb=128",
    "ndpgpu run kmeans --machine tom-ndp --policy tom:ctrl+tmap":
        "ndpgpu run kmeans --machine tom-ndp --policy tom:ctrl+tmap",
    "ndpgpu machines": "ndpgpu machines",
    "ndpgpu machines show v100 --json": "ndpgpu machines show v100 --json",
    "ndpgpu workloads characterize --scale small --machine gtx480":
        "ndpgpu workloads characterize saxpy --scale tiny --machine gtx480",
    "ndpgpu workloads characterize vecadd --machine gtx480 --copies":
        "ndpgpu workloads characterize vecadd --scale tiny --machine gtx480 --copies",
    "ndpgpu sweep examples/sweep.yaml --jobs 2": "ndpgpu sweep examples/sweep.yaml --jobs 1 --no-progress",
    "ndpgpu results": "ndpgpu results",
    "ndpgpu results --pivot cycles --json": "ndpgpu results --pivot cycles --json",
    "ndpgpu machines diff gtx480 v100": "ndpgpu machines diff gtx480 v100",
    "ndpgpu run KM": "ndpgpu run KM",
    "ndpgpu run vecadd --machine gtx480-gpgpusim": "ndpgpu run vecadd --machine gtx480-gpgpusim",
    "ndpgpu run vecadd --machine gtx480-gpgpusim3": "ndpgpu run vecadd --scale tiny --machine gtx480-gpgpusim3",
    "ndpgpu reproduce tom --scale small": "ndpgpu reproduce tom --scale tiny --jobs 1",
    "ndpgpu reproduce gpgpusim": NotRun("times vector add of 2^20 floats and a 256 x 256 matmul on two machines "
                                        "(minutes); tests/experiments cover the reproduction machinery"),
    "ndpgpu run vecadd --machine gtx480 --no-copies": "ndpgpu run vecadd --machine gtx480 --no-copies",
    "ndpgpu run saxpy --machine gtx480 --pcs 10": "ndpgpu run saxpy --scale tiny --machine gtx480 --pcs 10",
    "ndpgpu explore examples/saxpy.yaml": "ndpgpu explore examples/saxpy.yaml --jobs 1 --out reports/explore-saxpy",
    "ndpgpu reproduce tom --scale small --timing preset": NotRun(
        "a second run of TOM's 150 points (tens of minutes at small); tests/experiments/test_baselines.py checks "
        "how a column is named, stored and reported"),
    "ndpgpu reproduce llc --scale small --from-points docs/llc/small/points.parquet":
        "ndpgpu reproduce llc --scale small --from-points docs/llc/small/points.parquet --out reports/llc-small",
    "ndpgpu analyze tom libor": "ndpgpu analyze tom libor",
    "ndpgpu analyze mpu mpu_axpy": "ndpgpu analyze mpu mpu_axpy",
    "ndpgpu run llc_vecadd_strided --machine llc-mesh --policy llc:omni":
        "ndpgpu run llc_vecadd_strided --scale tiny --machine llc-mesh --policy llc:omni",
    "ndpgpu run saxpy --machine llc-mesh --policy llc:llc": "ndpgpu run saxpy --scale tiny --machine llc-mesh "
                                                            "--policy llc:llc",
    "ndpgpu run examples/saxpy.cu --kernel saxpy --grid 64 --block 256 --arg 16384 --arg 2.0 "
    "--arg 'x=f32[16384] rand' --arg 'y=f32[16384] ones'":
        "ndpgpu run examples/saxpy.cu --kernel saxpy --grid 64 --block 256 --arg 16384 --arg 2.0 "
        "--arg 'x=f32[16384] rand' --arg 'y=f32[16384] ones'",
    "ndpgpu run examples/saxpy.yaml --machine llc-mesh --policy llc:omni":
        "ndpgpu run examples/saxpy.yaml --machine llc-mesh --policy llc:omni",
    "ndpgpu reproduce llc --scale small": NotRun("its 196 points take tens of minutes at small (about 4 at tiny); "
                                                 "tests/mechanisms/llc test the hardware on the same workloads"),
    "ndpgpu sweep spec.yaml --scheduler tcp://HOST:8786 --traces /shared/traces": NotRun(
        "needs a running Dask scheduler; tests/experiments/test_exp_dask.py starts one on the loopback interface "
        "and runs a sweep through it"),
    "ndpgpu run ipndp_conv2d_pa --machine ipndp-ip8 --policy ipndp:paca+pf":
        "ndpgpu run ipndp_conv2d_pa --scale tiny --machine ipndp-ip8 --policy ipndp:paca+pf",
    "ndpgpu run conv3x3 --machine ipndp-ip8 --policy ipndp:rr+pf,width=100":
        "ndpgpu run conv3x3 --scale tiny --machine ipndp-ip8 --policy ipndp:rr+pf,width=100",
    "ndpgpu analyze teleport BFS --grid 100 --block 512": "ndpgpu analyze teleport BFS --grid 100 --block 512",
    "ndpgpu analyze teleport BFS --source": "ndpgpu analyze teleport BFS --source",
    "ndpgpu run saxpy --machine gtx480-gpgpusim --policy teleport:mthwp":
        "ndpgpu run saxpy --scale tiny --machine gtx480-gpgpusim --policy teleport:mthwp",
    "ndpgpu run saxpy --machine gtx480-gpgpusim --policy teleport:real":
        "ndpgpu run saxpy --scale tiny --machine gtx480-gpgpusim --policy teleport:real",
    "ndpgpu reproduce teleport --scale small": NotRun("its 149 points take about 5 minutes at small on an idle "
                                                      "2-core machine, longer than the suite's budget for one "
                                                      "line; tests/mechanisms/teleport test the analysis and the "
                                                      "hardware"),
    "ndpgpu reproduce ipndp --scale small": NotRun("its 228 points take about 17 minutes at small (4 at tiny); "
                                                   "tests/mechanisms/ipndp test the machines, allocation and "
                                                   "prefetchers, and the reproduction's plan"),
    "ndpgpu run mpu_gemv --machine mpu --policy mpu:annotation":
        "ndpgpu run mpu_gemv --scale tiny --machine mpu --policy mpu:annotation",
    "ndpgpu run saxpy --machine mpu --policy mpu:annotation+far-smem":
        "ndpgpu run saxpy --scale tiny --machine mpu --policy mpu:annotation+far-smem",
    "ndpgpu reproduce mpu --scale small": NotRun("its 108 points take tens of minutes at small; tests/mechanisms/mpu "
                                                 "test the processor, its modes and the reproduction's plan and "
                                                 "checks"),
    "ndpgpu reproduce all --scale small": NotRun("every reproduction (tens of minutes); "
                                                 "tests/experiments/test_exp_html.py runs `reproduce all` with a "
                                                 "fast fake executor"),
    "ndpgpu reproduce teleport --scale paper --set l1d.set_index=xor": NotRun(
        "113 points at paper scale (about 40 minutes); tests/experiments/test_sensitivity_reports.py tests the "
        "sensitivity spec, its refusals and its report"),
    "ndpgpu reproduce ipndp --scale paper --sample": NotRun("paper scale takes tens of minutes even sampled; "
                                                             "tests/experiments/test_sampled_reports.py tests a "
                                                             "sampled report and the pairing, "
                                                             "tests/timing/test_sampling.py the sampling"),
    "ndpgpu reproduce mpu --scale paper --sample all": NotRun("paper scale takes minutes even sampled; "
                                                              "tests/timing/test_sampling.py tests sampling on warp "
                                                              "prefixes and tests/experiments/test_sampled_reports.py "
                                                              "the --sample all report"),
    "ndpgpu run sgemm_naive --scale paper --machine gtx480+sampled":
        "ndpgpu run sgemm_naive --scale tiny --machine gtx480+sampled",
    "ndpgpu main --functional-only": "ndpgpu main --functional-only --scale tiny",
    "ndpgpu sweep spec.yaml": "ndpgpu sweep spec.yaml --no-progress",
}
# the spec.yaml the sweep lines run: one tiny point (the README points at docs/experiments.md for the format)
SPEC = "name: readme\ngrid:\n  workloads: [vecadd]\n  scales: [tiny]\n  machines: [gtx480]\n"
SLOW = {"ndpgpu reproduce tom --scale tiny --jobs 1",
        "ndpgpu explore examples/saxpy.yaml --jobs 1 --out reports/explore-saxpy"}  # still run (marked slow)


def _blocks(lang: str) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", README.read_text(), flags=re.S | re.M)


def readme_cli_lines() -> list[str]:
    """Every command line of the README's bash blocks, comments stripped, in order."""
    out: list[str] = []
    for block in _blocks("bash"):
        for line in block.splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            if line and not line.startswith("#"):
                out.append(line)
    return out


def test_every_readme_command_is_planned() -> None:
    lines = readme_cli_lines()
    assert len(lines) >= 15
    missing = [line for line in lines if line not in CLI_PLAN]
    assert not missing, f"README command lines without an entry in CLI_PLAN (what to run, or why not): {missing}"
    unused = [line for line in CLI_PLAN if line not in lines and not isinstance(CLI_PLAN[line], NotRun)]
    assert not unused, f"CLI_PLAN entries for lines the README no longer has: {unused}"


def test_the_readme_names_no_file_outside_the_repository() -> None:
    for doc in [README, *sorted((ROOT / "docs").glob("*.md"))]:
        text = doc.read_text()
        assert not re.search(r"\.\./shared|shared/(papers|reference)|/work/", text), doc.name


def _run_cli(command: str) -> tuple[int, str]:
    from ndpgpu.cli import main

    argv = shlex.split(command)
    assert argv[0] == "ndpgpu"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            rc = main(argv[1:])
        except SystemExit as exc:  # argparse's --version and usage errors
            rc = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    return rc, out.getvalue()


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("readme")
    (d / "spec.yaml").write_text(SPEC)
    shutil.copytree(ROOT / "examples", d / "examples")  # the README's kernel-file lines name examples/
    (d / "docs" / "llc" / "small").mkdir(parents=True)  # the re-evaluation line reads a committed points file
    shutil.copy(ROOT / "docs" / "llc" / "small" / "points.parquet", d / "docs" / "llc" / "small")
    # the store the `results` lines read: made here, since test workers may run those lines before the sweep's
    cwd = Path.cwd()
    os.chdir(d)
    try:
        rc, out = _run_cli("ndpgpu sweep spec.yaml --jobs 1 --no-progress")
    finally:
        os.chdir(cwd)
    assert rc == 0, out[-3000:]
    return d


def _planned(slow: bool) -> list[str]:
    seen: list[str] = []
    for line in readme_cli_lines():
        plan = CLI_PLAN.get(line)
        if isinstance(plan, str) and plan not in seen and (plan in SLOW) == slow:
            seen.append(plan)
    return seen


def _check(command: str, workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(workdir)
    rc, out = _run_cli(command)
    assert rc == 0, f"`{command}` exited with {rc}:\n{out[-3000:]}"
    assert out.strip(), f"`{command}` printed nothing"
    if "--json" in command:
        json.loads(out)


@pytest.mark.parametrize("command", _planned(slow=False))
def test_readme_command_runs(command: str, workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _check(command, workdir, monkeypatch)


@pytest.mark.slow
@pytest.mark.parametrize("command", _planned(slow=True))
def test_readme_slow_command_runs(command: str, workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _check(command, workdir, monkeypatch)


def test_not_run_lines_say_why() -> None:
    for line in readme_cli_lines():
        plan = CLI_PLAN[line]
        if isinstance(plan, NotRun):
            assert len(plan.reason) > 20, line


PY_NOT_RUN = "# not run: "  # the first line of a README python block the tests skip, with the reason after it


def test_readme_python_blocks_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    blocks = _blocks("python")
    assert len(blocks) >= 2
    skipped = [b for b in blocks if b.startswith(PY_NOT_RUN)]
    assert all(len(b.splitlines()[0]) > len(PY_NOT_RUN) + 20 for b in skipped), "a skipped block says why"
    assert len(skipped) <= 1, "the README's examples run: skip only set-up, paper-scale or hour-long ones"
    namespace: dict = {"__name__": "readme"}
    printed = io.StringIO()
    for i, block in enumerate(blocks):
        if block.startswith(PY_NOT_RUN):
            continue
        with contextlib.redirect_stdout(printed):
            try:
                exec(compile(block, f"README.md python block {i + 1}", "exec"), namespace)
            except Exception as exc:
                raise AssertionError(f"README python block {i + 1} fails: {type(exc).__name__}: {exc}") from exc
    # what the blocks claim: saxpy's result, and the v100 device's times
    np = namespace["np"]
    n = namespace["N"]
    assert np.array_equal(namespace["y"].get(), 2.0 * np.arange(n, dtype=np.float32))
    tot = namespace["tot"]
    assert tot["application.time"] == pytest.approx(tot["kernel.time"] + tot["copies.time"])
    # TOM on a kernel of one's own offloads (a loop of loads), and saxpy, which has no candidate, is why not
    st = namespace["st"]
    assert st["offload.blocks.offloaded"] == st["offload.blocks.instances"] == 128
    assert "128 of 128 block instances offloaded" in printed.getvalue()
    from ndpgpu.mechanisms.tom.candidates import find_candidates

    saxpy = find_candidates(namespace["mod"].ir.functions["saxpy"], namespace["fn"].program(namespace["dev"]))
    assert not saxpy.candidates and any("BW_TX + BW_RX" in r.reason for r in saxpy.rejected)
