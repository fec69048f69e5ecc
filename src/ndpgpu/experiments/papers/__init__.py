"""Reproductions, studies and generated documents: one module each, registered with
:func:`ndpgpu.experiments.report.register_reproduction` and run by ``ndpgpu reproduce NAME``."""
