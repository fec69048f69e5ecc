"""Figures in the style of the papers' bar charts: grouped bars per benchmark in grey tones with black
edges and hatches, a mean group at the right, a dashed reference line at 1, the legend on top, and the
paper's values (where known) as markers over our bars. A stacked chart splits each bar into parts (traffic
by channel, energy by component), one bar per group (configuration) in each category. Every figure is
written as PNG, SVG and PDF; every mark drawn has a legend entry."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

from .results import geomean

_FILLS = ("#ffffff", "#bdbdbd", "#636363", "#000000", "#e0e0e0", "#969696", "#252525")
_HATCHES = ("", "//", "", "", "xx", "..", "\\\\")


@dataclasses.dataclass
class BarChart:
    """A grouped bar chart: one group per category (benchmark), one bar per series (config)."""

    name: str  # file stem of the PNG
    title: str
    ylabel: str
    categories: list[str]
    series: dict[str, list[float | None]]
    paper: dict[str, list[float | None]] = dataclasses.field(default_factory=dict)  # same keys as series
    # the paper's own mean per series, marked on the mean group; without it the mean group gets a marker only
    # when the paper gives every category's value (a mean of the few it gives is not the paper's mean)
    paper_mean: dict[str, float | None] = dataclasses.field(default_factory=dict)
    reference_line: float | None = None  # e.g. 1.0 for normalized charts
    mean: str | None = "GMEAN"  # label of the appended geometric-mean group; None: no mean group
    log_y: bool = False
    caption: str = ""
    # a stacked chart: group (configuration) -> part (channel, component) -> one value per category; each
    # category gets one bar per group, split into the parts (``series`` and ``paper`` are then unused)
    stacks: dict[str, dict[str, list[float | None]]] = dataclasses.field(default_factory=dict)

    def with_mean(self) -> tuple[list[str], dict[str, list[float | None]], dict[str, list[float | None]]]:
        """Categories and values with the mean group appended (when ``mean`` is set)."""
        if not self.mean:
            return list(self.categories), self.series, self.paper
        cats = [*self.categories, self.mean]
        series = {k: [*v, geomean(v)] for k, v in self.series.items()}
        paper = {k: [*v, self.paper_mean[k] if k in self.paper_mean
                     else (geomean(v) if all(x is not None for x in v) else None)] for k, v in self.paper.items()}
        for k, m in self.paper_mean.items():
            if k not in paper and k in self.series:
                paper[k] = [*([None] * len(self.categories)), m]
        return cats, series, paper


FORMATS = ("png", "svg", "pdf")


def draw_bar_chart(chart: BarChart, path: str | Path, dpi: int = 150, formats: tuple[str, ...] = FORMATS) -> Path:
    """Render ``chart`` at ``path`` (its suffix replaced by each of ``formats``); returns the first file."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with plt.rc_context({"svg.fonttype": "none", "svg.hashsalt": "ndpgpu"}):  # SVG text stays text
        return _draw(chart, plt, Path(path), dpi, formats)


def _draw(chart: BarChart, plt, path: Path, dpi: int, formats: tuple[str, ...]) -> Path:
    if chart.stacks:
        fig, ax = _draw_stacked(chart, plt)
    else:
        fig, ax = _draw_grouped(chart, plt)
    if chart.log_y:
        ax.set_yscale("log")
    ax.yaxis.grid(True, linestyle=":", linewidth=0.5, color="grey", zorder=0)
    ax.tick_params(axis="y", labelsize=8)
    ax.set_ylabel(chart.ylabel, fontsize=9)
    ax.set_title(chart.title, fontsize=10)
    handles, labels = ax.get_legend_handles_labels()
    order = sorted(range(len(labels)), key=lambda i: labels[i] in ("paper", "no result"))  # markers last
    handles, labels = [handles[i] for i in order], [labels[i] for i in order]
    ax.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 1.08), ncol=min(len(labels), 6),
              fontsize=8, frameon=False)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    written = []
    for fmt in formats:
        target = path.with_suffix(f".{fmt}")
        # no creation date or software stamp: the same chart gives the same bytes
        meta = {"Software": None} if fmt == "png" else {"Date": None} if fmt == "svg" else {"CreationDate": None}
        fig.savefig(target, dpi=dpi, metadata=meta)
        written.append(target)
    plt.close(fig)
    return written[0]


