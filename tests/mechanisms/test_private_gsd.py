"""Private-GSD: one release of all 2-way marginals, then a genetic search that only improves."""

import dataclasses
import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd
import pytest

from reprolib.data import Dataset, Domain
from reprolib.mechanisms import build
from reprolib.mechanisms.genetic.private_gsd import (
    PrivateGSDConfig,
    _frequencies,
    _Layout,
    _search,
)
from reprolib.privacy import NeighbourRelation, PrivacyBudget

SIZES = (2, 3, 4)


def _data(records=60, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({f"a{i}": rng.integers(0, k, records) for i, k in enumerate(SIZES)})
    return Dataset(frame, Domain(tuple(frame.columns), SIZES))


def _layout():
    pairs = [(0, 1), (0, 2), (1, 2)]
    cells = [SIZES[a] * SIZES[b] for a, b in pairs]
    return _Layout(sizes=jnp.asarray(SIZES, jnp.int32),
                   first=jnp.asarray([a for a, _ in pairs], jnp.int32),
                   second=jnp.asarray([b for _, b in pairs], jnp.int32),
                   offsets=jnp.asarray(np.cumsum([0, *cells])[:-1], jnp.int32),
                   cells=int(sum(cells)))


def test_frequencies_are_the_concatenated_2_way_marginals():
    data = _data()
    codes = jnp.asarray(data.frame.to_numpy(), jnp.int32)
    expected = np.concatenate([data.marginal(p).ravel() for p in
                               (("a0", "a1"), ("a0", "a2"), ("a1", "a2"))]) / data.records
    np.testing.assert_allclose(np.asarray(_frequencies(codes, _layout())), expected, atol=1e-7)


def test_the_search_only_improves_and_finds_an_exact_match_of_noiseless_statistics():
    layout, data = _layout(), _data()
    target = _frequencies(jnp.asarray(data.frame.to_numpy(), jnp.int32), layout)
    codes = jax.random.randint(jax.random.PRNGKey(1), (data.records, len(SIZES)), 0,
                               layout.sizes, dtype=jnp.int32)
    fitness = [float(jnp.sum((_frequencies(codes, layout) - target) ** 2))]
    for step in range(20):
        residual = _frequencies(codes, layout) - target
        codes = _search(codes, residual, jax.random.PRNGKey(step), layout=layout, steps=200,
                        mutations=5, crossovers=5)
        fitness.append(float(jnp.sum((_frequencies(codes, layout) - target) ** 2)))
    assert all(b <= a + 1e-9 for a, b in itertools.pairwise(fitness))
    assert fitness[0] > 0.05 and fitness[-1] < 1e-4 * fitness[0]


def _budget(epsilon=1.0):
    return PrivacyBudget.from_epsilon_delta(epsilon, 1e-5, relation=NeighbourRelation.REPLACE_ONE)


def test_one_release_spends_the_whole_budget_and_the_rest_is_post_processing():
    budget = _budget()
    result = build("Private-GSD", {"records": 40, "generations": 500}).fit(
        _data(), budget, np.random.default_rng(0))
    assert len(result.ledger.charges) == 1
    assert result.ledger.spent_rho == pytest.approx(budget.rho, rel=1e-12)
    # sqrt(2 * 3 pairs) / sqrt(2 rho) under replace-one
    assert result.diagnostics["sigma"] == pytest.approx(np.sqrt(3 / budget.rho))
    assert result.synthetic.records == 40 and result.synthetic.domain == _data().domain
    history = result.diagnostics["fitness_history"]
    assert all(b <= a for a, b in itertools.pairwise(history))


def test_the_same_seed_gives_the_same_records_and_early_stopping_is_reported():
    config = {"records": 30, "generations": 50_000, "stop_every": 100, "stop_tolerance": 0.5}
    runs = [build("Private-GSD", config).fit(_data(), _budget(), np.random.default_rng(3))
            for _ in range(2)]
    pd.testing.assert_frame_equal(runs[0].synthetic.frame, runs[1].synthetic.frame)
    assert runs[0].diagnostics["stopped_early"] and runs[0].diagnostics["generations"] < 50_000


@pytest.mark.parametrize("field, value", [("records", 0), ("generations", 1.5),
                                          ("mutations", True), ("stop_every", 0),
                                          ("stop_tolerance", -0.1)])
def test_invalid_settings_are_refused_with_the_field_named(field, value):
    with pytest.raises(ValueError, match=field):
        dataclasses.replace(PrivateGSDConfig(), **{field: value})


def test_one_attribute_is_refused_before_anything_is_measured():
    data = Dataset(pd.DataFrame({"a": [0, 1, 1]}), Domain(("a",), (2,)))
    with pytest.raises(ValueError, match="at least 2 attributes"):
        build("Private-GSD").fit(data, _budget(), np.random.default_rng(0))
