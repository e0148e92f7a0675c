"""Independent: every charge at sigma = sqrt(d/(2 rho)), the traits, utility.

The total spend, the relation, seeding and the output domain are in test_contract.py."""

import math

import numpy as np
import pytest

from reprolib.mechanisms.marginal.independent import Independent, IndependentConfig
from reprolib.privacy import NeighbourRelation, PrivacyBudget

FAST = IndependentConfig(pgm_iters=50)


def _budget(rho):
    return PrivacyBudget(rho=rho, relation=NeighbourRelation.ADD_REMOVE)


@pytest.fixture(scope="module")
def run(small_titanic):
    budget = _budget(0.05)
    return budget, Independent(FAST).fit(small_titanic, budget, np.random.default_rng(3))


def test_every_one_way_is_measured_at_the_equal_split_sigma(run, small_titanic):
    budget, result = run
    d = len(small_titanic.domain)
    charges = result.ledger.charges
    assert [c.label for c in charges] == [f"1-way {a}" for a in small_titanic.domain.attributes]
    for charge in charges:
        assert charge.mechanism == "gaussian"
        assert charge.details["sensitivity"] == 1.0
        assert math.isclose(charge.details["sigma"], math.sqrt(d / (2 * budget.rho)), rel_tol=1e-12)
        assert math.isclose(charge.rho, budget.rho / d, rel_tol=1e-12)


def test_traits_are_the_table_1_row():
    traits = Independent.traits
    assert (traits.workload_aware, traits.data_aware, traits.budget_aware,
            traits.efficiency_aware) == (False, False, False, True)


def test_large_budget_recovers_the_one_way_marginals(small_titanic):
    result = Independent(IndependentConfig(pgm_iters=200)).fit(
        small_titanic, _budget(100.0), np.random.default_rng(0))
    for a in small_titanic.domain.attributes:
        truth = small_titanic.marginal((a,))
        assert np.abs(truth - result.synthetic.marginal((a,))).sum() / truth.sum() < 0.01


def test_config_rejects_nonpositive_iterations():
    with pytest.raises(ValueError, match="pgm_iters"):
        IndependentConfig(pgm_iters=0)


def test_a_replace_one_budget_is_refused_without_a_config_fix(small_titanic):
    # IndependentConfig has no relation field: the only fix is the budget's relation
    budget = PrivacyBudget(rho=0.05, relation=NeighbourRelation.REPLACE_ONE)
    fix = r"build the budget with relation=NeighbourRelation\.ADD_REMOVE$"
    with pytest.raises(ValueError, match=fix):
        Independent(FAST).fit(small_titanic, budget, np.random.default_rng(0))
