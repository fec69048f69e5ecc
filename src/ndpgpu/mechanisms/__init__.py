"""The near-data mechanisms, one package each (``tom``...): analyses, hardware models and presets.

A mechanism plugs in by module name, each module found by package (:func:`ndpgpu.registry.discover`):
``<m>.policy`` registers its session policies and ``<m>.cli`` adds ``ndpgpu analyze <m>`` (through
:mod:`.cli`).
"""
