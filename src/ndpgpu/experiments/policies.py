"""Session policies moved to :mod:`ndpgpu.mechanisms.policy` (a mechanism registers its own; the experiments
layer only builds them). These names stay importable from here for scripts written against the old place."""

from ..mechanisms.policy import (
    POLICIES,
    POLICY_WORDS,
    PolicyError,
    SessionPolicy,
    make_policy,
    register_policy,
    suggest_policy,
)

__all__ = ["POLICIES", "POLICY_WORDS", "PolicyError", "SessionPolicy", "make_policy", "register_policy",
           "suggest_policy"]
