"""Figures in the style of the papers' bar charts: grouped bars per benchmark in grey tones with black
edges and hatches, a mean group at the right, a dashed reference line at 1, the legend on top, and the
paper's values (where known) as markers over our bars."""

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
    reference_line: float | None = None  # e.g. 1.0 for normalized charts
    mean: str | None = "GMEAN"  # label of the appended geometric-mean group; None: no mean group
    log_y: bool = False
    caption: str = ""

    def with_mean(self) -> tuple[list[str], dict[str, list[float | None]], dict[str, list[float | None]]]:
        """Categories and values with the mean group appended (when ``mean`` is set)."""
        if not self.mean:
            return list(self.categories), self.series, self.paper
        cats = [*self.categories, self.mean]
        series = {k: [*v, geomean(v)] for k, v in self.series.items()}
        paper = {k: [*v, geomean(v)] for k, v in self.paper.items()}
        return cats, series, paper


def draw_bar_chart(chart: BarChart, path: str | Path, dpi: int = 150) -> Path:
    """Render ``chart`` to a PNG at ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cats, series, paper = chart.with_mean()
    n_series = max(1, len(series))
    width = 0.8 / n_series
    fig_w = min(14.0, max(4.5, 0.55 * len(cats) * max(1.0, n_series / 2) + 1.5))
    fig, ax = plt.subplots(figsize=(fig_w, 3.2))
    xs = list(range(len(cats)))
    single = len(series) == 1
    for i, (label, values) in enumerate(series.items()):
        offs = [x - 0.4 + width * (i + 0.5) for x in xs]
        heights = [v if v is not None and math.isfinite(v) else 0.0 for v in values]
        ax.bar(
            offs,
            heights,
            width,
            label=label,
            color="#969696" if single else _FILLS[i % len(_FILLS)],
            edgecolor="black",
            linewidth=0.6,
            hatch=_HATCHES[i % len(_HATCHES)],
            zorder=2,
        )
        for x, v in zip(offs, values, strict=True):
            if v is None or not math.isfinite(v):
                ax.text(x, 0, "×", ha="center", va="bottom", fontsize=7, color="red", zorder=3)
        if label in paper:
            px = [x for x, v in zip(offs, paper[label], strict=True) if v is not None]
            py = [v for v in paper[label] if v is not None]
            ax.scatter(
                px,
                py,
                marker="D",
                s=14,
                color="#d62728",
                edgecolor="black",
                linewidth=0.4,
                zorder=4,
                label="paper" if i == min(j for j, k in enumerate(series) if k in paper) else None,
            )
    if chart.reference_line is not None:
        ax.axhline(chart.reference_line, color="black", linestyle="--", linewidth=0.8, zorder=1)
    if chart.mean and len(cats) > 1:
        ax.axvline(len(cats) - 1.5, color="grey", linewidth=0.5, zorder=1)
    ax.set_xticks(xs)
    rotate = len(cats) > 6 or max((len(c) for c in cats), default=0) > 10
    ax.set_xticklabels(cats, rotation=45 if rotate else 0, ha="right" if rotate else "center", fontsize=8)
    ax.set_xlim(-0.6, len(cats) - 0.4)
    ax.set_ylabel(chart.ylabel, fontsize=9)
    if chart.log_y:
        ax.set_yscale("log")
    ax.yaxis.grid(True, linestyle=":", linewidth=0.5, color="grey", zorder=0)
    ax.tick_params(axis="y", labelsize=8)
    ax.set_title(chart.title, fontsize=10)
    ncol = min(len(series) + (1 if paper else 0), 6)
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.08), ncol=ncol, fontsize=8, frameon=False)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi, metadata={"Software": None})
    plt.close(fig)
    return path
