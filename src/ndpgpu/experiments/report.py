"""Reproductions and their reports.

A reproduction is a :class:`Reproduction` subclass in ``ndpgpu.experiments.papers.<name>``, registered with
:func:`register_reproduction`. It declares its points (:meth:`Reproduction.spec`), the paper's numbers
(``paper_numbers``), and turns a :class:`~ndpgpu.experiments.results.ResultSet` into tables, bar charts and
checks. :func:`reproduce` runs its sweep and writes ``report.md``, ``report.json`` (validated against
``report.schema.json``) and ``figures/*.png``.

A check compares one of our numbers with the paper's. A check marked ``calibrated`` (a parameter was fitted to
it) is shown but not counted as evidence, and neither is an ``arithmetic`` check (it restates the paper's
constants or a static analysis: it measures no simulation), nor an ``unreproducible`` one (the paper's result
needs what a sound model cannot do, e.g. a preload whose range needs an indirect index: it says so and why);
the summary counts them apart. Each check carries its :class:`CheckRule`, fixed from the paper's wording before
any rerun: what kind of check it is (``measured``, ``arithmetic`` or ``unreproducible``), how its number is
averaged, the sentence or figure of the paper it comes from, and why its band is as wide as it is.
"""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from typing import Any, ClassVar, Literal

from ..registry import Registry, import_submodules
from .baselines import FLAVOURS, LABELS, BaselineTiming, TimingError, timed
from .plots import BarChart, draw_bar_chart
from .points import SweepSpec
from .provenance import code_version
from .results import ResultSet, Table, format_value
from .runner import run_sweep
from .store import ResultStore

REPORT_SCHEMA_VERSION = 1
SCHEMA_PATH = Path(__file__).with_name("report.schema.json")


class ReproductionError(LookupError):
    """An unknown reproduction, or one asked for a scale it does not support."""


CHECK_KINDS = ("measured", "arithmetic", "unreproducible")


@dataclasses.dataclass(frozen=True)
class CheckRule:
    """How a check is defined, from the paper's text, fixed before the runs it judges.

    ``kind``: ``measured`` (the value comes out of simulation), ``arithmetic`` (it restates constants, a
    static analysis or bookkeeping: hardware cost, buffer geometry, every point ran) or ``unreproducible`` (the
    paper's result needs what a sound model cannot do; the check shows why, and is not a model failure);
    ``averaging``: how the
    number is formed (``"geometric mean over 10 workloads"``, ``"arithmetic mean"``, ``"per-kernel mean"``,
    ``"pooled over every register"``, ``"suite-level ratio"``, ``"one value"``); ``source``: the paper's
    sentence, table or figure it comes from; ``band``: why the pass band is as wide as it is.
    """

    kind: Literal["measured", "arithmetic", "unreproducible"]
    averaging: str
    source: str
    band: str

    def __post_init__(self) -> None:
        if self.kind not in CHECK_KINDS:
            raise ValueError(f"CheckRule.kind must be one of {CHECK_KINDS}, not {self.kind!r}")
        for field in ("averaging", "source", "band"):
            if not str(getattr(self, field)).strip():
                raise ValueError(f"CheckRule.{field} is empty: say it from the paper's text")


@dataclasses.dataclass
class Check:
    """One claim of the paper held against our number (``rule``: its definition, :class:`CheckRule`)."""

    name: str
    paper: float | str | None
    ours: float | str | None
    passed: bool
    calibrated: bool = False
    unit: str = ""
    criterion: str = ""  # how ``passed`` was decided, e.g. "within 20%"
    why: str = ""  # for a failing check: what the run's statistics show (the reproduction's, may be empty)
    rule: CheckRule | None = None

    def ruled(self, rule: CheckRule) -> Check:
        """This check with its definition attached."""
        return dataclasses.replace(self, rule=rule)

    @property
    def kind(self) -> str:
        return self.rule.kind if self.rule else ""

    @property
    def averaging(self) -> str:
        return self.rule.averaging if self.rule else ""

    @property
    def source(self) -> str:
        return self.rule.source if self.rule else ""

    @property
    def band_source(self) -> str:
        return self.rule.band if self.rule else ""

    @classmethod
    def close(
        cls,
        name: str,
        paper: float,
        ours: float | None,
        rtol: float,
        unit: str = "",
        calibrated: bool = False,
    ) -> Check:
        """Passes when ``|ours - paper| <= rtol * |paper|``."""
        passed = ours is not None and math.isfinite(ours) and abs(ours - paper) <= rtol * abs(paper)
        return cls(name, paper, ours, passed, calibrated, unit, f"within {rtol:.0%} of the paper")

    @classmethod
    def above(
        cls,
        name: str,
        ours: float | None,
        bound: float,
        paper: float | str | None = None,
        unit: str = "",
        calibrated: bool = False,
    ) -> Check:
        """Passes when ``ours > bound``."""
        passed = ours is not None and math.isfinite(ours) and ours > bound
        return cls(
            name,
            paper if paper is not None else f"> {bound:g}",
            ours,
            passed,
            calibrated,
            unit,
            f"> {bound:g}",
        )

    @classmethod
    def below(
        cls,
        name: str,
        ours: float | None,
        bound: float,
        paper: float | str | None = None,
        unit: str = "",
        calibrated: bool = False,
    ) -> Check:
        """Passes when ``ours < bound``."""
        passed = ours is not None and math.isfinite(ours) and ours < bound
        return cls(
            name,
            paper if paper is not None else f"< {bound:g}",
            ours,
            passed,
            calibrated,
            unit,
            f"< {bound:g}",
        )

    @property
    def verdict(self) -> str:
        return ("PASS" if self.passed else "FAIL") + (" (calibrated)" if self.calibrated else "")


