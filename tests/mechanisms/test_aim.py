"""AIM: every charge from its closed form, the round rules, capacity, zeros, error bounds.

The total spend, relations, seeding and the output domain are in test_contract.py."""

import dataclasses
import itertools
import math

import numpy as np
import pandas as pd
import pytest

from reprolib.data import Dataset
from reprolib.mechanisms.marginal.aim import (
    AIM,
    AIMConfig,
    StructuralZeros,
    candidate_weights,
    quality_scores,
)
from reprolib.metrics import workload_error
from reprolib.privacy import GAUSSIAN_MEAN_ABS, NeighbourRelation, PrivacyBudget
from reprolib.queries import Workload, all_kway

FAST = AIMConfig(pgm_iters=30, final_pgm_iters=30)


def _budget(epsilon, relation=NeighbourRelation.ADD_REMOVE):
    return PrivacyBudget.from_epsilon_delta(epsilon, 1e-9, relation=relation)


# (relation, L2 sensitivity of one marginal, L1 sensitivity of one marginal)
RELATIONS = [(NeighbourRelation.ADD_REMOVE, 1.0, 1.0),
             (NeighbourRelation.REPLACE_ONE, math.sqrt(2.0), 2.0)]


@pytest.fixture(scope="module", params=RELATIONS, ids=lambda r: r[0].value)
def run(request, small_titanic):
    relation, l2, l1 = request.param
    budget = _budget(1.0, relation)
    workload = all_kway(small_titanic.domain, 3)
    config = dataclasses.replace(FAST, relation=relation)
    result = AIM(config).fit(small_titanic, budget, np.random.default_rng(7), workload=workload)
    return small_titanic, budget, workload, result, l2, l1


def test_initialisation_charges_every_one_way_at_sigma_zero(run):
    data, budget, _, result, l2, _ = run
    d = len(data.domain)
    sigma0 = l2 * math.sqrt(16 * d / (2 * 0.9 * budget.rho))
    init = result.ledger.charges[:d]
    assert sorted(c.label for c in init) == sorted(f"init {a}" for a in data.domain.attributes)
    for charge in init:
        assert math.isclose(charge.details["sigma"], sigma0, rel_tol=1e-12)
        assert math.isclose(charge.rho, 0.9 * budget.rho / (16 * d), rel_tol=1e-12)


def test_round_charges_follow_annealing_and_the_final_rule(run):
    data, budget, _, result, l2, _ = run
    d = len(data.domain)
    charges = result.ledger.charges[d:]
    rounds = result.log.rounds
    assert len(charges) == 2 * len(rounds)
    epsilon = math.sqrt(8 * 0.1 * budget.rho / (16 * d))
    sigma = l2 * math.sqrt(16 * d / (2 * 0.9 * budget.rho))
    spent = d * l2**2 / (2 * sigma**2)
    for k, record in enumerate(rounds):
        selection, measurement = charges[2 * k], charges[2 * k + 1]
        remaining = budget.rho - spent
        if record.final:
            assert remaining < 2 * (l2**2 / (2 * sigma**2) + epsilon**2 / 8)
            epsilon = math.sqrt(8 * 0.1 * remaining)
            sigma = l2 * math.sqrt(1 / (2 * 0.9 * remaining))
        assert math.isclose(selection.details["epsilon"], epsilon, rel_tol=1e-9)
        assert math.isclose(measurement.details["sigma"], sigma, rel_tol=1e-9)
        assert math.isclose(selection.details["sensitivity"], record.sensitivity)
        spent += epsilon**2 / 8 + l2**2 / (2 * sigma**2)
        if record.annealed:
            epsilon, sigma = 2 * epsilon, sigma / 2
    assert rounds[-1].final and not any(r.final for r in rounds[:-1])
    assert math.isclose(spent, budget.rho, rel_tol=1e-9)


def test_sensitivity_is_the_largest_candidate_weight_times_the_l1_sensitivity(run):
    _, _, workload, result, _, l1 = run
    weights = candidate_weights(workload)
    for record in result.log.rounds:
        held = [r for r, c in result.log.last_candidacy.items() if c.round is record]
        assert record.sensitivity >= l1 * max((weights[r] for r in held), default=0.0)
        assert record.sensitivity <= l1 * max(weights.values())


@pytest.mark.parametrize(("relation", "l1"), [(r, l1) for r, _, l1 in RELATIONS],
                         ids=lambda v: getattr(v, "value", str(v)))
