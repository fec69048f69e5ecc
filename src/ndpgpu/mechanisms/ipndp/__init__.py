"""IP-NDP (Choi et al., IEEE TC 2022): a lightweight NDP GPU for image processing on an HBM logic die.

Its pieces: the machines (``presets/``: Base-8-LT, IP-8, IP-16 and the perfect-L2 variants beside the shared
``ipndp-base8``) and their power sets (``power/``), pattern-aware CTA allocation and block CTA scheduling
(``dispatch.py``), the boundary-aware stride prefetcher and the per-warp stride prefetcher (``hardware.py``
compiled, ``unit.py`` its Python side, ``tables.py``, ``geometry.py``), the configuration (``config.py``) and the
session policy ``ipndp:...`` (``policy.py``), and the logic-die arithmetic (``area.py``). The paper's
configurations are the reproduction's (``ndpgpu.experiments.papers.ipndp``). See docs/ipndp.md.
"""
