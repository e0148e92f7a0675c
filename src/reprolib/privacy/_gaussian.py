"""The Gaussian mechanism in zCDP: calibration and a release that charges the ledger."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from reprolib.privacy import _validate
from reprolib.privacy._exact import round_up
from reprolib.privacy._ledger import BudgetExceededError, Ledger
from reprolib.privacy._rdp import smallest_sigma
from reprolib.privacy._rdp_ledger import RdpLedger, zcdp_curve

GAUSSIAN_MEAN_ABS = math.sqrt(2.0 / math.pi)
"""E|Z| = sqrt(2/pi) for Z ~ N(0, 1), so E||N(0, sigma^2 I_n)||_1 = sqrt(2/pi) sigma n: the expected
L1 error of one Gaussian-noised marginal with n cells (AIM's quality penalty and its bounds)."""


def gaussian_rho(sigma: float, sensitivity: float) -> float:
    """ZCDP cost of adding N(0, sigma**2) noise to a query of L2 sensitivity ``sensitivity``.

    rho = sensitivity**2 / (2 sigma**2) (Bun & Steinke 2016, Proposition 1.6), computed exactly
    from the two floats and rounded up, so the charge is never below the true cost of ``sigma``.
    """
    sigma = _validate.positive("sigma", sigma)
    sensitivity = _validate.positive("sensitivity", sensitivity)
    return round_up(Fraction(sensitivity) ** 2 / (2 * Fraction(sigma) ** 2))


def gaussian_sigma(rho: float, sensitivity: float) -> float:
    """Noise standard deviation that makes a query of L2 sensitivity ``sensitivity`` rho-zCDP.

    The smallest float sigma with ``gaussian_rho(sigma, sensitivity) <= rho``: sensitivity /
    sqrt(2 rho) in floating point, then stepped by ulps. Rounding thus only ever adds noise; the
    charge of a release at this sigma is within a few ulps below ``rho`` and never above it.
    """
    rho = _validate.positive("rho", rho)
    sensitivity = _validate.positive("sensitivity", sensitivity)
    sigma = sensitivity / math.sqrt(2.0 * rho)
    while gaussian_rho(sigma, sensitivity) > rho:
        sigma = math.nextafter(sigma, math.inf)
    while gaussian_rho(below := math.nextafter(sigma, 0.0), sensitivity) <= rho:
        sigma = below
    return sigma


def remaining_gaussian_sigma(ledger: RdpLedger, sensitivity: float) -> float:
    """The smallest sigma, to a relative 1e-10 and from above, at which a Gaussian release of
    L2 sensitivity ``sensitivity`` (the RDP curve alpha sensitivity^2 / (2 sigma^2)) still fits
    the ledger's budget after what it has already charged: the release that spends the rest.
    """
    sensitivity = _validate.positive("sensitivity", sensitivity)
    if ledger.spent_epsilon() >= ledger.budget.epsilon:
        raise BudgetExceededError(
            f"the ledger has spent its whole budget (epsilon={ledger.budget.epsilon:g}) before "
            "the Gaussian release; leave it some budget")
    return smallest_sigma(
        lambda sigma: ledger.epsilon_after(zcdp_curve(gaussian_rho(sigma, sensitivity))),
        ledger.budget.epsilon, start=sensitivity / math.sqrt(ledger.budget.epsilon))


def gaussian_mechanism(
    values: np.ndarray,
    *,
    sigma: float,
    sensitivity: float,
    rng: np.random.Generator,
    ledger: Ledger | RdpLedger,
    label: str,
) -> np.ndarray:
    """Release ``values + N(0, sigma**2 I)``, charging sensitivity**2/(2 sigma**2) to ``ledger``.

    ``sensitivity`` is the L2 sensitivity of the whole vector ``values`` under the ledger's
    neighbouring relation (see :func:`reprolib.privacy.marginal_l2_sensitivity`). The charge is made
    before any noise is drawn, so a refused charge releases nothing. On an :class:`RdpLedger` the
    charge is the curve rho * alpha of the same rho.
    """
    rho = gaussian_rho(sigma, sensitivity)
    charge = ledger.charge_zcdp if isinstance(ledger, RdpLedger) else ledger.charge
    charge(rho, mechanism="gaussian", label=label, sigma=float(sigma),
           sensitivity=float(sensitivity))
    values = np.asarray(values, dtype=float)
    return values + rng.normal(0.0, sigma, size=values.shape)
