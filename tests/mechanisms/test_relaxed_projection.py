"""RAP's relaxed projection: fit to exact marginals, constraint sets, merging, rounding, dtypes."""

import itertools

import jax
import numpy as np
import pandas as pd
import pytest

from reprolib.data import Dataset
from reprolib.mechanisms.relaxed._simplex import sparsemax
from reprolib.mechanisms.relaxed.projection import (
    PARAMETRISATIONS,
    RelaxedData,
    RelaxedProjectionConfig,
    relaxed_projection,
)

CLIQUES = (("Survived", "Pclass", "Sex"), ("Pclass", "Embarked"), ("Sex", "SibSp", "Parch"))
# Small and fast: the same config everywhere shares one compiled loop per parametrisation.
CONFIG = RelaxedProjectionConfig(n_synthetic=200, iterations=300, learning_rate=0.01)
SMALL = {"n_synthetic": 50, "iterations": 20, "learning_rate": 0.05}


def _targets(data):
    return [(c, data.marginal(c) / data.records) for c in CLIQUES]


def _mean_tv(relaxed, data, cliques=CLIQUES):
    """Mean over cliques of half the L1 distance between normalised marginals."""
    return np.mean([0.5 * np.abs(relaxed.marginal(c) - data.marginal(c) / data.records).sum()
                    for c in cliques])


@pytest.fixture(scope="module")
def fitted(titanic):
    return relaxed_projection(titanic.domain, _targets(titanic), CONFIG, np.random.default_rng(3))


def test_fits_exact_marginals(titanic, fitted):
    assert _mean_tv(fitted, titanic) < 0.03
    assert fitted.losses.shape == (CONFIG.iterations,)
    assert fitted.losses[-1] < 0.05 * fitted.losses[0]


@pytest.mark.parametrize("parametrisation", PARAMETRISATIONS)
def test_rows_stay_in_the_constraint_set(titanic, parametrisation):
    config = RelaxedProjectionConfig(**SMALL, parametrisation=parametrisation)
    relaxed = relaxed_projection(titanic.domain, _targets(titanic), config,
                                 np.random.default_rng(0))
    rows, rounding = relaxed.rows, 8 * np.finfo(relaxed.params.dtype).eps  # float32 or float64
    assert rows.shape == (50, sum(titanic.domain.sizes))
    assert rows.min() >= 0.0 and rows.max() <= 1.0 + rounding
    if parametrisation != "clip":  # every block is a distribution
        for block in relaxed.blocks().values():
            np.testing.assert_allclose(block.sum(axis=1), 1.0, atol=100 * rounding)


def test_sparsemax_is_the_euclidean_projection_onto_the_simplex():
    rng = np.random.default_rng(5)
    sizes = (1, 2, 7, 40)
    offsets = tuple(int(o) for o in np.concatenate([[0], np.cumsum(sizes)]))
    z = rng.normal(scale=3.0, size=(64, offsets[-1]))
    with jax.enable_x64(True):
        got = np.asarray(sparsemax(jax.numpy.asarray(z), offsets))
    for lo, hi in itertools.pairwise(offsets):
        for row, projected in zip(z[:, lo:hi], got[:, lo:hi], strict=True):
            ordered = np.sort(row)[::-1]  # textbook sort-based threshold (Held et al. 1974)
            steps = ordered - (np.cumsum(ordered) - 1) / np.arange(1, hi - lo + 1)
            k = np.flatnonzero(steps > 0)[-1] + 1
            expected = np.maximum(row - (ordered[:k].sum() - 1) / k, 0.0)
            np.testing.assert_allclose(projected, expected, atol=1e-12)


def test_same_seed_same_rows_and_records(titanic):
    config = RelaxedProjectionConfig(**SMALL)
    first, second = (relaxed_projection(titanic.domain, _targets(titanic), config,
                                        np.random.default_rng(9)) for _ in range(2))
    np.testing.assert_array_equal(first.params, second.params)
    a, b = (first.to_dataset(np.random.default_rng(1), rows=120) for _ in range(2))
    pd.testing.assert_frame_equal(a.frame, b.frame)


