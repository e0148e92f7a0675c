"""PrivBayes+PGM: every charge, the score's sensitivity, the degree rule, a planted edge.

The total spend, the relation, seeding and the output domain are in test_contract.py."""

import math

import numpy as np
import pandas as pd
import pytest

from reprolib.data import Dataset, Domain
from reprolib.mechanisms.marginal.privbayes_pgm import (
    SCORE_SENSITIVITY,
    PrivBayesPGM,
    PrivBayesPGMConfig,
    dependence_score,
    network_degree,
)
from reprolib.privacy import NeighbourRelation, PrivacyBudget

FAST = PrivBayesPGMConfig(iters=50)


def _budget(epsilon):
    return PrivacyBudget.from_epsilon_delta(epsilon, 1e-9, relation=NeighbourRelation.ADD_REMOVE)


def _planted(records, rng):
    """A copies into B with probability 0.9; C and D are independent noise."""
    a = rng.integers(4, size=records)
    b = np.where(rng.random(records) < 0.9, a, rng.integers(4, size=records))
    frame = pd.DataFrame({"A": a, "C": rng.integers(3, size=records), "B": b,
                          "D": rng.integers(2, size=records)})
    return Dataset(frame, Domain.from_dict({"A": 4, "C": 3, "B": 4, "D": 2}))


@pytest.fixture(scope="module")
def run(small_titanic):
    budget = _budget(1.0)
    return small_titanic, budget, PrivBayesPGM(FAST).fit(small_titanic, budget,
                                                         np.random.default_rng(7))


def test_every_charge_matches_the_closed_form(run):
    data, budget, result = run
    d = len(data.domain)
    sigma = math.sqrt(d / (2 * 0.7 * budget.rho))
    epsilon = math.sqrt(8 * 0.3 * budget.rho / (d - 1))
    charges = result.ledger.charges
    kinds = [c.mechanism for c in charges]
    assert kinds == ["gaussian"] + ["exponential"] * (d - 1) + ["gaussian"] * (d - 1)
    for charge in charges:
        if charge.mechanism == "gaussian":
            assert math.isclose(charge.details["sigma"], sigma, rel_tol=1e-12)
            assert charge.details["sensitivity"] == 1.0
            assert math.isclose(charge.rho, 0.7 * budget.rho / d, rel_tol=1e-12)
        else:
            assert math.isclose(charge.details["epsilon"], epsilon, rel_tol=1e-12)
            assert charge.details["sensitivity"] == SCORE_SENSITIVITY == 2.0
            assert math.isclose(charge.rho, 0.3 * budget.rho / (d - 1), rel_tol=1e-12)


def test_network_parents_are_placed_useful_and_maximal(run):
    data, _, result = run
    network, domain = result.log.network, data.domain
    degree, limit = result.diagnostics["degree"], result.diagnostics["cell_limit"]
    assert degree >= 1 and result.diagnostics["model_size_mb"] < 1.0  # the JT cap does not bind
    assert sorted(n.child for n in network) == sorted(domain.attributes)
    assert network[0].parents == ()
    assert any(n.parents for n in network)
    for i, node in enumerate(network[1:], start=1):
        placed = {n.child for n in network[:i]}
        assert set(node.parents) <= placed and len(node.parents) <= degree
        cells = domain.project(node.clique(domain)).total_size
        assert node.parents == () or cells <= limit
        if len(node.parents) < min(degree, i):  # no placed attribute fits in as one more parent
            assert all(cells * domain.size(a) > limit for a in placed - set(node.parents))
    assert [m.clique for m in result.log.measurements] == [n.clique(domain) for n in network]


def _neighbours(data, rng, pairs):
    """``pairs`` random add/remove neighbours of ``data`` (a random row dropped or a record added)."""
    for _ in range(pairs):
        if rng.random() < 0.5:
            frame = data.frame.drop(index=data.frame.index[rng.integers(data.records)])
        else:
            record = {a: [int(rng.integers(s))] for a, s in data.domain.as_dict().items()}
            frame = pd.concat([data.frame, pd.DataFrame(record)], ignore_index=True)
        yield Dataset(frame.reset_index(drop=True), data.domain)


