"""The ``ndpgpu`` command line: run workloads, list machines, sweep, report.

The subcommands defined here come first; then each module of :data:`SUBCOMMAND_MODULES` adds its own
with ``add_subcommands(subparsers)`` (``ndpgpu.mechanisms.cli`` finds every mechanism's ``cli`` module by
package). A name added twice is refused, and a module that fails to import fails the command line.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time

from . import __version__
from .cliargs import EXIT_USAGE, Subcommands, UsageError, positive_int

SUBCOMMAND_MODULES = ("ndpgpu.experiments.cli", "ndpgpu.mechanisms.cli", "ndpgpu.experiments.explore.cli")


def _cmd_workloads(args: argparse.Namespace) -> int:
    from .workloads.base import all_workloads

    if getattr(args, "action", None) == "characterize":
        from .workloads.characterize import characterize_main

        return characterize_main(args)
    from .clitable import print_table
    from .workloads.aliases import aliases_of

    rows = []
    for name, cls in all_workloads().items():
        if args.suite and cls.suite != args.suite:
            continue
        rows.append((name, cls.suite, ",".join(cls.papers) or "-", ",".join(aliases_of(name)) or "-",
                     ",".join(cls.scales), cls.description, cls.deviations))
    columns = ("name", "suite", "papers", "aliases", "scales", "description", "deviations")
    if args.json:
        print(json.dumps([dict(zip(columns, r, strict=True)) | {"aliases": aliases_of(r[0])} for r in rows], indent=1))
        return 0
    print_table(columns, rows, f"{len(rows)} workloads (a paper's name, e.g. KM or TOM:BFS, works as a workload name)")
    return 0


FILE_FLAGS = ("kernel", "grid", "block", "arg", "shared_mem", "option", "repeat", "expect", "seed")


def _run_target(args: argparse.Namespace):
    """The workload ``ndpgpu run`` runs: a registered name, a ``.cu`` file with its launch in flags, or a YAML
    launch description (:mod:`ndpgpu.workloads.kernelfile`)."""
    from .workloads import kernelfile

    target = args.workload
    given = [f"--{f.replace('_', '-')}" for f in FILE_FLAGS if getattr(args, f) not in (None, [])]
    if target.endswith((".yaml", ".yml")):
        if given:
            raise UsageError(f"ndpgpu run {target}: the YAML file describes the launch; drop {', '.join(given)}")
        return kernelfile.workload_class(kernelfile.load_description(target))
    if target.endswith(".cu"):
        expect = dict(_parse_pair(e, "--expect", "NAME=FILE.npy") for e in args.expect or [])
        return kernelfile.workload_class(kernelfile.describe(
            target, args.kernel, args.grid, args.block, args.arg or [], shared_mem=args.shared_mem or 0,
            options=args.option or [], repeat=args.repeat or 1, seed=args.seed if args.seed is not None else 2026,
            expect=expect))
    if given:
        raise UsageError(f"ndpgpu run {target}: {', '.join(given)} describe a kernel file's launch; a registered "
                         f"workload launches itself (give a .cu file or a launch YAML instead)")
    return target


def _parse_pair(text: str, flag: str, form: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise UsageError(f"{flag} expects {form}, got {text!r}")
    return key.strip(), value.strip()


def _file_outputs(run) -> list[dict]:
    """A kernel file's arrays after the run: name, dtype, shape and a content digest."""
    from .workloads.kernelfile import digest

    return [{"name": k, "dtype": str(v.dtype), "shape": list(v.shape), "digest": digest(v)}
            for k, v in (run.outputs or {}).items()]


def _print_file_outputs(run) -> None:
    outs = _file_outputs(run)
    if not outs:
        return
    if not run.checks:
        print("  no reference given (--expect NAME=FILE.npy): outputs not checked; their digests:")
    for o in outs:
        print(f"  {o['name']}: {o['dtype']}{o['shape']} digest {o['digest']}")


