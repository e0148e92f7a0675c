"""Query workloads: weighted marginal workloads (all k-way, target, skewed)."""

from reprolib.queries._workloads import (
    Clique,
    Workload,
    all_kway,
    random_target,
    skewed_workload,
    target_workload,
)

__all__ = ["Clique", "Workload", "all_kway", "random_target", "skewed_workload", "target_workload"]
