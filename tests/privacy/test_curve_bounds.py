"""Every Rényi curve the RDP ledger is charged is an upper bound on its closed form, and the
slicing mechanism's amplification by sampling never claims less than its formula.

The closed forms are evaluated here independently, in mpmath at 60 significant digits (more where
a probability underflows them), at regimes chosen to provoke cancellation in double precision: a
small sampling rate with large noise (DP-SGD, Theorem 9), orders next to the slicing curve's pole,
large vote gaps and orders next to 1 (PATE). Each curve must lie at or above that value, and above
it by little (so the bounds stay useful).
"""

from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

from reprolib.privacy import (
    ORDERS,
    NeighbourRelation,
    RdpBudget,
    RdpLedger,
    gaussian_rdp,
    poisson_amplified,
    poisson_base,
    poisson_same_size_amplified,
    poisson_same_size_base,
    sampled_gaussian_rdp,
    slicing_rdp,
    vote_rdp,
    without_replacement_rdp,
)
from reprolib.privacy._dp_sgd import add_remove_rdp
from reprolib.privacy._exact import CURVE_SLACK, UNIT_ROUNDOFF, inflate
from reprolib.privacy._slicing import projection_rdp

LOOSENESS = 1e-5  # a bound may exceed its closed form by this much, relative, and no more


def _assert_bounds(curve, exact, looseness=LOOSENESS):
    """``curve`` >= ``exact`` everywhere, within ``looseness`` (relative) of it where finite."""
    for value, truth in zip(curve, exact, strict=True):
        if truth == mp.inf:
            assert value == np.inf
            continue
        assert mp.mpf(float(value)) >= truth, (value, truth)
        assert mp.mpf(float(value)) <= truth * (1 + mp.mpf(looseness)) + mp.mpf(1e-300)


def _sampled_gaussian(q, z, alpha):
    q, z = mp.mpf(q), mp.mpf(z)
    moment = mp.fsum(mp.binomial(alpha, k) * (1 - q) ** (alpha - k) * q**k
                     * mp.exp(mp.mpf(k * k - k) / (2 * z * z)) for k in range(alpha + 1))
    return mp.log(moment) / (alpha - 1)


@pytest.mark.parametrize("q", [1e-5, 1e-3, 0.3])
@pytest.mark.parametrize("z", [0.6, 4.0, 50.0])
def test_dp_sgds_curve_bounds_the_sampled_gaussian_where_summing_it_cancels(q, z):
    orders = np.array([2.0, 3.0, 8.0, 64.0, 256.0])
    with mp.workdps(60):
        _assert_bounds(add_remove_rdp(q, z, orders),
                       [_sampled_gaussian(q, z, int(a)) for a in orders])


def test_dp_sgds_replace_one_curve_bounds_its_combination_of_exact_values():
    q, z = 1e-4, 20.0
    curve = sampled_gaussian_rdp(q, z, NeighbourRelation.REPLACE_ONE)
    picks = [i for i, a in enumerate(ORDERS) if a >= 2.0][::40]
    with mp.workdps(60):
        exact = [(mp.mpf(float(ORDERS[i])) - mp.mpf(0.5)) / (mp.mpf(float(ORDERS[i])) - 1)
                 * _sampled_gaussian(q, z, int(np.ceil(2 * ORDERS[i])))
                 + _sampled_gaussian(q, z, int(np.ceil(2 * ORDERS[i] - 1))) for i in picks]
        _assert_bounds(curve[picks], exact)


def _theorem_9(rate, slope, alpha):
    rate, slope = mp.mpf(rate), mp.mpf(slope)
    second = min(4 * mp.expm1(2 * slope), 2 * mp.exp(2 * slope))
    rest = mp.fsum(2 * rate**j * mp.binomial(alpha, j) * mp.exp((j - 1) * j * slope)
                   for j in range(3, alpha + 1))
    return mp.log(1 + rate**2 * mp.binomial(alpha, 2) * second + rest) / (alpha - 1)


@pytest.mark.parametrize("rate", [1e-7, 1e-3, 0.05])
@pytest.mark.parametrize("slope", [1e-6, 1e-2, 1.0])
def test_theorem_9_bounds_its_formula_at_tiny_sampling_rates(rate, slope):
    orders = np.array([2.0, 3.0, 5.0, 16.0, 64.0])
    curve = without_replacement_rdp(lambda a: a * slope, rate, orders, max_order=64)
    with mp.workdps(60):
        _assert_bounds(curve, [_theorem_9(rate, slope, int(a)) for a in orders])