class Reproduction:
    """Base class of a paper reproduction (or a study, or a generated document)."""

    name: ClassVar[str]
    title: ClassVar[str]
    paper: ClassVar[str] = ""  # the citation
    default_scale: ClassVar[str] = "small"
    paper_numbers: ClassVar[dict[str, Any]] = {}
    key_metrics: ClassVar[tuple[str, ...]] = ()  # metrics per point in report.json (empty: all)
    differences: ClassVar[str] = ""  # markdown: why and where ours differs from the paper
    # machine overrides every `paper`-scale point carries: the paper's instruction window, for a paper that runs
    # each application "to completion or N instructions" (e.g. {"sim.max_warp_instructions": N // 32})
    paper_window: ClassVar[dict[str, Any]] = {}
    # the simulator timing the paper's baseline ran on, declared from its text before any run on it
    # (experiments/baselines.py); None: the reproduction's machines are timed as their presets say
    baseline_timing: ClassVar[BaselineTiming | None] = None

    def spec(self, scale: str) -> SweepSpec:
        """The points to run at ``scale``."""
        raise NotImplementedError

    def window(self, scale: str) -> dict[str, Any]:
        """The overrides the points of ``scale`` carry besides their configuration's (:attr:`paper_window`)."""
        return dict(self.paper_window) if scale == "paper" else {}

    def window_of(self, results: ResultSet) -> dict[str, Any]:
        """The window ``results``' points ran with, to look them up by their configuration's overrides."""
        scales = {r.point.scale for r in results.results}
        return self.window("paper") if "paper" in scales else {}

    def tables(self, results: ResultSet) -> list[Table]:
        return []

    def figures(self, results: ResultSet) -> list[BarChart]:
        return []

    def checks(self, results: ResultSet) -> list[Check]:
        return []


REPRODUCTIONS: Registry[type[Reproduction]] = Registry(
    "reproduction", error=ReproductionError, load=lambda: import_submodules("ndpgpu.experiments.papers"))
"""Every reproduction by name; the first read imports every module of :mod:`ndpgpu.experiments.papers`."""


def register_reproduction(cls: type[Reproduction]) -> type[Reproduction]:
    """Class decorator: make a reproduction available to :func:`reproduce` and ``ndpgpu reproduce``."""
    for attr in ("name", "title"):
        if not getattr(cls, attr, None):
            raise ReproductionError(f"reproduction class {cls.__qualname__} must set {attr!r}")
    return REPRODUCTIONS.register(cls.name, cls)


def all_reproductions() -> dict[str, type[Reproduction]]:
    """Every registered reproduction by name."""
    return dict(REPRODUCTIONS.items())


def get_reproduction(name: str) -> type[Reproduction]:
    """The reproduction called ``name``; an unknown name lists the known ones."""
    return REPRODUCTIONS.get(name)


# -- the report --------------------------------------------------------------------------------------------
@dataclasses.dataclass
class Report:
    """A finished reproduction: where its files are, and what it found."""

    name: str
    out_dir: Path
    data: dict[str, Any]
    tables: list[Table]
    checks: list[Check]

    @property
    def markdown_path(self) -> Path:
        return self.out_dir / "report.md"

    @property
    def json_path(self) -> Path:
        return self.out_dir / "report.json"

    def _repr_html_(self) -> str:
        """Notebook display: the summary line, every check, then the tables."""
        import html as _html

        from ..frames import html_table

        s = self.data["summary"]
        head = (f"<h3>{_html.escape(self.name)}</h3><p>{s['evidence_passed']} of {s['evidence']} checks pass; "
                f"{s['points_failed']} failed points; {_html.escape(str(self.markdown_path))}</p>")
        checks = html_table(("check", "paper", "ours", "verdict"),
                            [(c.name, c.paper, c.ours, c.verdict) for c in self.checks], "checks")
        return head + checks + "".join(t._repr_html_() for t in self.tables)

    @property
    def passed(self) -> bool:
        """Every evidence check passed and every point ran."""
        s = self.data["summary"]
        return s["evidence_passed"] == s["evidence"] and s["points_failed"] == 0 and not s.get("points_not_run")


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def load_schema() -> dict[str, Any]:
    """The JSON schema every ``report.json`` follows."""
    return json.loads(SCHEMA_PATH.read_text())


def validate_report(data: dict[str, Any]) -> None:
    """Raise ``jsonschema.ValidationError`` when ``data`` does not follow the report schema."""
    import jsonschema

    jsonschema.validate(data, load_schema())


