"""Which simulator timing a reproduction's baseline runs on, declared from its paper before any rerun.

A mechanism's speedup is a ratio to a baseline, and four of the five papers measured theirs in GPGPU-Sim, whose
versions time a machine differently (docs/timing.md, "Three timing flavours"). Every machine a reproduction
names is a hardware-faithful preset (``tom-ndp``, ``llc-mesh``, ``gtx480``, ...); its declared
:class:`BaselineTiming` says which flavour every point of the report is timed with, and why:

* ``preset``: the preset alone (hardware-faithful; "today's timing");
* ``gpgpusim``: GPGPU-Sim 4.0's model (overlay ``gpgpusim``);
* ``gpgpusim3``: GPGPU-Sim 3.x's model (overlay ``gpgpusim3``).

The rule (:data:`RULE`) is fixed before any run on it: the version the paper names; a paper that compares with
real hardware keeps the presets; a paper that names GPGPU-Sim without a version gets the release current when
it was written, and is run on the other version too. The other flavours are labelled second columns, run as
separate experiments (``ndpgpu reproduce NAME --timing FLAVOUR``).
"""

from __future__ import annotations

import dataclasses
from typing import Literal

from .points import Point, SweepSpec

Flavour = Literal["preset", "gpgpusim", "gpgpusim3"]
FLAVOURS: tuple[Flavour, ...] = ("preset", "gpgpusim", "gpgpusim3")
LABELS: dict[str, str] = {
    "preset": "today's timing (hardware-faithful presets)",
    "gpgpusim": "GPGPU-Sim 4.0 timing (overlay gpgpusim)",
    "gpgpusim3": "GPGPU-Sim 3.x timing (overlay gpgpusim3)",
}
# presets with a version's own sizes as well as its model: gtx480 under 3.x is 3.2.2's GTX480 configuration
# (L1D and L2 MSHRs 32, FR-FCFS queue 16), under 4.0 the gtx480 preset fitted to SM2_GTX480's DRAM; v100 under
# 4.0 adds SM7_QV100's 5,000-cycle kernel launch latency
VERSION_PRESETS: dict[tuple[str, str], str] = {
    ("gtx480", "gpgpusim3"): "gtx480-gpgpusim3",
    ("gtx480", "gpgpusim"): "gtx480-gpgpusim",
    ("v100", "gpgpusim"): "v100-gpgpusim",
}
RULE = (
    "the timing of the simulator version the paper names (GPGPU-Sim 3.x: gpgpusim3; 4.x: gpgpusim); a paper "
    "that compares with real hardware keeps the hardware-faithful presets; a paper that names GPGPU-Sim without "
    "a version gets the release current when it was written and is run on the other version as well"
)


class TimingError(ValueError):
    """An unknown timing flavour, or one a reproduction does not declare."""


@dataclasses.dataclass(frozen=True)
class BaselineTiming:
    """A reproduction's declared baseline timing: ``flavour`` carries every check; ``columns`` are the labelled
    second columns a user may run beside it; ``paper_says`` quotes the paper's methodology; ``why`` applies
    :data:`RULE` to it."""

    flavour: Flavour
    paper_says: str
    why: str
    columns: tuple[Flavour, ...] = ()

    def __post_init__(self) -> None:
        for f in (self.flavour, *self.columns):
            if f not in FLAVOURS:
                raise TimingError(f"unknown timing flavour {f!r}; known: {', '.join(FLAVOURS)}")

    def resolve(self, timing: str | None) -> Flavour:
        """The flavour a run asked for (``None`` or ``declared``: the declared one)."""
        if timing in (None, "declared"):
            return self.flavour
        if timing not in FLAVOURS:
            raise TimingError(f"--timing {timing!r}: one of declared, {', '.join(FLAVOURS)}")
        return timing  # type: ignore[return-value]

    def to_json(self, flavour: str) -> dict[str, object]:
        """What a report says about its timing."""
        return {"flavour": flavour, "label": LABELS[flavour], "declared": self.flavour,
                "declared_label": LABELS[self.flavour], "paper_says": self.paper_says, "why": self.why,
                "rule": RULE, "columns": list(self.columns)}


def base_machine(machine: str) -> str:
    """A machine name without any timing flavour: ``gtx480-gpgpusim3`` -> ``gtx480``, ``llc-mesh+gpgpusim`` ->
    ``llc-mesh``; other overlays stay."""
    head, *overlays = machine.split("+")
    for (preset, _), name in VERSION_PRESETS.items():
        if head == name:
            head = preset
    return "+".join([head, *(o for o in overlays if o not in ("gpgpusim", "gpgpusim3"))])


def with_timing(machine: str, flavour: str) -> str:
    """``machine`` timed with ``flavour``: the version's own preset where one exists, else the overlay added."""
    if flavour not in FLAVOURS:
        raise TimingError(f"unknown timing flavour {flavour!r}; known: {', '.join(FLAVOURS)}")
    base = base_machine(machine)
    if flavour == "preset":
        return base
    head, *rest = base.split("+")
    if (head, flavour) in VERSION_PRESETS:
        return "+".join([VERSION_PRESETS[head, flavour], *rest])
    return f"{base}+{flavour}"


def experiment_name(name: str, flavour: str, declared: str) -> str:
    """The store's experiment name: the reproduction's own for the declared timing, suffixed for a column."""
    return name if flavour == declared else f"{name}-{flavour}"


def timed(spec: SweepSpec, flavour: str, declared: str) -> tuple[SweepSpec, list[Point]]:
    """``spec`` with every point's machine timed with ``flavour`` (points in order), and the points as the
    reproduction names them, in the same order (its checks look machines up by their preset names)."""
    named = spec.expand()
    points = [p.model_copy(update={"machine": with_timing(p.machine, flavour)}) for p in named]
    out = spec.model_copy(update={"name": experiment_name(spec.name, flavour, declared), "grid": [],
                                  "points": points})
    return out, named
