"""Make ``src/`` importable when the package is not installed (a no-op once it is), and the helper
modules beside this file importable by name."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

if importlib.util.find_spec("ndpgpu") is None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
