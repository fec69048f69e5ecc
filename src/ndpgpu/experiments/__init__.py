"""Experiments: points, a resumable parallel runner, the DuckDB result store, reports.

See ``docs/experiments.md``. The main entry points::

    from ndpgpu.experiments import load_spec, run_sweep, reproduce
    result = run_sweep(load_spec("sweep.yaml"), jobs=4)
    report = reproduce("builtin", scale="tiny", out_dir="reports/builtin")
"""

from __future__ import annotations

from .._lazy import lazy_getattr

# name -> the submodule that defines it; imported on first use (PEP 562), so that `ndpgpu --help` and the
# subcommands that need no store or runner do not load DuckDB, the runner and the reports
_WHERE = {
    **dict.fromkeys(("Executor", "MachineConfig", "MetricRow", "Provenance", "RecordingManifest",
                     "RecordingMismatchWarning"), "interfaces"),
    **dict.fromkeys(("Grid", "Point", "SpecError", "SweepSpec", "load_spec", "spec_from_dict"), "points"),
    **dict.fromkeys(("Check", "Reproduction", "all_reproductions", "register_reproduction", "reproduce",
                     "write_document"), "report"),
    **dict.fromkeys(("ResultSet", "Table", "pivot", "query", "write_csv"), "results"),
    **dict.fromkeys(("SweepResult", "default_store_path", "plan_sweep", "run_sweep"), "runner"),
    **dict.fromkeys(("Filters", "ResultStore"), "store"),
}


__getattr__ = lazy_getattr(__name__, _WHERE, globals())


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})


__all__ = [
    "Check",
    "Executor",
    "Filters",
    "Grid",
    "MachineConfig",
    "MetricRow",
    "Point",
    "Provenance",
    "RecordingManifest",
    "RecordingMismatchWarning",
    "Reproduction",
    "ResultSet",
    "ResultStore",
    "SpecError",
    "SweepResult",
    "SweepSpec",
    "Table",
    "all_reproductions",
    "default_store_path",
    "load_spec",
    "pivot",
    "plan_sweep",
    "query",
    "register_reproduction",
    "reproduce",
    "run_sweep",
    "spec_from_dict",
    "write_csv",
    "write_document",
]
