"""TELEPORT's machine parameters: the subtree ``mechanisms.teleport`` of a machine (YAML or ``--set
mechanisms.teleport.buffer_kb=16``). They are the hardware's sizes and arbitration; a policy string's setting
of the same name (``teleport:real,buffer_kb=64``) takes precedence for that run. The defaults are
:class:`.config.Teleport`'s, so a machine that sets nothing runs as before."""

from __future__ import annotations

from typing import Literal

from ...timing.registry import register_machine_params
from ...timing.spec import F, Spec

# the fields a machine may set, each the same-named field of config.Teleport (the policy's settings win)
FIELDS = ("buffer_kb", "table_entries", "priority", "arbitration", "controller", "max_outstanding")


@register_machine_params("teleport")
class TeleportMachine(Spec):
    """TELEPORT's hardware on this machine (seed 002, Sec. 3.2, 5.3)."""

    buffer_kb: int = F(48, "KiB", "the preload buffer per core (4 sets of 128-B lines), less the kernel's own "
                       "shared memory", ge=1, le=1024)
    table_entries: int = F(64, "entries", "the preload table", ge=1, le=1 << 20)
    priority: int = F(3, "class", "the controller's class in the network's and FR-FCFS's arbitration (0..3)",
                      ge=0, le=3)
    arbitration: Literal["tpref", "cpref", "alt"] = F("tpref", "name", "who goes first at a core's request "
                                                      "port: the controller, the core, or alternate cycles")
    controller: Literal["shared", "core"] = F("shared", "name", "one controller in the block dispatcher, or one "
                                              "per core")
    max_outstanding: int = F(0, "requests", "cap on the controller's requests in flight per core (0: none)",
                             ge=0, le=1 << 20)
