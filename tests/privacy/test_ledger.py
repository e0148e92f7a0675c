"""The ledger: additive composition, refusal to overspend, reporting in rho and (epsilon, delta)."""

import pytest

from reprolib.privacy import (
    OVERSPEND_RTOL,
    BudgetExceededError,
    Ledger,
    NeighbourRelation,
    PrivacyBudget,
    eps_to_rho,
    rho_to_eps,
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
    for _ in range(10):
        ledger.charge(budget.rho / 10, mechanism="gaussian", label="part")
    assert ledger.is_exhausted()
    assert ledger.spent_epsilon() == pytest.approx(2.5, rel=1e-9)
    assert ledger.remaining_rho == pytest.approx(0.0, abs=1e-15)
    assert ledger.summary()["n_charges"] == 10


def test_overspending_raises_and_records_nothing():
    ledger = Ledger(PrivacyBudget(rho=1.0, relation=NeighbourRelation.ADD_REMOVE))
    ledger.charge(0.75, mechanism="gaussian", label="first")
    with pytest.raises(BudgetExceededError, match="would spend 1.25 of a budget of 1"):
        ledger.charge(0.5, mechanism="gaussian", label="second")
    assert ledger.spent_rho == 0.75 and len(ledger.charges) == 1


def test_rounding_slack_is_tiny():
    ledger = Ledger(PrivacyBudget(rho=1.0, relation=NeighbourRelation.ADD_REMOVE))
    ledger.charge(1.0 + OVERSPEND_RTOL / 2, mechanism="gaussian", label="rounding")
    with pytest.raises(BudgetExceededError):
        Ledger(ledger.budget).charge(1.0 + 1e-9, mechanism="gaussian", label="real overspend")


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
