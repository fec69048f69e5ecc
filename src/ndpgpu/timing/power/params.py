"""Power parameter sets: per-event prices and per-component static power, each value with its source.

A set is a YAML file named after the machine it prices, in ``timing/power/params/`` (the shared machines) or in a
mechanism's ``mechanisms/<m>/power/`` (its machines). ``extends: <set>`` starts from another set. Every
value carries ``source``: either ``[KEY]`` citations of the set's ``sources`` table (a derivation may
cite several and say how), or text starting with ``assumed:`` that gives the reasoning::

    sources: {K11: "Keckler et al., GPUs and the Future of Parallel Computing, IEEE Micro 2011"}
    events:
      inst_fp64: {pj: 50.0, source: "[K11] 64-bit FMA at 40 nm"}
    static:
      core: {w: 1.5, per: sm, clock: core, clock_pj: 20.0, source: "assumed: ..."}
"""

from __future__ import annotations

import copy
import functools
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ndpgpu import yamlio

PARAMS_DIR = Path(__file__).resolve().parent / "params"
MECHANISMS_DIR = Path(__file__).resolve().parents[2] / "mechanisms"  # each may ship power/*.yaml

Unit = Literal["sm", "stack_sm", "slice", "channel", "stack", "link", "chip"]
Clock = Literal["core", "icnt", "l2", "dram"]
_CITE = re.compile(r"\[([A-Za-z0-9_+-]+)\]")


class PowerParamsError(ValueError):
    """A parameter set is invalid or missing; the message names the file, the field and what to do."""


class _Base(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Price(_Base):
    """Energy of one event."""

    pj: float = Field(ge=0, description="energy per event [pJ]")
    source: str = Field(min_length=1, description="[KEY] citations, or 'assumed: <reasoning>'")
    component: str | None = Field(None, description="the component it belongs to (built-in events have one)")


class StaticPower(_Base):
    """Static power of one component: leakage per unit, plus an ungated clock per unit and cycle."""

    w: float = Field(0.0, ge=0, description="leakage per unit [W] (area-proportional: one unit's area)")
    per: Unit = Field("chip", description="what one unit is: sm, stack_sm, slice, channel, stack, link, chip")
    clock: Clock | None = Field(None, description="the clock domain of clock_pj")
    clock_pj: float = Field(0.0, ge=0, description="ungated clock tree energy per unit per cycle [pJ]")
    source: str = Field(min_length=1, description="[KEY] citations, or 'assumed: <reasoning>'")

    @model_validator(mode="after")
    def _clock(self) -> StaticPower:
        if self.clock_pj and self.clock is None:
            raise ValueError("clock_pj needs a clock domain (clock: core, icnt, l2 or dram)")
        return self


class PowerParams(_Base):
    """One machine's power parameter set."""

    name: str
    description: str = ""
    technology_nm: float | None = Field(None, gt=0, description="process node the values are for [nm]")
    sources: dict[str, str] = Field(default_factory=dict, description="citation key -> reference")
    events: dict[str, Price] = Field(default_factory=dict, description="event name -> price")
    static: dict[str, StaticPower] = Field(default_factory=dict, description="component -> static power")

    @model_validator(mode="after")
    def _cited(self) -> PowerParams:
        bad = []
        for where, entries in (("events", self.events), ("static", self.static)):
            for key, v in entries.items():
                if v.source.lower().startswith("assumed"):
                    continue
                keys = _CITE.findall(v.source)
                unknown = [k for k in keys if k not in self.sources]
                if not keys:
                    bad.append(f"{where}.{key}.source: cite a [KEY] of 'sources' or start with 'assumed:'")
                elif unknown:
                    bad.append(f"{where}.{key}.source: {', '.join(unknown)} not in 'sources' "
                               f"({', '.join(sorted(self.sources)) or 'none'})")
        if bad:
            raise ValueError("; ".join(bad))
        return self

    def assumed(self) -> list[str]:
        """The values marked as assumed (``events.<name>`` / ``static.<component>``)."""
        return ([f"events.{k}" for k, v in self.events.items() if v.source.lower().startswith("assumed")]
                + [f"static.{k}" for k, v in self.static.items() if v.source.lower().startswith("assumed")])


def param_files() -> dict[str, Path]:
    """Every shipped parameter set by name (a name shipped twice is an error)."""
    found: dict[str, Path] = {}
    for path in [*sorted(PARAMS_DIR.glob("*.yaml")), *sorted(MECHANISMS_DIR.glob("*/power/*.yaml"))]:
        if path.stem in found:
            raise PowerParamsError(f"power parameter set {path.stem!r} is shipped twice: {found[path.stem]} and {path}")
        found[path.stem] = path
    return found


def list_param_sets() -> list[str]:
    """Names of the shipped parameter sets."""
    return sorted(param_files())


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict) and k in ("sources", "events", "static"):
            out[k] = {**out[k], **v}
        else:
            out[k] = v
    return out


def _raw(name: str, seen: tuple[str, ...] = ()) -> dict[str, Any]:
    path = param_files().get(name)
    if path is None:
        raise PowerParamsError(f"no power parameter set {name!r} (shipped: {', '.join(list_param_sets())})")
    if name in seen:
        raise PowerParamsError(f"power parameter set {name!r}: 'extends' loops ({' -> '.join((*seen, name))})")
    data = yamlio.safe_load(path.read_text()) or {}
    if not isinstance(data, dict):
        raise PowerParamsError(f"{path}: a parameter set is a mapping")
    parent = data.pop("extends", None)
    return _merge(_raw(parent, (*seen, name)), data) if parent else data


@functools.lru_cache(maxsize=64)
def load_params(name: str) -> PowerParams:
    """The parameter set ``name`` with its ``extends`` chain applied; a bad one raises :class:`PowerParamsError`."""
    data = _raw(name)
    try:
        return PowerParams(**data)
    except ValidationError as err:
        lines = [f"invalid power parameter set {name!r} ({param_files()[name]}):"]
        for e in err.errors():
            loc = ".".join(str(p) for p in e["loc"]) or "(top level)"
            lines.append(f"  {loc}: {e['msg'].removeprefix('Value error, ')}")
        raise PowerParamsError("\n".join(lines)) from None


def has_params(name: str) -> bool:
    """Whether a parameter set ``name`` is shipped."""
    return name in param_files()
