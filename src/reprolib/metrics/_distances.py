"""PrivPGD's distances between real and synthetic data over all 2-way marginals (Eq. 10 and 11).

Both average over the C(d, 2) pairs S of attributes and compare the normalised 2-way marginals
(each dataset divided by its own number of records, so the synthetic size m may differ from n):

* :func:`average_sw1` (Eq. 10): SW1 between the embedded marginals mu_S[D], mu_S[D_DP], measures on
  the grid of bin centres Emb(X)_S in [0, 1]^2 (units of the embedding);
* :func:`average_tv` (Eq. 11): total variation, half the L1 distance, in [0, 1];
* :func:`average_l1`: the L1 distance, 2 TV, in [0, 2]. This is what the authors' evaluation
  computes (``newl1_2Way_avg``) and what the paper's tables print as "TV distance" (GEM on
  Medical reaches 1.4 > 1).

SW1 is estimated as the authors' evaluation does (POT ``sliced_wasserstein_distance`` with
``n_projections=50, p=1`` on each pair's weighted support): the mean over 50 directions drawn
uniformly from the unit circle of the exact 1-D W1 = integral |F_mu - F_nu| (Eq. 2 with q = 1).
The authors' directions are unseeded; ours come from ``seed``, and the same directions serve every
pair (as a seeded POT call would).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import numpy as np

from reprolib.data import Dataset
from reprolib.metrics._embedding import bin_centres, require_domain, require_records

SW1_DIRECTIONS = 50
"""Directions of the SW1 estimate in the authors' evaluation script (``wdist_1_2Way``)."""


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


def _pairs(real: Dataset, synthetic: Dataset) -> list[tuple[str, str]]:
    require_domain(synthetic, real.domain, "synthetic")
    require_records(real, "real")
    require_records(synthetic, "synthetic")
    if len(real.domain) < 2:
        raise ValueError(
            f"the 2-way metrics need at least 2 attributes, the domain has {len(real.domain)}"
        )
    return list(itertools.combinations(real.domain.attributes, 2))


def _pair_distributions(
    real: Dataset, synthetic: Dataset
) -> Iterator[tuple[tuple[str, str], np.ndarray, np.ndarray]]:
    """For every pair S: (S, nu_S[D], nu_S[D_DP]) as normalised row-major cell vectors."""
    for pair in _pairs(real, synthetic):
        yield (pair, real.marginal(pair).ravel() / real.records,
               synthetic.marginal(pair).ravel() / synthetic.records)


def pair_grid(size_a: int, size_b: int) -> np.ndarray:
    """``(size_a * size_b, 2)`` embedded cell centres of a 2-way marginal, in row-major cell order."""
    first, second = np.meshgrid(bin_centres(size_a), bin_centres(size_b), indexing="ij")
    return np.stack([first.ravel(), second.ravel()], axis=1)


def average_sw1(
    real: Dataset, synthetic: Dataset, *, n_directions: int = SW1_DIRECTIONS, seed: int = 0
) -> float:
    """Eq. 10: mean over all pairs S of SW1(mu_S[D], mu_S[D_DP]) on the embedded grid.

    Units of the embedding [0, 1]^2. ``n_directions`` random directions from ``seed`` (the same for
    every pair) estimate each SW1; defaults follow the authors' evaluation (50 directions).
    """
    directions = unit_directions(n_directions, 2, seed=seed)
    distances = [
        sliced_w1(pair_grid(*real.domain.project(pair).sizes), p, q, directions)
        for pair, p, q in _pair_distributions(real, synthetic)
    ]
    return float(np.mean(distances))


def average_l1(real: Dataset, synthetic: Dataset) -> float:
    """Mean over all pairs S of ||nu_S[D] - nu_S[D_DP]||_1 (L1, not TV; in [0, 2]).

    The quantity the paper's tables label "TV distance" (the authors' ``newl1_2Way_avg``).
    """
    return float(np.mean([np.abs(p - q).sum() for _, p, q in _pair_distributions(real, synthetic)]))


def average_tv(real: Dataset, synthetic: Dataset) -> float:
    """Eq. 11: mean over all pairs S of TV(nu_S[D], nu_S[D_DP]) = L1 / 2 (in [0, 1])."""
    return 0.5 * average_l1(real, synthetic)
