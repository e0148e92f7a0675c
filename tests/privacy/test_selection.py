"""Exponential mechanism and Gumbel top-k: exact sampling distribution and zCDP charges."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from reprolib.privacy import (
    Ledger,
    NeighbourRelation,
    PrivacyBudget,
    exponential_mechanism,
    exponential_mechanism_epsilon,
    exponential_mechanism_rho,
    gumbel_top_k,
)
from reprolib.privacy._selection import _top_k


def _ledger(rho: float = 1e6) -> Ledger:
    return Ledger(PrivacyBudget(rho=rho, relation=NeighbourRelation.ADD_REMOVE))


def test_rho_closed_form_and_inverse():
    assert exponential_mechanism_rho(2.0) == 0.5
    assert exponential_mechanism_epsilon(0.5) == pytest.approx(2.0)


def test_exponential_mechanism_samples_the_softmax():
    scores = np.array([0.0, 1.0, 2.0, 4.0])
    epsilon, sensitivity = 1.5, 2.0
    expected = np.exp(epsilon * scores / (2 * sensitivity))
    expected /= expected.sum()
    rng = np.random.default_rng(11)
    ledger = _ledger()
    draws = [exponential_mechanism(scores, epsilon=epsilon, sensitivity=sensitivity, rng=rng,
                                   ledger=ledger, label="select") for _ in range(20_000)]
    counts = np.bincount(draws, minlength=scores.size)
    assert stats.chisquare(counts, expected * len(draws)).pvalue > 1e-3
    assert ledger.spent_rho == pytest.approx(20_000 * epsilon**2 / 8)


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.integers(-3, 3), min_size=1, max_size=40), data=st.data())
def test_top_k_is_the_stable_full_sorts_first_k(values, data):
    """The partition-then-sort selection is the full stable sort's first k, ties included (the
    integer values make ties the rule)."""
    values = np.asarray(values, dtype=float)
    k = data.draw(st.integers(1, values.size))
    np.testing.assert_array_equal(_top_k(values, k), np.argsort(-values, kind="stable")[:k])


def test_gumbel_top_k_charges_k_rounds_and_returns_distinct_indices():
    ledger = _ledger()
    chosen = gumbel_top_k(np.arange(10.0), 3, epsilon=0.8, sensitivity=1.0,
                          rng=np.random.default_rng(0), ledger=ledger, label="top-3")
    assert len(set(chosen.tolist())) == 3
    assert ledger.spent_rho == pytest.approx(3 * 0.8**2 / 8)


def test_gumbel_top_1_has_the_exponential_mechanism_distribution():
    scores = np.array([3.0, 1.0, 0.0])
    rng = np.random.default_rng(5)
    draws = [int(gumbel_top_k(scores, 1, epsilon=1.0, sensitivity=1.0, rng=rng, ledger=_ledger(),
                              label="x")[0]) for _ in range(20_000)]
    expected = np.exp(scores / 2) / np.exp(scores / 2).sum()
    counts = np.bincount(draws, minlength=3)
    assert stats.chisquare(counts, expected * len(draws)).pvalue > 1e-3


def test_gumbel_top_2_has_the_distribution_of_two_peeled_exponential_mechanisms():
    """The ordered pair (first, second) follows peeling: the exponential mechanism, then the
    exponential mechanism on the candidates left; what the k eps^2 / 8 charge rests on."""
    scores = np.array([3.0, 1.5, 0.5, 0.0])
    rng = np.random.default_rng(6)
    pairs = [tuple(gumbel_top_k(scores, 2, epsilon=1.0, sensitivity=1.0, rng=rng,
                                ledger=_ledger(), label="x").tolist()) for _ in range(20_000)]
    weights = np.exp(scores / 2)
    ordered = [(i, j) for i in range(4) for j in range(4) if i != j]
    expected = np.array([weights[i] / weights.sum() * weights[j] / (weights.sum() - weights[i])
                         for i, j in ordered])
    counts = np.array([pairs.count(pair) for pair in ordered])
    assert stats.chisquare(counts, expected * len(pairs)).pvalue > 1e-3


def test_bad_arguments():
    with pytest.raises(ValueError, match="k must be a positive integer"):
        gumbel_top_k(np.ones(3), 0, epsilon=1.0, sensitivity=1.0, rng=np.random.default_rng(0),
                     ledger=_ledger(), label="x")
    with pytest.raises(ValueError, match="exceeds the number of candidates"):
        gumbel_top_k(np.ones(3), 4, epsilon=1.0, sensitivity=1.0, rng=np.random.default_rng(0),
                     ledger=_ledger(), label="x")
    with pytest.raises(ValueError, match="finite"):
        exponential_mechanism(np.array([0.0, np.nan]), epsilon=1.0, sensitivity=1.0,
                              rng=np.random.default_rng(0), ledger=_ledger(), label="x")


@settings(max_examples=300, deadline=None)
@given(rho=st.floats(min_value=1e-12, max_value=1e4))
def test_epsilon_is_the_largest_whose_charge_fits_and_never_undercharges(rho):
    epsilon = exponential_mechanism_epsilon(rho)
    charge = exponential_mechanism_rho(epsilon)
    exact = Fraction(epsilon) ** 2 / 8
    assert exact <= Fraction(charge) < exact + Fraction(math.ulp(charge))
    assert charge <= rho and rho - charge <= 4 * math.ulp(rho)
    assert exponential_mechanism_rho(math.nextafter(epsilon, math.inf)) > rho


@settings(max_examples=100, deadline=None)
@given(epsilon=st.floats(min_value=1e-6, max_value=10.0), k=st.integers(min_value=1, max_value=7))
def test_top_k_charge_is_k_epsilon_squared_over_8_rounded_up(epsilon, k):
    ledger = _ledger()
    gumbel_top_k(np.arange(8.0), k, epsilon=epsilon, sensitivity=1.0,
                 rng=np.random.default_rng(0), ledger=ledger, label="top-k")
    exact = k * Fraction(epsilon) ** 2 / 8
    assert exact <= Fraction(ledger.spent_rho) < exact + Fraction(math.ulp(ledger.spent_rho))
