"""Golden statistics of the timing engine: a fixed matrix of workloads x machines x policies.

The golden file (``golden/stats.json.gz``) was written at a named commit (recorded in the file): first before
the engine was split into components, last when ``__syncwarp`` became warp-local; ``test_golden.py``
recomputes every case and compares, row by row and raw table by raw table. Regenerate only for a
deliberate, stated change of behaviour::

    python tests/timing/golden.py --write          # all cases
    python tests/timing/golden.py --write --only mpu_   # only the cases whose key holds "mpu_" (others kept)
    python tests/timing/golden.py --check [--only S]    # compare, print the differing rows

Rows that describe the configuration rather than its behaviour (``launch.config_hash``) are left out: a
spec tree reorganised without changing a value changes the hash.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

GOLDEN = Path(__file__).with_name("golden") / "stats.json.gz"
PRESETS = ("gtx480", "v100", "llc-mesh", "tom-baseline", "tom-ndp", "ipndp-base8")
BASIC = (("vecadd", "small"), ("sgemm_naive", "small"), ("bfs", "small"))
TOM_WORKLOADS = (("scalarprod", "small"), ("reduction", "small"), ("bfs_rodinia", "small"))
TOM_POLICIES = ("tom:ctrl+tmap", "tom:always+bmap", "tom:ideal+oracle")
# MPU's processor (core.model: mpu): its own core tick around the engine's warp schedulers
MPU_WORKLOADS = (("mpu_axpy", "small"), ("mpu_gemv", "small"), ("mpu_blur", "small"), ("mpu_hist", "small"))
MPU_POLICIES = ("mpu:annotation", "mpu:hardware+far-smem", "mpu:ponb")
IGNORED_ROWS = {("launch", "config_hash")}
# rows that number the PTX text rather than describe behaviour: nvcc's -lineinfo (on by default since
# 2026-12-01) adds .loc lines, which shifts every instruction's PTX line
IGNORED_METRICS = {"ptx_line"}
RAW_TABLES = ("per_sm", "per_slice", "per_channel", "per_class", "per_prio", "net_ports", "packet_kinds",
              "per_pc", "per_bank")


def cases() -> list[tuple[str, str, str, str | None]]:
    """``(workload, scale, machine, policy)``: every basic and TOM workload on every preset, then TOM's
    three policies on tom-ndp, then MPU's workloads on the mpu machine under three of its policies."""
    out: list[tuple[str, str, str, str | None]] = []
    for wl, scale in BASIC + TOM_WORKLOADS:
        out += [(wl, scale, m, None) for m in PRESETS]
    for wl, scale in TOM_WORKLOADS:
        out += [(wl, scale, "tom-ndp", p) for p in TOM_POLICIES]
    for wl, scale in MPU_WORKLOADS:
        out += [(wl, scale, "mpu", p) for p in MPU_POLICIES]
    return out


def case_key(case: tuple[str, str, str, str | None]) -> str:
    wl, scale, machine, policy = case
    return f"{wl}@{scale} on {machine}" + (f" with {policy}" if policy else "")


def _digest(a: Any) -> str:
    if a is None:
        return "none"
    arr = np.ascontiguousarray(np.asarray(a, dtype=np.int64))
    return hashlib.sha256(repr(arr.shape).encode() + arr.tobytes()).hexdigest()[:32]


def _launch_record(st: Any) -> dict[str, Any]:
    rows = [[p, m, v if not isinstance(v, np.generic) else v.item(), u] for p, m, v, u in st.rows()
            if (p, m) not in IGNORED_ROWS and m not in IGNORED_METRICS]
    raw = {name: _digest(getattr(st, name)) for name in RAW_TABLES}
    raw["counters"] = _counters(st)
    if st.mesh is not None:
        raw["mesh"] = hashlib.sha256(json.dumps(st.mesh, sort_keys=True, default=_jsonable).encode()).hexdigest()[:32]
    return {"rows": json.loads(json.dumps(rows, default=_jsonable)), "raw": raw}


def _counters(st: Any) -> dict[str, int]:
    """Every raw counter by name: the engine's and, where the statistics have them, a mechanism's."""
    if hasattr(st, "counters"):
        return {k: int(v) for k, v in st.counters().items()}
    from ndpgpu.timing import _engine as E

    return {name: int(st.ctr[i]) for i, name in enumerate(E.CTR_NAMES)}


def _jsonable(v: Any) -> Any:
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, np.generic):
        return v.item()
    raise TypeError(type(v))


def functional(workload: str, scale: str) -> tuple[list[Any], list[dict[str, int]]]:
    """The workload's launches at ``scale``, run functionally with traces: (traces, allocations)."""
    import ndpgpu
    from ndpgpu.workloads.base import RunContext, get_workload
    from ndpgpu.workloads.runner import _module_for

    cls = get_workload(workload)
    params = cls.params(scale)
    wl = cls()
    inputs = wl.inputs(params, np.random.default_rng(cls.seed))
    with ndpgpu.Device(trace=True) as dev:
        wl.launch(RunContext(_module_for(cls), dev, "golden", params), inputs, params)
    allocs = [{"addr": a.address, "bytes": a.size} for a in dev.memory.allocations]
    return list(dev.traces), allocs


