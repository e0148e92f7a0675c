"""Rényi DP of the Gaussian mechanism and RDP -> (epsilon, delta) conversion over a grid of orders.

The conversion errs on the safe side, like those of :mod:`reprolib.privacy._conversions`: the
epsilon returned is evaluated in 60-digit decimal arithmetic and rounded up to a float
(:func:`reprolib.privacy._exact.upper_float`), so it never claims less than the exact value.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Callable
from decimal import Decimal
from typing import Literal

import numpy as np

from reprolib.privacy import _validate
from reprolib.privacy._exact import PRECISE, inflate, upper_float

RdpConversion = Literal["improved", "classic"]


def gaussian_rdp(alpha: float | np.ndarray, sigma: float, sensitivity: float) -> np.ndarray:
    """RDP of the Gaussian mechanism at order(s) ``alpha``: alpha * sensitivity**2 / (2 sigma**2).

    Mironov (2017), Table 2; ``sigma`` is the standard deviation of the added noise and
    ``sensitivity`` the L2 sensitivity of the query (same units as the query). Bounded from above
    (:func:`reprolib.privacy._exact.inflate`).
    """
    sigma = _validate.positive("sigma", sigma)
    sensitivity = _validate.positive("sensitivity", sensitivity)
    orders = _orders(alpha)
    return inflate(orders * sensitivity**2 / (2.0 * sigma**2), 5.0)  # five roundings, bounded up


def rdp_to_eps(
    orders: np.ndarray | list[float],
    rdp: np.ndarray | list[float],
    delta: float,
    *,
    conversion: RdpConversion = "improved",
) -> tuple[float, float]:
    """Smallest epsilon over the given orders such that the RDP curve implies (epsilon, delta)-DP.

    Args:
        orders: Rényi orders alpha > 1.
        rdp: RDP epsilons at those orders (same length).
        delta: target delta in (0, 1).
        conversion: ``"classic"`` is Mironov (2017), Prop. 3: eps = rdp + log(1/delta)/(alpha-1).
            ``"improved"`` is Canonne–Kamath–Steinke (2020, Prop. 12) / Balle et al. (2020, Thm. 21):
            eps = rdp + log(1 - 1/alpha) - (log(delta) + log(alpha))/(alpha - 1).

    Returns:
        (epsilon, the order that attains it). Epsilon is rounded up: never below the exact value
        of the conversion at that order, so never below the exact minimum over the grid. A
        finite grid can only over-estimate epsilon.
    """
    delta = _validate.probability("delta", delta)
    alphas = _orders(orders)
    values = np.asarray(rdp, dtype=float)
    if values.shape != alphas.shape:
        raise ValueError(f"orders and rdp must have the same shape, got {alphas.shape} and {values.shape}")
    if np.any(np.isnan(values)) or np.any(values < 0):
        raise ValueError("rdp values must be non-negative numbers")
    log_delta = math.log(delta)
    if conversion == "classic":
        eps = values - log_delta / (alphas - 1.0)
    elif conversion == "improved":
        eps = values + np.log1p(-1.0 / alphas) - (log_delta + np.log(alphas)) / (alphas - 1.0)
    else:
        raise ValueError(f"conversion must be 'improved' or 'classic', got {conversion!r}")
    best = int(np.argmin(eps))  # floats pick the order; its epsilon is then bounded from above
    alpha = float(alphas[best])
    return max(0.0, eps_upper(Decimal(float(values[best])), alpha, delta, conversion)), alpha


def eps_upper(rdp: Decimal, alpha: float, delta: float, conversion: RdpConversion) -> float:
    """A float >= the epsilon at ``delta`` that RDP ``rdp`` at order ``alpha`` implies.

    ``rdp`` is taken as exact. ``"improved"`` evaluates log(1 - 1/alpha) as
    log((alpha - 1)/alpha), without cancellation (alpha - 1 is exact in 60 digits since alpha is
    a float); ``"classic"`` adds two positive terms.
    """
    with decimal.localcontext(PRECISE):
        a, inv_delta_log = Decimal(alpha), -Decimal(delta).ln()
        a_minus_1 = a - 1
        if conversion == "classic":
            eps = rdp + inv_delta_log / a_minus_1
            return upper_float(eps, eps)
        log_a = a.ln()
        terms = (rdp, (a_minus_1 / a).ln(), (inv_delta_log - log_a) / a_minus_1)
        magnitude = rdp + abs(terms[1]) + (inv_delta_log + abs(log_a)) / a_minus_1
        return upper_float(sum(terms, Decimal(0)), magnitude)


def _orders(alpha: float | np.ndarray | list[float]) -> np.ndarray:
    orders = np.atleast_1d(np.asarray(alpha, dtype=float))
    if orders.size == 0 or np.any(~np.isfinite(orders)) or np.any(orders <= 1.0):
        raise ValueError("Rényi orders must be finite and > 1")
    return orders


def smallest_sigma(spends: Callable[[float], float], epsilon: float, *, start: float,
                   rtol: float = 1e-10) -> float:
    """Bisection for the smallest sigma with spends(sigma) <= epsilon (spends decreases in
    sigma), to a relative ``rtol``; the returned sigma meets the target.
    """
    epsilon = _validate.positive("epsilon", epsilon)
    low = high = start
    while spends(high) > epsilon:
        high *= 2.0
    while spends(low) <= epsilon:
        low /= 2.0
    while high - low > rtol * high:
        middle = 0.5 * (low + high)
        low, high = (low, middle) if spends(middle) <= epsilon else (middle, high)
    return high
