"""Queries: weighted marginal workloads (all k-way, target, skewed), and class-conditional
queries on mixed-type data (categorical marginals, linear thresholds, mixed prefixes).

The class-conditional queries run on JAX; they are imported on first use, so importing this
package does not load JAX.
"""

from __future__ import annotations

import importlib
from typing import Any

from reprolib.queries._workloads import (
    Clique,
    Workload,
    all_kway,
    random_target,
    skewed_workload,
    target_workload,
)

_CONDITIONAL = ("ConditionalMarginals", "LinearThresholds", "MixedPrefixes", "OneHotLayout",
                "table_answers", "threshold_answers")

__all__ = [
    "Clique",
    "ConditionalMarginals",
    "LinearThresholds",
    "MixedPrefixes",
    "OneHotLayout",
    "Workload",
    "all_kway",
    "random_target",
    "skewed_workload",
    "table_answers",
    "target_workload",
    "threshold_answers",
]


def __getattr__(name: str) -> Any:
    if name in _CONDITIONAL:
        return getattr(importlib.import_module("reprolib.queries._conditional"), name)
    raise AttributeError(f"module 'reprolib.queries' has no attribute {name!r}")
