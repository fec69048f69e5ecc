"""The timing tests' trace builder (``tests/timing/tracegen.py``) importable by name."""

from __future__ import annotations

import sys
from pathlib import Path

_TIMING = str(Path(__file__).resolve().parents[2] / "timing")
if _TIMING not in sys.path:
    sys.path.insert(0, _TIMING)
