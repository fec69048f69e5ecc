"""Experiments: points, a resumable parallel runner, the DuckDB result store, reports.

See ``docs/experiments.md``. The main entry points::

    from ndpgpu.experiments import load_spec, run_sweep, reproduce
    result = run_sweep(load_spec("sweep.yaml"), jobs=4)
    report = reproduce("builtin", scale="tiny", out_dir="reports/builtin")
"""

from .interfaces import Executor, MachineConfig, MetricRow, Provenance, RecordingManifest, RecordingMismatchWarning
from .points import Grid, Point, SpecError, SweepSpec, load_spec, spec_from_dict
from .report import Check, Reproduction, all_reproductions, register_reproduction, reproduce, write_document
from .results import ResultSet, Table, pivot, query, write_csv
from .runner import SweepResult, default_store_path, plan_sweep, run_sweep
from .store import Filters, ResultStore

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