def _category_axis(ax, cats: list[str], mean: bool) -> list[int]:
    xs = list(range(len(cats)))
    if mean and len(cats) > 1:
        ax.axvline(len(cats) - 1.5, color="grey", linewidth=0.5, zorder=1)
    ax.set_xticks(xs)
    rotate = len(cats) > 6 or max((len(c) for c in cats), default=0) > 10
    ax.set_xticklabels(cats, rotation=45 if rotate else 0, ha="right" if rotate else "center", fontsize=8)
    ax.set_xlim(-0.6, len(cats) - 0.4)
    return xs


def _missing_marks(ax, xs: list[float], values: list[float | None], state: dict) -> None:
    """A red cross at the foot of every bar without a value, with one legend entry for all of them."""
    for x, v in zip(xs, values, strict=True):
        if v is None or not math.isfinite(v):
            ax.scatter([x], [0], marker="x", s=18, color="red", linewidth=1.0, zorder=3,
                       label=None if state.get("missing") else "no result")
            state["missing"] = True


def _draw_grouped(chart: BarChart, plt):
    cats, series, paper = chart.with_mean()
    n_series = max(1, len(series))
    width = 0.8 / n_series
    fig_w = min(14.0, max(4.5, 0.55 * len(cats) * max(1.0, n_series / 2) + 1.5))
    fig, ax = plt.subplots(figsize=(fig_w, 3.2))
    xs = list(range(len(cats)))
    single = len(series) == 1
    state: dict = {}
    for i, (label, values) in enumerate(series.items()):
        offs = [x - 0.4 + width * (i + 0.5) for x in xs]
        heights = [v if v is not None and math.isfinite(v) else 0.0 for v in values]
        ax.bar(offs, heights, width, label=label, color="#969696" if single else _FILLS[i % len(_FILLS)],
               edgecolor="black", linewidth=0.6, hatch=_HATCHES[i % len(_HATCHES)], zorder=2)
        _missing_marks(ax, offs, values, state)
        if label in paper:
            px = [x for x, v in zip(offs, paper[label], strict=True) if v is not None]
            py = [v for v in paper[label] if v is not None]
            ax.scatter(px, py, marker="D", s=14, color="#d62728", edgecolor="black", linewidth=0.4, zorder=4,
                       label=None if state.get("paper") else "paper")
            state["paper"] = True
    if chart.reference_line is not None:
        ax.axhline(chart.reference_line, color="black", linestyle="--", linewidth=0.8, zorder=1)
    _category_axis(ax, cats, bool(chart.mean))
    return fig, ax


def _draw_stacked(chart: BarChart, plt):
    """One bar per group in each category, split into the parts; the group's name under its bar."""
    cats = list(chart.categories)
    groups = list(chart.stacks)
    parts = list(dict.fromkeys(p for g in groups for p in chart.stacks[g]))
    width = 0.8 / max(1, len(groups))
    fig_w = min(14.0, max(4.5, 0.35 * len(cats) * max(1, len(groups)) + 1.5))
    fig, ax = plt.subplots(figsize=(fig_w, 3.6))
    xs = list(range(len(cats)))
    state: dict = {}
    for gi, group in enumerate(groups):
        offs = [x - 0.4 + width * (gi + 0.5) for x in xs]
        bottoms = [0.0] * len(cats)
        totals: list[float | None] = [None] * len(cats)
        for pi, part in enumerate(parts):
            values = chart.stacks[group].get(part, [None] * len(cats))
            heights = [v if v is not None and math.isfinite(v) else 0.0 for v in values]
            ax.bar(offs, heights, width, bottom=bottoms, color=_FILLS[pi % len(_FILLS)], edgecolor="black",
                   linewidth=0.6, hatch=_HATCHES[pi % len(_HATCHES)], zorder=2, label=part if gi == 0 else None)
            for c, v in enumerate(values):
                if v is not None and math.isfinite(v):
                    totals[c] = (totals[c] or 0.0) + v
            bottoms = [b + h for b, h in zip(bottoms, heights, strict=True)]
        _missing_marks(ax, offs, totals, state)
        if len(groups) > 1:
            for x in offs:
                ax.annotate(group, (x, 0), xycoords=("data", "axes fraction"), xytext=(0, -3),
                            textcoords="offset points", rotation=90, ha="center", va="top", fontsize=6)
    if chart.reference_line is not None:
        ax.axhline(chart.reference_line, color="black", linestyle="--", linewidth=0.8, zorder=1)
    _category_axis(ax, cats, False)
    if len(groups) > 1:  # the category names go below the group labels
        longest = max(len(g) for g in groups)
        ax.tick_params(axis="x", pad=4 + 3.6 * longest)
    return fig, ax
