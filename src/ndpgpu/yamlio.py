"""YAML reading with PyYAML's C parser when it is built in (about ten times faster than the pure-Python one).

Both parsers build the same plain Python trees. Their error messages differ in wording (libyaml's "did not find
expected ..." against PyYAML's "expected ..."), so a document the C parser rejects is parsed again by the
pure-Python one, whose error (the same line and column, PyYAML's words) is the one raised: errors read the same
on every installation, and only failing documents pay the slower parse.
"""

from typing import Any

import yaml

_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str) -> Any:
    """The YAML document in ``text`` as plain Python objects (as :func:`yaml.safe_load`, and its errors)."""
    try:
        return yaml.load(text, Loader=_SAFE_LOADER)  # noqa: S506 -- a safe loader, C or Python
    except yaml.YAMLError:
        if _SAFE_LOADER is yaml.SafeLoader:
            raise
    return yaml.safe_load(text)  # raises the pure-Python parser's error for the same document
