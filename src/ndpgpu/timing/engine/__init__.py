"""The compiled timing engine, one module per component, composed by the loop.

Time is kept in picoseconds. Each clock domain (core, interconnect, L2, DRAM) has integer edges
``edge(k) = k * 10**9 // f_kHz``; a component runs at the edges of its domain, and only when its wake
time has come (a push into a component's input queue lowers its wake time), so idle cycles are skipped
for each component and for the whole machine.

============  ==============================================================================
module        component
============  ==============================================================================
layout        constants, codes and every table's columns (declared once)
queues        clock domains, bounded queues, request and load-operation pools
mapping       address -> channel, slice, bank group, bank, row
caches        set-associative line tables (L1 and L2)
dram          DRAM channel: scheduler, bank timing, refresh, subarrays
links         serial links to memory stacks, the DRAM controller's input
xbar          crossbar interconnect (requests and replies)
mesh          2D-mesh interconnect with virtual channels
l2            L2 slice: lookups, MSHRs, write policy, fills, memory-side execution
rocache       what the SM's read-only caches share: LRU hit, MSHR search, miss request, install
ccache        the SM's constant cache: accesses, MSHRs, fills
icache        the SM's instruction cache: fetch lookups, MSHRs, fills
ldst          the SM's L1 and LD/ST unit, fills, loads, prefetcher
warps         warp and CTA bookkeeping
issue         scoreboard, warp schedulers and the SM tick
hooks         compiled hook points for near-data mechanisms
dispatch      CTA dispatch
loop          the loop composing them, and the state groups it takes (it hands back at a sampled
              launch's window ends: ``ST_SAMPLE``, ``timing.sampling``)
============  ==============================================================================

Everything here is numba-compiled with ``cache=True``; the cache stamp of each function covers every
engine module it imports (``ndpgpu._numba_cache``), and no mechanism: a mechanism's hook functions compile
apart and are called through their addresses (``hooks``). This package re-exports every name, so Python
code reads ``E.CTR_NAMES`` or calls ``E.run_loop`` as ``E``; the component modules load on first use of
one of their names. A mechanism's hardware module imports ``engine.layout`` and the component modules it
calls; the hooks import it when a session first attaches a mechanism (``hooks.bind``).
"""

from importlib import import_module
from typing import Any

from .layout import *  # noqa: F403

# components in dependency order; their names load on first use (``E.run_loop``)
COMPONENTS = ("queues", "mapping", "caches", "dram", "links", "xbar", "mesh", "l2", "rocache", "ccache", "icache",
              "ldst", "warps", "issue", "hooks", "dispatch", "loop")


def __getattr__(name: str) -> Any:
    if name in COMPONENTS:  # ``from . import hooks`` in a component asks the package first
        return import_module(f".{name}", __name__)
    for component in COMPONENTS:
        module = import_module(f".{component}", __name__)
        if name in vars(module) and not name.startswith("_"):
            value = vars(module)[name]
            globals()[name] = value
            return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
