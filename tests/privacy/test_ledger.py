"""The ledger: additive composition, refusal to overspend, reporting in rho and (epsilon, delta)."""

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reprolib.privacy import (
    BudgetExceededError,
    Ledger,
    NeighbourRelation,
    PrivacyBudget,
    eps_to_rho,
    rho_to_eps,
    split_budget,
)


def test_budget_from_epsilon_delta_uses_the_requested_bound():
    budget = PrivacyBudget.from_epsilon_delta(1.0, 1e-9, relation=NeighbourRelation.ADD_REMOVE)
    assert budget.rho == eps_to_rho(1.0, 1e-9)
    loose = PrivacyBudget.from_epsilon_delta(1.0, 1e-9, relation=NeighbourRelation.ADD_REMOVE,
                                             bound="bun-steinke")
    assert loose.rho < budget.rho


def test_charges_add_up_and_spending_everything_reports_the_target_epsilon():
    budget = PrivacyBudget.from_epsilon_delta(2.5, 1e-5, relation=NeighbourRelation.REPLACE_ONE)
    ledger = Ledger(budget)
    naive = Ledger(budget)
    with pytest.raises(BudgetExceededError):  # ten rounded tenths add up to more than rho here
        for _ in range(10):
            naive.charge(budget.rho / 10, mechanism="gaussian", label="part")
    for part in split_budget(budget.rho, [1.0] * 10):
        ledger.charge(part, mechanism="gaussian", label="part")
    assert ledger.is_exhausted()
    assert ledger.spent_epsilon() == pytest.approx(2.5, rel=1e-9)
    assert ledger.spent_epsilon() <= 2.5
    assert ledger.remaining_rho == pytest.approx(0.0, abs=1e-15)
    assert ledger.summary()["n_charges"] == 10


def test_overspending_raises_and_records_nothing():
    ledger = Ledger(PrivacyBudget(rho=1.0, relation=NeighbourRelation.ADD_REMOVE))
    ledger.charge(0.75, mechanism="gaussian", label="first")
    with pytest.raises(BudgetExceededError, match="would spend 1.25 of a budget of 1"):
        ledger.charge(0.5, mechanism="gaussian", label="second")
    assert ledger.spent_rho == 0.75 and len(ledger.charges) == 1


def test_no_slack_one_ulp_above_the_budget_is_refused():
    ledger = Ledger(PrivacyBudget(rho=1.0, relation=NeighbourRelation.ADD_REMOVE))
    with pytest.raises(BudgetExceededError, match="exceeding it by 2.22e-16"):
        ledger.charge(math.nextafter(1.0, 2.0), mechanism="gaussian", label="one ulp over")
    ledger.charge(1.0, mechanism="gaussian", label="all of it")
    assert ledger.remaining_rho == 0.0


def test_a_total_that_fsum_rounds_onto_the_budget_is_still_refused():
    """The floats 0.1 and 0.4 add up to 0.5 in floating point (and in fsum), but their exact sum
    is 2.8e-17 above 0.5: ``fsum(charges) <= rho`` would accept it; the exact test refuses."""
    rho = 0.5
    assert math.fsum([0.1, 0.4]) == rho and Fraction(0.1) + Fraction(0.4) > Fraction(rho)
    ledger = Ledger(PrivacyBudget(rho=rho, relation=NeighbourRelation.ADD_REMOVE))
    ledger.charge(0.1, mechanism="gaussian", label="first")
    with pytest.raises(BudgetExceededError, match="exceeding it by 2.78e-17"):
        ledger.charge(0.4, mechanism="gaussian", label="second")
    ledger.charge(ledger.remaining_rho, mechanism="gaussian", label="the exact rest")
    assert ledger.charges[1].rho == math.nextafter(0.4, 0.0)


charges = st.lists(st.floats(min_value=1e-12, max_value=1.0), min_size=1, max_size=30)