def _slicing(orders, sigma, dim, projections, curve):
    """Lemma 2 or the exact divergence at each order, in mpmath (inf past the pole)."""
    exact = []
    for a in map(mp.mpf, orders.tolist()):
        gap = dim * mp.mpf(sigma) ** 2 - (a * a - a)
        if gap <= 0:
            exact.append(mp.inf)
        elif curve == "lemma-2":
            exact.append(projections * a / (2 * gap))
        else:
            exact.append(projections / (2 * (a - 1)) * mp.log(dim * mp.mpf(sigma) ** 2 / gap))
    return exact


@pytest.mark.parametrize("dim, sigma, projections", [(10, 3.0, 50), (100, 0.7, 20),
                                                      (7, 13.0, 1000)])
@pytest.mark.parametrize("curve", ["lemma-2", "exact"])
def test_the_slicing_curves_bound_their_formulas_up_to_the_pole(dim, sigma, projections, curve):
    pole = (1 + np.sqrt(1 + 4 * dim * sigma**2)) / 2  # (alpha^2 - alpha) = d sigma^2
    near = pole * (1 - np.array([1e-3, 1e-7, 1e-10, 1e-13]))
    orders = np.concatenate([ORDERS[::7], near])
    values = slicing_rdp(orders, sigma, dim=dim, projections=projections, curve=curve)
    with mp.workdps(60):
        exact = _slicing(orders, sigma, dim, projections, curve)
        for value, truth in zip(values, exact, strict=True):
            assert value == np.inf or mp.mpf(float(value)) >= truth, (value, truth)
        # away from the pole the bound is tight; right next to it an order may count as past it
        finite = [i for i, a in enumerate(orders) if a < pole * (1 - 1e-3)]
        _assert_bounds(values[finite], [exact[i] for i in finite])


def _vote(lam, gap, alpha):
    lam, gap, moment = mp.mpf(lam), mp.mpf(gap), mp.mpf(alpha) - 1
    q = (2 + lam * gap) / (4 * mp.exp(lam * gap))
    independent = 2 * lam**2 * mp.mpf(alpha)
    if not q < mp.expm1(2 * lam) / mp.expm1(4 * lam):
        return independent
    dependent = mp.log((1 - q) * ((1 - q) / (1 - mp.exp(2 * lam) * q)) ** moment
                       + q * mp.exp(2 * lam * moment)) / moment
    return min(independent, dependent)


@pytest.mark.parametrize("lam", [0.01, 0.1, 1.0])
@pytest.mark.parametrize("gap", [0, 5, 50, 500])
def test_pates_vote_curves_bound_theorem_3_at_large_gaps_and_orders_near_one(lam, gap):
    curve = vote_rdp(lam, np.array([float(gap)]))
    with mp.workdps(500):  # q = e^{-500} at lam = 1, gap = 500
        _assert_bounds(curve, [_vote(lam, gap, mp.mpf(float(a))) for a in ORDERS],
                       looseness=1e-12)
        _assert_bounds(vote_rdp(lam), [2 * mp.mpf(lam) ** 2 * mp.mpf(float(a))
                                       for a in ORDERS])


def test_pates_vote_curve_stays_a_bound_where_q_is_below_every_float():
    """lam g = 5,000: q is about e^{-5000}, past the cap on the working precision. Where log(1 - q)
    dominates, the bound rounds up to the smallest floats; at large orders e^{2 lam l} q takes
    over and the bound is tight again."""
    picks = np.r_[0:3, 6:len(ORDERS):50, len(ORDERS) - 1]
    curve = vote_rdp(1.0, np.array([5000.0]))[picks]
    with mp.workdps(2300):
        _assert_bounds(curve, [_vote(1.0, 5000, mp.mpf(float(a))) for a in ORDERS[picks]])
    assert curve[0] < 1e-320 < curve[-1]


@pytest.mark.parametrize("charge", ["zcdp", "gaussian", "projection"])
def test_linear_curves_never_round_below_their_exact_products(charge):
    rho, sigma, sensitivity, blocks = 0.1, 0.3, 0.7, 3
    if charge == "zcdp":
        ledger = RdpLedger(RdpBudget(epsilon=50.0, delta=1e-6,
                                     relation=NeighbourRelation.REPLACE_ONE))
        curve = np.array(ledger.charge_zcdp(rho, mechanism="m", label="l").curve)
        slope = Fraction(rho)
    elif charge == "gaussian":
        curve = gaussian_rdp(ORDERS, sigma, sensitivity)
        slope = Fraction(sensitivity) ** 2 / (2 * Fraction(sigma) ** 2)
    else:
        curve = projection_rdp(ORDERS, sigma, blocks=blocks, distance=sensitivity)
        slope = blocks * Fraction(sensitivity) ** 2 / (2 * Fraction(sigma) ** 2)
    exact = [slope * Fraction(float(a)) for a in ORDERS]
    assert all(Fraction(float(v)) >= e for v, e in zip(curve, exact, strict=True))
    assert max(float(Fraction(float(v)) / e - 1) for v, e in zip(curve, exact, strict=True)) < 1e-11