def _cmd_run(args: argparse.Namespace) -> int:
    """``ndpgpu run``: run and check a workload; with ``--machine``, measure it along the one measuring path
    (:func:`ndpgpu.timing.measure.measure`), with ``--policy`` or without (``baseline``)."""
    from .workloads.runner import run_workload

    t0 = time.perf_counter()
    target = _run_target(args)
    if not isinstance(target, str) and args.scale not in (None, "tiny"):
        raise UsageError(f"ndpgpu run {args.workload}: a kernel file has the one size its launch gives; drop "
                         f"--scale {args.scale}")
    scale = args.scale if isinstance(target, str) else "given"
    from .timing.cli import machine_overrides

    overrides = machine_overrides(args.set)
    for flag, given in (("--set", bool(overrides)), ("--policy", bool(args.policy)), ("--no-copies", args.no_copies),
                        ("--all", getattr(args, "all", False)), ("--plot", bool(getattr(args, "plot", None))),
                        ("--pcs", bool(getattr(args, "pcs", None)))):
        if given and not args.machine:
            raise UsageError(f"ndpgpu run: {flag} belongs to timing; name the machine with --machine "
                             "(see `ndpgpu machines`)")
    policy = None
    if args.policy and args.policy != "baseline":
        from .mechanisms.policy import make_policy

        policy = make_policy(args.policy)  # an unknown policy fails before the functional run
    plot_note = None
    if getattr(args, "plot", None):
        from .timeseries import DEFAULT_INTERVAL

        if not args.plot.lower().endswith((".png", ".svg", ".pdf")):
            raise UsageError(f"--plot {args.plot}: name a .png, .svg or .pdf file")
        if "sim.time_series_interval" not in overrides:  # samples are what the plot draws
            overrides["sim.time_series_interval"] = DEFAULT_INTERVAL
            plot_note = f"sampled every {DEFAULT_INTERVAL} core cycles (--set sim.time_series_interval=N to change)"
    session = None
    if args.machine:
        from .timing import TimingSession

        session = TimingSession(args.machine, overrides or None)  # a bad machine or override fails first too
    # recorded as a sweep records it (the default device), whatever the machine: every path times one program
    run = run_workload(target, scale, trace=args.machine is not None, bounds_check=args.bounds_check)
    m = None
    t_timing = time.perf_counter()
    if session is not None:
        from .timing.measure import measure

        m = measure(session, run.device.traces, run.device.copies, policy=policy, recording=_recording_of(run),
                    with_copies=not args.no_copies)
    t_end = time.perf_counter()
    seconds = {"wall_seconds": t_end - t0, "functional_seconds": run.wall_seconds,
               "timing_seconds": t_end - t_timing if m is not None else 0.0}
    if m is not None and getattr(args, "plot", None):
        from .timeseries import NoTimeSeries, plot_time_series

        try:
            written = plot_time_series(m.launch_stats, args.plot)
        except NoTimeSeries as exc:
            raise UsageError(f"--plot: {exc}") from None
        samples = sum(len(st.time_series["cycle"]) for st in m.launch_stats if st.time_series)
        plot_note = (f"  time series of {len(m.launch_stats)} launch(es), {samples} samples, drawn to {written}"
                     + (f"; {plot_note}" if plot_note else ""))
    if args.json:
        print(json.dumps(_run_json(run, args, m, seconds), default=_jsonable))
        if plot_note:
            print(plot_note.strip(), file=sys.stderr)
        return 0 if run.passed else 1
    print(run.summary())
    if not isinstance(target, str):
        _print_file_outputs(run)
    prov = run.provenance
    print(f"  nvcc {prov['nvcc_version']}, {prov['arch']}; source {prov['source_hash']}, inputs {prov['input_hash']}")
    if m is not None:
        print(f"  timed on {args.machine} with policy {args.policy or 'baseline'}: {timing_note(args.no_copies)}")
        if getattr(args, "all", False):
            print(m.totals().table())
            rows = m.policy_rows()
            if rows:
                print(f"[{args.policy}]")
                for path, metric, value, unit in rows:
                    print(f"  {path}.{metric:<28} {value:>14.6g} {unit}")
        else:
            from .clisummary import summary

            print(summary(m, run.device.traces, args.policy))
        if getattr(args, "pcs", None):
            print(_pc_tables(m, run.device, args.pcs))
        print(f"  {seconds['wall_seconds']:.1f} s in all: functional {seconds['functional_seconds']:.1f} s, "
              f"timing {seconds['timing_seconds']:.1f} s")
        if plot_note:
            print(plot_note)
    return 0 if run.passed else 1


def _pc_tables(m, device, rows: int) -> str:
    """Each launch's busiest ``rows`` instructions (issued, stall cycles, misses) with the CUDA line each comes
    from (``k.cu:12``, from nvcc's line info), as ``ndpgpu run --pcs N`` prints them."""
    from .frontend.lineinfo import pc_table_with_source

    maps = getattr(device, "trace_source_maps", [])
    out = []
    for i, st in enumerate(m.launch_stats):
        table = pc_table_with_source(st, maps[i] if i < len(maps) else None).splitlines()
        more = len(table) - 1 - rows
        out.append(f"per-PC, launch {st.launch_id} ({st.kernel}), the {min(rows, len(table) - 1)} busiest "
                   "instructions (issued warp-instructions + stall cycles):")
        out += ["  " + line for line in table[:rows + 1]]
        if more > 0:
            out.append(f"  ... {more} more (--pcs {rows + more} shows them all)")
    return "\n".join(out)


