"""TOM (seed 000): transparent offloading and mapping to SMs in 3D-stacked memory.

* :mod:`.cost`: the bandwidth cost model of offloading a block (Eqs. 1-4);
* :mod:`.candidates`: the compiler pass that picks offload candidates and builds the metadata table;
* :mod:`.cli`: ``ndpgpu analyze tom``;
* :mod:`.mapping`: stack address mappings and the Memory Map Analyzer (``docs/tom_mapping.md``);
* :mod:`.verify`: checks of offloaded blocks' live sets and written lines on functional runs.

See ``docs/tom.md``.
"""

from . import energy as energy  # declares the energies of TOM's units to the power model
