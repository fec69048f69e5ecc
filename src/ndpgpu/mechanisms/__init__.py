"""The near-data mechanisms, one package each (``tom``...): analyses, hardware models and presets.

``ndpgpu.cli`` loads :mod:`.cli`, which adds the ``ndpgpu analyze <mechanism>`` commands.
"""
