"""MWEM+PGM (AIM paper, Algorithm 1): per-round charges, candidates, size cap, utility.

The total spend, the relation, seeding and the output domain are in test_contract.py."""

import math

import numpy as np
import pytest

from reprolib.mechanisms.marginal.mwem_pgm import MWEMPGM, MWEMPGMConfig
from reprolib.mechanisms.pgm import junction_tree_size_mb
from reprolib.privacy import NeighbourRelation, PrivacyBudget
from reprolib.queries import Workload, all_kway

FAST = MWEMPGMConfig(rounds=2, pgm_iters=50)


def _budget(rho):
    return PrivacyBudget(rho=rho, relation=NeighbourRelation.ADD_REMOVE)


@pytest.fixture(scope="module")
def run(small_titanic):
    budget, workload = _budget(0.015), all_kway(small_titanic.domain, 2)
    result = MWEMPGM(FAST).fit(small_titanic, budget, np.random.default_rng(2), workload=workload)
    return budget, workload, result


def test_rounds_split_half_selection_half_measurement(run):
    budget, _, result = run
    rho, rounds = budget.rho, FAST.rounds
    charges = result.ledger.charges
    assert len(charges) == 2 * rounds
    for t in range(rounds):
        selection, measurement = charges[2 * t], charges[2 * t + 1]
        assert selection.label == f"round {t + 1} selection"
        assert selection.details["sensitivity"] == 1.0
        assert math.isclose(selection.details["epsilon"], math.sqrt(8 * rho / (2 * rounds)),
                            rel_tol=1e-12)
        assert measurement.details["sensitivity"] == 1.0
        assert math.isclose(measurement.details["sigma"], math.sqrt(rounds / rho), rel_tol=1e-12)
        assert math.isclose(selection.rho, rho / (2 * rounds), rel_tol=1e-12)
        assert math.isclose(measurement.rho, rho / (2 * rounds), rel_tol=1e-12)


def test_selects_workload_marginals(run):
    _, workload, result = run
    assert all(tuple(c) in workload.cliques for c in result.diagnostics["selected"])


def test_default_rounds_are_d_and_alpha_splits_each_round(small_titanic):
    data = small_titanic.project(["Survived", "Sex"])
    budget, workload = _budget(0.5), all_kway(data.domain, 1)
    result = MWEMPGM(MWEMPGMConfig(alpha=0.9, pgm_iters=50)).fit(
        data, budget, np.random.default_rng(0), workload=workload)
    selections, measurements = result.ledger.charges[::2], result.ledger.charges[1::2]
    assert len(selections) == len(measurements) == 2
    for selection, measurement in zip(selections, measurements, strict=True):
        assert math.isclose(selection.rho, 0.1 * budget.rho / 2, rel_tol=1e-12)
        assert math.isclose(measurement.details["sigma"], math.sqrt(2 / (2 * 0.9 * budget.rho)),
                            rel_tol=1e-12)
    assert result.ledger.is_exhausted()


def test_size_cap_keeps_only_candidates_that_fit_the_growing_limit(small_titanic):
    domain, workload = small_titanic.domain, all_kway(small_titanic.domain, 2)
    cap = 36 * 8 / 2**20  # MB of 36 cells; with (Survived, Sex) selected, models span 21-39 cells
    mechanism = MWEMPGM(MWEMPGMConfig(rounds=5, max_model_size_mb=cap))
    selected = [("Survived", "Sex")]
    counts = []
    for progress in (0.6, 0.8, 1.0):
        eligible = mechanism._eligible(domain, workload, selected, progress)
        assert eligible == [r for r in workload.cliques
                            if junction_tree_size_mb(domain, [*selected, r]) <= cap * progress]
        counts.append(len(eligible))
    assert 0 < counts[0] < counts[1] < counts[2] < len(workload)
    with pytest.raises(ValueError, match="max_model_size_mb"):
        mechanism._eligible(domain, workload, selected, 0.2)
    uncapped = MWEMPGM(MWEMPGMConfig())._eligible(domain, workload, selected, 0.2)
    assert uncapped == list(workload.cliques)


def test_refuses_a_missing_workload(small_titanic):
    with pytest.raises(ValueError, match="workload"):
        MWEMPGM(FAST).fit(small_titanic, _budget(1.0), np.random.default_rng(0))


def test_traits_are_the_table_1_row():
    traits = MWEMPGM().traits
    assert (traits.workload_aware, traits.data_aware, traits.budget_aware,
            traits.efficiency_aware) == (True, True, False, False)


def test_large_budget_recovers_the_measured_marginals(small_titanic):
    workload = Workload("pairs", [("Survived", "Sex"), ("Pclass", "Embarked")], [1.0, 1.0])
    result = MWEMPGM(MWEMPGMConfig(rounds=2, pgm_iters=300)).fit(
        small_titanic, _budget(100.0), np.random.default_rng(0), workload=workload)
    for clique in workload.cliques:
        truth = small_titanic.marginal(clique)
        synthetic = result.synthetic.marginal(clique)
        assert np.abs(truth - synthetic).sum() / truth.sum() < 0.02


@pytest.mark.parametrize("field, value", [("rounds", 0), ("alpha", 1.0), ("alpha", 0.0),
                                          ("pgm_iters", 0), ("max_model_size_mb", 0.0)])
def test_config_rejects_bad_values(field, value):
    with pytest.raises(ValueError, match=field):
        MWEMPGMConfig(**{field: value})


def test_replace_one_doubles_the_selection_and_widens_the_measurement_sensitivity(small_titanic):
    """Under replace-one (RAP++'s comparison) a count marginal moves by 2 in L1 and sqrt(2) in
    L2; the charges record those sensitivities and still sum to the budget."""
    import dataclasses
    import math

    config = dataclasses.replace(FAST, relation=NeighbourRelation.REPLACE_ONE)
    budget = PrivacyBudget(rho=0.5, relation=NeighbourRelation.REPLACE_ONE)
    workload = Workload("pairs", [("Survived", "Sex"), ("Pclass", "Embarked")], [1.0, 1.0])
    result = MWEMPGM(config).fit(small_titanic, budget, np.random.default_rng(0),
                                 workload=workload)
    sensitivities = {c.mechanism: c.details["sensitivity"] for c in result.ledger.charges}
    assert sensitivities["exponential"] == 2.0
    assert math.isclose(sensitivities["gaussian"], math.sqrt(2.0))
    assert math.isclose(result.ledger.spent_rho, 0.5, rel_tol=1e-12)


def test_junction_tree_potentials_change_the_fits_not_the_accounting(small_titanic):
    budget, workload = _budget(0.015), all_kway(small_titanic.domain, 2)
    runs = [MWEMPGM(MWEMPGMConfig(rounds=2, pgm_iters=50, potentials=home)).fit(
        small_titanic, budget, np.random.default_rng(2), workload=workload)
        for home in ("measured-cliques", "junction-tree-2022")]
    for result in runs:
        assert math.isclose(result.ledger.spent_rho, budget.rho, rel_tol=1e-9)
    # two 2-way marginals need no fill-in: the homes fit alike, so the same noise selects alike
    assert runs[0].diagnostics["selected"] == runs[1].diagnostics["selected"]