def timing_note(no_copies: bool = False) -> str:
    """What ``ndpgpu run --machine`` timed, in words."""
    if no_copies:
        return ("kernels alone, from cold caches (--no-copies: no host copy is timed or warms the L2, for every "
                "policy alike)")
    return ("kernels and the program's host copies in program order (copies.*, application.time), the same for "
            "every policy; kernel.time and every rate exclude the copies")


RUN_TIMING_NOTE = timing_note(False)


def _recording_of(run):
    """What a session policy reads of a recording, from an in-process run (as a sweep's manifest holds it)."""
    from types import SimpleNamespace

    allocs = [{"addr": a.address, "bytes": a.size, "label": a.label} for a in run.device.memory.allocations]
    return SimpleNamespace(workload=run.name, name=run.name, scale=run.scale, allocations=allocs,
                           copies=list(run.device.copies), module=run.module, provenance=run.provenance)


def _jsonable(v: object) -> object:
    """numpy scalars and arrays in ``--json`` output."""
    if hasattr(v, "tolist"):
        return v.tolist()
    return str(v)


def _run_json(run, args: argparse.Namespace, m, seconds: dict[str, float]) -> dict:
    """``ndpgpu run --json``: the run's checks, functional statistics, provenance, the whole command's time split
    into functional and timing, and (when timed) every row of the measurement: the totals' (``timing``), the
    policy's, and each launch's (``launch_stats``: kernel, grid, block, cycles, rows; ``launches`` stays the number
    of launches)."""
    from .clisummary import launches_json

    rows = m.totals().rows() if m is not None else None
    return {
        "workload": run.name, "scale": run.scale, "passed": run.passed, "launches": run.launches,
        **seconds, "stats": run.stats, "provenance": run.provenance,
        "checks": [{"name": c.name, "passed": c.passed, "max_abs_error": c.max_abs_error,
                    "max_rel_error": c.max_rel_error, "message": c.message} for c in run.checks],
        "machine": args.machine, "policy": args.policy,
        "timing_note": timing_note(args.no_copies) if rows is not None else None,
        "timing": None if rows is None else [{"path": p, "metric": n, "value": v, "unit": u} for p, n, v, u in rows],
        "policy_rows": [] if m is None else [list(r) for r in m.policy_rows()],
        "launch_rows": [] if m is None else [list(r) for r in m.launch_rows()],
        "launch_stats": [] if m is None else launches_json(m, run.device.traces),
        "outputs": _file_outputs(run),
    }


def _cmd_warmup(args: argparse.Namespace) -> int:
    """Compile (or load from numba's cache) both engines now, instead of at their first use."""
    from .warmup import warmup_both

    warmup_both()
    return 0


def _cmd_machines(args: argparse.Namespace) -> int:
    from .timing import cli as timing_cli

    words = list(args.words)
    overrides = timing_cli.machine_overrides(args.set)
    if words[:1] == ["diff"]:
        if len(words) != 3:
            raise UsageError("ndpgpu machines diff: name two machines, e.g. `ndpgpu machines diff gtx480 v100` "
                             "(--set k=v applies to the second)")
        rows = timing_cli.machines_diff(words[1], words[2], overrides)
        if args.json:
            print(json.dumps({"a": words[1], "b": words[2], "overrides_b": overrides,
                              "fields": [{"field": f, "a": x, "b": y} for f, x, y in rows]}, indent=1))
            return 0
        from .clitable import print_table

        print_table(["field", words[1], words[2] + (" (with --set)" if overrides else "")], rows,
                    f"{len(rows)} fields differ")
        return 0
    if words[:1] == ["show"]:
        words = words[1:]
        if not words:
            raise UsageError("ndpgpu machines show: name a preset (see `ndpgpu machines`) or a YAML file")
    if len(words) > 1:
        raise UsageError(f"ndpgpu machines: expected at most one machine, got {words}")
    if overrides and not words:
        raise UsageError("ndpgpu machines: --set changes one machine; name it (`ndpgpu machines show v100 --set ...`)")
    if args.json:
        print(json.dumps(timing_cli.machines_json(words[0] if words else None, overrides), indent=1))
        return 0
    print(timing_cli.machines_show(words[0], overrides) if words else timing_cli.machines_list())
    return 0


