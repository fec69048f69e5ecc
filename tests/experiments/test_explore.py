"""``ndpgpu explore``: every row's numbers are those of the same points run one by one through ``ndpgpu run
--policy``; a compute-bound kernel is helped by none, with each mechanism's rejecting rule; the bound and the
option choices follow their definitions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ndpgpu.cli import main
from ndpgpu.experiments.explore import explore
from ndpgpu.experiments.explore.defaults import OPTIONS, ExploreError, select
from ndpgpu.experiments.explore.run import ipndp_policy
from ndpgpu.experiments.explore.why import bound

SAXPY = """extern "C" __global__ void saxpy(int n, float a, const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""
FMA = """extern "C" __global__ void fma_chain(float *out, int n, int iters) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float a = i * 1e-3f, b = 0.999f;
        for (int k = 0; k < iters; ++k) { a = fmaf(a, b, 0.25f); b = fmaf(b, 0.5f, 0.5f); }
        out[i] = a;
    }
}
"""


def _kernel_file(tmp: Path, name: str, source: str, body: str) -> Path:
    (tmp / f"{name}.cu").write_text(source)
    path = tmp / f"{name}.yaml"
    path.write_text(f"source: {name}.cu\nkernel: {name}\n{body}")
    return path


@pytest.fixture(scope="module")
def saxpy(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("explore-saxpy")
    yaml = _kernel_file(tmp, "saxpy", SAXPY, "grid: 8\nblock: 128\nargs: [1024, 2.0, 'x=f32[1024] rand', "
                        "'y=f32[1024] ones']\n")
    return yaml, explore(str(yaml), store=tmp / "store.duckdb", jobs=0, progress=False)


def _run(capsys, yaml: Path, machine: str, policy: str) -> dict[str, float]:
    """One point through `ndpgpu run --policy --json`: its totals and the policy's rows."""
    assert main(["run", str(yaml), "--machine", machine, "--policy", policy, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    rows = {f"{r['path']}.{r['metric']}": r["value"] for r in doc["timing"]}
    rows.update({f"{p}.{m}": v for p, m, v, _u in doc["policy_rows"]})
    return rows


def test_rows_match_points_run_one_by_one(saxpy, capsys):
    yaml, e = saxpy
    assert len(e.rows) == 6 and {r.option.mechanism for r in e.rows} == {"tom", "llc", "teleport", "mpu", "ipndp"}
    runs: dict[tuple[str, str], dict[str, float]] = {}

    def point(machine: str, policy: str) -> dict[str, float]:
        if (machine, policy) not in runs:
            runs[machine, policy] = _run(capsys, yaml, machine, policy)
        return runs[machine, policy]

    ref = point("gtx480", "baseline")
    for r in e.rows:
        o = r.option
        base, mech = point(o.machine, o.baseline), point(o.machine, o.policy)
        charge = mech.get("tom.learning.charged_cycles", 0.0)
        assert r.base["kernel.cycles"] == base["kernel.cycles"], o.key
        assert r.mech["kernel.cycles"] == mech["kernel.cycles"], o.key
        assert r.speedup == pytest.approx(base["kernel.cycles"] / (mech["kernel.cycles"] + charge), rel=1e-12)
        assert r.energy == pytest.approx(mech["energy.kernel.total"] / base["energy.kernel.total"], rel=1e-12)
        assert r.machine_vs_reference == pytest.approx(ref["kernel.time"] / base["kernel.time"], rel=1e-12)
        assert r.sentence().startswith(f"{o.label} on {o.machine}: x{r.speedup:.2f}")
    speedups = [r.speedup for r in e.rows]
    assert speedups == sorted(speedups, reverse=True)  # ranked


def test_report_files(saxpy, tmp_path):
    _yaml, e = saxpy
    paths = e.write(tmp_path / "report")
    doc = json.loads(paths["json"].read_text())
    assert [r["label"] for r in doc["rows"]] == [r.option.label for r in e.rows]
    assert all(r["speedup"] and r["energy"] and r["reason"] for r in doc["rows"])
    md = paths["markdown"].read_text()
    assert all(f"| {r.option.label} |" in md for r in e.rows)
    html = paths["html"].read_text()
    assert "data:image/png;base64," in html and html.count("<tr>") >= 6
    assert len(e.summary().splitlines()) <= 24  # one screen


def test_a_compute_bound_kernel_is_helped_by_none(tmp_path):
    yaml = _kernel_file(tmp_path, "fma_chain", FMA, "grid: 4\nblock: 128\nargs: ['out=f32[512] zeros', 512, 128]\n")
    e = explore(str(yaml), store=tmp_path / "store.duckdb", jobs=0, progress=False)
    assert e.helped_by == [] and "helped by none" in e.verdict_line()
    for r in e.rows:
        assert r.speedup is not None and r.speedup <= 1.02, r.option.key
    for m in ("tom", "llc", "teleport", "ipndp"):
        v = next(r.verdict for r in e.rows if r.option.mechanism == m)
        assert not v.applies and v.rules, m
    tom = next(r.verdict for r in e.rows if r.option.key == "tom")
    assert "fma_chain.cu:" in tom.rules[0]  # the rejecting rule names the CUDA source line


def test_bound_follows_its_definition():
    shape = {"sms": 10.0, "l2_slices": 4.0}
    rows = {"kernel.cycles": 1000.0, "core.issue.issue_rate": 0.2, "l1d.accesses": 3000.0, "l2.accesses": 3200.0,
            "dram.bus_utilisation": 0.3, "icnt.request.max_port_utilisation": 0.1,
            "core.stalls.memory_fraction": 0.4, "kernel.thread_instructions": 6400.0, "dram.bytes": 3200.0}
    b = bound(rows, shape)
    assert b.utilisation["L1"] == 0.3 and b.utilisation["L2"] == 0.8 and b.bound == "L2"
    assert b.intensity == 2.0
    quiet = bound({**rows, "l2.accesses": 100.0}, shape)
    assert quiet.bound == "latency"  # nothing at 50%, stalls (0.4) above issue (0.2)
    assert bound({**rows, "l2.accesses": 100.0, "core.stalls.memory_fraction": 0.1}, shape).bound == "issue"


def test_options_and_policies():
    import ndpgpu

    assert ndpgpu.explore is explore
    assert [o.key for o in select(["llc"])] == ["llc", "omni"]
    assert select(["teleport"], {"teleport": "gtx480-gpgpusim"})[0].machine == "gtx480-gpgpusim"
    assert {o.mechanism for o in OPTIONS} == {"tom", "llc", "teleport", "mpu", "ipndp"}
    with pytest.raises(ExploreError, match="unknown mechanism"):
        select(["nope"])

    class L:
        def __init__(self, grid, block):
            self.grid, self.block = grid, block

    assert ipndp_policy("ipndp_conv2d_pa", []) == "ipndp:paca+pf"
    assert ipndp_policy("ipndp_conv2d", []) == "ipndp:rr+pf"
    assert ipndp_policy("saxpy", [L((64, 1, 1), (256, 1, 1))]) == "ipndp:rr+pf,width=16384"
    assert ipndp_policy("k", [L((64, 1, 1), (256, 1, 1)), L((4, 8, 1), (32, 8, 1))]) == "ipndp:rr+pf,width=128"


def test_cli_usage_errors(capsys):
    assert main(["explore", "saxpy", "--mechanisms", "tom,nope"]) == 2
    assert "unknown mechanism" in capsys.readouterr().err
    assert main(["explore", "saxpy", "--kernel", "k"]) == 2


class _Part:
    """A policy that records what it did to the session."""

    def __init__(self, name: str, hardware: bool) -> None:
        self.name, self.hardware = name, hardware

    def prepare(self, session, recording, traces) -> None:
        session.log.append(self.name)
        if self.hardware:
            session.attach(self.name)

    def rows(self):
        return [(self.name, "prepared", 1.0, "flag")]


class _Session:
    def __init__(self) -> None:
        self.log: list[str] = []
        self.attached: list[str] = []

    def attach(self, hardware) -> None:
        self.attached.append(hardware)


def test_composition_prepares_both_and_refuses_two_hardware_parts():
    from ndpgpu.experiments.explore.compose import ComposedPolicy, make_composed
    from ndpgpu.experiments.policies import PolicyError

    s = _Session()
    pol = ComposedPolicy([_Part("pre", False), _Part("hw", True)], ["pre", "hw"])
    pol.prepare(s, None, [])
    assert s.log == ["pre", "hw"] and s.attached == ["hw"]
    assert pol.rows() == [("pre", "prepared", 1.0, "flag"), ("hw", "prepared", 1.0, "flag")]
    with pytest.raises(PolicyError, match="both attach"):
        ComposedPolicy([_Part("a", True), _Part("b", True)], ["a", "b"]).prepare(_Session(), None, [])
    with pytest.raises(PolicyError, match="two or more"):
        make_composed("llc:llc")
    assert [type(p).__name__ for p in make_composed("teleport:l1;llc:llc").parts] == ["TeleportPolicy",
                                                                                      "ChainOffloadPolicy"]
    assert [o.key for o in select(["teleport", "llc"], compose=True)][-1] == "teleport+llc"
    assert all(not o.beyond for o in select(["teleport", "llc"]))