def _report_data(
    repro: Reproduction,
    scale: str,
    spec: SweepSpec,
    results: ResultSet,
    tables: list[Table],
    checks: list[Check],
    figures: list[tuple[BarChart, str]],
) -> dict[str, Any]:
    points = []
    for r in results.results:
        wanted = repro.key_metrics or tuple(r.metrics)
        metrics = {}
        for m in wanted:
            name = m if m in r.metrics else next((n for n in r.metrics if n.rsplit(".", 1)[-1] == m), None)
            if name is not None:
                value, unit = r.metrics[name]
                metrics[name] = {"value": value, "unit": unit}
        p = r.ran or r.point
        points.append(
            {
                "label": p.label,
                "key": r.key,
                "workload": p.workload,
                "scale": p.scale,
                "machine": p.machine,
                "policy": p.policy,
                "overrides": dict(p.overrides),
                "config_hash": r.config_hash,
                "status": r.status,
                "error": r.error if r.status != "ok" else None,
                "metrics": metrics,
            }
        )
    evidence = [c for c in checks if not c.calibrated and c.kind not in ("arithmetic", "unreproducible")]
    arithmetic = [c for c in checks if not c.calibrated and c.kind == "arithmetic"]
    unreproducible = [c for c in checks if not c.calibrated and c.kind == "unreproducible"]
    data = {
        "schema_version": REPORT_SCHEMA_VERSION,
        "reproduction": repro.name,
        "title": repro.title,
        "paper": repro.paper,
        "scale": scale,
        "experiment": spec.name,
        "executor": spec.executor,
        "code_version": code_version(),
        "summary": {
            "points": len(points),
            "points_ok": sum(p["status"] == "ok" for p in points),
            "points_failed": sum(p["status"] == "failed" for p in points),
            "points_not_run": sum(p["status"] == "missing" for p in points),
            "partial": any(p["status"] == "missing" for p in points),
            "checks": len(checks),
            "evidence": len(evidence),
            "evidence_passed": sum(c.passed for c in evidence),
            "calibrated": sum(c.calibrated for c in checks),
            "arithmetic": len(arithmetic),
            "arithmetic_passed": sum(c.passed for c in arithmetic),
            **({"unreproducible": len(unreproducible)} if unreproducible else {}),
        },
        "checks": [_check_json(c) for c in checks],
        "points": points,
        "tables": [t.to_json() for t in tables],
        "figures": [{"name": f.name, "title": f.title, "file": file} for f, file in figures],
        "paper_numbers": repro.paper_numbers,
        "differences": repro.differences.strip(),
    }
    return _finite(json.loads(json.dumps(data, default=str)))


def _timing_lines(timing: dict[str, Any] | None) -> list[str]:
    """The summary's lines on the simulator timing the report's points ran on."""
    if not timing:
        return []
    own = f"- Baseline timing: **{timing['label']}**"
    if timing["flavour"] == timing["declared"]:
        own += f", declared before the run: {timing['why']}"
    else:
        own += (f", a labelled second column; the checks that count are on the declared "
                f"{timing['declared_label']} ({timing['why']})")
    return [own, f"  (the paper: \"{timing['paper_says']}\"; the rule: {timing['rule']})"]


def timing_columns(repro: Reproduction, declared: ResultSet, columns: dict[str, ResultSet]) -> Table | None:
    """The checks on every timing that has results: the declared one, then each labelled column (``None`` when
    no column has a finished point)."""
    have = {f: rs for f, rs in columns.items() if any(r.status == "ok" for r in rs.results)}
    if not have:
        return None
    per = {f: {c.name: c for c in repro.checks(rs)} for f, rs in have.items()}
    rows = []
    for c in repro.checks(declared):
        cells: list[Any] = [c.name, c.paper, c.ours, c.verdict]
        for f in have:
            other = per[f].get(c.name)
            cells += [other.ours if other else None, other.verdict if other else ""]
        rows.append(cells)
    columns_out = ["check", "paper", "declared timing", "verdict"]
    for f in have:
        columns_out += [LABELS[f], "verdict"]
    note = ("Second columns are separate runs (`ndpgpu reproduce NAME --timing FLAVOUR`); only the declared "
            "timing's checks are counted.")
    return Table("checks_by_timing", "Checks on other timings", columns_out, rows, note=note)


def _check_json(c: Check) -> dict[str, Any]:
    """A check in report.json: its fields, with its rule's (kind, averaging, source, band) beside them."""
    out = {k: v for k, v in dataclasses.asdict(c).items() if k != "rule"}
    if c.rule is not None:
        out.update(kind=c.rule.kind, averaging=c.rule.averaging, source=c.rule.source, band=c.rule.band)
    return out


def machines_note(machines: list[str]) -> str:
    """The machines a report used, and the simulator timing each carries: GPGPU-Sim 4.0's (overlay
    ``gpgpusim``), 3.x's (``gpgpusim3``) or our hardware-faithful presets' (docs/timing.md)."""
    if not machines:
        return "none"
    named = ", ".join(f"`{m}`" for m in machines)
    by_flavour: dict[str, list[str]] = {}
    for m in machines:
        head, *overlays = m.split("+")
        flavour = next((o for o in overlays if o in ("gpgpusim", "gpgpusim3")), None)
        if flavour is None and head.endswith(("-gpgpusim", "-gpgpusim3")):
            flavour = head.rsplit("-", 1)[1]
        by_flavour.setdefault(flavour or "preset", []).append(m)
    if set(by_flavour) == {"preset"}:
        return f"{named} (hardware-faithful presets; no GPGPU-Sim timing overlay)"
    words = {"gpgpusim": "GPGPU-Sim 4.0's timing (overlay `gpgpusim`)",
             "gpgpusim3": "GPGPU-Sim 3.x's timing (overlay `gpgpusim3`)", "preset": "hardware-faithful"}
    parts = [f"{', '.join(f'`{m}`' for m in ms)}: {words[f]}" for f, ms in by_flavour.items()]
    return f"{named} ({'; '.join(parts)})"


SAMPLED_NOTE = ("Sampled timing (`--sample`, docs/sampling.md): long launches timed on their first waves of CTAs "
                "(with `--sample all`, short ones until their rate was stable) and projected; not a full run.")


