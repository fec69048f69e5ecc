"""Tie a helper process's life to another's, so that killing a sweep (even by SIGKILL) leaves nothing behind.

The local pool's processes form a chain: the sweep starts a forkserver, which forks the workers.
:func:`follow_parent` asks the kernel to kill the calling process when its parent ends (Linux
``PR_SET_PDEATHSIG``); the forkserver calls it by importing :mod:`ndpgpu.experiments.forkserver_guard`, each
worker in its initializer. :func:`watch` adds a thread that exits the process when a given process ends (for
systems without ``prctl``). The resource tracker exits by itself once every holder of its pipe is gone.
"""

from __future__ import annotations

import ctypes
import os
import select
import signal
import sys
import threading
import time

PR_SET_PDEATHSIG = 1
ORPHAN_EXIT = 70  # the exit status of a worker whose sweep died


def follow_parent() -> bool:
    """Be killed (SIGKILL) when the parent process ends; False where the kernel cannot do that."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):
        return False
    return os.getppid() != 1  # the parent may have died before the call: then nobody would signal us


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def watch(pid: int, poll_s: float = 1.0) -> threading.Thread:
    """Start a daemon thread that ends this process (``os._exit``) once process ``pid`` has ended."""

    def wait_then_exit() -> None:
        try:
            fd = os.pidfd_open(pid)
        except (AttributeError, OSError):
            fd = None
        if fd is not None:
            select.select([fd], [], [])  # readable once the process has ended
        else:
            while _alive(pid):
                time.sleep(poll_s)
        os._exit(ORPHAN_EXIT)

    thread = threading.Thread(target=wait_then_exit, name=f"ndpgpu-lifeline-{pid}", daemon=True)
    thread.start()
    return thread
