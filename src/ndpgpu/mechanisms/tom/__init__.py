"""TOM (seed 000): transparent offloading and mapping to SMs in 3D-stacked memory.

* :mod:`.cost`: the bandwidth cost model of offloading a block (Eqs. 1-4);
* :mod:`.candidates`: the compiler pass that picks offload candidates and builds the metadata table;
* :mod:`.cli`: ``ndpgpu analyze tom``.

See ``docs/tom.md``.
"""
