"""Points and sweep specs: YAML and Python declarations, grid expansion, errors with field paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from ndpgpu.experiments.points import Grid, Point, SpecError, SweepSpec, load_spec, spec_from_dict
from ndpgpu.workloads.base import all_workloads


def test_yaml_grid_and_points_expand_in_order_without_duplicates(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(
        "name: demo\n"
        "grid:\n"
        "  workloads: [saxpy, vecadd]\n"
        "  scales: [tiny]\n"
        "  machines: [gtx480, v100]\n"
        "  overrides: [{}, {l1d.size_kb: 48}]\n"
        "points:\n"
        "  - {workload: saxpy, scale: tiny, machine: gtx480}\n"  # a duplicate of a grid point
        "  - {workload: bfs, scale: small, machine: v100, policy: tom}\n"
    )
    spec = load_spec(path)
    points = spec.expand()
    assert len(points) == 2 * 2 * 2 + 1
    assert points[0] == Point(workload="saxpy", scale="tiny", machine="gtx480")
    assert points[1].overrides == {"l1d.size_kb": 48}
    assert points[-1].policy == "tom" and points[-1].label == "bfs@small on v100/tom"
    assert points[1].label == "saxpy@tiny on gtx480{l1d.size_kb=48}"


def test_python_declaration_equals_yaml() -> None:
    spec = SweepSpec(name="py", grid=[Grid(workloads=["saxpy"], scales=["tiny"], machines=["gtx480"])])
    same = spec_from_dict({"name": "py", "grid": {"workloads": ["saxpy"], "scales": ["tiny"], "machines": ["gtx480"]}})
    assert spec.expand() == same.expand()


def test_suite_and_star_patterns_and_scale_replacement() -> None:
    builtin = [n for n, c in all_workloads().items() if c.suite == "builtin"]
    spec = spec_from_dict({"name": "s", "grid": {"workloads": ["suite:builtin"], "machines": ["gtx480"]}})
    points = spec.expand(scale="tiny")
    assert [p.workload for p in points] == builtin
    assert {p.scale for p in points} == {"tiny"}
    star = spec_from_dict({"name": "s", "grid": {"workloads": ["*"], "machines": ["gtx480"]}}).expand()
    assert len(star) == len([c for c in all_workloads().values() if c.suite != "file"])


def test_star_leaves_out_kernel_files_a_session_registered() -> None:
    """`ndpgpu explore FILE.cu` registers the file as a workload of suite "file" with the one scale "given"; a
    later "*" grid in the same process (a characterization, a sweep) must not pick it up at a scale it lacks."""
    from ndpgpu.workloads.base import WORKLOADS, Workload

    class FileKernel(Workload):
        name, suite, scales = "probe_kernel_file", "file", {"given": {}}

    WORKLOADS.register(FileKernel.name, FileKernel)
    try:
        star = spec_from_dict({"name": "s", "grid": {"workloads": ["*"], "scales": ["tiny"],
                                                     "machines": ["gtx480"]}}).expand()
        assert FileKernel.name not in {p.workload for p in star}
        named = spec_from_dict({"name": "s", "grid": {"workloads": [FileKernel.name], "scales": ["given"],
                                                      "machines": ["gtx480"]}}).expand()
        assert [p.workload for p in named] == [FileKernel.name]
    finally:
        WORKLOADS.unregister(FileKernel.name)


@pytest.mark.parametrize(
    ("data", "fragment"),
    [
        ({"name": "x", "grid": {"workloads": ["saxpy"], "machines": ["gtx480", 3]}}, "grid.0.machines.1"),
        ({"name": "x", "grid": {"workloads": ["saxpy"], "machines": []}}, "grid.0.machines"),
        ({"name": "x", "points": [{"workload": "saxpy", "machine": "gtx480", "colour": 1}]}, "points.0.colour"),
        ({"name": "x", "points": [{"workload": "saxpy"}]}, "points.0.machine: Field required"),
        ({"name": "bad name!", "points": []}, "name:"),
        ({"name": "x", "points": [{"workload": "saxpy", "machine": "m", "overrides": {"a": [1]}}]},
         "points.0.overrides.a"),
    ],
)
def test_validation_errors_name_the_field(data: dict, fragment: str) -> None:
    with pytest.raises(SpecError) as err:
        spec_from_dict(data, "spec.yaml")
    assert fragment in str(err.value)
    assert str(err.value).startswith("spec.yaml: invalid sweep spec")


def test_unknown_workload_scale_and_empty_spec() -> None:
    with pytest.raises(SpecError, match=r"grid.0.workloads.1: 'nope' matches no workload; known: .*saxpy"):
        spec_from_dict({"name": "x", "grid": {"workloads": ["saxpy", "nope"], "machines": ["m"]}}).expand()
    with pytest.raises(SpecError, match=r"points.0: workload 'saxpy' has no scale 'huge'"):
        spec_from_dict({"name": "x", "points": [{"workload": "saxpy", "scale": "huge", "machine": "m"}]}).expand()
    with pytest.raises(SpecError, match="declares no points"):
        SweepSpec(name="x").expand()


def test_yaml_problems_are_reported(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [unclosed\n")
    with pytest.raises(SpecError, match="not valid YAML"):
        load_spec(bad)
    with pytest.raises(SpecError, match="cannot read"):
        load_spec(tmp_path / "missing.yaml")
    bad.write_text("- a list\n")
    with pytest.raises(SpecError, match="is a mapping"):
        load_spec(bad)


def test_code_version_covers_the_simulator_but_not_reports() -> None:
    from ndpgpu.experiments.provenance import _in_code_version, code_version

    assert code_version().startswith("0.1.0+")
    for rel, included in [
        ("functional/engine.py", True),
        ("machines/gtx480.yaml", True),
        ("workloads/runner.py", True),
        ("experiments/executors.py", True),
        ("workloads/builtin/saxpy.cu", False),
        ("experiments/report.py", False),
        ("experiments/papers/builtin.py", False),
        ("cli.py", False),
        ("_numba_cache.py", False),
        ("_numba_inline.py", False),
        ("timing/__pycache__/x.pyc", False),
    ]:
        assert _in_code_version(Path(rel)) is included, rel
