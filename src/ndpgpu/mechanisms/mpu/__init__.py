"""MPU, the Memory-centric Processing Unit (seed 003): a SIMT processor whose register files, ALUs and
load/store extensions sit beside the DRAM banks of 3D-stacked memory.

* :mod:`.locations`: the compiler's location-annotation pass (Algorithm 1): each register near bank, far
  bank, both or unknown, and each ALU instruction's hint; the four location policies;
* :mod:`.config`: Table II's configuration and Table III's area arithmetic;
* :mod:`.registers`: the offload engine and register track table replayed over a functional trace;
* :mod:`.lsu`: the address interleaving and the hybrid LSU's offload rule;
* :mod:`.cli`: ``ndpgpu analyze mpu``.

The processor itself (the near-bank units, the register track table and move engine, the hybrid LSU, the TSV
bus and the meshes) is not built yet; see ``docs/mpu.md``.
"""
