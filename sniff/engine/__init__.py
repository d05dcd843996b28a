"""Provides the prefix-cache simulator: prompts as paths in a prefix tree, replayed under a policy.

`build_prompts` turns requests into paths in a `PrefixTree`; `simulate` replays them under a
`Policy` from `load_policies`. Nothing here imports pandas.
"""

from __future__ import annotations

from sniff.engine.policies import (
    OWN_POLICY,
    POLICIES,
    Policy,
    Simulation,
    load_policies,
    simulation,
    with_overrides,
)
from sniff.engine.prompts import SimPrompt, build_prompts, session_ttls
from sniff.engine.simulate import SimUsage, simulate
from sniff.engine.tree import Node, PrefixTree

__all__ = [
    "OWN_POLICY",
    "POLICIES",
    "Node",
    "Policy",
    "PrefixTree",
    "SimPrompt",
    "Simulation",
    "SimUsage",
    "build_prompts",
    "load_policies",
    "session_ttls",
    "simulate",
    "simulation",
    "with_overrides",
]
