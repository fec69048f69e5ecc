"""A one-line notice on stderr while a compiled engine compiles, so a first use does not look hung.

numba compiles the functional and the timing engine the first time they run (minutes) and loads them from
its cache afterwards (a second or two). :func:`first_call` wraps an engine's first call in a process: when
the call has not returned after ``delay`` seconds, a line says what is happening and how long it usually
takes, and a second line says when it is done. Whether the call compiles is read from the entry point's
numba cache index (:func:`will_compile`): a compile is announced at once, a load from the cache only when it
is slow (a loaded machine), and then as a load. Never on stdout,
where ``--json`` output goes.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Iterator

_DONE: set[str] = set()  # engines whose first call in this process has returned
# each engine's entry point (module, function): its numba cache index says whether a first call compiles
_ENTRY = {"functional": ("ndpgpu.functional.engine", "run"), "timing": ("ndpgpu.timing.engine.loop", "run_loop")}


def will_compile(engine: str) -> bool | None:
    """Whether ``engine``'s first call compiles (no cache index of its entry point's current source stamp):
    True or False, or None when that cannot be told (an engine without a known entry point, a numba without
    the cache). The entry point's module is imported if it is not yet: the timing engine's package loads its
    modules on first use, so at the first call the loop's module may not be imported."""
    import importlib
    import os

    module_name, function = _ENTRY.get(engine, ("", ""))
    try:  # the caller is about to call the entry point: importing its module (not compiling it) costs nothing more
        module = importlib.import_module(module_name)
        index = getattr(module, function)._cache._cache_file._index_path
    except (AttributeError, ImportError, ValueError):
        return None
    return not os.path.exists(index)


@contextlib.contextmanager
def first_call(engine: str, expected: str, *, delay: float = 2.0,
               on_notice: Callable[[], None] | None = None, noun: str = "engine") -> Iterator[None]:
    """Announce on stderr that ``engine`` compiles when its first call in this process lasts over ``delay``
    seconds (``expected``: the usual first-time duration, for the message; ``noun``: what compiles, as in
    "the timing engine" or "the tom mechanism's hardware")."""
    if engine in _DONE:
        yield
        return
    t0 = time.perf_counter()
    shown = threading.Event()
    compiles = will_compile(engine)

    def notice() -> None:
        if compiles is False:  # a load from the cache that takes long (a loaded machine): not a compile
            print(f"ndpgpu: loading the compiled {engine} {noun} from its cache...", file=sys.stderr, flush=True)
        else:
            print(f"ndpgpu: compiling the {engine} {noun} (first use only, usually {expected}; cached "
                  "afterwards)...", file=sys.stderr, flush=True)
        shown.set()
        if on_notice is not None:
            on_notice()

    timer = threading.Timer(0.0 if compiles else delay, notice)  # a known compile is announced at once
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        _DONE.add(engine)
        if shown.is_set():
            print(f"ndpgpu: {engine} {noun} ready ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)


def forget(engine: str) -> None:
    """Treat ``engine``'s next call as its first again (tests)."""
    _DONE.discard(engine)