def _cmd_main(args: argparse.Namespace) -> int:
    """The README's main job: every reproduction (or one), or with --functional-only a check run."""
    if not args.functional_only:
        from .experiments.cli import main_job  # a reproduction with its report

        return int(main_job(args) or 0)
    from .workloads.base import all_workloads
    from .workloads.runner import run_workload

    names = [n for n, c in all_workloads().items() if c.suite == "builtin"]
    failed = 0
    print(f"ndpgpu {__version__}: running {len(names)} built-in workloads at scale {args.scale!r}")
    for name in names:
        run = run_workload(name, args.scale)
        failed += not run.passed
        mips = run.stats["thread_instructions"] / max(run.stats["functional_seconds"], 1e-9) / 1e6
        print(f"  {'PASS' if run.passed else 'FAIL'} {name:16s} {run.stats['thread_instructions']:>14,.0f} "
              f"thread-instr  {run.wall_seconds:7.2f} s  {mips:8.1f} M thread-instr/s")
        for c in run.checks:
            if not c.passed:
                print(f"       {c.message}")
    print(f"{len(names) - failed} passed, {failed} failed")
    return 1 if failed else 0


def _command_word(argv: list[str] | None) -> str | None:
    """The subcommand a command line names (its first word that is not an option), or None."""
    words = [w for w in (sys.argv[1:] if argv is None else argv) if not w.startswith("-")]
    return words[0] if words else None


