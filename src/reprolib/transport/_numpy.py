"""Sliced W1 in NumPy: directions on the unit sphere and exact 1-D W1 by sorting.

The torch twins used inside PrivPGD (batched, differentiable) are in :mod:`reprolib.transport._torch`;
both draw directions as normalised Gaussian vectors, so both are uniform on the sphere.
"""

from __future__ import annotations

import numpy as np


def unit_directions(n_directions: int, dim: int = 2, *, seed: int = 0) -> np.ndarray:
    """``(n_directions, dim)`` directions uniform on the unit sphere: normalised Gaussian draws.

    Drawn from ``numpy.random.default_rng(seed)``, so the same seed gives the same directions.
    """
    if n_directions < 1 or dim < 1:
        raise ValueError(
            f"need n_directions >= 1 and dim >= 1, got n_directions={n_directions}, dim={dim}"
        )
    theta = np.random.default_rng(seed).standard_normal((n_directions, dim))
    return theta / np.linalg.norm(theta, axis=1, keepdims=True)


def sliced_w1(points: np.ndarray, p: np.ndarray, q: np.ndarray, directions: np.ndarray) -> float:
    """SW1 between weights ``p`` and ``q`` on common support ``points``, averaged over ``directions``.

    For every unit direction theta the points are projected to <x, theta> and the exact 1-D
    distance W1 = integral |F_p - F_q| (sum over consecutive sorted points of |CDF gap| * spacing)
    is taken; the result is the mean over directions (Monte Carlo estimate of Eq. 1 with q = 1).

    Args:
        points: ``(C, dim)`` support points (ties allowed; zero-weight points change nothing).
        p, q: ``(C,)`` non-negative weights with equal totals (probability vectors in practice).
        directions: ``(L, dim)`` unit vectors, e.g. from :func:`unit_directions`.
    """
    points, p, q = np.asarray(points, float), np.asarray(p, float), np.asarray(q, float)
    directions = np.asarray(directions, float)
    if points.ndim != 2 or p.shape != (len(points),) or q.shape != (len(points),):
        raise ValueError(
            f"points must be (C, dim) and p, q (C,); got {points.shape}, {p.shape}, {q.shape}"
        )
    if directions.ndim != 2 or directions.shape[1] != points.shape[1]:
        raise ValueError(
            f"directions must be (L, {points.shape[1]}) to match the points, got {directions.shape}"
        )
    if not np.isclose(p.sum(), q.sum(), rtol=1e-9, atol=1e-12):
        raise ValueError(
            f"p and q must have equal totals for W1, got {p.sum()} and {q.sum()}; normalise both"
        )
    positions = directions @ points.T
    order = np.argsort(positions, axis=1, kind="stable")
    ordered = np.take_along_axis(positions, order, axis=1)
    cdf_gap = np.cumsum((p - q)[order], axis=1)[:, :-1]
    return float(np.mean(np.sum(np.abs(cdf_gap) * np.diff(ordered, axis=1), axis=1)))
