"""LLC-Compute / Omni-Compute (seed 001, "Opportunistic Computing in GPU Architectures", ISCA 2019).

* :mod:`.chains`: the compiler pass that finds and tags the Table 1 load-compute-store offload chains,
  the Omni-Compute shared-memory rule, and the share of dynamic instructions and memory requests the
  chains cover in a functional run's trace (Table 3's columns);
* :mod:`.cli`: ``ndpgpu analyze llc``;
* :mod:`.emn`: Algorithm 1's Earliest Meet Nodes on the mesh layout;
* :mod:`.hardware` (compiled), :mod:`.unit` and :mod:`.config`: the offload and service queues, ComputePackets and
  replies on the mesh, the LLC and core ALUs, behind the engine's hooks; :mod:`.policy`: ``llc:<scheme>``;
* :mod:`.energy`: the energies of its units, declared to the power model.

See ``docs/llc.md``.
"""

from . import energy as energy  # declares the energies of the mechanism's units to the power model
