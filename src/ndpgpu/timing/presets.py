"""Machines loaded by name or file: shipped presets (``machines/*.yaml`` and each mechanism's ``presets/``),
``extends:`` chains, overlays (``PRESET+OVERLAY``), dotted overrides, and validation into a
:class:`~ndpgpu.timing.spec.Machine` with errors that name each field."""

from __future__ import annotations

import copy
import json
import warnings
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from ndpgpu import yamlio

from .spec import Machine, MachineConfigError

PRESET_DIR = Path(__file__).resolve().parent.parent / "machines"  # the shared baseline machines
MECHANISMS_DIR = Path(__file__).resolve().parent.parent / "mechanisms"  # each may ship presets/*.yaml


class MachineDefaultsWarning(UserWarning):
    """A machine file left fields out: they take their defaults, and the warning lists them."""


def defaulted_fields(raw: dict, model: type[BaseModel] | None = None, prefix: str = "") -> list[str]:
    """Dotted paths of the fields (whole sections where a section is absent) that ``raw`` leaves out."""
    model = model or Machine
    out: list[str] = []
    for name, field in model.model_fields.items():
        path = f"{prefix}{name}"
        if name not in raw:
            if field.default is not None:  # an absent optional section (None) means "no such hardware"
                out.append(path)
        elif isinstance(raw[name], dict) and isinstance(field.annotation, type) and \
                issubclass(field.annotation, BaseModel):
            out += defaulted_fields(raw[name], field.annotation, path + ".")
    return out


# ------------------------------------------------------------------------------------------------------
# loading


def preset_files() -> dict[str, Path]:
    """Every shipped preset by name: ``machines/*.yaml`` and each mechanism's ``mechanisms/<m>/presets/*.yaml``
    (found by package layout; a name shipped twice is an error)."""
    found: dict[str, Path] = {}
    for path in [*sorted(PRESET_DIR.glob("*.yaml")), *sorted(MECHANISMS_DIR.glob("*/presets/*.yaml"))]:
        if path.stem in found:
            raise MachineConfigError(f"machine preset {path.stem!r} is shipped twice: {found[path.stem]} and {path}")
        found[path.stem] = path
    return found


OVERLAY_DIR = PRESET_DIR / "overlays"


def overlay_files() -> dict[str, Path]:
    """Every shipped overlay by name (``machines/overlays/*.yaml``): a partial machine tree that any preset
    can take, as ``PRESET+OVERLAY`` or ``overlays: [OVERLAY]`` in a preset file."""
    return {p.stem: p for p in sorted(OVERLAY_DIR.glob("*.yaml"))}


def list_overlays() -> list[str]:
    """Names of the shipped overlays."""
    return sorted(overlay_files())


def _read_overlay(name: str, where: str) -> dict:
    path = overlay_files().get(name)
    if path is None:
        raise MachineConfigError(f"{where}: unknown overlay {name!r}; overlays: {', '.join(list_overlays())}")
    tree = _load_yaml(path) or {}
    if not isinstance(tree, dict) or {"name", "extends", "overlays"} & set(tree):
        raise MachineConfigError(f"{path}: an overlay is a partial machine tree (no name, extends or overlays)")
    return tree


def _split_overlays(name: str) -> tuple[str, list[str]]:
    """``gtx480+gpgpusim`` -> (``gtx480``, [``gpgpusim``]); a name without ``+`` has no overlays."""
    base, *overlays = name.split("+")
    return base, overlays


def _preset_path(name: str) -> Path | None:
    return preset_files().get(name)


def list_machines() -> list[str]:
    """Names of the shipped presets."""
    return sorted(preset_files())


def _format_errors(err: ValidationError, source: str) -> str:
    lines = [f"invalid machine {source}:"]
    for e in err.errors():
        path = ".".join(str(p) for p in e["loc"]) or "(top level)"
        msg = e["msg"]
        if msg.startswith("Value error, "):
            msg = msg[len("Value error, "):]
        ctx = e.get("ctx") or {}
        extra = ""
        if "expected" in ctx:
            extra = f" (allowed: {ctx['expected']})"
        inp = e.get("input")
        shown = "" if isinstance(inp, dict) else f"; got {inp!r}"
        lines.append(f"  {path}: {msg}{extra}{shown}")
    return "\n".join(lines)


def _validate(tree: dict, source: str) -> Machine:
    try:
        return Machine.model_validate(tree)
    except ValidationError as e:
        raise MachineConfigError(_format_errors(e, source)) from None


