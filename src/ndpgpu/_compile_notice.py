"""A one-line notice on stderr while a compiled engine compiles, so a first use does not look hung.

numba compiles the functional and the timing engine the first time they run (minutes) and loads them from
its cache afterwards (a second or two). :func:`first_call` wraps an engine's first call in a process: when
the call has not returned after ``delay`` seconds, a line says what is happening and how long it usually
takes, and a second line says when it is done. Loading from the cache stays silent. Never on stdout,
where ``--json`` output goes.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable, Iterator

_DONE: set[str] = set()  # engines whose first call in this process has returned


@contextlib.contextmanager
def first_call(engine: str, expected: str, *, delay: float = 2.0,
               on_notice: Callable[[], None] | None = None) -> Iterator[None]:
    """Announce on stderr that ``engine`` compiles when its first call in this process lasts over ``delay``
    seconds (``expected``: the usual first-time duration, for the message)."""
    if engine in _DONE:
        yield
        return
    t0 = time.perf_counter()
    shown = threading.Event()

    def notice() -> None:
        print(f"ndpgpu: compiling the {engine} engine (first use only, usually {expected}; cached afterwards)...",
              file=sys.stderr, flush=True)
        shown.set()
        if on_notice is not None:
            on_notice()

    timer = threading.Timer(delay, notice)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        _DONE.add(engine)
        if shown.is_set():
            print(f"ndpgpu: {engine} engine ready ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)


def forget(engine: str) -> None:
    """Treat ``engine``'s next call as its first again (tests)."""
    _DONE.discard(engine)
