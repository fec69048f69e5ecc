"""Command-line entry points: ``ndpgpu sweep``, ``ndpgpu results``, ``ndpgpu reproduce``.

``ndpgpu.cli`` calls :func:`add_subcommands`; each subcommand's parser sets ``func`` to its ``*_main``,
which takes the parsed namespace and returns the exit status. ``python -m ndpgpu.experiments.cli`` runs
them without the top-level CLI.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from ..cliargs import EXIT_USAGE as _EXIT_USAGE
from ..cliargs import UsageError, nonnegative_int

EXIT_OK, EXIT_FAILED_POINTS, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, _EXIT_USAGE, 130
# Ctrl-C reaches a running DuckDB query as its own exception (or a RuntimeError "Query interrupted"),
# not as KeyboardInterrupt


def _interrupts() -> tuple[type[BaseException], ...]:
    """What an interrupted run raises: Ctrl-C, or DuckDB's interrupt of a query it was running (imported here,
    not at start-up: ``ndpgpu --help`` loads no store)."""
    import duckdb

    return (KeyboardInterrupt, duckdb.InterruptException)


def _default_jobs() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)


def _executor_options(pairs: list[str] | None) -> dict[str, Any] | None:
    if not pairs:
        return None
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--executor-option takes KEY=VALUE (a YAML value), not {pair!r}")
        import yaml

        out[key] = yaml.safe_load(value)
    return out


def _add_run_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--jobs",
        "-j",
        type=nonnegative_int,
        default=_default_jobs(),
        help="worker processes (default: the usable CPUs; 0 runs in this process, for debugging)",
    )
    p.add_argument(
        "--store",
        type=Path,
        default=None,
        help="result database (default: $NDPGPU_RESULTS or results/ndpgpu.duckdb)",
    )
    p.add_argument("--traces", type=Path, default=None, help="where recordings persist (default: beside the store)")
    p.add_argument("--executor", default=None, help="run points with this executor instead of the spec's")
    p.add_argument("--executor-option", action="append", metavar="KEY=VALUE", help="an executor option (repeatable)")
    p.add_argument(
        "--scheduler",
        default=None,
        metavar="tcp://HOST:PORT",
        help="run the tasks on this Dask cluster instead of --jobs local processes (default: $NDPGPU_SCHEDULER, "
        "then Dask's scheduler-address setting, e.g. $DASK_SCHEDULER_ADDRESS); --traces must then be a "
        "directory every worker reads at the same path",
    )
    p.add_argument("--no-progress", action="store_true", help="no live progress display")


def add_subcommands(subparsers: Any) -> None:
    """Register ``sweep``, ``results`` and ``reproduce`` on an ``argparse`` subparsers object."""
    p = subparsers.add_parser(
        "sweep",
        help="run a sweep spec (resumable, parallel)",
        description="Run every point of a YAML sweep spec not already stored. An interrupted run resumes.",
    )
    p.add_argument("spec", type=Path, help="the sweep spec (YAML)")
    p.add_argument("--scale", default=None, help="replace every point's scale")
    p.add_argument("--no-retry-failed", action="store_true", help="keep stored failures instead of rerunning them")
    p.add_argument("--dry-run", action="store_true", help="list the points and whether each is stored; run nothing")
    _add_run_options(p)
    p.set_defaults(func=sweep_main)

    p = subparsers.add_parser(
        "results",
        help="query the result store",
        description="List stored results, pivot one metric to a workload x config table, export CSV/Parquet.",
    )
    p.add_argument("--store", type=Path, default=None, help="result database (default as for sweep)")
    p.add_argument("--experiment", "-e", default=None, help="only this experiment (sweep name)")
    for flag in ("workload", "scale", "machine", "policy", "metric"):
        p.add_argument(f"--{flag}", action="append", default=[], help=f"only this {flag} (repeatable)")
    p.add_argument("--pivot", metavar="METRIC", default=None,
                   help="a workload x config table of METRIC (a bare name the kernel has means the kernel's: "
                   "cycles = kernel.cycles)")
    p.add_argument("--csv", default=None, metavar="PATH",
                   help="write the rows (or the pivot table) as CSV; - for stdout")
    p.add_argument("--parquet", type=Path, default=None,
                   help="write the matching rows as Parquet (prints nothing else)")
    p.add_argument("--export-bundle", type=Path, default=None, metavar="DIR",
                   help="write the matching points with their metrics as a bundle of Parquet files in DIR (to carry "
                   "a run to another machine; prints nothing else)")
    p.add_argument("--import-bundle", type=Path, default=None, metavar="DIR",
                   help="add a bundle's points to the store (creating it): a later sweep or reproduce with the same "
                   "code version resumes from them")
    p.add_argument("--json", action="store_true", help="one JSON document on stdout: the rows, the pivot table, "
                   "the failed points or the experiments")
    p.add_argument("--failed", action="store_true", help="list failed points with their errors")
    p.add_argument("--traceback", action="store_true", help="with --failed: print each traceback")
    p.add_argument(
        "--include-stale",
        action="store_true",
        help="include results of other code versions or workload sources",
    )
    p.add_argument("--experiments", action="store_true", help="list the experiments in the store")
    p.add_argument("--limit", type=int, default=200, help="rows to print (default 200; CSV gets all)")
    p.set_defaults(func=results_main)

    p = subparsers.add_parser(
        "reproduce",
        help="run a paper reproduction and write its report",
        description="Run a reproduction's points and write report.md, report.html, report.json and figures.",
    )
    p.add_argument("paper", nargs="?", help="the reproduction (see --list), or 'all': every one, one store, one index")
    p.add_argument("--list", action="store_true", help="list the reproductions")
    p.add_argument("--scale", default=None, help="tiny | small | paper (default: the reproduction's)")
    p.add_argument(
        "--out",
        type=Path,
        default=None,
        help="report directory (default reports/<paper>-<scale>; for all: reports/all-<scale>)",
    )
    p.add_argument(
        "--doc",
        type=Path,
        default=None,
        help="also write the tables alone as a generated markdown document at DOC",
    )
    p.add_argument(
        "--stored-only",
        action="store_true",
        help="run nothing: write the report from the points already in the store and list the others as missing "
        "(a long run reported on while it is resumed in parts)",
    )
    p.add_argument(
        "--from-points",
        type=Path,
        default=None,
        metavar="FILE",
        help="run nothing: re-evaluate the checks, tables and figures with today's code from the metric rows of "
        "a points file (a committed report's points.parquet); points are matched by identity, not key",
    )
    p.add_argument(
        "--timing",
        default=None,
        choices=("declared", "preset", "gpgpusim", "gpgpusim3"),
        help="the simulator timing of every machine: declared (default: the paper's baseline timing, named in the "
        "report; with --from-points the default is the timing the file's points ran on), or a labelled second "
        "column: preset (hardware-faithful), gpgpusim (GPGPU-Sim 4.0), gpgpusim3 "
        "(GPGPU-Sim 3.x); a column is stored as its own experiment and its report written to "
        "reports/<paper>-<scale>-<timing>",
    )
    p.add_argument(
        "--sample",
        nargs="?",
        const="waves",
        default=False,
        choices=("waves", "all"),
        help="sampled timing: long launches (8 waves of CTAs or more) are timed on their first 4 waves and "
        "projected (`--sample` or `--sample waves`: the `sampled` machine overlay); `--sample all` also times "
        "shorter launches until their issue rate is stable, then projected (the `sampled-all` overlay); errors "
        "against full runs in docs/sampling.md; stored as its own experiment, reported to "
        "reports/<paper>-<scale>-<overlay> with every check and figure marked",
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a sensitivity study: every point's machine with this field changed (repeatable; e.g. "
        "l1d.set_index=xor); stored as its own experiment and reported to reports/<paper>-<scale>-set-<fields> with "
        "every check, table and figure marked; a field the reproduction itself sweeps is refused",
    )
    p.add_argument(
        "--column",
        action="append",
        default=[],
        metavar="TIMING=FILE",
        help="with --from-points: a second column's points file (repeatable), shown beside the declared checks",
    )
    _add_run_options(p)
    p.set_defaults(func=reproduce_main)


def _err_note(message: str) -> None:
    """A confirmation (``wrote FILE``) on stderr, so that stdout holds only the data asked for."""
    print(message, file=sys.stderr)


def _err(message: str) -> None:
    print(f"error: {message}", file=sys.stderr)


def _interrupted(exc: BaseException) -> int:
    """The exit status of a sweep stopped by ``exc`` (a RuntimeError that is not an interruption re-raised)."""
    if isinstance(exc, RuntimeError) and "interrupted" not in str(exc).lower():
        raise exc
    state = getattr(exc, "sweep_state", None)  # how far the sweep got (runner.SweepState)
    if state is not None:
        _err(f"{state.line(interrupted=True)}; finished points are stored: run the same command again to run the "
             f"{state.not_run} not run")
    else:
        _err("interrupted; finished points are stored: run the same command again to resume")
    return EXIT_INTERRUPTED


def sweep_main(args: argparse.Namespace) -> int:
    """``ndpgpu sweep SPEC``."""
    from .dask_pool import SchedulerError
    from .points import SpecError, load_spec
    from .runner import default_store_path, plan_sweep, run_sweep
    from .store import ResultStore, StoreError

    try:
        spec = load_spec(args.spec).with_executor(args.executor, _executor_options(args.executor_option))
        store_path = args.store or default_store_path()
        if args.dry_run:
            with ResultStore(store_path) as store:
                plan = plan_sweep(spec, store, args.scale)
            for p in plan.points:
                print(f"{p.key}  {p.status or 'todo':7s}  {p.point.label}")
            print(f"{len(plan.points)} points, {len(plan.todo(not args.no_retry_failed))} to run")
            return EXIT_OK
        result = run_sweep(
            spec,
            jobs=args.jobs,
            store=store_path,
            traces=args.traces,
            scale=args.scale,
            retry_failed=not args.no_retry_failed,
            progress=False if args.no_progress else None,
            scheduler=args.scheduler,
        )
    except (SpecError, StoreError, SchedulerError) as exc:
        _err(str(exc))
        return EXIT_USAGE
    except (*_interrupts(), RuntimeError) as exc:
        return _interrupted(exc)
    print(
        f"{result.experiment}: {len(result.points)} points: {result.reused} already stored, "
        f"{result.computed} computed, {len(result.failures)} failed "
        f"({result.recordings} recordings made, {result.recordings_reused} reused); store {result.store_path}"
    )
    for label, error in result.failures:
        print(f"  FAILED {label}: {error.splitlines()[0] if error else ''}")
    if result.failures:
        print(
            "  tracebacks: ndpgpu results --failed --traceback "
            f"--experiment {result.experiment} --store {result.store_path}"
        )
    return EXIT_FAILED_POINTS if result.failures else EXIT_OK


def _print_table(columns: list[str], rows: list[list[Any]], title: str = "") -> None:
    from ..clitable import print_table
    from .results import format_value

    print_table(columns, rows, title, format_value)


def results_main(args: argparse.Namespace) -> int:
    """``ndpgpu results``."""
    from .results import pivot, query, stale_keys, write_csv
    from .runner import default_store_path
    from .store import Filters, ResultStore, StoreError

    filters = Filters(
        experiment=args.experiment,
        workloads=args.workload,
        scales=args.scale,
        machines=args.machine,
        policies=args.policy,
        metrics=args.metric,
    )
    try:
        if args.import_bundle:
            with ResultStore(args.store or default_store_path()) as store:
                added = store.import_bundle(args.import_bundle)
            _err_note(f"imported {added} point(s) from {args.import_bundle} into {store.path}")
            return EXIT_OK
        store, note = ResultStore.open_for_reading(args.store or default_store_path())
        if note:  # a sweep is writing the store: its snapshot is read instead
            _err_note(note)
        with store:
            if args.export_bundle:
                store.export_bundle(args.export_bundle, filters)
                _err_note(f"wrote the bundle {args.export_bundle}")
                return EXIT_OK
            if args.experiments:
                counts = store.experiment_counts()
                if args.json:
                    print(json.dumps([{"experiment": e, "points": n, "ok": ok, "failed": bad, "not_run": nr}
                                      for e, n, ok, bad, nr in counts]))
                    return EXIT_OK
                _print_table(["experiment", "points", "ok", "failed", "not run"], [list(r) for r in counts])
                return EXIT_OK
            if args.failed:
                failed = store.points(Filters(**{**filters.__dict__, "metrics": (), "status": "failed"}))
                if args.json:
                    keep = ("key", "label", "workload", "scale", "machine", "policy", "overrides", "error")
                    print(json.dumps([{k: (json.loads(p[k] or "{}") if k == "overrides" else p[k]) for k in keep}
                                      | ({"traceback": p["traceback"]} if args.traceback else {}) for p in failed]))
                    return EXIT_OK
                for p in failed:
                    print(f"FAILED {p['label']}  [key {p['key']}]\n  {p['error']}")
                    if args.traceback and p["traceback"]:
                        print("  " + p["traceback"].rstrip().replace("\n", "\n  "))
                print(f"{len(failed)} failed point(s)")
                return EXIT_OK
            if args.parquet:  # stale points stay out of an export as out of every listing
                selected = store.points(filters)
                stale = set() if args.include_stale else stale_keys(store, selected)
                store.export_parquet(args.parquet, filters, exclude=stale)
                kept = len({p["key"] for p in selected} - stale)
                left = f"; {len(stale)} stale point(s) left out (--include-stale keeps them)" if stale else ""
                _err_note(f"wrote {args.parquet}: {kept} point(s){left}")
                if not (args.pivot or args.csv or args.json):  # an export alone prints nothing else
                    return EXIT_OK
            rows = query(store, filters, include_stale=args.include_stale)
    except StoreError as exc:
        _err(str(exc))
        return EXIT_USAGE
    to_stdout = args.csv == "-"
    if args.pivot:
        try:
            table = pivot(rows, args.pivot)
        except ValueError as exc:
            _err(str(exc))
            return EXIT_USAGE
        if args.json:
            print(json.dumps(table.to_json()))
        elif to_stdout:
            sys.stdout.write(table.to_csv())
        elif args.csv:
            write_csv(args.csv, table)
            _err_note(f"wrote {args.csv}")
        else:
            _print_table(table.columns, table.rows, table.title)
        return EXIT_OK
    if args.json:
        print(json.dumps([{**r, "overrides": json.loads(r["overrides"] or "{}")} for r in rows], default=str))
        return EXIT_OK
    if args.csv:
        from .frames import with_override_columns

        write_csv(sys.stdout if to_stdout else args.csv, with_override_columns(rows))
        if not to_stdout:
            _err_note(f"wrote {len(rows)} rows to {args.csv}")
        return EXIT_OK
    shown = rows[: args.limit]
    _print_table(["point", "metric", "value", "unit"], [[r["label"], r["name"], r["value"], r["unit"]] for r in shown])
    if len(rows) > len(shown):
        print(f"({len(rows) - len(shown)} more rows; use --limit, filters or --csv)")
    return EXIT_OK


def reproduce_main(args: argparse.Namespace) -> int:
    """``ndpgpu reproduce PAPER``."""
    from .dask_pool import SchedulerError
    from .points import SpecError
    from .report import (
        ReproductionError,
        all_reproductions,
        reevaluate,
        reproduce,
        sample_overlay,
        sample_pairing,
        sets_slug,
        write_document,
    )
    from .store import StoreError

    if args.list or not args.paper:
        for name, cls in all_reproductions().items():
            print(f"{name:18s} {cls.title} (default scale {cls.default_scale})")
        return EXIT_OK if args.list else EXIT_USAGE
    opts = _executor_options(args.executor_option)
    progress = False if args.no_progress else None
    from ..timing.cli import machine_overrides

    try:
        sets = machine_overrides(getattr(args, "set", None))
    except UsageError as exc:
        _err(str(exc))
        return EXIT_USAGE
    if args.paper == "all":
        if sets:
            _err("--set changes one reproduction's machines: name it (ndpgpu reproduce teleport --set KEY=VALUE)")
            return EXIT_USAGE
        if getattr(args, "from_points", None) is not None:
            _err("--from-points re-evaluates one reproduction: name it (ndpgpu reproduce tom --scale paper ...)")
            return EXIT_USAGE
        return _reproduce_all_main(args, opts, progress)
    try:
        if getattr(args, "from_points", None) is not None:
            if not args.scale:
                raise ReproductionError("--from-points needs one reproduction and its --scale")
            if not args.from_points.is_file():
                raise ReproductionError(f"--from-points {args.from_points}: no such file")
            columns = {}
            for item in args.column:
                flavour, sep, file = item.partition("=")
                if not sep or not Path(file).is_file():
                    raise ReproductionError(f"--column {item!r}: expected TIMING=FILE with an existing points file")
                columns[flavour] = file
            sample = getattr(args, "sample", False)
            overlay = sample_overlay(sample)
            suffix = ("-" + overlay if overlay else "") + ("-" + sets_slug(sets) if sets else "")
            out = args.out or Path("reports") / f"{args.paper}-{args.scale}{suffix}"
            report = reevaluate(args.paper, args.scale, args.from_points, out,
                                timing=getattr(args, "timing", None), columns=columns, sample=sample, sets=sets)
        else:
            paired = sample_pairing(args.paper, args.scale, getattr(args, "timing", None),
                                    getattr(args, "sample", False))
            if paired:
                print(f"ndpgpu: --sample: {paired}, so that every comparison is timed one way (docs/sampling.md)",
                      file=sys.stderr)
            report = reproduce(args.paper, args.scale, args.out, args.jobs, args.store, args.traces, args.executor,
                               opts, progress, getattr(args, "scheduler", None),
                               stored_only=getattr(args, "stored_only", False), timing=getattr(args, "timing", None),
                               sample=getattr(args, "sample", False), sets=sets)
        if args.doc:
            write_document(report, args.doc)
            print(f"wrote {args.doc}")
    except (ReproductionError, SpecError, StoreError, SchedulerError) as exc:
        _err(str(exc))
        return EXIT_USAGE
    except (*_interrupts(), RuntimeError) as exc:
        return _interrupted(exc)
    s = report.data["summary"]
    print(
        f"{report.name}: checks {s['evidence_passed']}/{s['evidence']} pass"
        + (f" (+{s['calibrated']} calibrated)" if s["calibrated"] else "")
        + f"; points {s['points_ok']}/{s['points']} ran"
        + (f", {s['points_failed']} failed" if s["points_failed"] else "")
        + (f", {s['points_not_run']} not run (a partial report)" if s.get("points_not_run") else "")
        + f"; report {report.markdown_path}"
    )
    print(json.dumps({"report": str(report.markdown_path), "json": str(report.json_path)}))
    return EXIT_FAILED_POINTS if s["points_failed"] or s.get("points_not_run") else EXIT_OK


def _reproduce_all_main(args: argparse.Namespace, opts: dict[str, Any] | None, progress: bool | None) -> int:
    """``ndpgpu reproduce all``."""
    from .dask_pool import SchedulerError
    from .reproduce_all import reproduce_all
    from .store import StoreError

    if args.doc:
        _err("--doc writes one reproduction's tables: name the reproduction instead of 'all'")
        return EXIT_USAGE
    try:
        done = reproduce_all(args.scale, args.out, args.jobs, args.store, args.traces, args.executor, opts, progress,
                             getattr(args, "scheduler", None))
    except (StoreError, SchedulerError) as exc:
        _err(str(exc))
        return EXIT_USAGE
    except (*_interrupts(), RuntimeError) as exc:
        return _interrupted(exc)
    for r in done.reports:
        s = r.data["summary"]
        print(f"{r.name}: checks {s['evidence_passed']}/{s['evidence']} pass; points {s['points_ok']}/{s['points']} "
              f"ran ({done.elapsed_s[r.name]:.0f} s); report {r.out_dir / 'report.html'}")
    for name, error in done.errors:
        print(f"{name}: could not run: {error}")
    print(json.dumps({"index": str(done.index_path), "reports": [str(r.markdown_path) for r in done.reports]}))
    return EXIT_FAILED_POINTS if done.errors or done.points_failed else EXIT_OK


def main_job(args: argparse.Namespace) -> int:
    """``ndpgpu main``: the README's main job, reproductions with their reports (``study``: default ``all``,
    every registered reproduction in one store; or one by name, e.g. ``tom``).

    Reads ``study``, ``scale``, ``out`` and ``jobs`` (and ``store`` when present) from ``args``. Every report goes
    under ``<out>/<study>/`` (``out/main/tom/report.md``), one study's as every one's with ``all`` (whose
    ``index.html`` is ``<out>/index.html``), so running one study never overwrites another's report.
    """
    study = getattr(args, "study", None) or "all"
    out = getattr(args, "out", None)
    if out is not None and study != "all":
        out = Path(out) / study
    ns = argparse.Namespace(
        paper=study,
        list=False,
        scale=getattr(args, "scale", None),
        out=out,
        doc=None,
        jobs=getattr(args, "jobs", _default_jobs()),
        store=getattr(args, "store", None),
        traces=getattr(args, "traces", None),
        executor=getattr(args, "executor", None),
        executor_option=getattr(args, "executor_option", None),
        no_progress=getattr(args, "no_progress", False),
        scheduler=getattr(args, "scheduler", None),
    )
    return reproduce_main(ns)


def main(argv: list[str] | None = None) -> int:
    """Run one of the three subcommands (``python -m ndpgpu.experiments.cli sweep spec.yaml``)."""
    parser = argparse.ArgumentParser(prog="ndpgpu-experiments")
    add_subcommands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
