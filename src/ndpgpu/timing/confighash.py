"""A machine's config hash: SHA-256 of its tree in canonical JSON (keys sorted, floats as their shortest
round-tripping text), under a schema name that changes only when the meaning of a tree changes."""

from __future__ import annotations

import hashlib
import json
from typing import Any

HASH_SCHEMA = "ndpgpu-machine-v1"


def canonical(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {str(k): canonical(v) for k, v in sorted(obj.items())}
    if isinstance(obj, (list, tuple)):
        return [canonical(v) for v in obj]
    if isinstance(obj, float):
        if obj.is_integer():
            return int(obj)
        return float(repr(obj))
    return obj


def config_hash(tree: dict) -> str:
    """sha256 (first 16 hex digits) of the canonical JSON of a config tree."""
    text = json.dumps({"schema": HASH_SCHEMA, "config": canonical(tree)}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]
