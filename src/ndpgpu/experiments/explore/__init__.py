"""``ndpgpu explore``: one kernel under every near-data mechanism, side by side, with the reason each gains or
loses (docs/explore.md).

    from ndpgpu.experiments.explore import explore
    e = explore("examples/saxpy.yaml")          # or a workload name, or a .cu file with launch=...
    print(e.summary()); e.write("out/explore")  # report.md, report.html, report.json, figures/
"""

from .analysis import Exploration, Row
from .defaults import OPTIONS, REFERENCE, ExploreError, Option
from .run import explore

__all__ = ["OPTIONS", "REFERENCE", "ExploreError", "Exploration", "Option", "Row", "explore"]
