"""Class-conditional queries (RAP++'s CM, LT and MM) against record-by-record counting."""

import jax.numpy as jnp
import numpy as np
import pandas as pd
import pytest

from reprolib.data import Dataset, Domain, MixedDataset
from reprolib.queries import (
    ConditionalMarginals,
    LinearThresholds,
    MixedPrefixes,
    OneHotLayout,
)


@pytest.fixture(scope="module")
def data() -> MixedDataset:
    """600 random records: a binary and a ternary label, two features, three numbers."""
    rng = np.random.default_rng(7)
    n = 600
    frame = pd.DataFrame({"f1": rng.integers(0, 4, n), "f2": rng.integers(0, 3, n),
                          "y": rng.integers(0, 2, n), "z": rng.integers(0, 3, n)})
    domain = Domain.from_dict({"f1": 4, "f2": 3, "y": 2, "z": 3})
    return MixedDataset(Dataset(frame, domain), rng.random((n, 3)), ("u", "v", "w"),
                        targets=("y", "z"))


@pytest.fixture(scope="module")
def layout(data) -> OneHotLayout:
    return OneHotLayout(data.domain, data.targets)


def _labelled(data, label, condition):
    """The answer vector of ``condition`` (a row mask) conditional on ``label``, padded to 3."""
    values = data.column(label)
    answer = [np.mean(condition & (values == c)) for c in range(data.domain.categorical.size(label))]
    return np.pad(answer, (0, 3 - len(answer)))


@pytest.mark.parametrize("direction", ["<=", ">"])
def test_linear_thresholds_count_records_on_their_side(data, layout, direction):
    queries = LinearThresholds(layout, 50, seed=3, direction=direction)
    answers = queries.all_answers(layout.encode(data))
    labels, theta, tau = map(np.asarray, queries.parameters(jnp.arange(50)))
    for q in range(50):
        margin = data.numerical @ theta[q] - tau[q]
        inside = margin <= 0 if direction == "<=" else margin > 0
        np.testing.assert_allclose(answers[q], _labelled(data, layout.labels[labels[q]], inside),
                                   atol=1e-6)


def test_thresholds_are_regenerated_identically_from_the_key(layout):
    queries = LinearThresholds(layout, 10_000, seed=1)
    whole = queries.parameters(jnp.arange(10_000))
    part = queries.parameters(jnp.asarray([9_999, 17, 4_096]))
    for a, b in zip(whole, part, strict=True):
        np.testing.assert_array_equal(np.asarray(a)[[9_999, 17, 4_096]], np.asarray(b))
    other = LinearThresholds(layout, 10_000, seed=2).parameters(jnp.arange(3))[1]
    assert not np.allclose(np.asarray(other), np.asarray(whole[1])[:3])


def test_tempered_sigmoids_tend_to_the_thresholds(data, layout):
    queries = LinearThresholds(layout, 40, seed=5)
    rows = jnp.asarray(layout.encode(data))
    exact = np.asarray(queries.answers(rows, jnp.arange(40)))
    gaps = [np.abs(np.asarray(queries.answers(rows, jnp.arange(40), sigma=s)) - exact).max()
            for s in (2.0, 32.0, 1e5)]
    assert gaps[0] > gaps[1] > gaps[2] and gaps[2] < 2e-3


def test_conditional_marginals_are_the_normalised_tables(data, layout):
    queries = ConditionalMarginals.all_pairs(layout)
    assert queries.tables == (("f1", "f2", "y"), ("f1", "f2", "z"))
    answers = queries.all_answers(layout.encode(data))
    assert answers.shape == (2, 4 * 4 * 3)  # P = 4 (f1), W = 3 (z)
    for i, table in enumerate(queries.tables):
        expected = np.zeros((4, 4, 3))
        marginal = data.categorical.marginal(table) / data.records
        expected[tuple(slice(s) for s in marginal.shape)] = marginal
        np.testing.assert_allclose(answers[i], expected.ravel(), atol=1e-6)
        real = np.zeros((4, 4, 3), bool)
        real[tuple(slice(s) for s in marginal.shape)] = True
        np.testing.assert_array_equal(queries.valid[i], real.ravel())
    assert list(queries.table_sizes()) == [24, 36]


def test_mixed_prefixes_count_both_lower_tails(data, layout):
    queries = MixedPrefixes(layout, 30, seed=4)
    answers = queries.all_answers(layout.encode(data))
    labels, columns, tau = map(np.asarray, queries.parameters(jnp.arange(30)))
    assert (columns[:, 0] != columns[:, 1]).all()
    for q in range(30):
        inside = np.all(data.numerical[:, columns[q]] <= tau[q], axis=1)
        np.testing.assert_allclose(answers[q], _labelled(data, layout.labels[labels[q]], inside),
                                   atol=1e-6)


def test_queries_refuse_what_they_cannot_ask(data):
    with pytest.raises(ValueError, match="labels must be categorical"):
        OneHotLayout(data.domain, ("u",))
    numbers_free = OneHotLayout(
        MixedDataset(data.categorical, np.zeros((data.records, 0)), (), ("y",)).domain, ("y",))
    with pytest.raises(ValueError, match="at least 1 numerical"):
        LinearThresholds(numbers_free, 10, seed=0)
    with pytest.raises(ValueError, match="direction"):
        LinearThresholds(OneHotLayout(data.domain, ("y",)), 10, seed=0, direction="<")
