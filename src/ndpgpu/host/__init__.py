"""The host side of the CuPy-style API (:mod:`ndpgpu.api`), by job: a module's image in a device's memory and
its names (:mod:`.modules`), CUDA's launch limits (:mod:`.limits`) and kernel-argument packing
(:mod:`.arguments`). :mod:`ndpgpu.api` keeps the user-facing classes; these modules hold no state."""
