"""Conversions between rho-zCDP and (epsilon, delta)-DP, rounded on the safe side.

Two bounds are implemented, each once:

* ``"cks"``: Canonne, Kamath and Steinke (2020), Proposition 12 / Corollary 13 — the bound the AIM
  reference code (``cdp2adp.py``) uses. For every order alpha > 1, rho-zCDP implies
  (eps_alpha, delta)-DP with

      eps_alpha = alpha*rho + log(1 - 1/alpha) - (log(delta) + log(alpha)) / (alpha - 1),

  and the best order is the unique root of ``rho*(alpha-1)**2 + log(alpha) + log(delta) = 0``
  (the derivative of eps_alpha in alpha is ``rho + (log(delta) + log(alpha))/(alpha-1)**2``).
  We find that root with Brent's method to machine precision.
* ``"bun-steinke"``: Bun and Steinke (2016), Proposition 1.3: eps = rho + 2*sqrt(rho*log(1/delta)),
  with the closed-form inverse rho = (sqrt(log(1/delta) + eps) - sqrt(log(1/delta)))**2.

Rounding. Every epsilon (and delta) returned is an upper bound on the exact value of the formula:
it is evaluated in 60-digit decimal arithmetic and rounded up to a float with a margin that
dominates the arithmetic's error (:func:`reprolib.privacy._exact.upper_float`, whose module gives
the error analysis). For CKS this is done at the numerically found order, by the improved RDP
conversion of :mod:`reprolib.privacy._rdp` (rho-zCDP is (alpha, alpha*rho)-RDP): Proposition 12
holds at *every* alpha > 1, so the value at any order bounds the infimum from above. Every rho
returned by :func:`eps_to_rho` is the largest float whose so-evaluated epsilon is <= the target.
Both directions therefore err on the safe side (an epsilon reported is never below the exact value,
a rho granted never above it): rho_to_eps(eps_to_rho(eps)) <= eps always holds in floating point.

The book's chapter "Privacy preliminaries" derives both.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Callable
from decimal import Decimal
from typing import Literal

from scipy.optimize import brentq

from reprolib.privacy import _validate
from reprolib.privacy._exact import PRECISE, upper_float
from reprolib.privacy._rdp import eps_upper

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
    alpha = brentq(stationarity, 1.0, upper, xtol=1e-15, rtol=_RTOL, maxiter=500)
    return max(alpha, math.nextafter(1.0, 2.0))  # any order > 1 gives a valid bound


def _cks_eps_upper(rho: float, delta: float, alpha: float) -> float:
    """A float >= eps_alpha(rho, delta): the improved RDP conversion of alpha * rho at order alpha
    (rho-zCDP is (alpha, alpha * rho)-RDP).
    """
    with decimal.localcontext(PRECISE):
        rdp = Decimal(alpha) * Decimal(rho)
    return eps_upper(rdp, alpha, delta, "improved")


def _bun_steinke_eps_upper(rho: float, delta: float) -> float:
    """A float >= rho + 2 sqrt(rho log(1/delta)); every term is positive (no cancellation)."""
    with decimal.localcontext(PRECISE):
        eps = Decimal(rho) + 2 * (Decimal(rho) * -Decimal(delta).ln()).sqrt()
        return upper_float(eps, eps)


def rho_to_eps(rho: float, delta: float, *, bound: Bound = "cks") -> float:
    """Smallest epsilon such that rho-zCDP implies (epsilon, delta)-DP under ``bound``, rounded up.

    Args:
        rho: zCDP parameter, >= 0.
        delta: target delta, in (0, 1).
        bound: ``"cks"`` (Canonne–Kamath–Steinke 2020, tighter) or ``"bun-steinke"`` (2016, simple).

    Returns:
        epsilon >= 0 (0 exactly when rho == 0), never below the exact value of the bound.

    >>> round(rho_to_eps(0.5, 1e-5, bound="bun-steinke"), 6)
    5.298526
    """
    _check_bound(bound)
    rho = _validate.non_negative("rho", rho)
    delta = _validate.probability("delta", delta)
    if rho == 0.0:
        return 0.0
    if bound == "bun-steinke":
        return _bun_steinke_eps_upper(rho, delta)
    alpha = _cks_optimal_order(rho, math.log(delta))
    return max(0.0, _cks_eps_upper(rho, delta, alpha))


def cks_delta(rho: float, eps: float) -> float:
    """Delta such that rho-zCDP implies (eps, delta)-DP by Canonne–Kamath–Steinke (2020, Prop. 12).

    delta = inf over alpha > 1 of exp((alpha-1)*(alpha*rho - eps)) / (alpha-1) * (1 - 1/alpha)**alpha,
    capped at 1. The infimum is at the root of (2*alpha - 1)*rho - eps + log(1 - 1/alpha) = 0; the
    value at the numerically found order is evaluated as in :func:`rho_to_eps` and rounded up, so
    the delta returned is never below the exact one.
    """
    rho = _validate.non_negative("rho", rho)
    eps = _validate.non_negative("eps", eps)
    if rho == 0.0:
        return 0.0

    def derivative(alpha: float) -> float:  # d/d(alpha) of log delta_alpha, strictly increasing
        return (2.0 * alpha - 1.0) * rho - eps + math.log1p(-1.0 / alpha)

    alpha = 1.0 + 1e-12
    if derivative(alpha) < 0.0:
        upper = 2.0
        while derivative(upper) < 0.0:
            upper *= 2.0
        alpha = brentq(derivative, alpha, upper, xtol=1e-15, rtol=_RTOL, maxiter=500)
    with decimal.localcontext(PRECISE):
        a, r, e = Decimal(alpha), Decimal(rho), Decimal(eps)
        a_minus_1 = a - 1
        terms = (a_minus_1 * (a * r - e), a * (a_minus_1 / a).ln(), -a_minus_1.ln())
        magnitude = a_minus_1 * (a * r + e) + abs(terms[1]) + abs(terms[2])
        log_delta = upper_float(sum(terms, Decimal(0)), magnitude)
        if log_delta >= 0.0:
            return 1.0
        delta = Decimal(log_delta).exp()
        return min(1.0, upper_float(delta, delta))


def _largest_within(start: float, fits: Callable[[float], bool]) -> float:
    """The largest positive float near ``start`` with ``fits`` true (``fits`` monotone decreasing)."""
    rho = start
    while not fits(rho):
        rho = math.nextafter(rho, 0.0)
    while fits(above := math.nextafter(rho, math.inf)):
        rho = above
    return rho


def eps_to_rho(eps: float, delta: float, *, bound: Bound = "cks") -> float:
    """Largest float rho whose epsilon under ``bound`` (as :func:`rho_to_eps` computes it) is <= eps.

    The closed form (Bun–Steinke) or Brent's method on rho -> rho_to_eps(rho, delta) (CKS) gives a
    starting point within a few ulps; it is then stepped with ``math.nextafter`` to the largest
    float whose upward-rounded epsilon does not exceed ``eps``. So rounding never grants more
    budget than the bound allows: rho_to_eps(eps_to_rho(eps, delta), delta) <= eps.

    >>> round(eps_to_rho(1.0, 1e-9), 6)
    0.014973
    """
    _check_bound(bound)
    eps = _validate.positive("eps", eps)
    delta = _validate.probability("delta", delta)
    log_inv_delta = -math.log(delta)
    # (sqrt(L + eps) - sqrt(L))**2 written without the cancellation of the difference
    rho_simple = (eps / (math.sqrt(log_inv_delta + eps) + math.sqrt(log_inv_delta))) ** 2
    rho_simple = _largest_within(
        rho_simple, lambda r: rho_to_eps(r, delta, bound="bun-steinke") <= eps)
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
    return _largest_within(rho, lambda r: rho_to_eps(r, delta) <= eps)
