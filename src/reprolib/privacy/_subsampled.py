"""Amplification of Rényi DP by subsampling without replacement (replace-one neighbours).

Wang, Balle, Kasiviswanathan (AISTATS 2019), Theorem 9: let M be RDP with curve eps(.) for
datasets of m records that differ in one replaced record, and run it on a sample of m of n
records drawn uniformly without replacement (rate gamma = m / n). For every integer alpha >= 2
the composition is RDP at order alpha with

    1/(alpha - 1) log(1 + gamma^2 C(alpha, 2) min{4 (e^eps(2) - 1), e^eps(2) min{2, (e^eps(inf) - 1)^2}}
                      + sum_{j=3}^{alpha} gamma^j C(alpha, j) e^{(j - 1) eps(j)} min{2, (e^eps(inf) - 1)^j}).

We take eps(inf) = inf (true of every Gaussian-type mechanism here), so both minima with 2 are 2.
A Rényi divergence does not decrease with its order, so a non-integer order alpha takes the
bound at ceil(alpha); orders past ``max_order`` are left infinite (unused), which only over-states
epsilon.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy.special import gammaln, logsumexp

from reprolib.privacy._exact import inflate


def without_replacement_rdp(base: Callable[[np.ndarray], np.ndarray], rate: float,
                            orders: np.ndarray, *, max_order: int = 256) -> np.ndarray:
    """Theorem 9's RDP at ``orders`` of a mechanism with curve ``base`` (called on the integer
    orders 2 .. ``max_order``) run on a sample without replacement at ``rate`` = m / n.
    """
    if not 0 < rate < 1:
        raise ValueError(f"the sampling rate m / n must lie strictly between 0 and 1, got {rate!r}")
    alphas = np.atleast_1d(np.asarray(orders, dtype=float))
    if np.any(alphas <= 1):
        raise ValueError("Rényi orders must be > 1")
    if isinstance(max_order, bool) or not isinstance(max_order, int) or max_order < 2:
        raise ValueError(f"max_order must be an integer >= 2, got {max_order!r}")
    integers = np.arange(2, max_order + 1)
    bound = _integer_bound(np.asarray(base(integers.astype(float)), dtype=float), rate)
    out = np.full(alphas.shape, np.inf)
    within = alphas <= max_order
    out[within] = bound[np.ceil(alphas[within]).astype(int) - 2]
    return out


def _integer_bound(eps: np.ndarray, rate: float) -> np.ndarray:
    """The bound at orders 2 .. len(eps) + 1, given eps(j) at those orders."""
    if np.any(np.isnan(eps)) or np.any(eps < 0):
        raise ValueError("the base curve must be non-negative (inf where it fails)")
    alphas = np.arange(2, len(eps) + 2)
    log_rate = math.log(rate)
    # the order-2 term: log(gamma^2 C(alpha, 2) min{4 (e^eps2 - 1), 2 e^eps2})
    eps2 = eps[0]
    if eps2 == 0:
        log_second = -np.inf
    elif np.isinf(eps2):
        log_second = np.inf
    else:
        log_second = min(math.log(4.0) + math.log(math.expm1(eps2)), math.log(2.0) + eps2)
    log_factorials = gammaln(alphas + 1.0)
    log_binomial = (log_factorials[:, None] - log_factorials[None, :]
                    - gammaln(alphas[:, None] - alphas[None, :] + 1.0))  # (alpha, j)
    with np.errstate(invalid="ignore"):
        terms = (math.log(2.0) + alphas[None, :] * log_rate + log_binomial
                 + (alphas[None, :] - 1.0) * eps[None, :])
    terms[:, 0] = 2.0 * log_rate + log_binomial[:, 0] + log_second
    # the magnitudes of each term's parts, whose rounding errors the sum carries
    sizes = (alphas[None, :] * abs(log_rate) + log_factorials[:, None] + log_factorials[None, :]
             + np.abs(gammaln(alphas[:, None] - alphas[None, :] + 1.0)))
    sizes[:, 1:] += math.log(2.0) + (alphas[1:] - 1.0) * eps[1:]
    sizes[:, 0] += abs(log_second)
    beyond = alphas[None, :] > alphas[:, None]  # j runs up to alpha only
    terms[beyond], sizes[beyond] = -np.inf, 0.0
    # log(1 + the rest) as log1p(exp(.)) of the rest's log-sum-exp: no cancellation against the
    # leading 1, and the relative error is at most the rest's absolute one (see
    # reprolib.privacy._dp_sgd._log_moment, the same argument)
    with np.errstate(invalid="ignore"):
        values = np.logaddexp(0.0, logsumexp(terms, axis=1)) / (alphas - 1.0)
    values = np.where(np.isnan(values), np.inf, values)
    finite = np.where(np.isfinite(sizes), sizes, 0.0)
    return inflate(values, 8.0 * finite.max(axis=1) + alphas + 8.0)
