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
from reprolib.privacy._exact import inflate
from reprolib.privacy._gaussian import gaussian_rho
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
        curve[used] = inflate((alphas - 0.5) / (alphas - 1.0)
                              * add_remove_rdp(sample_rate, noise_multiplier, 2.0 * alphas)
                              + add_remove_rdp(sample_rate, noise_multiplier, 2.0 * alphas - 1.0),
                              5.0)  # the coefficient's three roundings, a product and a sum
    return curve


def add_remove_rdp(sample_rate: float, noise_multiplier: float,
                   alphas: np.ndarray) -> np.ndarray:
    """One step's add/remove RDP at ``alphas`` >= 2, each at the next integer order, bounded from
    above (see :func:`_log_moment`).
    """
    orders = np.ceil(np.asarray(alphas, dtype=float)).astype(np.int64)
    if orders.size and orders.min() < 2:
        raise ValueError("orders must be at least 2")
    if sample_rate == 1.0:  # no subsampling: the Gaussian mechanism, alpha / (2 z^2)
        return np.nextafter(orders * gaussian_rho(noise_multiplier, 1.0), np.inf)  # rho, up
    unique, where = np.unique(orders, return_inverse=True)
    bounds = [_log_moment(int(alpha), sample_rate, noise_multiplier) for alpha in unique]
    values, units = (np.array(column) for column in zip(*bounds, strict=True))
    return inflate(values / (unique - 1.0), units + 1.0)[where]


def _log_moment(alpha: int, sample_rate: float, noise_multiplier: float) -> tuple[float, float]:
    """Log A_alpha and a bound, in units of roundoff, on the relative error of its evaluation.

    The binomial weights C(alpha, k) (1 - q)^(alpha - k) q^k sum to one, so A_alpha - 1 is the
    sum over k >= 2 of the weights times expm1((k^2 - k) / (2 z^2)), all positive (the terms of
    k = 0 and 1 vanish). Summing A_alpha itself would cancel: at small q and large z, A_alpha - 1
    is far below one ulp of 1, and the float sum loses it (the relative error reached 2e-7 at
    q = 1e-5, z = 50). Each term's logarithm is a sum of seven parts, so it errs by a few units of
    the parts' magnitudes M; log-sum-exp is 1-Lipschitz in each argument and log1p(exp(.)) passes
    an absolute error of its argument on as a relative error of its value at most as large, so
    log A_alpha errs, relative, by a few units of max M plus one per term.
    """
    k = np.arange(2, alpha + 1, dtype=float)
    excess = (k * k - k) / (2.0 * noise_multiplier**2)
    parts = np.stack([np.full_like(k, gammaln(alpha + 1.0)), -gammaln(k + 1.0),
                      -gammaln(alpha - k + 1.0), (alpha - k) * math.log1p(-sample_rate),
                      k * math.log(sample_rate),
                      excess, np.log(-np.expm1(-excess))])  # the last two: log(expm1(excess))
    magnitude = float(np.max(np.abs(parts).sum(axis=0)))
    log_excess = float(logsumexp(parts.sum(axis=0)))  # log(A_alpha - 1)
    return float(np.logaddexp(0.0, log_excess)), 8.0 * magnitude + alpha + 8.0


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
