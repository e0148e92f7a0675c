"""Gaussian baseline: PrivSyn allocation, per-marginal charges, closed-form expected error.

The total spend, the relation, seeding and the answers' shapes are in test_contract.py."""

import math

import numpy as np
import pytest

from reprolib.mechanisms.marginal.gaussian import (
    GaussianWorkload,
    expected_workload_error,
    privsyn_allocation,
)
from reprolib.privacy import NeighbourRelation, PrivacyBudget
from reprolib.queries import Workload, all_kway


def _budget(rho):
    return PrivacyBudget(rho=rho, relation=NeighbourRelation.ADD_REMOVE)


@pytest.fixture(scope="module")
def workload():
    """Marginals of different sizes and weights, so the allocation is far from equal."""
    return Workload("mixed", [("Survived",), ("Survived", "Sex"), ("Pclass", "SibSp"),
                              ("Survived", "SibSp", "Embarked")], [1.0, 3.0, 0.5, 2.0])


@pytest.fixture(scope="module")
def run(small_titanic, workload):
    budget = _budget(0.05)
    result = GaussianWorkload().fit(small_titanic, budget, np.random.default_rng(3),
                                    workload=workload)
    return budget, result


def _cells(data, clique):
    return data.domain.project(clique).total_size


def test_allocation_is_proportional_to_weighted_size_to_the_two_thirds(small_titanic, workload):
    rhos = privsyn_allocation(workload, small_titanic.domain, 0.05)
    assert math.isclose(math.fsum(rhos), 0.05, rel_tol=1e-12)
    shares = [(c * _cells(small_titanic, r)) ** (2 / 3)
              for r, c in zip(workload.cliques, workload.weights, strict=True)]
    np.testing.assert_allclose(rhos, 0.05 * np.array(shares) / sum(shares), rtol=1e-12)


def test_one_charge_per_marginal_at_its_privsyn_share(run, small_titanic, workload):
    budget, result = run
    rhos = privsyn_allocation(workload, small_titanic.domain, budget.rho)
    charges = result.ledger.charges
    assert len(charges) == len(workload)
    for charge, clique, rho_i in zip(charges, workload.cliques, rhos, strict=True):
        assert charge.label == f"answer {','.join(clique)}"
        assert charge.details["sensitivity"] == 1.0
        assert math.isclose(charge.details["sigma"], 1 / math.sqrt(2 * rho_i), rel_tol=1e-12)
        assert math.isclose(charge.rho, rho_i, rel_tol=1e-12)


def test_monte_carlo_error_matches_the_closed_form(small_titanic, workload):
    budget, n = _budget(0.01), small_titanic.records
    truth = {r: small_titanic.marginal(r) for r in workload.cliques}
    rng = np.random.default_rng(11)
    errors = []
    for _ in range(400):
        answers = GaussianWorkload().fit(small_titanic, budget, rng, workload=workload).answers
        errors.append(sum(c * np.abs(truth[r] - answers[r]).sum()
                          for r, c in zip(workload.cliques, workload.weights, strict=True))
                      / (len(workload) * n))
    expected = expected_workload_error(workload, small_titanic.domain, budget.rho, n)
    standard_error = np.std(errors) / math.sqrt(len(errors))
    assert abs(np.mean(errors) - expected) < 4 * standard_error
    assert math.isclose(np.mean(errors), expected, rel_tol=0.02)


def test_large_budget_answers_are_close_to_the_truth(small_titanic):
    workload = all_kway(small_titanic.domain, 2)
    result = GaussianWorkload().fit(small_titanic, _budget(100.0), np.random.default_rng(0),
                                    workload=workload)
    for clique in workload.cliques:
        truth = small_titanic.marginal(clique)
        assert np.abs(truth - result.answers[clique]).sum() / truth.sum() < 0.01


def test_refuses_a_missing_workload_and_zero_weights(small_titanic):
    mechanism, rng = GaussianWorkload(), np.random.default_rng(0)
    with pytest.raises(ValueError, match="workload"):
        mechanism.fit(small_titanic, _budget(1.0), rng)
    unweighted = Workload("w", [("Survived",), ("Sex",)], [1.0, 0.0])
    with pytest.raises(ValueError, match="weight 0"):
        mechanism.fit(small_titanic, _budget(1.0), rng, workload=unweighted)


def test_traits_are_the_table_1_row():
    traits = GaussianWorkload.traits
    assert (traits.workload_aware, traits.data_aware, traits.budget_aware,
            traits.efficiency_aware) == (True, False, False, False)
