"""The Gaussian mechanism in zCDP: calibration and a release that charges the ledger."""

from __future__ import annotations

import math

import numpy as np

from reprolib.privacy import _validate
from reprolib.privacy._ledger import Ledger

GAUSSIAN_MEAN_ABS = math.sqrt(2.0 / math.pi)
"""E|Z| = sqrt(2/pi) for Z ~ N(0, 1), so E||N(0, sigma^2 I_n)||_1 = sqrt(2/pi) sigma n: the expected
L1 error of one Gaussian-noised marginal with n cells (AIM's quality penalty and its bounds)."""


def gaussian_rho(sigma: float, sensitivity: float) -> float:
    """zCDP cost of adding N(0, sigma**2) noise to a query of L2 sensitivity ``sensitivity``.

    rho = sensitivity**2 / (2 sigma**2) (Bun & Steinke 2016, Proposition 1.6).
    """
    sigma = _validate.positive("sigma", sigma)
    sensitivity = _validate.positive("sensitivity", sensitivity)
    return sensitivity**2 / (2.0 * sigma**2)


def gaussian_sigma(rho: float, sensitivity: float) -> float:
    """Noise standard deviation that makes a query of L2 sensitivity ``sensitivity`` rho-zCDP.

    sigma = sensitivity / sqrt(2 rho), the inverse of :func:`gaussian_rho`.
    """
    rho = _validate.positive("rho", rho)
    sensitivity = _validate.positive("sensitivity", sensitivity)
    return sensitivity / math.sqrt(2.0 * rho)


def gaussian_mechanism(
    values: np.ndarray,
    *,
    sigma: float,
    sensitivity: float,
    rng: np.random.Generator,
    ledger: Ledger,
    label: str,
) -> np.ndarray:
    """Release ``values + N(0, sigma**2 I)``, charging sensitivity**2/(2 sigma**2) to ``ledger``.

    ``sensitivity`` is the L2 sensitivity of the whole vector ``values`` under the ledger's
    neighbouring relation (see :func:`reprolib.privacy.marginal_l2_sensitivity`). The charge is made
    before any noise is drawn, so a refused charge releases nothing.
    """
    rho = gaussian_rho(sigma, sensitivity)
    ledger.charge(rho, mechanism="gaussian", label=label, sigma=float(sigma),
                  sensitivity=float(sensitivity))
    values = np.asarray(values, dtype=float)
    return values + rng.normal(0.0, sigma, size=values.shape)