def test_inflate_multiplies_by_its_slack_rounding_up_and_keeps_infinities():
    values, units = np.array([1.0, 3.0e-300, 7.25, np.inf]), np.array([1.0, 10.0, 1e6, 5.0])
    bounds = inflate(values, units)
    for value, unit, bound in zip(values[:3], units[:3], bounds[:3], strict=True):
        slack = Fraction(CURVE_SLACK) * Fraction(UNIT_ROUNDOFF) * Fraction(unit)
        exact = Fraction(value) * (1 + slack)
        assert Fraction(float(bound)) >= exact
        assert float(Fraction(float(bound)) / exact - 1) < 1e-15
    assert bounds[3] == np.inf


def _amplified(epsilon, delta, gamma, tail=0):
    """Lemma 1's (and the same-size variant's) pair, in mpmath."""
    epsilon, delta, gamma = mp.mpf(epsilon), mp.mpf(delta), mp.mpf(gamma)
    return mp.log1p(gamma * mp.expm1(epsilon)), gamma * delta + tail


@pytest.mark.parametrize("epsilon, delta, rate", [(1.0, 1e-5, 0.01), (0.1, 1e-9, 0.3),
                                                  (8.0, 1e-6, 1e-4)])
def test_poisson_amplification_and_its_inverse_never_claim_less_than_lemma_1(epsilon, delta, rate):
    with mp.workdps(60):
        amplified = poisson_amplified(epsilon, delta, rate)
        exact = _amplified(epsilon, delta, rate)
        assert all(mp.mpf(a) >= e for a, e in zip(amplified, exact, strict=True))
        base = poisson_base(epsilon, delta, rate)
        assert all(e <= target for e, target in zip(_amplified(*base, rate),
                                                    (epsilon, delta), strict=True))


@pytest.mark.parametrize("records, rate", [(50_000, 0.01), (1_000, 0.3), (200_000, 0.002)])
def test_the_same_size_amplification_counts_the_binomial_tail_exactly(records, rate):
    epsilon, delta = 2.0, 1e-6
    base_epsilon, base_delta, size = poisson_same_size_base(epsilon, delta, rate=rate,
                                                            records=records)
    with mp.workdps(60):
        tail = mp.betainc(size + 1, records - size, 0, rate, regularized=True)
        assert tail <= 0.1 * delta  # the share the typical size leaves to larger samples
        exact = _amplified(base_epsilon, base_delta, mp.mpf(size) / records, tail)
        assert all(e <= target for e, target in zip(exact, (epsilon, delta), strict=True))
        assert exact[1] >= delta * (1 - 1e-9)  # and spends the target, to rounding
        claimed = poisson_same_size_amplified(base_epsilon, base_delta, rate=rate,
                                              records=records, size=size)
        assert all(mp.mpf(c) >= e for c, e in zip(claimed, exact, strict=True))


@pytest.mark.parametrize("curve", ["lemma-2", "exact"])
@pytest.mark.parametrize("sigma", [1e-3, 1.0])
def test_the_slicing_curves_bound_their_formulas_next_to_order_one(curve, sigma):
    """alpha^2 - alpha cancels next to alpha = 1 (off the ledger's grid, which starts at 1.001);
    at sigma = 1e-3 the pole (alpha^2 - alpha = 1e-6) is there too."""
    orders = 1 + np.array([3e-7, 1e-9, 1e-12])
    values = slicing_rdp(orders, sigma, dim=1, projections=2, curve=curve)
    with mp.workdps(60):
        _assert_bounds(values, _slicing(orders, sigma, 1, 2, curve))


@pytest.mark.parametrize("records, rate", [(1, 1e-20), (1_000, 1e-22), (10, 1e-300)])
def test_the_same_size_amplification_keeps_a_tiny_tail_beyond_an_empty_sample(records, rate):
    """At size 0 the tail P[S > 0] = 1 - (1 - rate)^records is all of delta'; one minus the
    probability of an empty sample would cancel it away."""
    claimed = poisson_same_size_amplified(1.0, 0.0, rate=rate, records=records, size=0)[1]
    with mp.workdps(60):
        tail = -mp.expm1(records * mp.log1p(-mp.mpf(rate)))
        assert tail <= mp.mpf(claimed) <= tail * (1 + mp.mpf(LOOSENESS))