def test_each_score_moves_by_at_most_its_weight_times_l1_between_neighbours(small_titanic,
                                                                             relation, l1):
    """The bound the selection's declared sensitivity rests on, checked on real neighbours: one
    record added (add/remove) or one replaced (replace-one), the model's marginals fixed. Some
    score moves by exactly w_r x l1, so the bound is tight."""
    workload = all_kway(small_titanic.domain, 3)
    weights = candidate_weights(workload)
    candidates = list(weights)
    frame = small_titanic.frame
    rng = np.random.default_rng(0)
    last = frame.iloc[[len(frame) - 1]]
    other = pd.DataFrame({a: [(int(last[a].iloc[0]) + 1) % n] for a, n in
                          zip(small_titanic.domain.attributes, small_titanic.domain.sizes,
                              strict=True)})
    neighbour_frame = (pd.concat([frame, other], ignore_index=True)
                       if relation is NeighbourRelation.ADD_REMOVE
                       else pd.concat([frame.iloc[:-1], other], ignore_index=True))
    neighbour = Dataset(neighbour_frame.astype(frame.dtypes.to_dict()), small_titanic.domain)
    truth = {r: small_titanic.marginal(r) for r in candidates}
    truth_neighbour = {r: neighbour.marginal(r) for r in candidates}
    for _ in range(5):  # model marginals: the data's, perturbed either way, or far from them
        estimates = {r: truth[r] + rng.normal(scale=rng.choice([0.3, 3.0, 30.0]),
                                              size=truth[r].shape) for r in candidates}
        moved = np.abs(quality_scores(candidates, truth, estimates, weights, sigma=2.0)
                       - quality_scores(candidates, truth_neighbour, estimates, weights, 2.0))
        bound = np.array([weights[r] for r in candidates]) * l1
        assert np.all(moved <= bound * (1 + 1e-12))
        assert np.isclose(np.max(moved / bound), 1.0)


def test_all_3way_weights_match_the_closed_form(small_titanic):
    d = len(small_titanic.domain)
    weights = candidate_weights(all_kway(small_titanic.domain, 3))
    assert {w for r, w in weights.items() if len(r) == 3} == {3 * math.comb(d - 1, 2)}
    assert len(weights) == math.comb(d, 3) + math.comb(d, 2) + d


def test_capacity_limits_the_model(small_titanic):
    budget, workload = _budget(10.0), all_kway(small_titanic.domain, 3)
    limit = 0.002  # MB = 262 cells: too small for several 3-way marginals together
    config = AIMConfig(pgm_iters=20, final_pgm_iters=20, max_model_size_mb=limit)
    result = AIM(config).fit(small_titanic, budget, np.random.default_rng(0), workload=workload)
    assert all(r.size_limit_mb <= limit * (1 + 1e-12) for r in result.log.rounds)
    assert result.diagnostics["model_size_mb"] <= limit


def test_junction_tree_potentials_change_the_fits_not_the_accounting(small_titanic):
    budget, workload = _budget(1.0), all_kway(small_titanic.domain, 3)
    runs = [AIM(dataclasses.replace(FAST, potentials=home)).fit(
        small_titanic, budget, np.random.default_rng(7), workload=workload)
        for home in ("measured-cliques", "junction-tree-2022")]
    for result in runs:
        assert math.isclose(result.ledger.spent_rho, budget.rho, rel_tol=1e-9)
    # no fill-in before the first round: both homes start it from the same model
    first = [result.log.rounds[0] for result in runs]
    assert first[0].selected == first[1].selected
    np.testing.assert_allclose(first[0].model_selected, first[1].model_selected, rtol=1e-9)


def test_structural_zeros_never_appear_in_the_synthetic_data(small_titanic):
    zeros = StructuralZeros(("Survived", "Sex"), np.array([[0, 0], [1, 1]]))
    config = AIMConfig(pgm_iters=30, final_pgm_iters=30, structural_zeros=(zeros,))
    result = AIM(config).fit(small_titanic, _budget(1.0), np.random.default_rng(1),
                             workload=all_kway(small_titanic.domain, 2))
    pairs = result.synthetic.marginal(("Survived", "Sex"))
    assert pairs[0, 0] == 0 and pairs[1, 1] == 0
    assert result.ledger.is_exhausted()


def test_large_budget_recovers_the_workload(small_titanic):
    workload = Workload("pairs", [("Survived", "Sex"), ("Pclass", "Embarked")], [1.0, 1.0])
    result = AIM(AIMConfig(pgm_iters=200, final_pgm_iters=500)).fit(
        small_titanic, _budget(50.0), np.random.default_rng(0), workload=workload)
    for clique in workload.cliques:
        truth = small_titanic.marginal(clique) / small_titanic.records
        synthetic = result.synthetic.marginal(clique) / result.synthetic.records
        assert 0.5 * np.abs(truth - synthetic).sum() < 0.03


