"""Neighbouring relations and the sensitivities of marginal (histogram) queries under each."""

from __future__ import annotations

import enum

from reprolib.privacy._exact import sqrt_up


class NeighbourRelation(enum.Enum):
    """Which datasets count as neighbours.

    ``ADD_REMOVE`` ("unbounded" DP): one record added or removed; AIM, MST, PrivSyn and PrivMRF use
    it, and so does our PrivBayes+PGM (as in AIM's benchmark). ``REPLACE_ONE`` ("bounded" DP): one
    record replaced by another; PrivPGD, RAP, RAP++, GEM and the PrivBayes paper use it. A
    replace-one neighbour is two add/remove steps away, so sensitivities of counting queries
    double (L1) or grow by sqrt(2) (L2).
    """

    ADD_REMOVE = "add-remove"
    REPLACE_ONE = "replace-one"


def marginal_l1_sensitivity(relation: NeighbourRelation, n_marginals: int = 1) -> float:
    """L1 sensitivity of the concatenated count vectors of ``n_marginals`` marginals.

    One record sits in exactly one cell of each marginal: adding or removing it moves one count
    (L1 = 1 per marginal); replacing it moves one unit from one cell to another (L1 = 2).
    """
    _check_count(n_marginals)
    per_marginal = 1.0 if relation is NeighbourRelation.ADD_REMOVE else 2.0
    return per_marginal * n_marginals


def marginal_l2_sensitivity(relation: NeighbourRelation, n_marginals: int = 1) -> float:
    """L2 sensitivity of the concatenated count vectors of ``n_marginals`` marginals.

    sqrt(n_marginals) under add/remove and sqrt(2 * n_marginals) under replace-one (in the worst
    case the replaced record's old and new cells differ in every marginal), rounded up.
    """
    _check_count(n_marginals)
    per_marginal_squared = 1 if relation is NeighbourRelation.ADD_REMOVE else 2
    return sqrt_up(per_marginal_squared * n_marginals)


def _check_count(n_marginals: int) -> None:
    if isinstance(n_marginals, bool) or not isinstance(n_marginals, int) or n_marginals < 1:
        raise ValueError(f"n_marginals must be a positive integer, got {n_marginals!r}")