def sampling_summary(results: ResultSet) -> dict[str, Any] | None:
    """How many of ``results``' points include a sampled launch (``sampling.*`` rows), with the CTAs and cycles
    timed in detail against all, the long launches a mechanism kept from sampling, and the points where a
    mechanism's serial work bounded a projection; ``None`` when none was sampled or kept."""
    n = ctas = timed = cycles = cycles_timed = declined = stable = serial = 0
    for r in results.results:
        if r.status == "ok":
            declined += int(r.get("sampling.launches_declined") or 0)
        if r.status != "ok" or not r.get("sampling.launches_sampled"):
            continue
        n += 1
        stable += bool(r.get("sampling.launches_stable"))
        serial += bool(r.get("sampling.launches_serial_bound"))
        ctas += int(r.get("sampling.ctas") or 0)
        timed += int(r.get("sampling.ctas_timed") or 0)
        cycles_timed += int(r.get("sampling.cycles_timed") or 0)
        cycles += int(r.get("kernel.cycles") or 0)
    if not n and not declined:
        return None
    return {"points_sampled": n, "points": sum(r.status == "ok" for r in results.results),
            "ctas_timed_fraction": timed / ctas if ctas else 0.0,
            "cycles_timed_fraction": cycles_timed / cycles if cycles else 0.0, "launches_declined": declined,
            "points_stable": stable, "points_serial": serial}


def _sampling_lines(sampling: dict[str, Any] | None) -> list[str]:
    if not sampling:
        return []
    paired = (f" Paired points: {sampling['paired']}, so that every comparison is timed one way."
              if sampling.get("paired") else "")
    if not sampling["points_sampled"] and not sampling.get("launches_declined"):
        return [f"- **Sampled timing was asked for** (docs/sampling.md):{paired} A full run."]
    return [f"- **Sampled timing** (docs/sampling.md): {sampling['points_sampled']} of {sampling['points']} points "
            "had launches sampled and projected (long launches timed on their first waves of CTAs, launches alike "
            "projected from the first ones"
            + (f"; {sampling['points_stable']} of the points had a short launch stopped once its rate was stable"
               if sampling.get("points_stable") else "")
            + (f"; on {sampling['points_serial']} a mechanism's serial work bounded a launch's projected cycles"
               if sampling.get("points_serial") else "") + ") "
            f"({sampling['ctas_timed_fraction']:.0%} of those points' CTAs and "
            f"{sampling['cycles_timed_fraction']:.0%} of their cycles timed in detail); "
            "every check, table and figure below says so. Not a full run."
            + (f" {sampling['launches_declined']} launches were timed in full because their mechanism declined "
               "sampling (`sampling.launches_declined`)."
               if sampling.get("launches_declined") else "") + paired]