def test_repeats_merge_and_unused_cliques_cost_nothing(titanic):
    """Two targets on one clique act as their mean with weight 2; extra cliques change nothing."""
    config = RelaxedProjectionConfig(**SMALL)
    clique, exact = _targets(titanic)[0]
    noisy = exact + np.random.default_rng(2).normal(scale=0.01, size=exact.shape)
    repeated = relaxed_projection(titanic.domain, [(clique, exact), (clique, noisy)], config,
                                  np.random.default_rng(4))
    merged = relaxed_projection(titanic.domain, [(clique, (exact + noisy) / 2)], config,
                                np.random.default_rng(4), weights=[2.0], cliques=CLIQUES)
    np.testing.assert_allclose(repeated.params, merged.params,
                               atol=100 * np.finfo(merged.params.dtype).eps)


def test_warm_start_continues_from_init(titanic):
    config = RelaxedProjectionConfig(**SMALL)
    first = relaxed_projection(titanic.domain, _targets(titanic), config, np.random.default_rng(0))
    again = relaxed_projection(titanic.domain, _targets(titanic), config,
                               np.random.default_rng(1), init=first)
    assert again.losses[0] == pytest.approx(first.losses[-1], rel=0.2)
    assert again.losses[-1] < first.losses[-1]
    with pytest.raises(ValueError, match="init has shape"):
        relaxed_projection(titanic.domain, _targets(titanic), RelaxedProjectionConfig(
            n_synthetic=10, iterations=1), np.random.default_rng(0), init=first)


def test_float32(titanic):
    config = RelaxedProjectionConfig(**SMALL)
    with jax.enable_x64(False):
        relaxed = relaxed_projection(titanic.domain, _targets(titanic), config,
                                     np.random.default_rng(0))
    assert relaxed.params.dtype == np.float32
    assert np.all(np.isfinite(relaxed.losses)) and relaxed.losses[-1] < relaxed.losses[0]


def test_rounding_one_hot_rows_gives_back_the_records(titanic):
    """Blocks that are one-hot round deterministically; ``rows = 2 n'`` repeats every row twice."""
    data = titanic.project(["Pclass", "Sex", "Embarked"])
    data = Dataset(data.frame.iloc[:30].reset_index(drop=True), data.domain)
    one_hot = np.concatenate([np.eye(size)[data.frame[a].to_numpy()]
                              for a, size in data.domain.as_dict().items()], axis=1)
    relaxed = RelaxedData(data.domain, one_hot, "sparsemax")
    once = relaxed.to_dataset(np.random.default_rng(0))
    pd.testing.assert_frame_equal(once.frame, data.frame, check_dtype=False)
    twice = relaxed.to_dataset(np.random.default_rng(0), rows=60)
    np.testing.assert_array_equal(twice.frame.to_numpy(), np.repeat(data.frame.to_numpy(), 2, 0))
    np.testing.assert_allclose(relaxed.marginal(("Sex", "Pclass")),
                               data.marginal(("Sex", "Pclass")) / 30)


def test_rounding_samples_each_block(titanic, fitted):
    """A large sample's one-way marginals match the relaxed rows' (randomised rounding)."""
    records = fitted.to_dataset(np.random.default_rng(0), rows=200 * 50 + 7)
    assert records.records == 200 * 50 + 7
    for attribute in ("Pclass", "Embarked", "Sex"):
        sample = records.marginal((attribute,)) / records.records
        np.testing.assert_allclose(sample, fitted.marginal((attribute,)), atol=0.02)


def test_refuses_malformed_input(titanic):
    clique, exact = _targets(titanic)[0]
    with pytest.raises(ValueError, match="parametrisation"):
        RelaxedProjectionConfig(parametrisation="gumbel")
    with pytest.raises(ValueError, match="shape"):
        relaxed_projection(titanic.domain, [(clique, exact.ravel())], CONFIG,
                           np.random.default_rng(0))
    with pytest.raises(ValueError, match="not among the compiled cliques"):
        relaxed_projection(titanic.domain, [(clique, exact)], CONFIG, np.random.default_rng(0),
                           cliques=CLIQUES[1:])
    with pytest.raises(ValueError, match="distinct attributes"):
        relaxed_projection(titanic.domain, [(("Sex", "Nope"), exact)], CONFIG,
                           np.random.default_rng(0))
