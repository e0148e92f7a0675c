"""PrivMRF: every charge in closed form, the caps on the graph, the marginals' rules, a planted
dependence, and the helpers. The total spend, the relation, seeding and the output domain are in
test_contract.py; the dependence score's sensitivity in test_privbayes_pgm.py."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from reprolib.data import Dataset, Domain
from reprolib.mechanisms.marginal.privbayes_pgm import SCORE_SENSITIVITY
from reprolib.mechanisms.marginal.privmrf import (
    CELLS_PER_MB,
    COUNT_SENSITIVITY,
    PrivMRF,
    PrivMRFConfig,
    _maximal_subsets,
    _step_sizes,
)
from reprolib.privacy import GAUSSIAN_MEAN_ABS, NeighbourRelation, PrivacyBudget
from reprolib.privacy._exact import sqrt_up

FAST = PrivMRFConfig(pgm_iters=30)


def _budget(epsilon):
    return PrivacyBudget.from_epsilon_delta(epsilon, 1e-9, relation=NeighbourRelation.ADD_REMOVE)


def _planted(records, rng):
    """B copies A with probability 0.9, D copies C with probability 0.8; E is independent."""
    a, c = rng.integers(4, size=records), rng.integers(3, size=records)
    frame = pd.DataFrame({
        "A": a, "B": np.where(rng.random(records) < 0.9, a, rng.integers(4, size=records)),
        "C": c, "D": np.where(rng.random(records) < 0.8, c, rng.integers(3, size=records)),
        "E": rng.integers(2, size=records)})
    return Dataset(frame, Domain.from_dict({"A": 4, "B": 4, "C": 3, "D": 3, "E": 2}))


@pytest.fixture(scope="module")
def run(titanic):
    budget = _budget(3.0)
    return titanic, budget, PrivMRF(FAST).fit(titanic, budget, np.random.default_rng(3))


def test_every_charge_matches_the_closed_form(run):
    data, budget, result = run
    rho, d, charges = budget.rho, len(data.domain), result.ledger.charges
    diagnostics = result.diagnostics
    count, pairs, *rest = charges
    assert count.label == "record count" and count.details["sensitivity"] == COUNT_SENSITIVITY == 1
    assert math.isclose(count.rho, 0.01 * 0.1 * rho, rel_tol=1e-12)
    assert pairs.details["sensitivity"] == sqrt_up(Fraction(SCORE_SENSITIVITY) ** 2 * math.comb(d, 2))
    assert math.isclose(pairs.rho, 0.99 * 0.1 * rho, rel_tol=1e-12)
    steps = [c for c in rest if c.label.startswith("refinement step")]
    marginals = [c for c in rest if c.label.startswith("marginal")]
    assert len(steps) == diagnostics["rounds"] == min(d // 2, 8)
    for step in steps:  # one L1 distance per drawn candidate, sensitivity 1 each
        drawn = int(step.label.split(" of ")[1].split()[0])
        assert step.details["sensitivity"] == sqrt_up(drawn)
        assert math.isclose(step.rho, 0.1 * rho / len(steps), rel_tol=1e-12)
    planned = len(diagnostics["initial"]) + int(0.8 * d)
    assert len(marginals) == planned == len(diagnostics["measured"])
    sigma = math.sqrt(planned / (2 * 0.8 * rho))
    assert all(math.isclose(c.details["sigma"], sigma, rel_tol=1e-12) for c in marginals)
    assert math.isclose(diagnostics["sigma"], sigma, rel_tol=1e-12)
    assert math.isclose(marginals[-1].rho, 0.8 * rho / planned, rel_tol=1e-9)  # spends the rest
    assert result.ledger.is_exhausted(rtol=1e-12)


def test_the_dependence_release_charges_at_least_sqrt_k_times_the_score_sensitivity(titanic):
    """Three attributes, three pairs: math.sqrt(12) rounds below sqrt(12), which would undercharge."""
    data = titanic.project(["Survived", "Pclass", "Sex"])
    result = PrivMRF(FAST).fit(data, _budget(1.0), np.random.default_rng(0))
    pairs = result.ledger.charges[1]
    assert pairs.label == "dependence of 3 pairs"
    assert Fraction(pairs.details["sensitivity"]) ** 2 >= 3 * Fraction(SCORE_SENSITIVITY) ** 2


def test_graph_keeps_the_caps_and_marginals_stay_inside_its_cliques(titanic):
    config = PrivMRFConfig(pgm_iters=20, max_clique_mb=2000 / CELLS_PER_MB, model_cap_factor=3)
    result = PrivMRF(config).fit(titanic, _budget(10.0), np.random.default_rng(0))
    domain, diagnostics = titanic.domain, result.diagnostics
    cells = [domain.project(c).total_size for c in diagnostics["cliques"]]
    assert max(cells) <= 2000 and sum(cells) <= 6000
    assert sorted({a for c in diagnostics["cliques"] for a in c}) == sorted(domain.attributes)
    cliques = [set(c) for c in diagnostics["cliques"]]
    for measured in diagnostics["measured"]:
        assert any(set(measured) <= c for c in cliques), measured
    # theta-useful: the multi-way marginals have at most N^ / (theta sigma E|Z|) cells
    limit = diagnostics["noisy_total"] / (6.0 * diagnostics["sigma"] * GAUSSIAN_MEAN_ABS)
    for measured in diagnostics["refined"]:
        for marginal in measured:
            assert len(marginal) == 1 or domain.project(marginal).total_size < limit * 1.01
    # every attribute is measured at least once, and the initial marginals are d at most
    assert {a for c in diagnostics["initial"] for a in c} == set(domain.attributes)
    assert len(diagnostics["initial"]) <= len(domain)


def test_large_budget_finds_the_planted_dependences_and_fits_them():
    data = _planted(4000, np.random.default_rng(11))
    result = PrivMRF(PrivMRFConfig(pgm_iters=200)).fit(
        data, PrivacyBudget(rho=20.0, relation=NeighbourRelation.ADD_REMOVE),
        np.random.default_rng(5))
    edges = {tuple(e) for e in result.diagnostics["graph_edges"]}
    assert ("A", "B") in edges and ("C", "D") in edges
    for pair in (("A", "B"), ("C", "D")):
        truth = data.marginal(pair) / data.records
        synthetic = result.synthetic.marginal(pair) / result.synthetic.records
        assert 0.5 * np.abs(truth - synthetic).sum() < 0.03
    assert result.ledger.is_exhausted(rtol=1e-12)


def test_more_budget_gives_a_lower_error(titanic):
    from reprolib.metrics import workload_error
    from reprolib.queries import all_kway

    workload = all_kway(titanic.domain, 3)
    errors = [np.mean([workload_error(titanic, PrivMRF(FAST).fit(
        titanic, _budget(epsilon), np.random.default_rng(seed)).synthetic, workload)
        for seed in (0, 1)]) for epsilon in (0.1, 30.0)]
    assert errors[1] < 0.7 * errors[0], errors


def test_one_attribute_spends_everything_on_its_marginal():
    data = Dataset(pd.DataFrame({"A": [0, 1, 1, 2] * 25}), Domain.from_dict({"A": 3}))
    result = PrivMRF(FAST).fit(data, PrivacyBudget(rho=0.5, relation=NeighbourRelation.ADD_REMOVE),
                               np.random.default_rng(0))
    (charge,) = result.ledger.charges
    assert math.isclose(charge.details["sigma"], math.sqrt(1 / (2 * 0.5)), rel_tol=1e-12)
    assert result.ledger.is_exhausted()


def test_without_refinement_the_selection_share_goes_to_the_marginals():
    # two attributes: d // 2 = 1 step, but a 2-clique has only one-way candidates (size < |C|)
    # and t d = 1 of them is refined; with refine_share 0.4 none is, and beta_3 joins the marginals
    rng = np.random.default_rng(0)
    data = Dataset(pd.DataFrame({"A": rng.integers(3, size=500), "B": rng.integers(2, size=500)}),
                   Domain.from_dict({"A": 3, "B": 2}))
    budget = PrivacyBudget(rho=1.0, relation=NeighbourRelation.ADD_REMOVE)
    result = PrivMRF(PrivMRFConfig(pgm_iters=20, refine_share=0.4)).fit(
        data, budget, np.random.default_rng(1))
    assert result.diagnostics["rounds"] == 0
    assert not any(c.label.startswith("refinement") for c in result.ledger.charges)
    marginals = [c for c in result.ledger.charges if c.label.startswith("marginal")]
    assert math.isclose(sum(c.rho for c in marginals), 0.9, rel_tol=1e-12)
    assert result.ledger.is_exhausted(rtol=1e-12)


def test_maximal_subsets_match_brute_force():
    domain = Domain.from_dict({"a": 2, "b": 3, "c": 4, "d": 5, "e": 2})
    pool = ["a", "b", "c", "d", "e"]
    for limit in (0.5, 1, 2, 6, 11, 24, 40, 120, 1e6):
        fits = [s for k in range(len(pool) + 1) for s in itertools.combinations(pool, k)
                if math.prod(domain.size(a) for a in s) <= limit]
        maximal = {s for s in fits if not any(set(s) < set(t) for t in fits)}
        assert set(_maximal_subsets(pool, domain, limit)) == maximal, limit


def test_step_sizes_spread_the_refinements():
    assert _step_sizes(11, 5) == [3, 2, 2, 2, 2]
    assert _step_sizes(3, 8) == [1, 1, 1]
    assert _step_sizes(0, 4) == [] and _step_sizes(4, 0) == []


@pytest.mark.parametrize("field, value", [
    ("structure_share", 0.0), ("selection_share", 1.0), ("count_share", 0.0), ("theta", 0.0),
    ("max_clique_mb", 0.0), ("model_cap_factor", 0.5), ("max_measure_attributes", 0),
    ("norm_queries", 0), ("pgm_iters", 0), ("final_pgm_iters", 0), ("refine_share", -0.1),
    ("stop_ratio", 0.0), ("final_stop_ratio", -1.0)])
def test_config_rejects_bad_values(field, value):
    with pytest.raises(ValueError, match=field):
        PrivMRFConfig(**{field: value})


def test_config_rejects_shares_that_leave_nothing_for_the_marginals():
    with pytest.raises(ValueError, match="marginals"):
        PrivMRFConfig(structure_share=0.6, selection_share=0.4)


def test_early_stopping_ends_fits_in_blocks_below_the_threshold(titanic):
    config = PrivMRFConfig(pgm_iters=400, stop_ratio=1.2)
    result = PrivMRF(config).fit(titanic, _budget(3.0), np.random.default_rng(3))
    iterations = result.diagnostics["fit_iterations"]
    assert len(iterations) == result.diagnostics["rounds"] + 1
    assert all(i % 50 == 0 and 0 < i <= 400 for i in iterations)
    assert min(iterations[:-1]) < 400  # some fit stopped early
    assert iterations[-1] >= min(400, 3 * np.mean(iterations[:-1]))  # the last runs longer
    assert result.ledger.is_exhausted(rtol=1e-12)  # stopping is post-processing
    plain = PrivMRF(FAST).fit(titanic, _budget(3.0), np.random.default_rng(3))
    assert plain.diagnostics["fit_iterations"] == [30] * (plain.diagnostics["rounds"] + 1)