def _markdown(
    data: dict[str, Any], tables: list[Table], checks: list[Check], figures: list[tuple[BarChart, str]]
) -> str:
    s = data["summary"]
    executor_flag = "" if data["executor"] == "simulator" else f" --executor {data['executor']}"
    out = [f"# {data['title']}", ""]
    if data["paper"]:
        out += [f"Reproducing: {data['paper']}", ""]
    out += [
        f"Scale `{data['scale']}`; experiment `{data['experiment']}`; executor `{data['executor']}`; "
        f"ndpgpu `{data['code_version']}`. Generated by `ndpgpu reproduce {data['reproduction']} "
        f"--scale {data['scale']}{executor_flag}`.",
        "",
        *([f"Re-evaluated without running: the checks, tables and figures are today's code over the metric rows "
           f"stored in {data['reevaluated_from']}.", ""] if data.get("reevaluated_from") else []),
        "## Summary",
        "",
        f"- Checks: **{s['evidence_passed']} of {s['evidence']} measured checks pass**"
        + (
            f" ({s['calibrated']} calibrated check{'s' if s['calibrated'] != 1 else ''} reported but not counted)"
            if s["calibrated"]
            else ""
        ),
        *([f"- Arithmetic checks (restating the paper's constants or a static analysis; not counted): "
           f"{s['arithmetic_passed']} of {s['arithmetic']} hold"] if s.get("arithmetic") else []),
        *([f"- Not reproducible by a sound model (the paper's result needs what the model cannot soundly do; "
           f"not counted): {s['unreproducible']}"] if s.get("unreproducible") else []),
        *_timing_lines(data.get("timing")),
        *_sampling_lines(data.get("sampling")),
        *([f"- **{data['sensitivity']['note']}**"] if data.get("sensitivity") else []),
        f"- Points: {s['points_ok']} of {s['points']} ran"
        + (f", **{s['points_failed']} failed**" if s["points_failed"] else "")
        + (f", **{s['points_not_run']} not run**" if s.get("points_not_run") else ""),
        *([f"- **Partial**: this report covers {s['points'] - s['points_not_run']} of its {s['points']} points; "
           f"{s['points_not_run']} never ran (an interrupted run, or `--stored-only` before the run finished), so "
           "every check, table and figure that needs them reads no value. Run the same command to finish it."]
          if s.get("partial") else []),
        f"- Machines: {machines_note(sorted({p['machine'] for p in data['points']}))}",
        "",
    ]
    if checks:
        out += [
            "## Checks",
            "",
            "| check | paper | ours | result | criterion |",
            "| --- | --- | --- | --- | --- |",
        ]
        for c in checks:
            unit = f" {c.unit}" if c.unit else ""
            paper = format_value(c.paper) + (unit if isinstance(c.paper, (int, float)) else "")
            ours = format_value(c.ours) + (unit if isinstance(c.ours, (int, float)) else "")
            out.append(f"| {c.name} | {paper} | {ours} | **{c.verdict}** | {c.criterion} |")
        out.append("")
        ruled = [c for c in checks if c.rule is not None]
        if ruled:
            out += [
                "### How each check is defined",
                "",
                "Fixed from the paper's text before the runs: *measured* checks come out of simulation, "
                "*arithmetic* ones restate constants or a static analysis; an *unreproducible* one says why a "
                "sound model cannot give the paper's result.",
                "",
                "| check | kind | averaging | from the paper | band |",
                "| --- | --- | --- | --- | --- |",
            ]
            for c in ruled:
                r = c.rule
                assert r is not None
                cells = [c.name, r.kind, r.averaging, r.source, r.band]
                out.append("| " + " | ".join(x.replace("|", "/").replace("\n", " ") for x in cells) + " |")
            out.append("")
    if figures:
        out += ["## Figures", ""]
        for chart, file in figures:
            out += [f"![{chart.title}]({file})", ""]
            if chart.caption:
                out += [f"*{chart.caption}*", ""]
    for t in tables:
        out += [f"## {t.title}", "", t.to_markdown(), ""]
        if t.note:
            out += [t.note, ""]
    failed = [p for p in data["points"] if p["status"] == "failed"]
    if failed:
        out += ["## Failed points", "", "| point | error |", "| --- | --- |"]
        for p in failed:
            first = (p["error"] or "").strip().splitlines()
            out.append(f"| {p['label']} | {(first[0] if first else '').replace('|', '/')} |")
        out += ["", "Tracebacks: `ndpgpu results --failed --experiment " + data["experiment"] + "`.", ""]
    not_run = [p for p in data["points"] if p["status"] == "missing"]
    if not_run:
        out += ["## Points not run", "", "Never run (not failed): the run was interrupted, or only stored points were "
                "read.", ""]
        out += [f"- {p['label']}" + (f" ({p['error']})" if p["error"] and p["error"] != "not computed" else "")
                for p in not_run]
        out.append("")
    out += ["## Differences from the paper", ""]
    if data["differences"]:
        out += [data["differences"], ""]
    failing = [c for c in checks if not c.passed]
    if failing:
        out.append("Checks that do not hold here:")
        out.append("")
        for c in failing:
            out.append(
                f"- {c.name}: ours {format_value(c.ours)} against the paper's {format_value(c.paper)} ({c.criterion})."
                + (f" {c.why}" if c.why else "")
            )
        out.append("")
    elif not data["differences"]:
        out += ["None found by the checks.", ""]
    out += ["## Points", "", "| point | status | config hash | key |", "| --- | --- | --- | --- |"]
    for p in data["points"]:
        status = "not run" if p["status"] == "missing" else p["status"]
        out.append(f"| {p['label']} | {status} | `{p['config_hash']}` | `{p['key']}` |")
    out.append("")
    return "\n".join(out)


def build_report(repro: Reproduction, scale: str, spec: SweepSpec, results: ResultSet, out_dir: str | Path,
                 index_href: str | None = None, reevaluated_from: str | None = None,
                 timing: str | None = None, columns: dict[str, ResultSet] | None = None,
                 sample_paired: str = "", sets: dict[str, Any] | None = None) -> Report:
    """Write ``report.md``, ``report.html``, ``report.json`` and the figures of ``repro`` from ``results``
    (``index_href``: a link from the HTML page back to an index of reports; ``sample_paired``: why the sampling
    asked for was weakened for every point, :func:`paired_overlay`; ``sets``: the machine fields every point was
    run with, ``--set``, which every check, table and figure then names)."""
    from .htmlreport import write_report_html

    out = Path(out_dir)
    (out / "figures").mkdir(parents=True, exist_ok=True)
    tables = repro.tables(results)
    checks = repro.checks(results)
    by_timing = timing_columns(repro, results, columns or {})
    if by_timing is not None:
        tables.append(by_timing)
    sampled = sampling_summary(results)
    charts = repro.figures(results)
    if sampled is not None:  # said on every check, table and figure
        checks = [dataclasses.replace(c, name=f"{c.name} [sampled]") for c in checks]
        for t in tables:
            t.note = f"{SAMPLED_NOTE} {t.note}".strip() if getattr(t, "note", None) is not None else SAMPLED_NOTE
        charts = [dataclasses.replace(c, title=f"{c.title} (sampled timing)",
                                      caption=f"{SAMPLED_NOTE} {c.caption or ''}".strip()) for c in charts]
    if sets:  # a sensitivity run: said on every check, table and figure
        mark = sets_label(sets)
        note = sensitivity_note(sets)
        checks = [dataclasses.replace(c, name=f"{c.name} [{mark}]") for c in checks]
        for t in tables:
            t.note = f"{note} {t.note}".strip() if getattr(t, "note", None) is not None else note
        charts = [dataclasses.replace(c, title=f"{c.title} ({mark})", caption=f"{note} {c.caption or ''}".strip())
                  for c in charts]
    figures = []
    for chart in charts:
        file = f"figures/{chart.name}.png"
        draw_bar_chart(chart, out / file)
        figures.append((chart, file))
    data = _report_data(repro, scale, spec, results, tables, checks, figures)
    if reevaluated_from is not None:
        data["reevaluated_from"] = reevaluated_from
    if sample_paired:
        sampled = sampled or {"points_sampled": 0, "points": sum(r.status == "ok" for r in results.results),
                              "ctas_timed_fraction": 0.0, "cycles_timed_fraction": 0.0}
        sampled["paired"] = sample_paired
    if sampled is not None:
        data["sampling"] = sampled
    if sets:
        data["sensitivity"] = {"overrides": dict(sets), "note": sensitivity_note(sets)}
    if repro.baseline_timing is not None:
        data["timing"] = repro.baseline_timing.to_json(repro.baseline_timing.resolve(timing))
    validate_report(data)
    (out / "report.json").write_text(json.dumps(data, indent=1) + "\n")
    (out / "report.md").write_text(_markdown(data, tables, checks, figures))
    report = Report(repro.name, out, data, tables, checks)
    write_report_html(report, {chart.name: chart.caption for chart, _ in figures}, index_href)
    return report


