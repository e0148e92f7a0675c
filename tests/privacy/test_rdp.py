"""RDP of the Gaussian mechanism and RDP -> (epsilon, delta) conversion."""

import decimal
from decimal import Decimal

import numpy as np
import pytest

from reprolib.privacy import gaussian_rdp, gaussian_rho, rdp_to_eps, rho_to_eps

ORDERS = 1.0 + np.geomspace(1e-4, 1e4, 200_001)


def test_gaussian_rdp_is_linear_in_order():
    orders = np.array([1.5, 2.0, 10.0, 100.0])
    np.testing.assert_allclose(gaussian_rdp(orders, sigma=2.0, sensitivity=np.sqrt(2)),
                               orders * 2 / (2 * 4.0))


@pytest.mark.parametrize("sigma", [0.5, 1.0, 4.0, 30.0])
@pytest.mark.parametrize("delta", [1e-5, 1e-9])
def test_conversions_of_the_gaussian_curve_match_the_zcdp_forms(sigma, delta):
    """The Gaussian is rho-zCDP with rho = 1/(2 sigma^2): over a dense grid of orders the improved
    conversion reproduces Canonne–Kamath–Steinke and the classic one Bun–Steinke."""
    rdp = gaussian_rdp(ORDERS, sigma=sigma, sensitivity=1.0)
    rho = gaussian_rho(sigma, 1.0)
    improved, _ = rdp_to_eps(ORDERS, rdp, delta)
    classic, _ = rdp_to_eps(ORDERS, rdp, delta, conversion="classic")
    assert improved == pytest.approx(rho_to_eps(rho, delta), rel=1e-6)
    assert improved >= rho_to_eps(rho, delta) * (1 - 1e-12)  # a finite grid never under-estimates
    assert classic == pytest.approx(rho_to_eps(rho, delta, bound="bun-steinke"), rel=1e-6)


def _exact_eps(orders, rdp, delta, conversion) -> Decimal:
    """The conversion's minimum over the orders in 100-digit arithmetic (the floats as exact)."""
    with decimal.localcontext(decimal.Context(prec=100)):
        log_delta = Decimal(delta).ln()

        def at(alpha: Decimal, value: Decimal) -> Decimal:
            if conversion == "classic":
                return value - log_delta / (alpha - 1)
            return value + ((alpha - 1) / alpha).ln() - (log_delta + alpha.ln()) / (alpha - 1)

        return max(Decimal(0), min(at(Decimal(a), Decimal(r)) for a, r in zip(orders, rdp,
                                                                           strict=True)))


GRID = [1.5, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0]
ROUNDING_CASES = {
    # one order at which the float formula, rounded to nearest, lands below the exact value
    "single-order": ([2.0], [0.1], 1e-5),
    "gaussian-grid": (GRID, list(gaussian_rdp(np.array(GRID), sigma=3.0, sensitivity=1.0)), 1e-9),
    "dense-grid": (list(ORDERS[::4000]), list(ORDERS[::4000] * 0.05), 1e-6),
}


@pytest.mark.parametrize("conversion", ["improved", "classic"])
@pytest.mark.parametrize("case", list(ROUNDING_CASES))
def test_rdp_to_eps_is_rounded_up_never_below_the_exact_value(case, conversion):
    orders, rdp, delta = ROUNDING_CASES[case]
    eps, _ = rdp_to_eps(orders, rdp, delta, conversion=conversion)
    exact = _exact_eps(orders, rdp, delta, conversion)
    assert Decimal(eps) >= exact
    assert Decimal(eps) - exact <= Decimal("1e-14") * max(exact, Decimal(1))  # an ulp or two


def test_rdp_to_eps_rejects_bad_input():
    with pytest.raises(ValueError, match="orders"):
        rdp_to_eps([1.0, 2.0], [0.1, 0.2], 1e-5)
    with pytest.raises(ValueError, match="same shape"):
        rdp_to_eps([2.0, 3.0], [0.1], 1e-5)
    with pytest.raises(ValueError, match="conversion"):
        rdp_to_eps([2.0], [0.1], 1e-5, conversion="tight")
    with pytest.raises(ValueError, match="delta"):
        rdp_to_eps([2.0], [0.1], 2.0)
