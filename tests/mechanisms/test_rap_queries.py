"""RAP on counting queries: every charge in closed form, the query encoding, no query answered
twice, a near-noiseless fit. The total spend, relation, seeding and output domain are in
test_contract.py."""

import math

import numpy as np
import pandas as pd
import pytest

from reprolib.data import Dataset, Domain
from reprolib.mechanisms.relaxed.projection import RelaxedData
from reprolib.mechanisms.relaxed.rap_queries import (
    COUNT_SENSITIVITY,
    RAPQueries,
    RAPQueriesConfig,
    _Queries,
)
from reprolib.privacy import NeighbourRelation, PrivacyBudget
from reprolib.queries import all_kway

FAST = RAPQueriesConfig(rounds=4, top_q=6, n_synthetic=100, iterations=200, learning_rate=0.01)


def _planted(records, rng):
    a = rng.integers(3, size=records)
    frame = pd.DataFrame({"A": a, "B": np.where(rng.random(records) < 0.8, a % 2, 1 - a % 2),
                          "C": rng.integers(4, size=records)})
    return Dataset(frame, Domain.from_dict({"A": 3, "B": 2, "C": 4}))


def _one_hot(data):
    blocks = [np.eye(size)[data.frame[a].to_numpy()] for a, size in data.domain.as_dict().items()]
    return RelaxedData(data.domain, np.concatenate(blocks, axis=1), "sparsemax")


def test_every_charge_matches_the_closed_form(small_titanic):
    budget = PrivacyBudget.from_epsilon_delta(1.0, 1e-9, relation=NeighbourRelation.REPLACE_ONE)
    workload = all_kway(small_titanic.domain, 2)
    result = RAPQueries(FAST).fit(small_titanic, budget, np.random.default_rng(0),
                                  workload=workload)
    charges, share, k = result.ledger.charges, budget.rho / (2 * FAST.rounds), FAST.top_q
    assert [c.mechanism for c in charges] == ["gumbel-top-k", "gaussian"] * FAST.rounds
    for select, answer in zip(charges[::2], charges[1::2], strict=True):
        assert select.details["k"] == k and select.details["sensitivity"] == COUNT_SENSITIVITY
        assert math.isclose(select.details["epsilon"], math.sqrt(8 * share / k), rel_tol=1e-12)
        assert math.isclose(select.rho, share, rel_tol=1e-12)
        assert answer.details["sensitivity"] == math.sqrt(k)
        assert math.isclose(answer.details["sigma"], math.sqrt(k / (2 * share)), rel_tol=1e-9)
    assert result.ledger.is_exhausted(rtol=1e-12)
    answered = result.diagnostics["answered"]
    assert len(answered) == len(set(answered)) == FAST.rounds * k  # never the same query twice


def test_query_columns_give_the_marginals_on_one_hot_rows():
    data = _planted(60, np.random.default_rng(3))
    cliques = (("A",), ("A", "C"), ("A", "B", "C"))
    queries = _Queries(data.domain, cliques)
    truth = queries.answers(data.marginal)
    offsets = tuple(int(o) for o in np.concatenate([[0], np.cumsum(data.domain.sizes)]))
    rows = np.concatenate([_one_hot(data).rows, np.ones((data.records, 1))], axis=1)
    every = np.arange(len(truth))
    answers = rows[:, queries.columns(every, offsets)].prod(axis=2).mean(axis=0)
    np.testing.assert_allclose(answers * data.records, truth)
    assert len(truth) == 3 + 12 + 24


def test_a_near_noiseless_run_fits_the_workload():
    data = _planted(2000, np.random.default_rng(1))
    workload = all_kway(data.domain, 2)  # 6 + 12 + 8 = 26 cells, all answered in 2 rounds of 13
    config = RAPQueriesConfig(rounds=2, top_q=13, n_synthetic=200, iterations=1000,
                              learning_rate=0.01)
    result = RAPQueries(config).fit(
        data, PrivacyBudget(rho=1e6, relation=NeighbourRelation.REPLACE_ONE),
        np.random.default_rng(2), workload=workload)
    assert len(result.diagnostics["answered"]) == 26
    for clique in workload.cliques:
        truth = data.marginal(clique) / data.records
        synthetic = result.synthetic.marginal(clique) / result.synthetic.records
        assert 0.5 * np.abs(truth - synthetic).sum() < 0.05, clique
    assert result.synthetic.records == data.records


def test_a_workload_with_fewer_cells_than_rounds_is_refused():
    data = _planted(50, np.random.default_rng(0))
    workload = all_kway(data.domain, 1)  # 9 cells
    with pytest.raises(ValueError, match="rounds"):
        RAPQueries(RAPQueriesConfig(rounds=10)).fit(
            data, PrivacyBudget(rho=1.0, relation=NeighbourRelation.REPLACE_ONE),
            np.random.default_rng(0), workload=workload)


@pytest.mark.parametrize("field, value", [("rounds", 0), ("top_q", 0), ("n_synthetic", 0),
                                          ("iterations", 0), ("learning_rate", 0.0)])
def test_config_rejects_bad_values(field, value):
    with pytest.raises(ValueError, match=field):
        RAPQueriesConfig(**{field: value})