def reproduce(
    paper: str,
    scale: str | None = None,
    out_dir: str | Path | None = None,
    jobs: int = 1,
    store: ResultStore | str | Path | None = None,
    traces: str | Path | None = None,
    executor: str | None = None,
    executor_options: dict[str, Any] | None = None,
    progress: bool | None = None,
    scheduler: str | None = None,
    index_href: str | None = None,
    stored_only: bool = False,
    timing: str | None = None,
    sample: bool | str = False,
    sets: dict[str, Any] | None = None,
) -> Report:
    """Run reproduction ``paper`` at ``scale`` (default its own) and write its report to ``out_dir``
    (default ``reports/<paper>-<scale>``); results are stored (and reused) in ``store``; ``scheduler``: a
    Dask cluster to run on (see :func:`ndpgpu.experiments.runner.run_sweep`). With ``stored_only`` nothing
    runs: the report is written from the points already stored, the others listed as missing (a long run
    reported on in parts). ``timing``: ``declared`` (default: the paper's baseline timing,
    :attr:`Reproduction.baseline_timing`) or a labelled second column (``preset``, ``gpgpusim``,
    ``gpgpusim3``), stored as its own experiment; the declared report shows every column already stored beside
    its checks. ``sample``: every machine takes a sampling overlay (:func:`sample_overlay`: ``sampled``, long
    launches timed on their first waves and projected, or ``sampled-all``, short launches too, until their rate
    is stable; docs/sampling.md), stored as its own experiment (``NAME-<overlay>``); the report says so
    throughout and goes to ``reports/<paper>-<scale>[-<timing>]-<overlay>``. ``sets``: machine fields every
    point is run with (``--set KEY=VALUE``, a sensitivity study: :func:`with_sets`), stored as its own experiment
    and reported, marked throughout, to ``reports/<paper>-<scale>[...]-set-<fields>``."""
    from .runner import default_store_path, plan_sweep

    repro = get_reproduction(paper)()
    scale = scale or repro.default_scale
    spec, named, flavour = timed_spec(repro, scale, timing)
    overlay = sample_overlay(sample)
    paired = _pairing(spec, sample)
    spec = with_sets(_sampled(spec, sample), sets).with_executor(executor, executor_options)
    own = not isinstance(store, ResultStore)
    db = ResultStore(store if store is not None else default_store_path()) if own else store
    assert isinstance(db, ResultStore)
    columns: dict[str, ResultSet] = {}
    try:
        if stored_only:
            plan = plan_sweep(spec, db)
            results = ResultSet.load(db, [p.point for p in plan.points], plan.keys)
        else:
            sweep = run_sweep(spec, jobs=jobs, store=db, traces=traces, progress=progress, scheduler=scheduler)
            results = ResultSet.load(db, [p.point for p in sweep.points], sweep.keys)
        bt = repro.baseline_timing
        if bt is not None and flavour == bt.flavour and not sample and not sets:
            for other in bt.columns:
                col_spec, col_named, _ = timed_spec(repro, scale, other)
                plan = plan_sweep(col_spec.with_executor(executor, executor_options), db)
                columns[other] = ResultSet.load(db, [p.point for p in plan.points], plan.keys).as_named(col_named)
    finally:
        if own:
            db.close()
    suffix = "" if repro.baseline_timing is None or flavour == repro.baseline_timing.flavour else f"-{flavour}"
    suffix += f"-{overlay}" if overlay else ""
    suffix += f"-{sets_slug(sets)}" if sets else ""
    return build_report(repro, scale, spec, results.as_named(named),
                        out_dir or Path("reports") / f"{paper}-{scale}{suffix}", index_href, timing=flavour,
                        columns=columns, sample_paired=paired, sets=sets)


# ``--set KEY=VALUE``: a reproduction run with machine fields changed on every point (a sensitivity study)


def sets_label(sets: dict[str, Any]) -> str:
    """How a sensitivity run's fields are named on its checks and figures: ``with l1d.set_index=xor``."""
    return "with " + ", ".join(f"{k}={sets[k]}" for k in sorted(sets))


def sets_slug(sets: dict[str, Any]) -> str:
    """The fields as a name for the experiment and the report's folder: ``set-l1d.set_index=xor``."""
    text = ",".join(f"{k}={sets[k]}" for k in sorted(sets))
    return "set-" + "".join(ch if ch.isalnum() or ch in "._=,-" else "_" for ch in text)


