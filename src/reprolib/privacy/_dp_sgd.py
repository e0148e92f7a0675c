"""Rényi DP of DP-SGD: T steps of the Poisson-subsampled Gaussian mechanism.

Each step adds N(0, (z C)^2 I) to the sum of the per-record gradients clipped to norm C over a
batch that holds every record independently with probability q. Under add/remove neighbours
one step's RDP at an integer order alpha is (Mironov, Talwar and Zhang 2019, Section 3.3)

    eps(alpha) = log A_alpha / (alpha - 1),
    A_alpha = sum_{k=0}^{alpha} C(alpha, k) (1 - q)^(alpha - k) q^k exp((k^2 - k) / (2 z^2)),

which bounds both directions of the divergence (their Theorem 5); T steps compose to T times
one step's curve. We evaluate the sum in log space, vectorised over k; the tests hold it to
opacus's implementation (``opacus.accountants.analysis.rdp``), which evaluates the same sum term
by term in Python and takes seconds where this takes milliseconds. A fractional order takes the
value of the next integer, an upper bound since Rényi divergence grows with the order; below
order 2 the curve is infinite, which only loses tightness where epsilon exceeds log(1/delta).

Under replace-one neighbours a replacement is a removal followed by an addition: D -> D - x ->
D - x + x'. The weak triangle inequality of Rényi divergence (Mironov 2017, Proposition 11, with
p = q = 2) bounds its divergence at order alpha by

    (alpha - 1/2) / (alpha - 1) * eps(2 alpha) + eps(2 alpha - 1).

The bound is not tight: at q = 1, where the exact curve is the Gaussian's 2 alpha / z^2, it is
1.125 times that at alpha = 2 and tends to it as alpha grows. But it is a proof, which a
sensitivity of 2C plugged into the add/remove analysis is not.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln, logsumexp

from reprolib.privacy import _validate
from reprolib.privacy._neighbours import NeighbourRelation
from reprolib.privacy._rdp import smallest_sigma
from reprolib.privacy._rdp_ledger import ORDERS, RdpLedger


def sampled_gaussian_rdp(sample_rate: float, noise_multiplier: float,
                         relation: NeighbourRelation) -> np.ndarray:
    """The RDP curve, at the ledger's ``ORDERS``, of one DP-SGD step at Poisson sampling rate
    ``sample_rate`` and noise multiplier ``noise_multiplier`` (the noise's standard deviation
    over the clipping norm), under ``relation``.
    """
    if not 0.0 < sample_rate <= 1.0:
        raise ValueError(f"sample_rate must lie in (0, 1], got {sample_rate!r}")
    _validate.positive("noise_multiplier", noise_multiplier)
    curve = np.full(len(ORDERS), math.inf)
    used = ORDERS >= 2.0
    alphas = ORDERS[used]
    if relation is NeighbourRelation.ADD_REMOVE:
        curve[used] = add_remove_rdp(sample_rate, noise_multiplier, alphas)
    else:
        curve[used] = ((alphas - 0.5) / (alphas - 1.0)
                       * add_remove_rdp(sample_rate, noise_multiplier, 2.0 * alphas)
                       + add_remove_rdp(sample_rate, noise_multiplier, 2.0 * alphas - 1.0))
    return curve


def add_remove_rdp(sample_rate: float, noise_multiplier: float,
                   alphas: np.ndarray) -> np.ndarray:
    """One step's add/remove RDP at ``alphas`` >= 2, each at the next integer order."""
    orders = np.ceil(np.asarray(alphas, dtype=float)).astype(np.int64)
    if orders.size and orders.min() < 2:
        raise ValueError("orders must be at least 2")
    if sample_rate == 1.0:  # no subsampling: the Gaussian mechanism
        return orders / (2.0 * noise_multiplier ** 2)
    unique, where = np.unique(orders, return_inverse=True)
    log_q, log_1q = math.log(sample_rate), math.log1p(-sample_rate)
    values = np.empty(len(unique))
    for i, alpha in enumerate(unique):
        k = np.arange(alpha + 1, dtype=float)
        log_terms = (gammaln(alpha + 1.0) - gammaln(k + 1.0) - gammaln(alpha - k + 1.0)
                     + (alpha - k) * log_1q + k * log_q
                     + (k * k - k) / (2.0 * noise_multiplier ** 2))
        values[i] = max(float(logsumexp(log_terms)), 0.0) / (alpha - 1.0)
    return values[where]


def charge_dp_sgd(ledger: RdpLedger, *, sample_rate: float, noise_multiplier: float,
                  steps: int, label: str) -> None:
    """Charge ``steps`` DP-SGD steps to ``ledger`` before they run (they are not adaptive: their
    number and noise are fixed in advance); raise BudgetExceededError, charging nothing, if they
    do not fit.
    """
    if steps < 1 or int(steps) != steps:
        raise ValueError(f"steps must be a positive integer, got {steps!r}")
    ledger.charge(sampled_gaussian_rdp(sample_rate, noise_multiplier, ledger.relation),
                  mechanism="dp-sgd", label=label, repeat=int(steps),
                  sample_rate=float(sample_rate), noise_multiplier=float(noise_multiplier),
                  steps=float(steps))


def dp_sgd_steps(ledger: RdpLedger, *, sample_rate: float, noise_multiplier: float,
                 most: int, then: np.ndarray | None = None) -> int:
    """The largest number of steps, at most ``most``, that fits what the ledger has left, with
    room kept for a later release of RDP curve ``then``; 0 if not even one step fits.
    """
    curve = sampled_gaussian_rdp(sample_rate, noise_multiplier, ledger.relation)
    later = np.zeros(len(ORDERS)) if then is None else then

    def fits(steps: int) -> bool:
        return ledger.epsilon_after(curve * steps + later) <= ledger.budget.epsilon

    if most < 1 or not fits(1):
        return 0
    low, high = 1, most  # fits(low); the answer lies in [low, high]
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if fits(middle) else (low, middle - 1)
    return low


def dp_sgd_noise_multiplier(ledger: RdpLedger, *, sample_rate: float, steps: int,
                            then: np.ndarray | None = None) -> float:
    """The smallest noise multiplier (to a relative 1e-6, from above) at which ``steps`` DP-SGD
    steps fit what the ledger has left, with room kept for a later release of RDP curve
    ``then``.
    """
    later = np.zeros(len(ORDERS)) if then is None else then
    if ledger.epsilon_after(later) >= ledger.budget.epsilon:
        raise ValueError("the release kept for later leaves no budget for DP-SGD")

    def spends(noise_multiplier: float) -> float:
        curve = sampled_gaussian_rdp(sample_rate, noise_multiplier, ledger.relation)
        return ledger.epsilon_after(curve * steps + later)

    return smallest_sigma(spends, ledger.budget.epsilon, start=1.0, rtol=1e-6)
