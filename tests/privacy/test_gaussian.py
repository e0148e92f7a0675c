"""Gaussian mechanism: calibration against closed forms and OpenDP, ledger charges, noise scale."""

import math
from fractions import Fraction

import numpy as np
import opendp.prelude as dp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reprolib.privacy import (
    ORDERS,
    BudgetExceededError,
    Ledger,
    NeighbourRelation,
    PrivacyBudget,
    RdpBudget,
    RdpLedger,
    gaussian_mechanism,
    gaussian_rho,
    gaussian_sigma,
    marginal_l1_sensitivity,
    marginal_l2_sensitivity,
    remaining_gaussian_sigma,
)
from reprolib.privacy._exact import sqrt_up

dp.enable_features("contrib")


@pytest.mark.parametrize(("sigma", "sensitivity"), [(1.0, 1.0), (3.0, math.sqrt(2)), (0.1, 7.0)])
def test_rho_matches_opendp(sigma, sensitivity):
    space = dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float)
    opendp_rho = dp.m.make_gaussian(*space, scale=sigma).map(sensitivity)
    assert gaussian_rho(sigma, sensitivity) == pytest.approx(opendp_rho, rel=1e-12)


def test_sigma_inverts_rho():
    for rho in [1e-6, 0.03, 2.0]:
        for sensitivity in [1.0, math.sqrt(2), 10.0]:
            assert gaussian_rho(gaussian_sigma(rho, sensitivity), sensitivity) == pytest.approx(rho)


def test_marginal_sensitivities():
    assert marginal_l1_sensitivity(NeighbourRelation.ADD_REMOVE) == 1
    assert marginal_l1_sensitivity(NeighbourRelation.REPLACE_ONE, 3) == 6
    assert marginal_l2_sensitivity(NeighbourRelation.ADD_REMOVE, 4) == 2
    assert marginal_l2_sensitivity(NeighbourRelation.REPLACE_ONE, 8) == pytest.approx(4.0)
    with pytest.raises(ValueError, match="positive integer"):
        marginal_l2_sensitivity(NeighbourRelation.ADD_REMOVE, 0)


@pytest.mark.parametrize("relation", list(NeighbourRelation))
def test_l2_sensitivities_of_many_marginals_are_the_smallest_floats_above_the_root(relation):
    """sqrt(k) and sqrt(2k) rounded up, never down as math.sqrt does for k = 3, 6, 11, ..."""
    squared = 1 if relation is NeighbourRelation.ADD_REMOVE else 2
    for k in range(1, 3000):
        value = marginal_l2_sensitivity(relation, k)
        assert Fraction(value) ** 2 >= squared * k > Fraction(math.nextafter(value, 0)) ** 2


@given(st.fractions(min_value=0, max_value=10**6))
def test_sqrt_up_is_the_smallest_float_at_or_above_the_root(value):
    root = sqrt_up(value)
    assert Fraction(root) ** 2 >= value
    assert root == 0 or Fraction(math.nextafter(root, 0)) ** 2 < value


def test_sqrt_up_rounds_where_math_sqrt_falls_short():
    assert math.sqrt(3) < sqrt_up(3) == math.nextafter(math.sqrt(3), math.inf)
    assert sqrt_up(Fraction(2, 7**2)) >= math.sqrt(2) / 7
    with pytest.raises(ValueError, match="non-negative"):
        sqrt_up(-1)


def _ledger(rho: float) -> Ledger:
    return Ledger(PrivacyBudget(rho=rho, relation=NeighbourRelation.REPLACE_ONE))


def test_mechanism_charges_and_noise_has_the_calibrated_scale():
    ledger = _ledger(0.5)
    sensitivity = marginal_l2_sensitivity(ledger.relation)
    sigma = gaussian_sigma(0.5, sensitivity)
    values = np.zeros(400_000)
    noisy = gaussian_mechanism(values, sigma=sigma, sensitivity=sensitivity,
                               rng=np.random.default_rng(7), ledger=ledger, label="marginal (a, b)")
    assert ledger.spent_rho == pytest.approx(0.5, rel=1e-15)
    assert ledger.is_exhausted()
    (charge,) = ledger.charges
    assert charge.details["sigma"] == sigma and charge.mechanism == "gaussian"
    # the sample standard deviation of 400k draws is within 0.5 % of sigma with overwhelming probability
    assert np.std(noisy) == pytest.approx(sigma, rel=5e-3)
    assert abs(np.mean(noisy)) < 5 * sigma / math.sqrt(values.size)


def test_refused_charge_releases_nothing():
    ledger = _ledger(0.1)
    with pytest.raises(BudgetExceededError, match="budget of 0.1"):
        gaussian_mechanism(np.zeros(3), sigma=1.0, sensitivity=1.0,
                           rng=np.random.default_rng(0), ledger=ledger, label="too expensive")
    assert ledger.charges == ()


def test_same_seed_same_noise():
    def run():
        return gaussian_mechanism(np.arange(5.0), sigma=2.0, sensitivity=1.0,
                                  rng=np.random.default_rng(3), ledger=_ledger(1.0), label="x")

    np.testing.assert_array_equal(run(), run())


@settings(max_examples=300, deadline=None)
@given(rho=st.floats(min_value=1e-12, max_value=1e4),
       sensitivity=st.sampled_from([1.0, math.sqrt(2.0), 0.001, 7.0]))
def test_sigma_is_the_smallest_whose_charge_fits_and_never_undercharges(rho, sensitivity):
    """The charge of the calibrated sigma is rounded up from the exact Delta^2/(2 sigma^2), is
    <= rho, and is within 4 ulps of rho; one ulp less noise would already cost more than rho."""
    sigma = gaussian_sigma(rho, sensitivity)
    charge = gaussian_rho(sigma, sensitivity)
    exact = Fraction(sensitivity) ** 2 / (2 * Fraction(sigma) ** 2)
    assert exact <= Fraction(charge) < exact + Fraction(math.ulp(charge))
    assert charge <= rho and rho - charge <= 4 * math.ulp(rho)
    assert gaussian_rho(math.nextafter(sigma, 0.0), sensitivity) > rho


def test_the_remaining_gaussian_sigma_spends_an_rdp_budget_exactly():
    """On a fresh classic-conversion RDP ledger the Gaussian's curve rho alpha spends epsilon at
    rho + 2 sqrt(rho log(1/delta)) (the best continuous order; the ledger's grid of orders can
    only need a little more noise)."""
    ledger = RdpLedger(RdpBudget(epsilon=2.0, delta=1e-5, relation=NeighbourRelation.REPLACE_ONE))
    sigma = remaining_gaussian_sigma(ledger, 0.01)
    assert ledger.epsilon_after(gaussian_rho(sigma, 0.01) * ORDERS) <= 2.0
    assert ledger.epsilon_after(gaussian_rho(sigma * (1 - 1e-8), 0.01) * ORDERS) > 2.0
    log_term = math.log(1e5)
    rho = (math.sqrt(log_term + 2.0) - math.sqrt(log_term)) ** 2  # rho + 2 sqrt(rho L) = 2
    assert sigma == pytest.approx(0.01 / math.sqrt(2 * rho), rel=1e-3)
    assert sigma >= 0.01 / math.sqrt(2 * rho)