@settings(max_examples=300, deadline=None)
@given(rho=st.floats(min_value=1e-9, max_value=100.0), parts=charges)
def test_accepts_exactly_the_charges_whose_exact_total_fits(rho, parts):
    ledger = Ledger(PrivacyBudget(rho=rho, relation=NeighbourRelation.ADD_REMOVE))
    exact = Fraction(0)
    for part in parts:
        fits = exact + Fraction(part) <= Fraction(rho)
        try:
            ledger.charge(part, mechanism="gaussian", label="part")
            accepted = True
        except BudgetExceededError:
            accepted = False
        assert accepted == fits
        exact += Fraction(part) if accepted else 0
        assert Fraction(ledger.remaining_rho) <= Fraction(rho) - exact
        assert Fraction(math.nextafter(ledger.remaining_rho, math.inf)) > Fraction(rho) - exact
    ledger.charge(ledger.remaining_rho, mechanism="gaussian", label="the rest")  # always fits
    assert Fraction(rho) - ledger.spent_rho <= Fraction(math.ulp(rho))


def test_spent_epsilon_needs_a_delta_for_rho_budgets():
    ledger = Ledger(PrivacyBudget(rho=0.5, relation=NeighbourRelation.ADD_REMOVE))
    ledger.charge(0.5, mechanism="gaussian", label="all")
    with pytest.raises(ValueError, match="pass delta"):
        ledger.spent_epsilon()
    assert ledger.spent_epsilon(1e-5) == rho_to_eps(0.5, 1e-5)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rho": 0.0, "relation": NeighbourRelation.ADD_REMOVE}, "rho must be finite and > 0"),
        ({"rho": 1.0, "relation": NeighbourRelation.ADD_REMOVE, "delta": 1.5}, "delta"),
    ],
)
def test_bad_budgets(kwargs, message):
    with pytest.raises(ValueError, match=message):
        PrivacyBudget(**kwargs)


def test_relation_must_be_the_enum():
    with pytest.raises(TypeError, match="relation must be a NeighbourRelation"):
        PrivacyBudget(rho=1.0, relation="add-remove")


def test_negative_charge_is_refused():
    ledger = Ledger(PrivacyBudget(rho=1.0, relation=NeighbourRelation.ADD_REMOVE))
    with pytest.raises(ValueError, match="rho must be finite and >= 0"):
        ledger.charge(-0.1, mechanism="gaussian", label="refund")


@settings(max_examples=300, deadline=None)
@given(rho=st.floats(min_value=1e-12, max_value=1e3),
       weights=st.lists(st.floats(min_value=1e-3, max_value=1e3), min_size=1, max_size=40))
def test_split_budget_never_exceeds_and_loses_less_than_an_ulp(rho, weights):
    parts = split_budget(rho, weights)
    assert len(parts) == len(weights) and all(p > 0.0 for p in parts)
    gap = Fraction(rho) - sum(map(Fraction, parts))
    assert 0 <= gap < Fraction(math.ulp(parts[-1]))
    for part, weight in zip(parts, weights, strict=True):
        assert part == pytest.approx(rho * weight / math.fsum(weights), rel=1e-12)


def test_split_budget_of_thirds_shaves_what_rounding_to_nearest_would_overspend():
    rho = 2.5  # fl(2.5 / 3) * 3 exceeds 2.5 in exact arithmetic
    naive = [rho / 3] * 3
    assert sum(map(Fraction, naive)) > Fraction(rho)
    parts = split_budget(rho, [1.0, 1.0, 1.0])
    assert sum(map(Fraction, parts)) <= Fraction(rho)


@pytest.mark.parametrize(("weights", "message"), [([], "at least one"), ([1.0, 0.0], "weights"),
                                                  ([1.0, 1e-300], "too small a share")])
def test_split_budget_rejects_bad_weights(weights, message):
    with pytest.raises(ValueError, match=message):
        split_budget(1.0, weights)
