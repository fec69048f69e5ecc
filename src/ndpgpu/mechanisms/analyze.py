"""Shared by the mechanisms' ``ndpgpu analyze <mechanism>`` commands: the source a command names (a .cu or
.ptx file, or a registered workload, or a paper's abbreviation of one) and the kernels it selects."""

from __future__ import annotations

from pathlib import Path
from typing import Any


class AnalyzeError(Exception):
    """The source, workload, scale or kernel given to ``ndpgpu analyze`` does not exist."""


def load_module(source: str, options: tuple[str, ...] = (), scale: str | None = None,
                aliases: dict[str, str] | None = None):
    """(``RawModule``, a description) for a .cu/.ptx path or a workload name (or one of ``aliases``, a
    paper's abbreviations: abbreviation -> workload); raises :class:`AnalyzeError`.

    ``scale`` is checked against the workload's scales; its kernels are compiled the same at every scale.
    """
    from ..api import RawModule

    aliases = aliases or {}
    path = Path(source)
    if path.suffix in (".cu", ".ptx") or path.exists():
        if not path.is_file():
            raise AnalyzeError(f"no such file: {source}")
        if scale is not None:
            raise AnalyzeError("--scale only applies to a workload, not to a file")
        if path.suffix == ".ptx":
            if options:
                raise AnalyzeError("--options only applies to CUDA sources, not to a .ptx file")
            return RawModule(path=str(path)), str(path)
        return RawModule(path=str(path), options=options), str(path)
    from ..workloads.base import WorkloadError, all_workloads

    workloads = all_workloads()
    name = aliases.get(source, source)
    if name not in workloads:
        known = f"; the paper's are {', '.join(sorted(aliases.values()))}" if aliases else ""
        raise AnalyzeError(f"{source!r} is neither a .cu/.ptx file nor a registered workload (see `ndpgpu "
                           f"workloads`{known})")
    cls = workloads[name]
    try:
        cls.params(scale or "tiny")
    except WorkloadError as exc:
        raise AnalyzeError(str(exc)) from exc
    paths = cls.source_paths()
    if len(paths) != 1:
        if options:
            raise AnalyzeError(f"--options is not supported for workload {name!r}, which has {len(paths)} sources")
        from ..workloads.runner import _module_for

        return _module_for(cls), f"workload {name}"
    return RawModule(path=str(paths[0]), options=(*cls.options, *options)), f"workload {name} ({paths[0].name})"


def recording_module(recording: Any) -> Any:
    """The compiled module a recording's kernels came from, for a policy's compiler pass: the one the run
    launched when it is at hand (a kernel file run by ``ndpgpu run``), else its registered workload's."""
    module = getattr(recording, "module", None)
    if module is not None:
        return module
    from ..workloads.base import get_workload
    from ..workloads.runner import _module_for

    return _module_for(get_workload(getattr(recording, "workload", None) or recording.name))


def kernel_programs(module: Any, kernels: list[str] | None = None) -> list[tuple[str, Any]]:
    """``(name, decoded program)`` of each kernel of ``module``: all, or ``kernels`` by any name (mangled or C++),
    each once; an unknown name raises :class:`AnalyzeError` listing the module's kernels."""
    from ..api import Device

    names = list(module.kernel_names)
    chosen: list[str] = []
    for k in kernels or names:
        try:
            chosen.append(module.get_function(k).name)
        except KeyError as exc:
            raise AnalyzeError(f"no kernel {k!r}; the module's kernels are {', '.join(names) or 'none'}") from exc
    dev = Device()
    return [(k, module.get_function(k).program(dev)) for k in dict.fromkeys(chosen)]
