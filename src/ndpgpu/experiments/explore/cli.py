"""``ndpgpu explore TARGET``: the command line of :func:`ndpgpu.experiments.explore.explore`."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ...cliargs import UsageError, nonnegative_int


def add_subcommands(subparsers: Any) -> None:
    """Register ``explore``."""
    p = subparsers.add_parser(
        "explore", help="one kernel under every near-data mechanism, side by side, with the reason for each",
        description="Run a kernel once functionally, time it on each mechanism's machine with and without the "
        "mechanism (and every machine's baseline against a reference GPU), and report speedup, energy and why "
        "(docs/explore.md). Resumable: points are kept in the result store.")
    p.add_argument("target", help="a workload name (`ndpgpu workloads`), a launch .yaml, or a .cu file with "
                   "--kernel/--grid/--block/--arg")
    p.add_argument("--scale", default="small", help="the workload's scale (default small; a kernel file has one)")
    p.add_argument("--mechanisms", help="comma-separated: tom, llc (both LLC rows), omni, teleport, mpu, ipndp "
                   "(default: all)")
    p.add_argument("--machine", action="append", metavar="MECHANISM=PRESET",
                   help="time a mechanism on another preset, e.g. teleport=gtx480-gpgpusim (repeatable)")
    p.add_argument("--compose", action="store_true", help="also time one composition per compatible pair of "
                   "mechanisms (TELEPORT + LLC-Compute, TELEPORT + IP-NDP), labelled beyond the papers")
    p.add_argument("--reference", default=None, help="the reference GPU (default gtx480)")
    p.add_argument("--set", action="append", metavar="KEY=VALUE", help="an override applied to every machine")
    p.add_argument("--out", type=Path, help="report directory (default reports/explore-<target>)")
    p.add_argument("--json", action="store_true", help="print report.json's document on stdout instead")
    p.add_argument("--jobs", type=nonnegative_int, default=2, help="local worker processes (0: in this process)")
    p.add_argument("--scheduler", help="a Dask scheduler address (instead of local workers)")
    p.add_argument("--store", type=Path, help="result database (default as for sweep)")
    p.add_argument("--traces", type=Path, help="where the recording is kept (default traces/ beside the store)")
    g = p.add_argument_group("a kernel of a .cu file (as `ndpgpu run`)")
    g.add_argument("--kernel")
    g.add_argument("--grid")
    g.add_argument("--block")
    g.add_argument("--arg", action="append", metavar="[NAME=]VALUE")
    g.add_argument("--shared-mem", type=int)
    g.add_argument("--option", action="append", metavar="OPT")
    p.set_defaults(func=explore_main)


def _pairs(items: list[str] | None, flag: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for text in items or []:
        key, sep, value = text.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"{flag} expects KEY=VALUE, got {text!r}")
        try:
            out[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            out[key.strip()] = value.strip()
    return out


def explore_main(args: argparse.Namespace) -> int:
    from .defaults import REFERENCE, ExploreError
    from .run import explore

    launch = {"kernel": args.kernel, "grid": args.grid, "block": args.block, "args": args.arg,
              "shared_mem": args.shared_mem, "options": args.option}
    if not args.target.endswith(".cu") and any(v for v in launch.values()):
        raise UsageError(f"ndpgpu explore {args.target}: --kernel/--grid/--block/--arg describe a .cu file's launch")
    mechanisms = [m.strip() for m in args.mechanisms.split(",") if m.strip()] if args.mechanisms else None
    try:
        e = explore(args.target, scale=args.scale, mechanisms=mechanisms,
                    machines={k: str(v) for k, v in _pairs(args.machine, "--machine").items()},
                    overrides=_pairs(args.set, "--set"), reference=args.reference or REFERENCE,
                    launch=launch if args.target.endswith(".cu") else None, jobs=args.jobs, store=args.store,
                    traces=args.traces, scheduler=args.scheduler, compose=args.compose)
    except ExploreError as exc:
        raise UsageError(str(exc)) from None
    out = args.out or Path("reports") / e.plan.target.workload.replace(":", "_").join(("explore-", ""))
    paths = e.write(out)
    if args.json:
        print(json.dumps(e.to_json(), indent=1, default=str))
        return 0
    print(e.summary())
    print(f"report: {paths['markdown']}, {paths['html'].name}, {paths['json'].name} (chart in figures/)")
    return 0
