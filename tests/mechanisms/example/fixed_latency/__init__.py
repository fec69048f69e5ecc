"""A worked example of a mechanism outside the package (``docs/extending.md``): a fixed-latency accelerator.

A stretch of each warp's instruction stream, from the first time it reaches ``start_pc`` to the next time
it reaches ``end_pc``, runs on an ideal accelerator that takes ``latency`` core cycles and costs the SM
nothing: the warp skips the stretch and resumes when the latency has passed.

* :mod:`.hardware`: the compiled hooks (found through ``NDPGPU_MECHANISMS=fixed_latency.hardware``);
* :mod:`.accelerator`: the Python side (state vector per launch, counters, statistics);
* :mod:`.policy`: the session policy ``fixedlat:pcs,start=S,end=E[,latency=L]`` (found beside the hardware).
"""
