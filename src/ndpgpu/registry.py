"""One registry pattern for everything ndpgpu finds by name.

Workloads, reproductions, executors, session-policy prefixes, timing implementations and CLI subcommands
are each a :class:`Registry`: a name maps to one object, a second object under a taken name is refused
(naming both), and an unknown name fails listing the known ones::

    WORKLOADS = Registry("workload", error=WorkloadError, load=lambda: ...)

    @WORKLOADS.register("saxpy")
    class Saxpy(Workload): ...

    WORKLOADS.get("nope")  # WorkloadError: unknown workload 'nope'; known workloads: saxpy, ...

Entries register themselves when their module is imported. A registry's ``load`` callable imports those
modules the first time the registry is read, usually by package with :func:`discover` (the ``policy``
module of every ``ndpgpu.mechanisms.<m>``) or :func:`import_submodules` (every module of
``ndpgpu.experiments.papers``). Nothing is skipped quietly: a module that fails to import raises.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import pkgutil
from collections.abc import Callable, Iterable, Iterator
from types import ModuleType
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")


LISTED_NAMES = 20  # an unknown-name error lists the known names up to this many


class UnknownName(KeyError):
    """No entry of a registry has that name (the default error of :meth:`Registry.get`)."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0]) if self.args else ""


class DuplicateName(ValueError):
    """Two different objects were registered under one name in the same registry."""


def suggestions(name: str, known: Iterable[str], n: int = 3) -> list[str]:
    """The known names closest to a misspelt ``name`` (difflib's ratio, case-insensitive), best first."""
    import difflib

    by_lower = {k.lower(): k for k in known}
    return [by_lower[m] for m in difflib.get_close_matches(str(name).lower(), list(by_lower), n=n, cutoff=0.6)]


def describe(obj: object) -> str:
    """``module.QualName`` of a class, function or module (what a duplicate-name error names)."""
    if isinstance(obj, ModuleType):
        return obj.__name__
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if isinstance(module, str) and isinstance(qualname, str):
        return f"{module}.{qualname}"
    return repr(obj)


def _same_definition(a: object, b: object) -> bool:
    """``a`` is ``b``, or ``b`` is ``a`` defined again (a reloaded module: same module and qualified name)."""
    if a is b:
        return True
    if isinstance(a, ModuleType) or isinstance(b, ModuleType):
        return False
    key_a = (getattr(a, "__module__", None), getattr(a, "__qualname__", None))
    key_b = (getattr(b, "__module__", None), getattr(b, "__qualname__", None))
    return None not in key_a and key_a == key_b


class Registry(Generic[T]):
    """Objects of one kind by unique name.

    ``kind`` names the things in messages ("workload", "CLI subcommand"); ``plural`` defaults to
    ``kind + "s"``. :meth:`get` raises ``error(message)`` for an unknown name (:class:`UnknownName`
    unless the caller's own class is given). ``load`` is called once, before the first read, to import
    the modules that register the entries; if it raises, the next read calls it again. ``entries`` is the
    dict to keep the entries in (default: a new one). ``listing``: how a person lists them all (``ndpgpu
    workloads``), named by an unknown-name error instead of every name when there are more than
    :data:`LISTED_NAMES`.
    """

    def __init__(self, kind: str, *, plural: str | None = None, error: type[Exception] = UnknownName,
                 load: Callable[[], object] | None = None, entries: dict[str, T] | None = None,
                 listing: str = "") -> None:
        self.kind = kind
        self.listing = listing
        self.plural = plural or f"{kind}s"
        self.error = error
        self._load = load
        self._loaded = load is None
        self._loading = False
        self._entries: dict[str, T] = {} if entries is None else entries

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {len(self._entries)} registered)"

    @overload
    def register(self, name: str) -> Callable[[T], T]: ...

    @overload
    def register(self, name: str, obj: T) -> T: ...

    def register(self, name: str, obj: Any = ...) -> Any:
        """Register ``obj`` as ``name`` and return it; without ``obj``, a decorator that does so.

        Registering the same object again (or its definition from a reloaded module) is allowed; another
        object under a taken name raises :class:`DuplicateName`.
        """
        if obj is ...:
            return lambda o: self.register(name, o)
        if name in self._entries and not _same_definition(previous := self._entries[name], obj):
            raise DuplicateName(f"{self.kind} {name!r} is registered twice: by {describe(previous)} and by "
                                f"{describe(obj)}")
        self._entries[name] = obj
        return obj

    def unregister(self, name: str) -> T | None:
        """Remove ``name`` (tests that register temporary entries); return what it was, or None."""
        return self._entries.pop(name, None)

    def get(self, name: str) -> T:
        """The object registered as ``name``; an unknown name raises ``error`` listing the known names."""
        self.ensure_loaded()
        try:
            return self._entries[name]
        except KeyError:
            n = len(self._entries)
            if n > LISTED_NAMES:  # too many to list: how many, and how to list them
                known = f"{n} known {self.plural}" + (f" (list them with `{self.listing}`)" if self.listing else
                                                      f": {', '.join(sorted(self._entries)[:LISTED_NAMES])}, ...")
            else:
                known = f"known {self.plural}: " + (", ".join(sorted(self._entries)) or "(none registered)")
            close = suggestions(name, self._entries)
            hint = f"did you mean {' or '.join(repr(c) for c in close)}? " if close else ""
            raise self.error(f"unknown {self.kind} {name!r}; {hint}{known}") from None

    def names(self) -> list[str]:
        """The registered names, sorted."""
        self.ensure_loaded()
        return sorted(self._entries)

    def items(self) -> list[tuple[str, T]]:
        """``(name, object)`` pairs, sorted by name."""
        self.ensure_loaded()
        return sorted(self._entries.items(), key=lambda kv: kv[0])

    def __contains__(self, name: object) -> bool:
        self.ensure_loaded()
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        self.ensure_loaded()
        return len(self._entries)

    def ensure_loaded(self) -> None:
        """Run ``load`` unless it has completed (or is running: a module it imports may read the registry)."""
        if self._loaded or self._loading or self._load is None:
            return
        self._loading = True
        try:
            self._load()
            self._loaded = True
        finally:
            self._loading = False


