"""PATE's noisy vote: both bounds against the exact Rényi divergence of the two-label vote, the
release's label frequencies, and the charge that spends the rest."""

import math

import numpy as np
import pytest

from reprolib.privacy import (
    ORDERS,
    BudgetExceededError,
    NeighbourRelation,
    RdpBudget,
    RdpLedger,
    last_vote_inverse_scale,
    noisy_vote,
    vote_rdp,
    vote_rho,
    zcdp_curve,
)


def _ledger(epsilon=1.0, delta=1e-6):
    return RdpLedger(RdpBudget(epsilon=epsilon, delta=delta,
                               relation=NeighbourRelation.REPLACE_ONE))


def _p_one(lam: float, margin: float) -> float:
    """P[the vote is 1] when label 1 leads by ``margin`` votes: the difference of two Laplace(1/lam)
    variables exceeds -margin (its tail is (2 + lam t) / (4 e^{lam t}) at t >= 0)."""
    tail = (2.0 + lam * abs(margin)) / (4.0 * math.exp(lam * abs(margin)))
    return 1.0 - tail if margin >= 0 else tail


def _renyi(p: float, p_other: float, alpha: np.ndarray) -> np.ndarray:
    """The Rényi divergence of order alpha of Bernoulli(p) from Bernoulli(p_other), exactly."""
    with np.errstate(divide="ignore"):
        terms = np.logaddexp(alpha * math.log(p) + (1 - alpha) * math.log(p_other),
                             alpha * math.log1p(-p) + (1 - alpha) * math.log1p(-p_other))
    return terms / (alpha - 1.0)


def test_the_data_independent_curve_is_two_lambda_squared_alpha():
    assert vote_rho(0.5) == 0.5
    np.testing.assert_array_equal(vote_rdp(0.1), zcdp_curve(vote_rho(0.1)))
    assert vote_rho(0.1) >= 2 * 0.1 ** 2


@pytest.mark.parametrize("lam", [0.05, 0.3, 1.0])
@pytest.mark.parametrize(("teachers", "ones"), [(10, 10), (10, 8), (10, 5), (250, 3), (250, 130)])
def test_both_bounds_cover_the_exact_divergence_to_every_neighbour(lam, teachers, ones):
    alphas = ORDERS[ORDERS <= 200]
    independent = vote_rdp(lam)[: len(alphas)]
    dependent = vote_rdp(lam, np.array([abs(2 * ones - teachers)]))[: len(alphas)]
    assert np.all(dependent <= independent * (1 + 1e-9))  # up to the rounding margin
    margin = 2 * ones - teachers
    for other in (margin - 2, margin + 2):  # one teacher changes its vote
        if abs(other) > teachers:
            continue
        exact = _renyi(_p_one(lam, margin), _p_one(lam, other), alphas)
        assert np.all(exact <= independent * (1 + 1e-9))
        assert np.all(exact <= dependent * (1 + 1e-9))  # the divergence from the actual data


def test_the_data_dependent_bound_is_far_below_the_independent_one_on_consensus():
    lam, teachers = 1.0, 50
    consensus = vote_rdp(lam, np.full(100, teachers))
    split = vote_rdp(lam, np.zeros(100))
    at = np.searchsorted(ORDERS, 10.0)
    assert consensus[at] < 1e-6 * 100 * vote_rdp(lam)[at]
    np.testing.assert_allclose(split, 100 * vote_rdp(lam), rtol=1e-11)  # a tie: q = 1/2, no gain


def test_the_vote_follows_the_tail_probability():
    lam, teachers, ones = 0.5, 10, 6  # label 1 leads by 2
    labels = noisy_vote(np.full(200_000, ones), teachers, inverse_scale=lam, data_dependent=False,
                        rng=np.random.default_rng(0), ledger=_ledger(epsilon=1e9), label="votes")
    expected = _p_one(lam, 2 * ones - teachers)
    assert abs(labels.mean() - expected) < 4 * math.sqrt(expected * (1 - expected) / len(labels))


def test_a_vote_is_charged_before_it_is_released():
    ledger = _ledger(epsilon=1.0)
    labels = noisy_vote(np.array([3, 0, 5]), 5, inverse_scale=0.01, data_dependent=False,
                        rng=np.random.default_rng(0), ledger=ledger, label="votes")
    assert labels.shape == (3,)
    (charge,) = ledger.charges
    assert charge.repeat == 3 and charge.details["data_dependent"] == 0.0
    spent = ledger.spent_epsilon()
    with pytest.raises(BudgetExceededError):
        noisy_vote(np.zeros(10_000), 5, inverse_scale=1.0, data_dependent=True,
                   rng=np.random.default_rng(0), ledger=ledger, label="too many")
    assert len(ledger.charges) == 1 and ledger.spent_epsilon() == spent


def test_the_last_votes_spend_the_rest_exactly():
    ledger = _ledger(epsilon=2.0, delta=1e-5)
    noisy_vote(np.full(40, 9), 10, inverse_scale=0.02, data_dependent=True,
               rng=np.random.default_rng(0), ledger=ledger, label="votes")
    lam = last_vote_inverse_scale(ledger, 64)
    noisy_vote(np.full(64, 9), 10, inverse_scale=lam, data_dependent=False,
               rng=np.random.default_rng(1), ledger=ledger, label="last votes")
    assert ledger.spent_epsilon() <= 2.0
    assert math.isclose(ledger.spent_epsilon(), 2.0, rel_tol=1e-9)
    with pytest.raises(ValueError, match="positive integer"):
        last_vote_inverse_scale(_ledger(), 0)
