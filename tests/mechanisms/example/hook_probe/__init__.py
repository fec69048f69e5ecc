"""A mechanism that only counts its hook calls: the test of the hook points no shipped mechanism uses yet.

``hardware.py`` is found through ``NDPGPU_MECHANISMS``; :class:`HookProbe` attaches it. Counters, per
hook point: CTA starts, SM ticks, L2 requests accepted, DRAM commands by kind (ACT, PRE, RD, WR, REF), and
the L1 misses its prefetch hook saw (it prefetches the next line, as the engine's ``next_line`` does).
"""

from __future__ import annotations

import numpy as np

from ndpgpu.timing import MechanismHardware

from . import hardware as H


class HookProbe(MechanismHardware):
    mechanism = H.MECHANISM
    counter_names = H.COUNTER_NAMES

    def launch_state(self, session, trace) -> np.ndarray:
        return np.zeros(len(H.COUNTER_NAMES), np.int64)