def sensitivity_note(sets: dict[str, Any]) -> str:
    """The sentence every table of a sensitivity run carries."""
    return (f"Sensitivity run (`--set`): every machine {sets_label(sets)}; not the reproduction's configuration, "
            "and not a check of the paper's.")


def with_sets(spec: SweepSpec, sets: dict[str, Any] | None) -> SweepSpec:
    """``spec`` with every point's machine taking the fields ``sets`` gives (itself when none), as experiment
    ``NAME-set-<fields>``. A point that already sets one of those fields to another value (a sweep of the
    reproduction's own) is refused, as is a field a point's machine does not have."""
    if not sets:
        return spec
    from ..timing.presets import load_machine
    from ..timing.spec import MachineConfigError

    given = spec.expand()
    for p in given:
        clash = sorted(k for k in sets if k in p.overrides and p.overrides[k] != sets[k])
        if clash:
            raise ReproductionError(f"--set {', '.join(clash)}: point {p.label} of {spec.name} already sets it to "
                                    f"{', '.join(str(p.overrides[k]) for k in clash)} (the reproduction sweeps it)")
    points = [p.model_copy(update={"overrides": {**p.overrides, **sets}}) for p in given]
    machines = {(p.machine, p.overrides_json): p.label for p in reversed(points)}  # each with its first point
    for (machine, overrides_json), label in sorted(machines.items()):
        try:
            load_machine(machine, json.loads(overrides_json))
        except MachineConfigError as exc:
            raise ReproductionError(f"--set on machine {machine} (point {label}): {exc}") from None
    return spec.model_copy(update={"name": f"{spec.name}-{sets_slug(sets)}", "grid": [], "points": points})


SAMPLED_OVERLAY = "sampled"
# ``--sample [waves|all]``: the machine overlay of each kind of sampled timing (docs/sampling.md)
SAMPLE_OVERLAYS = {"waves": SAMPLED_OVERLAY, "all": "sampled-all"}


def sample_overlay(sample: bool | str) -> str | None:
    """The overlay ``sample`` names: ``False`` none, ``True`` or ``"waves"`` ``sampled`` (long launches by waves),
    ``"all"`` ``sampled-all`` (short launches until their rate is stable too); an overlay's own name is accepted."""
    if not sample:
        return None
    if sample is True:
        return SAMPLED_OVERLAY
    if sample in SAMPLE_OVERLAYS:
        return SAMPLE_OVERLAYS[sample]
    if sample in SAMPLE_OVERLAYS.values():
        return str(sample)
    raise ReproductionError(f"sample {sample!r}: expected one of {', '.join(SAMPLE_OVERLAYS)}")


def _sampled(spec: SweepSpec, sample: bool | str) -> SweepSpec:
    """``spec`` under the overlay ``sample`` names (itself when none)."""
    overlay = sample_overlay(sample)
    return sampled_spec(spec, overlay) if overlay else spec


# the kinds of sampling each overlay asks for (``SessionPolicy.may_decline_sampling``'s words)
SAMPLE_KINDS = {SAMPLED_OVERLAY: ("waves",), "sampled-all": ("waves", "stable")}


def paired_overlay(spec: SweepSpec, overlay: str) -> tuple[str | None, str]:
    """The sampling overlay every point of ``spec`` takes when ``overlay`` is asked for, and why it is weaker
    ('' when it is not): ``sampled`` when a policy of the experiment may decline stopping short launches, none
    (every point timed in full) when one may decline waves.

    A report compares a mechanism's points with baseline points, sometimes of another workload (a hand-written
    or split form), and each kind of sampling errs its own way, so every point of one experiment is timed by the
    same kind, the kind every policy in it accepts (docs/sampling.md, "Paired points")."""
    from ..mechanisms.policy import PolicyError, make_policy
    from .points import DEFAULT_POLICY

    kinds = SAMPLE_KINDS.get(overlay, ())
    declined: dict[str, str] = {}
    for name in sorted({p.policy for p in spec.expand()} - {DEFAULT_POLICY}):
        try:
            policy = make_policy(name)
        except PolicyError as exc:
            raise ReproductionError(str(exc)) from None
        for kind in kinds:
            why = policy.may_decline_sampling(kind)
            if why and kind not in declined:
                declined[kind] = f"{name} ({why})"
    if "waves" in declined:
        return None, f"every point timed in full: {declined['waves']} declines wave sampling"
    if "stable" in declined:
        return SAMPLED_OVERLAY, (f"every point sampled by waves only: {declined['stable']} declines stopping "
                                 "short launches")
    return overlay, ""


def _pairing(spec: SweepSpec, sample: bool | str) -> str:
    """Why ``spec`` sampled as ``sample`` asks takes a weaker sampling for every point ('' when it does not)."""
    overlay = sample_overlay(sample)
    return paired_overlay(spec, overlay)[1] if overlay else ""


def sample_pairing(paper: str, scale: str | None, timing: str | None, sample: bool | str) -> str:
    """Why ``ndpgpu reproduce paper --sample`` takes a weaker sampling for every point ('' when it does not)."""
    repro = get_reproduction(paper)()
    return _pairing(timed_spec(repro, scale or repro.default_scale, timing)[0], sample) if sample else ""


def sampled_spec(spec: SweepSpec, overlay: str = SAMPLED_OVERLAY) -> SweepSpec:
    """``spec`` with every point's machine taking the sampling overlay its policies allow (:func:`paired_overlay`:
    ``overlay`` or a weaker one, the same for every point), as experiment ``NAME-<overlay>``."""
    taken, _ = paired_overlay(spec, overlay)
    points = [p if taken is None or p.machine.split("+")[-1] == taken
              else p.model_copy(update={"machine": f"{p.machine}+{taken}"}) for p in spec.expand()]
    return spec.model_copy(update={"name": f"{spec.name}-{overlay}", "grid": [], "points": points})