def compute(case: tuple[str, str, str, str | None], recording: tuple[list[Any], list[dict[str, int]]]) -> dict:
    """Time one case from its workload's recording: per-launch records and the session's policy rows."""
    from ndpgpu.mechanisms.policy import make_policy
    from ndpgpu.timing import TimingSession

    wl, _scale, machine, policy = case
    traces, allocs = recording
    session = TimingSession(machine)
    extra: list[Any] = []
    if policy is not None:
        pol = make_policy(policy)
        pol.prepare(session, SimpleNamespace(workload=wl, allocations=allocs), traces)
    launches = [_launch_record(session.run_launch(t)) for t in traces]
    if policy is not None:
        extra = json.loads(json.dumps(pol.rows(), default=_jsonable))
    return {"launches": launches, "policy_rows": extra}


def compute_all(only: set[str] | None = None) -> dict[str, dict]:
    out: dict[str, dict] = {}
    recordings: dict[tuple[str, str], Any] = {}
    for case in cases():
        key = case_key(case)
        if only is not None and key not in only:
            continue
        rk = (case[0], case[1])
        if rk not in recordings:
            recordings = {rk: functional(*rk)}  # one recording in memory at a time
        out[key] = compute(case, recordings[rk])
    return out


def load() -> dict[str, Any]:
    with gzip.open(GOLDEN, "rt") as f:
        return json.load(f)


# Before the split, the engine reported TOM's block-offload counters and rows as zeros on every machine with
# stack SMs; now a mechanism's counters and rows appear when it is attached. Those may vanish, if zero.
VANISHING_COUNTERS = "BO_"
VANISHING_PATHS = "offload.blocks"


def _missing(expected: Any, vanishing: bool) -> bool:
    """Is an expected value that the new statistics lack allowed to be missing?"""
    return vanishing and expected == 0


def _added(expected: Any, got: Any) -> bool:
    """A statistic added since the golden file was written may appear, as long as it is zero."""
    return expected == "<absent>" and got == 0


def diff(expected: dict, got: dict) -> list[str]:
    """Human-readable differences between two case records (empty when identical)."""
    out: list[str] = []
    if len(expected["launches"]) != len(got["launches"]):
        return [f"{len(got['launches'])} launches, expected {len(expected['launches'])}"]
    absent = "<absent>"
    for i, (e, g) in enumerate(zip(expected["launches"], got["launches"], strict=True)):
        erows = {(r[0], r[1]): r[2] for r in e["rows"]}
        grows = {(r[0], r[1]): r[2] for r in g["rows"]}
        for k in sorted(set(erows) | set(grows)):
            if k[1] in IGNORED_METRICS:
                continue
            ev, gv = erows.get(k, absent), grows.get(k, absent)
            vanished = gv == absent and _missing(ev, k[0].startswith(VANISHING_PATHS))
            if ev != gv and not vanished and not _added(ev, gv):
                out.append(f"launch {i} {k[0]}.{k[1]}: {gv!r}, expected {ev!r}")
        ec, gc = e["raw"].get("counters", {}), g["raw"].get("counters", {})
        for k in sorted(set(ec) | set(gc)):
            ev, gv = ec.get(k, absent), gc.get(k, absent)
            vanished = gv == absent and _missing(ev, k.startswith(VANISHING_COUNTERS))
            if ev != gv and not vanished and not _added(ev, gv):
                out.append(f"launch {i} counter {k}: {gv!r}, expected {ev!r}")
        for name in sorted((set(e["raw"]) | set(g["raw"])) - {"counters"}):
            if e["raw"].get(name) != g["raw"].get(name):
                out.append(f"launch {i} raw table {name} differs")
    if expected["policy_rows"] != got["policy_rows"]:
        out.append(f"policy rows {got['policy_rows']!r}, expected {expected['policy_rows']!r}")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="recompute every case and write the golden file")
    ap.add_argument("--check", action="store_true", help="recompute and list differences")
    ap.add_argument("--only", metavar="S", help="only the cases whose key contains S (--write keeps the others)")
    args = ap.parse_args()
    only = None if args.only is None else {case_key(c) for c in cases() if args.only in case_key(c)}
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
    if args.write:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                                cwd=Path(__file__).parent).stdout.strip()
        if only is None:
            data = {"commit": commit, "cases": compute_all()}
        else:  # the other cases stay as written; the commit of each partial write is kept beside
            data = load()
            data["cases"].update(compute_all(only))
            data.setdefault("partial", {})[args.only] = commit
        GOLDEN.parent.mkdir(exist_ok=True)
        with gzip.open(GOLDEN, "wt") as f:
            json.dump(data, f, sort_keys=True)
        print(f"wrote {len(only) if only is not None else len(data['cases'])} cases at {commit} to {GOLDEN}")
    elif args.check:
        golden = load()["cases"]
        bad = 0
        for key, got in compute_all(only).items():
            d = diff(golden[key], got)
            bad += bool(d)
            print(("DIFF " if d else "same ") + key)
            for line in d[:20]:
                print("    " + line)
        sys.exit(1 if bad else 0)
    else:
        ap.print_help()


if __name__ == "__main__":
    main()
