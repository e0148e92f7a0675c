"""Conversions between rho-zCDP and (epsilon, delta)-DP.

Two bounds are implemented, each once:

* ``"cks"``: Canonne, Kamath and Steinke (2020), Proposition 12 / Corollary 13 — the bound the AIM
  reference code (``cdp2adp.py``) uses. For every order alpha > 1, rho-zCDP implies
  (eps_alpha, delta)-DP with

      eps_alpha = alpha*rho + log(1 - 1/alpha) - (log(delta) + log(alpha)) / (alpha - 1),

  and the best order is the unique root of ``rho*(alpha-1)**2 + log(alpha) + log(delta) = 0``
  (the derivative of eps_alpha in alpha is ``rho + (log(delta) + log(alpha))/(alpha-1)**2``).
  We find that root with Brent's method to machine precision, so the result is exact up to
  floating-point rounding rather than a bisection tolerance.
* ``"bun-steinke"``: Bun and Steinke (2016), Proposition 1.3: eps = rho + 2*sqrt(rho*log(1/delta)),
  with the closed-form inverse rho = (sqrt(log(1/delta) + eps) - sqrt(log(1/delta)))**2.

The book's chapter "Privacy preliminaries" derives both.
"""

from __future__ import annotations

import math
from typing import Literal

from scipy.optimize import brentq

from reprolib.privacy import _validate

Bound = Literal["cks", "bun-steinke"]
BOUNDS: tuple[Bound, ...] = ("cks", "bun-steinke")
_RTOL = 4 * 2.220446049250313e-16  # the smallest relative tolerance scipy.optimize.brentq accepts


def _check_bound(bound: str) -> None:
    if bound not in BOUNDS:
        raise ValueError(f"bound must be one of {BOUNDS}, got {bound!r}")


def _cks_optimal_order(rho: float, log_delta: float) -> float:
    """The order alpha* > 1 minimising eps_alpha (root of a strictly increasing function)."""

    def stationarity(alpha: float) -> float:
        return rho * (alpha - 1.0) ** 2 + math.log(alpha) + log_delta

    upper = 1.0 + math.sqrt(-log_delta / rho)  # stationarity(upper) = log(upper) > 0
    return brentq(stationarity, 1.0, upper, xtol=1e-15, rtol=_RTOL, maxiter=500)


def _cks_eps_at_order(rho: float, log_delta: float, alpha: float) -> float:
    return alpha * rho + math.log1p(-1.0 / alpha) - (log_delta + math.log(alpha)) / (alpha - 1.0)


def rho_to_eps(rho: float, delta: float, *, bound: Bound = "cks") -> float:
    """Smallest epsilon such that rho-zCDP implies (epsilon, delta)-DP under ``bound``.

    Args:
        rho: zCDP parameter, >= 0.
        delta: target delta, in (0, 1).
        bound: ``"cks"`` (Canonne–Kamath–Steinke 2020, tight) or ``"bun-steinke"`` (2016, simple).

    Returns:
        epsilon >= 0 (0 exactly when rho == 0).

    >>> round(rho_to_eps(0.5, 1e-5, bound="bun-steinke"), 6)
    5.298317
    """
    _check_bound(bound)
    rho = _validate.non_negative("rho", rho)
    delta = _validate.probability("delta", delta)
    if rho == 0.0:
        return 0.0
    log_delta = math.log(delta)
    if bound == "bun-steinke":
        return rho + 2.0 * math.sqrt(-rho * log_delta)
    alpha = _cks_optimal_order(rho, log_delta)
    return max(0.0, _cks_eps_at_order(rho, log_delta, alpha))


def cks_delta(rho: float, eps: float) -> float:
    """delta such that rho-zCDP implies (eps, delta)-DP by Canonne–Kamath–Steinke (2020, Prop. 12).

    delta = inf over alpha > 1 of exp((alpha-1)*(alpha*rho - eps)) / (alpha-1) * (1 - 1/alpha)**alpha,
    capped at 1. The infimum is at the root of (2*alpha - 1)*rho - eps + log(1 - 1/alpha) = 0.
    """
    rho = _validate.non_negative("rho", rho)
    eps = _validate.non_negative("eps", eps)
    if rho == 0.0:
        return 0.0

    def log_delta_at(alpha: float) -> float:
        return (alpha - 1.0) * (alpha * rho - eps) + alpha * math.log1p(-1.0 / alpha) - math.log(
            alpha - 1.0
        )

    def derivative(alpha: float) -> float:  # d/d(alpha) of log_delta_at, strictly increasing
        return (2.0 * alpha - 1.0) * rho - eps + math.log1p(-1.0 / alpha)

    lower = 1.0 + 1e-12
    if derivative(lower) >= 0.0:
        return min(1.0, math.exp(log_delta_at(lower)))
    upper = 2.0
    while derivative(upper) < 0.0:
        upper *= 2.0
    alpha = brentq(derivative, lower, upper, xtol=1e-15, rtol=_RTOL, maxiter=500)
    return min(1.0, math.exp(log_delta_at(alpha)))


def eps_to_rho(eps: float, delta: float, *, bound: Bound = "cks") -> float:
    """Largest rho such that rho-zCDP implies (eps, delta)-DP under ``bound``.

    For ``"cks"`` the monotone map rho -> rho_to_eps(rho, delta) is inverted by Brent's method and
    the result is then nudged down until ``rho_to_eps(rho, delta) <= eps`` holds in floating point,
    so rounding never grants more budget than the bound allows.

    >>> round(eps_to_rho(1.0, 1e-9), 6)
    0.014973
    """
    _check_bound(bound)
    eps = _validate.positive("eps", eps)
    delta = _validate.probability("delta", delta)
    log_inv_delta = -math.log(delta)
    rho_simple = (math.sqrt(log_inv_delta + eps) - math.sqrt(log_inv_delta)) ** 2
    if bound == "bun-steinke":
        return rho_simple
    # The CKS bound is never looser than Bun–Steinke, so rho_simple is a lower bracket.
    upper = max(2.0 * rho_simple, eps)
    while rho_to_eps(upper, delta) <= eps:
        upper *= 2.0
    rho = brentq(
        lambda r: rho_to_eps(r, delta) - eps, rho_simple, upper, xtol=1e-300, rtol=_RTOL,
        maxiter=500,
    )
    while rho_to_eps(rho, delta) > eps:
        rho = math.nextafter(rho, 0.0)
    return rho
