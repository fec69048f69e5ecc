"""``ndpgpu explore``: one kernel under every near-data mechanism, side by side, with the reason each gains or
loses (docs/explore.md).

    from ndpgpu.experiments.explore import explore
    e = explore("examples/saxpy.yaml")          # or a workload name, or a .cu file with launch=...
    print(e.summary()); e.write("out/explore")  # report.md, report.html, report.json, figures/
"""

from __future__ import annotations

import importlib
from typing import Any

# imported on first use (PEP 562): `ndpgpu --help` loads this package for the CLI alone
_WHERE = {"Exploration": "analysis", "Row": "analysis", "OPTIONS": "defaults", "REFERENCE": "defaults",
          "ExploreError": "defaults", "Option": "defaults", "explore": "run"}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value

__all__ = ["OPTIONS", "REFERENCE", "ExploreError", "Exploration", "Option", "Row", "explore"]
