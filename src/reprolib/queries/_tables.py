"""Marginal tables as arrays whose axes a clique names, one attribute per axis."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from reprolib.queries._workloads import Clique


def sum_to(table: np.ndarray, axes: Clique, kept: Clique,
           reduce: Callable[..., np.ndarray] = np.sum) -> np.ndarray:
    """``table`` (axes named by ``axes``) reduced over the axes not in ``kept``, which must be a
    subset of ``axes``; the result's axes are in ``kept``'s order. ``reduce`` is ``np.sum`` by
    default (a marginal), or e.g. ``scipy.special.logsumexp`` for tables in log space.
    """
    drop = tuple(i for i, a in enumerate(axes) if a not in kept)
    remaining = [a for a in axes if a in kept]
    reduced = reduce(table, axis=drop) if drop else table
    return np.transpose(reduced, [remaining.index(a) for a in kept])


def broadcast_to(table: np.ndarray, axes: Clique, target: Clique) -> np.ndarray:
    """``table`` (axes ``axes``, a subset of ``target``) reordered and given unit axes so that it
    broadcasts against a table on ``target``.
    """
    ordered = np.transpose(table, [axes.index(a) for a in target if a in axes])
    return np.expand_dims(ordered, [i for i, a in enumerate(target) if a not in axes])