# -- discovery by package -------------------------------------------------------------------------------
_DISCOVERED: dict[tuple[str, str], list[ModuleType]] = {}


def _module_infos(package: ModuleType) -> list[pkgutil.ModuleInfo]:
    path = getattr(package, "__path__", None)
    if path is None:
        raise TypeError(f"{package.__name__} is a module, not a package")
    return sorted(pkgutil.iter_modules(path, package.__name__ + "."), key=lambda info: info.name)


def _has_submodule(info: pkgutil.ModuleInfo, name: str) -> bool:
    """Whether package ``info`` contains module ``name``, found without importing the package."""
    spec = info.module_finder.find_spec(info.name, None)  # type: ignore[call-arg]
    locations = getattr(spec, "submodule_search_locations", None)
    return bool(locations) and any(m.name == name for m in pkgutil.iter_modules(locations))


def discover(package: str, module_name: str) -> list[ModuleType]:
    """Import ``<package>.<sub>.<module_name>`` for every subpackage ``<sub>`` that has that module.

    E.g. ``discover("ndpgpu.mechanisms", "policy")`` imports every mechanism's ``policy`` module, whose
    import registers its policies. The search runs once per ``(package, module_name)``; the modules are
    returned sorted by name. An import error propagates (and the next call tries again).
    """
    key = (package, module_name)
    if key not in _DISCOVERED:
        infos = _module_infos(importlib.import_module(package))
        _DISCOVERED[key] = [importlib.import_module(f"{info.name}.{module_name}")
                            for info in infos if info.ispkg and _has_submodule(info, module_name)]
    return list(_DISCOVERED[key])


def import_submodules(package: str) -> list[ModuleType]:
    """Import every module below ``package`` (subpackages recursively), sorted by name within each level.

    E.g. every reproduction module of ``ndpgpu.experiments.papers``. Runs once per package; an import
    error propagates (and the next call tries again).
    """
    key = (package, "")
    if key not in _DISCOVERED:
        found: list[ModuleType] = []
        pending = [importlib.import_module(package)]
        while pending:
            for info in _module_infos(pending.pop(0)):
                module = importlib.import_module(info.name)
                found.append(module)
                if info.ispkg:
                    pending.append(module)
        _DISCOVERED[key] = found
    return list(_DISCOVERED[key])


def subpackages(package: str) -> list[str]:
    """Names of the direct subpackages of ``package``, sorted (the packages themselves are not imported)."""
    return [info.name for info in _module_infos(importlib.import_module(package)) if info.ispkg]


MECHANISMS_ENV = "NDPGPU_MECHANISMS"
MECHANISMS_ENTRY_POINTS = "ndpgpu.mechanisms"


def external_mechanisms() -> list[str]:
    """Hardware modules of mechanisms outside the package, in order, without repeats: those named in
    ``NDPGPU_MECHANISMS`` (comma-separated module names, e.g. ``mine.hardware``), then the entry points of
    group ``ndpgpu.mechanisms`` of installed distributions. Nothing is imported here."""
    names = [m.strip() for m in os.environ.get(MECHANISMS_ENV, "").split(",") if m.strip()]
    try:
        from importlib.metadata import entry_points

        names += [ep.value for ep in entry_points(group=MECHANISMS_ENTRY_POINTS)]
    except Exception:  # noqa: BLE001  (a broken distribution's metadata must not stop the engine)
        pass
    return list(dict.fromkeys(names))


def external_siblings(module_name: str) -> list[ModuleType]:
    """For each external mechanism (:func:`external_mechanisms`, ``pkg.hardware``), import its package's
    module ``module_name`` (``pkg.policy``) where the package has one: how an outside mechanism's session
    policies register themselves, as ``ndpgpu.mechanisms.<m>.policy`` modules do. A module that exists but
    fails to import raises."""
    found: list[ModuleType] = []
    for hardware in external_mechanisms():
        package, dot, _ = hardware.rpartition(".")
        if not dot:
            continue
        name = f"{package}.{module_name}"
        try:
            spec = importlib.util.find_spec(name)
        except ModuleNotFoundError:
            spec = None
        if spec is not None:
            found.append(importlib.import_module(name))
    return found