@pytest.mark.parametrize("records, seed", [(1, 0), (5, 1), (40, 2), (300, 3)])
def test_score_sensitivity_bound_holds_on_random_neighbours(records, seed):
    rng = np.random.default_rng(seed)
    data = _planted(records, rng)
    cases = [("B", ("A",)), ("A", ("B", "C")), ("D", ("A", "C", "B")), ("C", ())]
    largest = 0.0
    for neighbour in _neighbours(data, rng, 25):
        for child, parents in cases:
            change = abs(dependence_score(neighbour, child, parents)
                         - dependence_score(data, child, parents))
            largest = max(largest, change)
    assert largest <= SCORE_SENSITIVITY


def test_score_sensitivity_bound_is_tight():
    # counts [[1, 0], [0, N - 1]] plus a record in the first cell: change 2 (N-1)^2 / (N (N+1))
    n = 200
    domain = Domain.from_dict({"X": 2, "P": 2})
    before = Dataset(pd.DataFrame({"X": [0] + [1] * (n - 1), "P": [0] + [1] * (n - 1)}), domain)
    after = Dataset(pd.DataFrame({"X": [0, 0] + [1] * (n - 1), "P": [0, 0] + [1] * (n - 1)}),
                    domain)
    change = dependence_score(after, "X", ("P",)) - dependence_score(before, "X", ("P",))
    assert math.isclose(change, 2 * (n - 1) ** 2 / (n * (n + 1)), rel_tol=1e-12)
    assert 1.9 < change <= SCORE_SENSITIVITY


def test_score_is_zero_under_independence_and_without_parents():
    frame = pd.DataFrame({"X": [0, 0, 1, 1], "P": [0, 1, 0, 1]})
    data = Dataset(frame, Domain.from_dict({"X": 2, "P": 2}))
    assert dependence_score(data, "X", ("P",)) == 0.0
    assert dependence_score(data, "X", ()) == 0.0


def test_degree_grows_with_the_budget(small_titanic):
    sizes, d = small_titanic.domain.sizes, len(small_titanic.domain)
    degrees = [network_degree(1000.0, math.sqrt(d / (2 * 0.7 * rho)), sizes, 4.0)
               for rho in (1e-4, 1e-2, 1.0, 100.0)]
    assert degrees == sorted(degrees) and degrees[0] < degrees[-1]
    # the rule's boundary: k is useful exactly when N / (m^(k+1) sigma) >= theta
    assert network_degree(64.0, 1.0, [2, 2, 2, 2, 2], 4.0) == 3
    assert network_degree(63.9, 1.0, [2, 2, 2, 2, 2], 4.0) == 2
    assert network_degree(1.0, 1.0, [2, 2], 4.0) == 0
    # general domains: the smallest attributes decide how many parents a useful marginal can have
    assert network_degree(24.0, 1.0, [91, 2, 3], 4.0) == 1


def test_large_budget_finds_the_planted_edge_and_its_marginal():
    data = _planted(3000, np.random.default_rng(11))
    result = PrivBayesPGM().fit(
        data, PrivacyBudget(rho=10.0, relation=NeighbourRelation.ADD_REMOVE),
        np.random.default_rng(5))
    assert result.diagnostics["degree"] >= 1
    parents = {n.child: n.parents for n in result.log.network}
    assert "A" in parents["B"] or "B" in parents["A"]
    truth = data.marginal(("A", "B")) / data.records
    synthetic = result.synthetic.marginal(("A", "B")) / result.synthetic.records
    assert 0.5 * np.abs(truth - synthetic).sum() < 0.02
    assert result.ledger.is_exhausted()


def test_one_attribute_spends_everything_on_its_marginal():
    data = Dataset(pd.DataFrame({"A": [0, 1, 1, 2] * 25}), Domain.from_dict({"A": 3}))
    budget = PrivacyBudget(rho=0.5, relation=NeighbourRelation.ADD_REMOVE)
    result = PrivBayesPGM(FAST).fit(data, budget, np.random.default_rng(0))
    (charge,) = result.ledger.charges
    assert math.isclose(charge.details["sigma"], math.sqrt(1 / (2 * 0.5)), rel_tol=1e-12)
    assert result.ledger.is_exhausted()


@pytest.mark.parametrize("field, value", [("selection_share", 0.0), ("selection_share", 1.0),
                                          ("theta", 0.0), ("max_model_size_mb", 0.0),
                                          ("iters", 0)])
def test_config_rejects_bad_values(field, value):
    with pytest.raises(ValueError, match=field):
        PrivBayesPGMConfig(**{field: value})
