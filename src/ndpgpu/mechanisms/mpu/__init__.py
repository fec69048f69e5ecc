"""MPU, the Memory-centric Processing Unit (seed 003): a SIMT processor whose register files, ALUs and
load/store extensions sit beside the DRAM banks of 3D-stacked memory.

* :mod:`.locations`: the compiler's location-annotation pass (Algorithm 1): each register near bank, far
  bank, both or unknown, and each ALU instruction's hint; the four location policies;
* :mod:`.config`: Table II's configuration and Table III's area arithmetic;
* :mod:`.registers`: the offload engine and register track table replayed over a functional trace;
* :mod:`.lsu`: the address interleaving and the hybrid LSU's offload rule;
* :mod:`.cli`: ``ndpgpu analyze mpu``;
* :mod:`.hardware`: the compiled processor core (the core hooks on a machine with ``core.model: mpu``), its
  TSV bus, register moves, near-bank execution and hybrid LSU, and the near-bank units' side;
* :mod:`.unit`: its Python side (state vector per launch, statistics); :mod:`.policy`: ``mpu:<policy>``
  (optionally ``+far-smem``) and ``mpu:ponb``;
* :mod:`.energy`: the energies of its units (Table II) declared to the power model.

Not built yet: the meshes and the reproduction; see ``docs/mpu.md``.
"""

from . import energy as energy  # declares the energies of MPU's units to the power model
