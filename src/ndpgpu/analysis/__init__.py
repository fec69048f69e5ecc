"""The shared analyses of PTX functions (one copy for every mechanism; see ``docs/analysis.md``).

* :mod:`.cfg`: basic blocks, dominators, post-dominators, reconvergence points;
* :mod:`.defuse`: registers defined/used per instruction, reaching definitions;
* :mod:`.memops`: memory instructions and per-block load/store counts;
* :mod:`.liveness`: live registers per block/instruction and of single-entry regions;
* :mod:`.loops`: natural loops, induction variables, trip counts;
* :mod:`.linexpr` / :mod:`.affine`: affine values and addresses in tid/ctaid/ntid/nctaid/parameters, and
  their ranges over a launch.

``analyze(fn)`` bundles them, each computed on first use and shared with the others.
"""

from __future__ import annotations

from functools import cached_property

from ..frontend.ir import Function
from .affine import AffineAnalysis
from .cfg import CFG
from .defuse import DefUse, ReachingDefs
from .liveness import Liveness
from .loops import LoopForest
from .memops import BlockMem, block_memory


class Analyses:
    """Every analysis of one function, computed lazily and sharing their inputs."""

    def __init__(self, fn: Function):
        self.fn = fn

    @cached_property
    def cfg(self) -> CFG:
        return CFG(self.fn)

    @cached_property
    def defuse(self) -> DefUse:
        return DefUse(self.fn)

    @cached_property
    def reaching(self) -> ReachingDefs:
        return ReachingDefs(self.cfg, self.defuse)

    @cached_property
    def liveness(self) -> Liveness:
        return Liveness(self.cfg, self.defuse)

    @cached_property
    def loops(self) -> LoopForest:
        return LoopForest(self.cfg, self.defuse, self.reaching)

    @cached_property
    def affine(self) -> AffineAnalysis:
        return AffineAnalysis(self.fn, self.cfg, self.defuse, self.loops)

    @cached_property
    def memory(self) -> list[BlockMem]:
        return block_memory(self.cfg)


def analyze(fn: Function) -> Analyses:
    """The analyses of ``fn`` (each computed on first access)."""
    return Analyses(fn)


__all__ = ["CFG", "AffineAnalysis", "Analyses", "DefUse", "Liveness", "LoopForest", "ReachingDefs", "analyze"]
