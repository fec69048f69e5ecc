"""LLC-Compute / Omni-Compute (seed 001, "Opportunistic Computing in GPU Architectures", ISCA 2019).

* :mod:`.chains`: the compiler pass that finds and tags the Table 1 load-compute-store offload chains,
  the Omni-Compute shared-memory rule, and the share of dynamic instructions and memory requests the
  chains cover in a functional run's trace (Table 3's columns);
* :mod:`.cli`: ``ndpgpu analyze llc``.

The timing hardware (offload queue, service queues, ComputePackets on the mesh, EMN table) is not built
yet. See ``docs/llc.md``.
"""
