"""Text for ``ndpgpu machines`` and ``ndpgpu machines show NAME``, and the machine overrides of ``--set``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..cliargs import UsageError
from .peaks import dram_peak_gbs
from .presets import list_machines, load_machine, overlay_files, parse_override, preset_files
from .spec import MachineConfigError


def machine_overrides(items: list[str] | None) -> dict[str, Any]:
    """``--set KEY=VALUE`` arguments as one dict of machine overrides (each value read as JSON where it is, else
    kept as text); a malformed one is a :class:`UsageError`."""
    try:
        return dict(parse_override(item) for item in items or [])
    except MachineConfigError as exc:
        raise UsageError(str(exc)) from None


def machines_list() -> str:
    """One line per preset: name, SMs, clocks, L2, DRAM and its peak bandwidth, config hash."""
    lines = [f"{'name':16s} {'SMs':>4s} {'core MHz':>9s} {'L2':>8s} {'DRAM':>18s} {'peak GB/s':>10s}  hash"]
    for name in list_machines():
        m = load_machine(name)
        l2 = f"{m.l2.size_kb * m.num_slices:g} KB" if m.l2 is not None else "none"
        dram = f"{m.dram.impl} x{m.dram.scheduling_channels}"
        lines.append(f"{name:16s} {m.num_sms:>4d} {m.clocks.core_mhz:>9g} {l2:>8s} {dram:>18s} "
                     f"{dram_peak_gbs(m):>10.1f}  {m.config_hash()}")
    lines.append("")
    for name, summary in overlay_summaries().items():
        lines.append(f"overlay {name}: {summary} (any preset: NAME+{name})")
    lines.append("`ndpgpu machines show NAME` prints a preset with the source of each value; "
                 "override fields with --set path=value.")
    return "\n".join(lines)


def machines_show(name_or_path: str, overrides: dict | None = None) -> str:
    """The preset's YAML as shipped (with its source comments), then the resolved config hash.

    A path to a user YAML, or a preset with ``overrides``, is validated and shown in its resolved form
    (defaults filled in).
    """
    m = load_machine(name_or_path, overrides or None)
    preset = None if overrides else preset_files().get(str(name_or_path))
    body = preset.read_text() if preset is not None else m.to_yaml()
    if overrides:
        sets = ", ".join(f"{k}={v}" for k, v in overrides.items())
        body = f"# {name_or_path} with {sets} (resolved: defaults filled in)\n" + body
    elif preset is None and Path(name_or_path).is_file():
        body = f"# resolved from {name_or_path} (defaults filled in)\n" + body
    peak = dram_peak_gbs(m)
    return f"{body.rstrip()}\n# config hash {m.config_hash()}; DRAM peak {peak:.1f} GB/s; {m.num_slices} L2 slices"


def flatten(tree: object, prefix: str = "") -> dict[str, object]:
    """A nested config as ``{dotted.key: value}`` (lists kept whole)."""
    if not isinstance(tree, dict):
        return {prefix: tree}
    out: dict[str, object] = {}
    for k, v in tree.items():
        out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
    return out


def machines_diff(a: str, b: str, overrides: dict | None = None) -> list[tuple[str, object, object]]:
    """``(field, value in a, value in b)`` for every resolved field that differs (``overrides`` apply to b)."""
    fa = flatten(load_machine(a).model_dump(mode="json"))
    fb = flatten(load_machine(b, overrides or None).model_dump(mode="json"))
    return [(k, fa.get(k), fb.get(k)) for k in sorted(set(fa) | set(fb)) if fa.get(k) != fb.get(k)]


def machines_json(name_or_path: str | None = None, overrides: dict | None = None) -> dict:
    """``ndpgpu machines --json``: every preset's summary; with a name, that machine resolved (every field)."""
    if name_or_path is not None:
        m = load_machine(name_or_path, overrides or None)
        return {"name": m.name, "config_hash": m.config_hash(), "dram_peak_gbs": dram_peak_gbs(m),
                "l2_slices": m.num_slices, "machine": m.model_dump(mode="json")}
    out = []
    for name in list_machines():
        m = load_machine(name)
        out.append({"name": name, "description": m.description, "sms": m.num_sms, "core_mhz": m.clocks.core_mhz,
                    "l2_kb": m.l2.size_kb * m.num_slices if m.l2 is not None else None, "dram": m.dram.impl,
                    "dram_channels": m.dram.scheduling_channels, "dram_peak_gbs": dram_peak_gbs(m),
                    "config_hash": m.config_hash()})
    return {"machines": out, "overlays": [{"name": k, "summary": v} for k, v in overlay_summaries().items()]}


def overlay_summaries() -> dict[str, str]:
    """Each shipped overlay's name and the first line of its description (its file's first comment)."""
    out = {}
    for name, path in overlay_files().items():
        first = next((ln.lstrip("# ").strip() for ln in path.read_text().splitlines() if ln.startswith("#")), "")
        out[name] = first.split(":")[0].rstrip(",.")
    return out
