"""TELEPORT (seed 002): precalculability analysis on PTX, preload table and controller, shared-memory buffer."""