def build_parser(argv: list[str] | None = None, *, complete: bool = True) -> argparse.ArgumentParser:
    """The ``ndpgpu`` parser with every subcommand (those of :data:`SUBCOMMAND_MODULES` included). With
    ``complete`` False, subcommands other than the one ``argv`` names may be built lightly (name and help only),
    so that ``ndpgpu --help`` or ``ndpgpu machines`` import no engine or mechanism."""
    parser = argparse.ArgumentParser(prog="ndpgpu", description="Near-data GPU simulation toolkit")
    parser.add_argument("--version", action="version", version=f"ndpgpu {__version__}")
    subcommands = Subcommands(parser.add_subparsers(dest="command"),
                              command=None if complete else _command_word(argv) or "")
    sub = subcommands.owned_by(__name__)

    p = sub.add_parser("workloads", help="list (or characterize) the registered workloads")
    p.add_argument("action", nargs="?", choices=["list", "characterize"], default="list")
    p.add_argument("names", nargs="*", help="workloads to characterize (default: all)")
    p.add_argument("--suite", help="only this suite")
    p.add_argument("--scale", default="small", help="scale for characterize")
    p.add_argument("--machine", help="add timing columns from this machine (characterize)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--out", help="write the characterization table (Markdown) here")
    p.add_argument("--format", choices=["table", "markdown", "json"], default="table", help="characterize output")
    p.add_argument("--write-docs", metavar="MD", help="regenerate the marked characterization block of this file")
    p.add_argument("--paper-times", action="store_true", help="also time each workload at paper scale (functional)")
    p.add_argument("--time-limit", type=float, default=600.0, help="per-workload limit of --paper-times (s)")
    p.add_argument("--no-characterize", action="store_true", help="skip the characterization pass")
    p.add_argument("--copies", action="store_true", help="(the default) replay the program's host copies in program "
                   "order, as `ndpgpu run` and sweeps do")
    p.add_argument("--no-copies", action="store_true", help="characterize --machine: time the kernels alone, from "
                   "cold caches (no host copies)")
    p.add_argument("--jobs", type=positive_int, default=1, help="characterize in this many child processes")
    p.add_argument("--timeout", type=float, help="per-workload limit of characterize (runs in a child process)")
    p.set_defaults(func=_cmd_workloads)

    p = sub.add_parser("run", help="run one workload, or a kernel of your own .cu file, and check it",
                       description="Run a registered workload (checked against its reference), or one kernel of a "
                       "CUDA file: `ndpgpu run k.cu --kernel saxpy --grid 64 --block 256 --arg 16384 --arg 2.0 "
                       "--arg 'x=f32[16384] rand' --arg 'y=f32[16384] rand'`, or the same launch described in a "
                       "YAML file (`ndpgpu run launch.yaml`; see docs/workloads.md).")
    p.add_argument("workload", help="a workload name (`ndpgpu workloads`), a .cu file, or a launch .yaml")
    p.add_argument("--scale", default="tiny", help="tiny | small | paper, or one with some of its parameters "
                   "set: paper:m=384,n=384,k=384 (default tiny)")
    p.add_argument("--machine", help="time it on this machine preset (see `ndpgpu machines`)")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="machine override, e.g. l2.size_kb=1536")
    p.add_argument("--policy", help="time with a mechanism's session policy, e.g. tom:ctrl+tmap (needs --machine)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout: checks, statistics, timing "
                   "(every row of the totals, and under `launch_stats` every row of each launch)")
    p.add_argument("--all", action="store_true", help="with --machine: print every statistic (the full table) "
                   "instead of the one-screen summary")
    p.add_argument("--plot", metavar="FILE", help="with --machine: draw IPC, DRAM bandwidth and occupancy over "
                   "time to FILE (.png, .svg or .pdf), sampled every sim.time_series_interval core cycles (100 "
                   "unless --set)")
    p.add_argument("--bounds-check", action="store_true", help="report accesses outside allocations")
    p.add_argument("--pcs", type=positive_int, default=None, metavar="N",
                   help="with --machine: each launch's N busiest instructions (issued, stall cycles, L1/L2 misses) "
                   "with the CUDA source line each comes from")
    p.add_argument("--no-copies", action="store_true", help="time the kernels alone, from cold caches (no host copy "
                   "timed or left in the L2; the same for any policy)")
    g = p.add_argument_group("a kernel of a .cu file")
    g.add_argument("--kernel", help="the kernel to launch (its C++ name, or the mangled one)")
    g.add_argument("--grid", help="grid dimensions, e.g. 64 or 16,16")
    g.add_argument("--block", help="block dimensions, e.g. 256 or 16,16")
    g.add_argument("--arg", action="append", metavar="[NAME=]VALUE",
                   help="one kernel argument, in order: a number (scalar) or DTYPE[DIMS] [INIT] (an array: "
                        "INIT zeros|ones|range|rand|randint:LO:HI|fill:V|npy:PATH)")
    g.add_argument("--shared-mem", type=int, help="dynamic shared memory per block (bytes)")
    g.add_argument("--option", action="append", metavar="OPT",
                   help="an nvcc option, e.g. --option=-DTILE=16 or --option=-arch=sm_80 (default sm_75)")
    g.add_argument("--repeat", type=positive_int, help="launch the kernel this many times (default 1)")
    g.add_argument("--expect", action="append", metavar="NAME=FILE.npy", help="check array NAME against a reference")
    g.add_argument("--seed", type=int, help="seed of the rand/randint contents (default 2026)")
    p.set_defaults(func=_cmd_run)

    p = sub.add_parser("main", help="the main job: every paper's reproduction (or one study, or functional checks)")
    p.add_argument("--study", default="all", help="the reproduction to run (all: every one, in one store; or one "
                   "name: tom, llc, teleport, mpu, ipndp, builtin, ...)")
    p.add_argument("--scale", default="small")
    p.add_argument("--out", default="out/main", help="report directory: each study's report goes under OUT/STUDY/ "
                   "(out/main/tom/), with all's index.html in OUT")
    p.add_argument("--jobs", type=positive_int, default=2)
    p.add_argument("--functional-only", action="store_true", help="only run and check the workloads")
    p.set_defaults(func=_cmd_main)

    p = sub.add_parser("warmup", help="compile the functional and timing engines now (first use takes minutes; "
                       "cached afterwards)")
    p.set_defaults(func=_cmd_warmup)

    p = sub.add_parser("machines", help="list machine presets; `machines show NAME` prints one with its sources")
    p.add_argument("words", nargs="*", metavar="show NAME | diff A B",
                   help="`show NAME` (or just NAME, or a YAML path); `diff A B`: the resolved fields that differ")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="override a field of the machine shown "
                   "(of B with diff), e.g. l2.size_kb=1024")
    p.add_argument("--json", action="store_true", help="machine-readable output (a machine: every field resolved)")
    p.set_defaults(func=_cmd_machines)

    for name in SUBCOMMAND_MODULES:
        module = importlib.import_module(name)  # an import error propagates: no subcommand silently hides
        module.add_subcommands(subcommands.owned_by(module))
    return parser


def main(argv: list[str] | None = None) -> int:
    args_given = sys.argv[1:] if argv is None else argv
    if list(args_given) == ["--version"]:  # answered before the subcommands' modules are imported
        print(f"ndpgpu {__version__}")
        return 0
    try:
        parser = build_parser(argv, complete=False)
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 0
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except UsageError as exc:
        print(f"ndpgpu: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # `ndpgpu ... | head`: the reader left; say nothing more
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:  # a clear one-line error for the shell; tracebacks with NDPGPU_DEBUG=1
        import os

        if os.environ.get("NDPGPU_DEBUG"):
            raise
        print(f"ndpgpu: error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
