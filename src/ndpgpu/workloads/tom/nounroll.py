"""TOM's copies of the five workloads it shares with other reproductions, compiled with TOM's rule.

``backprop`` and ``fastwalsh`` are also TELEPORT's, ``bfs_rodinia``, ``kmeans`` and ``scalarprod`` also
LLC-Compute's: those keep nvcc's default compile, as their reproductions were decided with it. The TOM
reproduction runs these ``*_nounroll`` copies instead: the same sources, inputs and references, compiled with
:data:`~ndpgpu.workloads.tom.TOM_NVCC_OPTIONS` (no loop unrolled) like the five TOM-only workloads, so one
compilation rule holds for all ten TOM workloads and for nothing else.
"""

from __future__ import annotations

from ndpgpu.workloads.base import Workload, register
from ndpgpu.workloads.tom import TOM_NVCC_OPTIONS
from ndpgpu.workloads.tom.backprop import Backprop
from ndpgpu.workloads.tom.bfs_rodinia import BfsRodinia
from ndpgpu.workloads.tom.fastwalsh import FastWalsh
from ndpgpu.workloads.tom.kmeans import Kmeans
from ndpgpu.workloads.tom.scalarprod import ScalarProd

SUFFIX = "_nounroll"


def _nounroll(base: type[Workload]) -> type[Workload]:
    """``base`` compiled with TOM's rule, registered as ``<base.name>_nounroll`` (TOM's paper only)."""
    cls = type(f"{base.__name__}NoUnroll", (base,), {
        "__module__": __name__,
        "__doc__": f"{base.name} compiled with TOM's rule (no loop unrolled).",
        "name": base.name + SUFFIX,
        "papers": ("TOM",),
        "description": base.description + "; compiled with TOM's rule: no loop unrolled",
        "options": (*TOM_NVCC_OPTIONS, *(o for o in base.options if o not in TOM_NVCC_OPTIONS)),
    })
    return register(cls)


BackpropNoUnroll = _nounroll(Backprop)
BfsRodiniaNoUnroll = _nounroll(BfsRodinia)
FastWalshNoUnroll = _nounroll(FastWalsh)
KmeansNoUnroll = _nounroll(Kmeans)
ScalarProdNoUnroll = _nounroll(ScalarProd)