def parse_override(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` (a ``--set`` argument) as (key, value): the value read as JSON where it is (numbers, true,
    false, null, lists), else kept as text."""
    if "=" not in text:
        raise MachineConfigError(f"--set expects KEY=VALUE, got {text!r}")
    key, value = text.split("=", 1)
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def apply_overrides(tree: dict, overrides: dict[str, Any]) -> dict:
    """Return a copy of ``tree`` with dotted-path overrides applied; unknown paths fail listing the valid keys."""
    out = copy.deepcopy(tree)
    for key, value in overrides.items():
        parts = key.split(".")
        node: Any = out
        for i, p in enumerate(parts):
            last = i == len(parts) - 1
            if isinstance(node, list):
                try:
                    idx = int(p)
                    node[idx]  # noqa: B018  (index check)
                except (ValueError, IndexError):
                    raise MachineConfigError(f"override {key!r}: {'.'.join(parts[:i])} has no element {p!r}") from None
                if last:
                    node[idx] = value
                else:
                    node = node[idx]
                continue
            if not isinstance(node, dict):
                raise MachineConfigError(f"override {key!r}: {'.'.join(parts[:i])} is a value, not a section")
            if p not in node:
                # open maps: units, op classes, energy events, and a mechanism's parameters (validated by its spec)
                if isinstance(node, dict) and (i > 0 and parts[i - 1] in ("units", "op_classes", "events")
                                               or parts[0] == "mechanisms"):
                    node[p] = value if last else {}
                    node = node[p]
                    continue
                valid = ", ".join(sorted(node)) or "(none)"
                where = ".".join(parts[:i]) or "the machine"
                from ..registry import suggestions

                close = suggestions(p, node)
                hint = f"did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
                raise MachineConfigError(f"override {key!r}: {where} has no field {p!r}; {hint}valid: {valid}")
            if last:
                node[p] = value
            else:
                if node[p] is None:
                    raise MachineConfigError(f"override {key!r}: {'.'.join(parts[: i + 1])} is disabled (null)")
                node = node[p]
    return out


def _deep_merge(base: dict, top: dict) -> dict:
    out = dict(base)
    for k, v in top.items():
        out[k] = _deep_merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def _overlay_merge(base: dict, overlay: dict) -> dict:
    """An overlay over a machine tree: as :func:`_deep_merge`, except that a section the machine removed (``l2:
    null``) stays removed: an overlay changes how hardware is modelled, it adds none."""
    out = dict(base)
    for k, v in overlay.items():
        if isinstance(v, dict) and k in out and out[k] is None:
            continue
        out[k] = _overlay_merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def _load_yaml(path: Path) -> Any:
    """The YAML document at ``path``; a syntax error is a :class:`MachineConfigError` at its line and column."""
    try:
        return yamlio.safe_load(Path(path).read_text())
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f":{mark.line + 1}:{mark.column + 1}" if mark is not None else ""
        what = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        context = getattr(exc, "context", None)
        raise MachineConfigError(f"{path}{at}: not valid YAML: {what}{f' ({context})' if context else ''}; fix "
                                 "the syntax at that line (indentation, a missing ':' or an unclosed bracket or "
                                 "quote)") from None
    except OSError as exc:
        raise MachineConfigError(f"{path}: cannot read the machine file: {exc.strerror or exc}") from None


def _read_preset(path: Path, seen: tuple[str, ...] = ()) -> dict:
    """A preset's raw tree; ``extends: NAME`` starts from preset NAME, then each of ``overlays: [...]`` is
    merged over it, then this file's own keys."""
    raw = _load_yaml(path) or {}
    if not isinstance(raw, dict):
        raise MachineConfigError(f"{path}: a machine YAML must be a mapping")
    base = raw.pop("extends", None)
    overlays = raw.pop("overlays", None) or []
    if not isinstance(overlays, list):
        raise MachineConfigError(f"{path}: overlays must be a list of overlay names")
    tree: dict = {}
    if base is not None:
        bname, more = (str(base), []) if str(base).endswith((".yaml", ".yml")) else _split_overlays(str(base))
        overlays = [*more, *overlays]
        bpath = Path(bname) if bname.endswith((".yaml", ".yml")) else _preset_path(bname)
        if bpath is None or not bpath.is_file():
            raise MachineConfigError(f"{path}: extends unknown machine {base!r}; presets: "
                                     f"{', '.join(list_machines())}")
        if str(bpath) in seen:
            raise MachineConfigError(f"{path}: presets extend each other in a cycle ({' -> '.join(seen)})")
        tree = _read_preset(bpath, (*seen, str(path)))
    for name in overlays:
        tree = _overlay_merge(tree, _read_overlay(str(name), str(path)))
    return _deep_merge(tree, raw)


def load_machine(name_or_path: str | Path | Machine, overrides: dict[str, Any] | None = None) -> Machine:
    """A validated :class:`Machine` from a preset name, a YAML path, or a Machine, with dotted overrides."""
    if isinstance(name_or_path, Machine):
        tree = name_or_path.model_dump(mode="json")
        source = name_or_path.name
    else:
        text = str(name_or_path)
        overlays: list[str] = []
        if "+" in text and not text.endswith((".yaml", ".yml")):
            text, overlays = _split_overlays(text)
        path = Path(text)
        if not (text.endswith((".yaml", ".yml")) or path.is_file()):
            preset = _preset_path(text)
            if preset is None:
                from ..registry import suggestions

                close = suggestions(text, list_machines())
                hint = f"did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
                raise MachineConfigError(f"unknown machine {text!r}; {hint}presets: {', '.join(list_machines())}")
            path = preset
        raw = _read_preset(path)
        source = str(path)
        if overlays:
            for name in overlays:
                raw = _overlay_merge(raw, _read_overlay(name, str(name_or_path)))
            raw["name"] = f"{raw.get('name', text)}+{'+'.join(overlays)}"
            source = f"{source} with overlays {', '.join(overlays)}"
        tree = _validate(raw, source).model_dump(mode="json")
        shipped = {p.resolve() for p in preset_files().values()}
        if path.resolve() not in shipped and "extends" not in (_load_yaml(path) or {}):
            missing = sorted((p for p in defaulted_fields(raw) if p not in ("description", "name")),
                             key=lambda p: (p.count("."), p))  # whole sections first
            if missing:
                shown = ", ".join(missing[:12]) + (f" and {len(missing) - 12} more" if len(missing) > 12 else "")
                warnings.warn(f"{path} leaves {len(missing)} fields at their defaults: {shown}. Write them "
                              "out, or start from a preset with `extends: NAME`", MachineDefaultsWarning,
                              stacklevel=2)
    if overrides:
        tree = apply_overrides(tree, overrides)
        source = f"{source} with overrides {overrides}"
    return _validate(tree, source)
