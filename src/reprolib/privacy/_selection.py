"""Private selection in zCDP: the exponential mechanism and noisy top-k through Gumbel noise."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from reprolib.privacy import _validate
from reprolib.privacy._exact import round_up
from reprolib.privacy._ledger import Ledger


def exponential_mechanism_rho(epsilon: float) -> float:
    """ZCDP cost epsilon**2 / 8 of the exponential mechanism with parameter ``epsilon``.

    The mechanism samples r with probability proportional to exp(epsilon * u(r) / (2 Delta)); it
    is epsilon-bounded-range, hence epsilon**2/8-zCDP (Cesar & Rogers 2021; AIM paper, Proposition 9).
    Computed exactly and rounded up.
    """
    epsilon = _validate.non_negative("epsilon", epsilon)
    return round_up(Fraction(epsilon) ** 2 / 8)


def exponential_mechanism_epsilon(rho: float) -> float:
    """The exponential-mechanism parameter whose zCDP cost is ``rho``: sqrt(8 rho), rounded down.

    The largest float epsilon with ``exponential_mechanism_rho(epsilon) <= rho`` (found by ulp
    steps from the floating-point sqrt), so rounding only ever makes the selection more random.
    """
    rho = _validate.non_negative("rho", rho)
    epsilon = math.sqrt(8.0 * rho)
    while exponential_mechanism_rho(epsilon) > rho:
        epsilon = math.nextafter(epsilon, 0.0)
    while exponential_mechanism_rho(above := math.nextafter(epsilon, math.inf)) <= rho:
        epsilon = above
    return epsilon


def _gumbel_scores(scores: np.ndarray, epsilon: float, sensitivity: float,
                   rng: np.random.Generator) -> np.ndarray:
    scores = np.asarray(scores, dtype=float)
    if scores.ndim != 1 or scores.size == 0:
        raise ValueError(f"scores must be a non-empty 1-D array, got shape {scores.shape}")
    if not np.all(np.isfinite(scores)):
        raise ValueError("scores must be finite")
    return epsilon * scores / (2.0 * sensitivity) + rng.gumbel(size=scores.shape)


def exponential_mechanism(
    scores: np.ndarray,
    *,
    epsilon: float,
    sensitivity: float,
    rng: np.random.Generator,
    ledger: Ledger,
    label: str,
) -> int:
    """Index drawn with probability proportional to exp(epsilon * score / (2 sensitivity)).

    Sampled by the Gumbel-max trick (argmax of the scaled scores plus i.i.d. standard Gumbel
    noise), which is exact. ``sensitivity`` bounds the change of any score between neighbours under
    the ledger's relation. Charges epsilon**2/8 before sampling.
    """
    epsilon = _validate.positive("epsilon", epsilon)
    sensitivity = _validate.positive("sensitivity", sensitivity)
    ledger.charge(exponential_mechanism_rho(epsilon), mechanism="exponential", label=label,
                  epsilon=epsilon, sensitivity=sensitivity)
    return int(np.argmax(_gumbel_scores(scores, epsilon, sensitivity, rng)))


def gumbel_top_k(
    scores: np.ndarray,
    k: int,
    *,
    epsilon: float,
    sensitivity: float,
    rng: np.random.Generator,
    ledger: Ledger,
    label: str,
) -> np.ndarray:
    """The k indices with the largest Gumbel-noised scaled scores, best first.

    One-shot Gumbel top-k has the same distribution as k rounds of the exponential mechanism
    with parameter ``epsilon`` that each remove the previous winner ("peeling"; Durfee & Rogers
    2019), so its cost is k * epsilon**2 / 8 by composition (exact, rounded up), charged before
    sampling.
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive integer, got {k!r}")
    epsilon = _validate.positive("epsilon", epsilon)
    sensitivity = _validate.positive("sensitivity", sensitivity)
    n_candidates = np.asarray(scores).size
    if k > n_candidates:
        raise ValueError(f"k={k} exceeds the number of candidates ({n_candidates})")
    ledger.charge(round_up(int(k) * Fraction(epsilon) ** 2 / 8), mechanism="gumbel-top-k", label=label,
                  epsilon=epsilon, sensitivity=sensitivity, k=float(k))
    noisy = _gumbel_scores(scores, epsilon, sensitivity, rng)
    return _top_k(noisy, int(k))


def _top_k(values: np.ndarray, k: int) -> np.ndarray:
    """``np.argsort(-values, kind="stable")[:k]`` without sorting every value: the k-th largest
    value found by partition, then a stable sort of the values at or above it (ties keep index
    order, as in the full stable sort).
    """
    kth = values[np.argpartition(-values, k - 1)[k - 1]]
    candidates = np.flatnonzero(values >= kth)
    return candidates[np.argsort(-values[candidates], kind="stable")][:k]