def timed_spec(repro: Reproduction, scale: str, timing: str | None) -> tuple[SweepSpec, list[Any], str | None]:
    """``repro``'s points at ``scale`` timed as ``timing`` asks (see :func:`reproduce`), the same points as the
    reproduction names them, and the flavour (None for a reproduction that declares no baseline timing)."""
    spec = repro.spec(scale)
    bt = repro.baseline_timing
    if bt is None:
        if timing not in (None, "declared"):
            raise ReproductionError(f"{repro.name} declares no baseline timing: --timing does not apply")
        return spec, spec.expand(), None
    try:
        flavour = bt.resolve(timing)
    except TimingError as exc:
        raise ReproductionError(str(exc)) from None
    run, named = timed(spec, flavour, bt.flavour)
    return run, named, flavour


def reevaluate(paper: str, scale: str, points_file: str | Path, out_dir: str | Path,
               index_href: str | None = None, timing: str | None = None,
               columns: dict[str, str | Path] | None = None, sample: bool | str = False,
               sets: dict[str, Any] | None = None) -> Report:
    """Write reproduction ``paper``'s report at ``scale`` from the metric rows of a points file (a committed
    report's ``points.parquet``) without running anything: the checks, tables and figures are computed anew by
    today's code from rows stored by the run that made the file (points matched by identity, not key). The
    report says so. ``ndpgpu reproduce NAME --scale S --from-points FILE``. ``timing`` as for
    :func:`reproduce`, except that ``None`` takes the timing whose points the file holds (the declared one where
    it holds as many); ``columns``: a points file per labelled second column (``--column FLAVOUR=FILE``);
    ``sets``: the fields a sensitivity run's points were run with (``--set``)."""
    repro = get_reproduction(paper)()
    results, flavour = results_from_points(repro, scale, points_file, timing, sample, sets)
    spec = timed_spec(repro, scale, flavour)[0]
    paired = _pairing(spec, sample)
    spec = with_sets(_sampled(spec, sample), sets)
    cols = {}
    for other, file in (columns or {}).items():
        col_spec, col_named, _ = timed_spec(repro, scale, other)
        cols[other] = ResultSet.from_points_file(file, col_spec.expand()).as_named(col_named)
    versions = sorted({_row_code_version(points_file)} - {""})
    source = f"`{Path(points_file).as_posix()}`" + (f" (rows of ndpgpu {', '.join(versions)})" if versions else "")
    return build_report(repro, scale, spec, results, out_dir, index_href, reevaluated_from=source, timing=flavour,
                        columns=cols, sample_paired=paired, sets=sets)


def results_from_points(repro: Reproduction, scale: str, points_file: str | Path,
                        timing: str | None = None, sample: bool | str = False,
                        sets: dict[str, Any] | None = None) -> tuple[ResultSet, str | None]:
    """``repro``'s results at ``scale`` from a points file, under the names the reproduction gives its points, and
    the timing flavour they ran on (``timing`` None: the flavour of which the file holds the most points, the
    declared one first among equals)."""
    bt = repro.baseline_timing
    if timing is not None or bt is None:
        spec, named, flavour = timed_spec(repro, scale, timing)
        spec = with_sets(_sampled(spec, sample), sets)
        return ResultSet.from_points_file(points_file, spec.expand()).as_named(named), flavour
    best: tuple[int, ResultSet, str | None] | None = None
    for candidate in dict.fromkeys((bt.flavour, *bt.columns, *FLAVOURS)):
        spec, named, flavour = timed_spec(repro, scale, candidate)
        spec = with_sets(_sampled(spec, sample), sets)
        rs = ResultSet.from_points_file(points_file, spec.expand()).as_named(named)
        found = sum(r.status == "ok" for r in rs.results)
        if best is None or found > best[0]:
            best = (found, rs, flavour)
    assert best is not None
    return best[1], best[2]


def _row_code_version(points_file: str | Path) -> str:
    """The code version(s) that stored a points file's rows, comma-separated."""
    import duckdb

    con = duckdb.connect()
    try:
        quoted = str(points_file).replace("'", "''")
        rows = con.execute(f"SELECT DISTINCT code_version FROM read_parquet('{quoted}') ORDER BY 1").fetchall()
    except duckdb.Error:
        return ""
    finally:
        con.close()
    return ", ".join(str(r[0]) for r in rows if r[0])


def write_document(report: Report, path: str | Path) -> Path:
    """Write a report's tables alone as a markdown document marked as generated (for ``docs/``: the
    workload characterization and GPGPU-Sim cross-check tables come from ``reproduce`` this way)."""
    data = report.data
    lines = [
        f"# {data['title']}",
        "",
        f"<!-- generated by `ndpgpu reproduce {report.name} --scale {data['scale']} --doc ...`; do not edit -->",
        "",
        f"Scale `{data['scale']}`, ndpgpu `{data['code_version']}`, executor `{data['executor']}`; "
        f"{data['summary']['points_ok']} of {data['summary']['points']} points ran.",
        "",
    ]
    for t in report.tables:
        lines += [f"## {t.title}", "", t.to_markdown(), ""]
        if t.note:
            lines += [t.note, ""]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines))
    return path
