"""Imported by the local pool's forkserver (its preload list): the forkserver is killed when the sweep that
started it ends (see :mod:`ndpgpu.experiments.lifeline`)."""

from __future__ import annotations

import os
import sys

from .lifeline import ORPHAN_EXIT, follow_parent

SWEEP_PID_ENV = "NDPGPU_SWEEP_PID"


def _in_forkserver() -> bool:
    """True while ``multiprocessing.forkserver.main`` imports its preload modules (this module among them)."""
    frame = sys._getframe()
    while frame is not None:
        code = frame.f_code
        if code.co_name == "main" and code.co_filename.endswith(os.path.join("multiprocessing", "forkserver.py")):
            return True
        frame = frame.f_back
    return False


if os.environ.get(SWEEP_PID_ENV) and _in_forkserver():
    # the sweep may have died while this server started: then nobody is left to kill it
    if not follow_parent() or os.environ[SWEEP_PID_ENV] != str(os.getppid()):
        os._exit(ORPHAN_EXIT)
