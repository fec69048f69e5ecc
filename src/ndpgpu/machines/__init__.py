"""Machine presets (YAML), loaded by ``ndpgpu.timing.load_machine``."""