def test_refuses_a_missing_workload(small_titanic):
    with pytest.raises(ValueError, match="workload"):
        AIM(FAST).fit(small_titanic, _budget(1.0), np.random.default_rng(0))


@pytest.mark.parametrize("field, value", [("alpha", 1.0), ("alpha", 0.0), ("rounds_factor", 0),
                                          ("max_model_size_mb", 0.0), ("pgm_iters", 0)])
def test_config_rejects_bad_values(field, value):
    with pytest.raises(ValueError, match=field):
        AIMConfig(**{field: value})


def test_error_bounds_follow_section_5_and_cover_the_true_errors(run):
    from reprolib.mechanisms.pgm import downward_closure
    from reprolib.papers.aim.uncertainty import (
        aim_error_bounds,
        supported_bound,
        weighted_average_estimate,
    )

    data, _, workload, result, _, _ = run
    cliques = downward_closure(workload.cliques)
    bounds = aim_error_bounds(result.log, result.synthetic.marginal, cliques)
    measured = [set(m.clique) for m in result.log.measurements]
    for b in bounds:
        assert b.supported == any(set(b.clique) <= m for m in measured)
    supported = next(b for b in bounds if b.supported and len(b.clique) == 2)
    estimate, sigma = weighted_average_estimate(supported.clique, result.log.measurements)
    assert supported.bound == supported_bound(estimate, sigma,
                                              result.synthetic.marginal(supported.clique))
    assert any(not b.supported for b in bounds)
    errors = {b.clique: np.abs(data.marginal(b.clique)
                               - result.synthetic.marginal(b.clique)).sum() for b in bounds}
    assert np.mean([errors[b.clique] <= b.bound for b in bounds]) >= 0.95
    assert len(bounds) >= 0.9 * len(cliques)  # nearly every marginal was measured or a candidate


@pytest.fixture(scope="module", params=["backtracking-2022", "mbi-2.0"])
def titanic_by_epsilon(request, titanic):
    """AIM on all of titanic (Age has 91 values) at epsilon 1 and 100, 100 Private-PGM steps,
    under each step rule.
    """
    workload = all_kway(titanic.domain, 3)
    config = AIMConfig(pgm_iters=100, final_pgm_iters=100, step_rule=request.param)
    return request.param, workload, {
        epsilon: AIM(config).fit(titanic, _budget(epsilon), np.random.default_rng(0),
                                 workload=workload)
        for epsilon in (1.0, 100.0)}


def test_more_budget_buys_more_rounds_and_less_error(titanic, titanic_by_epsilon):
    # the AIM issue's pathology: with mbi 2.0's step rule a round cannot fit its precise
    # measurement in 100 steps, AIM anneals for nothing and a 100x larger budget buys no more
    # rounds (measured: 9 rounds at both epsilons, error 0.61 -> 0.32); under the 2022 rule it
    # buys 22 rounds and error 0.59 -> 0.21. The mbi-2.0 case asserts the fixture sees it.
    rule, workload, results = titanic_by_epsilon
    rounds = {eps: r.diagnostics["rounds"] for eps, r in results.items()}
    errors = {eps: workload_error(titanic, r.synthetic, workload) for eps, r in results.items()}
    assert errors[100.0] < errors[1.0], errors
    if rule == "backtracking-2022":
        assert rounds[100.0] > rounds[1.0], rounds
    else:
        assert rounds[100.0] <= rounds[1.0], f"the fixture no longer shows the pathology: {rounds}"


def test_a_round_does_not_reselect_the_marginal_the_model_just_absorbed(titanic_by_epsilon):
    # at epsilon 100 the selection is nearly an argmax: once a fit has absorbed a measurement
    # (model within the noise of it), that marginal's score is about 0 and others win
    _, _, results = titanic_by_epsilon
    rounds = results[100.0].log.rounds
    for before, after in itertools.pairwise(rounds):
        if after.selected == before.selected:
            gap = np.abs(after.model_selected - before.measurement.values).sum()
            raise AssertionError(f"round {after.index} reselected {after.selected}; the fit "
                                 f"left it {gap:.1f} from its measurement (noise level "
                                 f"{GAUSSIAN_MEAN_ABS * before.sigma * after.model_selected.size:.1f})")
