"""RAP on counting queries: every charge in closed form, the query encoding, no query answered
twice, a near-noiseless fit. The total spend, relation, seeding and output domain are in
test_contract.py."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pandas as pd
import pytest

from reprolib.data import Dataset, Domain
from reprolib.mechanisms.relaxed._adam import frozen_bias_adam
from reprolib.mechanisms.relaxed._simplex import sparsemax
from reprolib.mechanisms.relaxed.projection import RelaxedData
from reprolib.mechanisms.relaxed.rap_queries import (
    COUNT_SENSITIVITY,
    RAPQueries,
    RAPQueriesConfig,
    _fit,
    _Queries,
)
from reprolib.privacy import NeighbourRelation, PrivacyBudget
from reprolib.privacy._exact import sqrt_up
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
        assert answer.details["sensitivity"] == sqrt_up(k)  # math.sqrt(6) rounds below sqrt(6)
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
                                          ("iterations", 0), ("learning_rate", 0.0),
                                          ("adam", "sgd"), ("iterate", "dual")])
def test_config_rejects_bad_values(field, value):
    with pytest.raises(ValueError, match=field):
        RAPQueriesConfig(**{field: value})


def test_the_icml_codes_adam_freezes_its_bias_corrections_at_the_first_step():
    """Stepped with count 0, a unit gradient's t-th step is lr (1 - b1^t) / (1 - b1) over
    sqrt((1 - b2^t) / (1 - b2)): lr at first, about 2 lr after ten steps, 0.32 lr at last."""
    lr, optimiser = 0.01, frozen_bias_adam(0.01, count=0)
    params, grad = jnp.zeros(1), jnp.ones(1)
    state, steps = optimiser.init(params), []
    for _ in range(3000):
        update, state = optimiser.update(grad, state, params)
        steps.append(-float(update[0]) / lr)
    for t in (1, 10, 3000):
        expected = (1 - 0.9 ** t) / 0.1 / math.sqrt((1 - 0.999 ** t) / 0.001)
        assert math.isclose(steps[t - 1], expected, rel_tol=1e-4), t
    assert steps[0] == pytest.approx(1.0) and 2.0 < steps[9] < 2.1 and 0.32 < steps[-1] < 0.33


@pytest.mark.parametrize("adam", ["frozen-bias", "optax"])
def test_the_lazy_iterate_is_stepped_unprojected_and_read_projected(adam):
    """Twenty steps by hand: the gradient at the projection of Adam's iterate, the iterate itself
    never projected, the rows its projection; the projected variant projects every iterate. In
    float64: a gradient that is zero in exact arithmetic (a row's partner coordinate at zero)
    is rounding noise in float32, and Adam's first step divides it by its own size."""
    with jax.enable_x64(True):
        rng = np.random.default_rng(0)
        offsets = (0, 3, 5)
        columns = jnp.asarray([[0, 3], [1, 5], [2, 4], [0, 5]], dtype=jnp.int32)  # 5: the ones
        targets, weights = jnp.asarray([0.4, 0.1, 0.3, 0.2]), jnp.ones(4)
        start = sparsemax(jnp.asarray(rng.random((6, 5))), offsets)
        optimiser = optax.adam(0.1) if adam == "optax" else frozen_bias_adam(0.1, count=0)

        def loss(rows):
            full = jnp.concatenate([rows, jnp.ones((6, 1))], axis=1)
            answers = jnp.prod(full[:, columns], axis=2).mean(axis=0)
            return jnp.sum(weights * (answers - targets) ** 2)

        fitted = {}
        for iterate in ("lazy", "projected"):
            point, state = start, optimiser.init(start)
            for _ in range(20):
                update, state = optimiser.update(jax.grad(loss)(sparsemax(point, offsets)),
                                                 state, point)
                point = point + update
                point = point if iterate == "lazy" else sparsemax(point, offsets)
            fitted[iterate], losses = _fit(start, columns, targets, weights, offsets=offsets,
                                           iterations=20, learning_rate=0.1, adam=adam,
                                           iterate=iterate)
            np.testing.assert_allclose(fitted[iterate], sparsemax(point, offsets), atol=1e-12)
            assert losses.shape == (20,)
        # the two schemes part once a coordinate is clipped at zero
        assert np.abs(fitted["lazy"] - fitted["projected"]).max() > 1e-2
