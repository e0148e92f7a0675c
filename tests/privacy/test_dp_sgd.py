"""DP-SGD's accounting: the sampled Gaussian's curve against opacus and closed forms, the
replace-one bound, and the plans (steps, noise) that fit a ledger."""

import math

import numpy as np
import pytest

from reprolib.privacy import (
    ORDERS,
    BudgetExceededError,
    NeighbourRelation,
    RdpBudget,
    RdpLedger,
    charge_dp_sgd,
    dp_sgd_noise_multiplier,
    dp_sgd_steps,
    sampled_gaussian_rdp,
)
from reprolib.privacy._dp_sgd import add_remove_rdp

ADD, REPLACE = NeighbourRelation.ADD_REMOVE, NeighbourRelation.REPLACE_ONE


def _ledger(epsilon=1.0, delta=1e-6, relation=REPLACE, conversion="classic"):
    return RdpLedger(RdpBudget(epsilon=epsilon, delta=delta, relation=relation,
                               conversion=conversion))


@pytest.mark.parametrize("q", [0.001, 0.05, 0.3, 0.9])
@pytest.mark.parametrize("z", [0.7, 1.5, 5.0, 40.0])
def test_the_add_remove_curve_is_opacuss_at_integer_orders(q, z):
    from opacus.accountants.analysis.rdp import compute_rdp

    orders = np.array([2, 3, 7, 16, 63, 200], dtype=float)
    theirs = np.asarray(compute_rdp(q=q, noise_multiplier=z, steps=1, orders=list(orders)))
    np.testing.assert_allclose(add_remove_rdp(q, z, orders), theirs, rtol=1e-7, atol=1e-15)


def test_fractional_orders_take_the_next_integers_value_and_below_two_nothing():
    curve = sampled_gaussian_rdp(0.1, 2.0, ADD)
    assert np.isinf(curve[ORDERS < 2]).all() and np.isfinite(curve[ORDERS >= 2]).all()
    assert np.all(np.diff(curve[ORDERS >= 2]) >= 0)  # Rényi divergence grows with the order
    for alpha in (2.5, 17.3):
        i = int(np.argmin(abs(ORDERS - alpha)))
        assert curve[i] == add_remove_rdp(0.1, 2.0, np.array([math.ceil(ORDERS[i])]))[0]


def test_without_subsampling_the_curves_are_the_gaussians():
    alphas = ORDERS[ORDERS >= 2]
    z = 3.0
    add = sampled_gaussian_rdp(1.0, z, ADD)[ORDERS >= 2]
    np.testing.assert_allclose(add, np.ceil(alphas) / (2 * z * z), rtol=1e-12)
    # replace-one: the exact Gaussian curve at sensitivity 2 is 2 alpha / z^2; the weak
    # triangle bound is above it, by 1/8 at alpha = 2, and tends to it
    replace = sampled_gaussian_rdp(1.0, z, REPLACE)[ORDERS >= 2]
    exact = 2 * alphas / z ** 2
    assert np.all(replace >= exact)
    assert replace[alphas == 2.0][0] == pytest.approx(1.125 * exact[alphas == 2.0][0])
    assert replace[-1] / exact[-1] == pytest.approx(1.0, abs=1e-3)


def test_replace_one_costs_more_than_add_remove_and_subsampling_less_than_none():
    for q in (0.01, 0.2):
        add, replace = sampled_gaussian_rdp(q, 2.0, ADD), sampled_gaussian_rdp(q, 2.0, REPLACE)
        finite = np.isfinite(add)
        assert np.all(replace[finite] >= add[finite])
        assert np.all(add[finite] <= sampled_gaussian_rdp(1.0, 2.0, ADD)[finite])


def test_our_epsilon_is_opacuss_accountant_on_the_same_orders():
    from opacus.accountants.analysis.rdp import compute_rdp, get_privacy_spent

    ledger = _ledger(epsilon=100.0, relation=ADD, conversion="improved")
    charge_dp_sgd(ledger, sample_rate=0.02, noise_multiplier=1.1, steps=3000, label="steps")
    orders = ORDERS[np.round(ORDERS) == ORDERS]
    theirs, _ = get_privacy_spent(
        orders=list(orders),
        rdp=compute_rdp(q=0.02, noise_multiplier=1.1, steps=3000, orders=list(orders)),
        delta=1e-6)
    assert ledger.spent_epsilon() <= theirs + 1e-9  # our grid holds theirs and more orders
    assert ledger.spent_epsilon() == pytest.approx(theirs, rel=0.02)


def test_the_planned_steps_are_the_most_that_fit():
    ledger = _ledger()
    later = 0.002 * ORDERS
    steps = dp_sgd_steps(ledger, sample_rate=0.05, noise_multiplier=3.0, most=10_000,
                         then=later)
    one = sampled_gaussian_rdp(0.05, 3.0, REPLACE)
    assert ledger.epsilon_after(one * steps + later) <= 1.0 < ledger.epsilon_after(
        one * (steps + 1) + later)
    assert dp_sgd_steps(ledger, sample_rate=0.05, noise_multiplier=3.0, most=7) == 7
    assert dp_sgd_steps(ledger, sample_rate=0.5, noise_multiplier=0.5, most=10) == 0


def test_the_calibrated_noise_multiplier_is_the_smallest_that_fits():
    ledger = _ledger(epsilon=2.0)
    later = 0.01 * ORDERS
    z = dp_sgd_noise_multiplier(ledger, sample_rate=0.1, steps=500, then=later)
    fits = ledger.epsilon_after(sampled_gaussian_rdp(0.1, z, REPLACE) * 500 + later)
    below = ledger.epsilon_after(sampled_gaussian_rdp(0.1, z * (1 - 1e-5), REPLACE) * 500
                                 + later)
    assert fits <= 2.0 < below
    with pytest.raises(ValueError, match="no budget"):
        dp_sgd_noise_multiplier(ledger, sample_rate=0.1, steps=5, then=10.0 * ORDERS)


def test_the_charge_is_the_curve_times_the_steps_and_refused_when_over():
    ledger = _ledger(epsilon=5.0)
    charge_dp_sgd(ledger, sample_rate=0.1, noise_multiplier=4.0, steps=100, label="steps")
    (entry,) = ledger.charges
    assert entry.repeat == 100 and entry.mechanism == "dp-sgd"
    np.testing.assert_array_equal(entry.curve, sampled_gaussian_rdp(0.1, 4.0, REPLACE))
    with pytest.raises(BudgetExceededError):
        charge_dp_sgd(ledger, sample_rate=0.5, noise_multiplier=0.5, steps=1000, label="more")
    assert len(ledger.charges) == 1
    with pytest.raises(ValueError, match="steps"):
        charge_dp_sgd(ledger, sample_rate=0.1, noise_multiplier=4.0, steps=0, label="none")
