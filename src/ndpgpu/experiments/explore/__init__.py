"""``ndpgpu explore``: one kernel under every near-data mechanism, side by side, with the reason each gains or
loses (docs/explore.md).

    from ndpgpu.experiments.explore import explore
    e = explore("examples/saxpy.yaml")          # or a workload name, or a .cu file with launch=...
    print(e.summary()); e.write("out/explore")  # report.md, report.html, report.json, figures/
"""

from __future__ import annotations

from ..._lazy import lazy_getattr

# imported on first use (PEP 562): `ndpgpu --help` loads this package for the CLI alone
_WHERE = {"Exploration": "analysis", "Row": "analysis", "OPTIONS": "defaults", "REFERENCE": "defaults",
          "ExploreError": "defaults", "Option": "defaults", "explore": "run"}


__getattr__ = lazy_getattr(__name__, _WHERE, globals())

__all__ = ["OPTIONS", "REFERENCE", "ExploreError", "Exploration", "Option", "Row", "explore"]
