"""The one-shot release of every 2-way marginal, shared by PrivPGD and Private-GSD.

Both measure the counts of all C(d, 2) attribute pairs once, in a single Gaussian mechanism, and
spend the rest of their work on post-processing the noisy counts.
"""

from __future__ import annotations

import numpy as np

from reprolib.data import Dataset
from reprolib.privacy import Ledger, gaussian_mechanism, gaussian_sigma, marginal_l2_sensitivity

Pair = tuple[str, str]


def all_pairs(data: Dataset) -> tuple[Pair, ...]:
    """Every 2-way marginal, attributes in domain order: C(d, 2) pairs."""
    names = data.domain.attributes
    return tuple((a, b) for i, a in enumerate(names) for b in names[i + 1 :])


def measure_pairs(data: Dataset, pairs: tuple[Pair, ...], *, rho: float,
                  rng: np.random.Generator, ledger: Ledger) -> tuple[list[np.ndarray], float]:
    """Release all ``pairs``' count marginals in one Gaussian mechanism costing ``rho``.

    The concatenated count vector has L2 sensitivity sqrt(2 |pairs|) under replace-one (sqrt of
    |pairs| under add/remove), so every cell gets N(0, sigma^2) with sigma = sensitivity /
    sqrt(2 rho): under replace-one sqrt(|pairs| / rho), the same as |pairs| separate releases at
    rho / |pairs| each. Returns the noisy marginals (shaped like ``Dataset.marginal``) and sigma
    (in counts).
    """
    sensitivity = marginal_l2_sensitivity(ledger.relation, len(pairs))
    sigma = gaussian_sigma(rho, sensitivity)
    exact = [data.marginal(pair) for pair in pairs]
    noisy = gaussian_mechanism(np.concatenate([m.ravel() for m in exact]), sigma=sigma,
                               sensitivity=sensitivity, rng=rng, ledger=ledger,
                               label=f"all {len(pairs)} 2-way marginals (one release)")
    cuts = np.cumsum([m.size for m in exact])[:-1]
    parts = np.split(noisy, cuts)
    return [part.reshape(m.shape) for part, m in zip(parts, exact, strict=True)], sigma
