"""TELEPORT (seed 002, "TELEPORT: Hardware/software alternative to CUDA shared memory programming",
Microprocessors and Microsystems 2018).

* :mod:`.classify`: the precalculability analysis of every global read's index on PTX (static,
  quasi-static with its degree, indirect, operator, control, induction);
* :mod:`.regions`: the preload table (Eqs. 2/3; a row per tile row of 2-D tiles; merged stencil regions);
* :mod:`.cli`: ``ndpgpu analyze teleport``;
* :mod:`.hardware` (compiled), :mod:`.unit` and :mod:`.config`: the controller, the buffer carved from unused shared
  memory, block gating and buffer hits, the I-/S-/R-machines; :mod:`.policy`: ``teleport:<machine>``;
* :mod:`.cost`: the hardware cost calculator, Table 5, MMA's footprint; :mod:`.energy`: unit energies.

See ``docs/teleport.md``.
"""

from . import energy as energy  # declares the energies of the mechanism's units to the power model
