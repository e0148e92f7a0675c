"""RAP's relaxed projection: fit to exact marginals, constraint sets, merging, rounding, dtypes."""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd
import pytest

from reprolib.data import Dataset, Domain
from reprolib.mechanisms.relaxed._adam import ITERATES, RAP_ADAMS, rap_adam
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


@pytest.mark.parametrize("clique", [("c",), ("a", "c"), ("c", "a"), ("a", "b", "c"),
                                    ("c", "b", "a"), ("b", "c", "a")])
def test_marginal_is_the_mean_outer_product_in_the_cliques_order(clique):
    """The marginal of relaxed rows, whatever order its blocks are multiplied in (smallest first),
    is the mean over rows of the outer product of the clique's blocks, axes in the clique's order."""
    domain = Domain(("a", "b", "c"), (4, 2, 3))
    rows = np.random.default_rng(0).random((7, 9))
    relaxed = RelaxedData(domain, rows, "clip")
    blocks = dict(zip(domain.attributes, np.split(rows, [4, 6], axis=1), strict=True))
    expected = np.zeros([domain.size(a) for a in clique])
    for n in range(len(rows)):
        outer = blocks[clique[0]][n]
        for a in clique[1:]:
            outer = np.multiply.outer(outer, blocks[a][n])
        expected += outer / len(rows)
    np.testing.assert_allclose(relaxed.marginal(clique), expected, rtol=1e-12)


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
    # the first loss of the second fit is the loss of the rows the first returned
    returned = sum(np.sum((first.marginal(c) - y) ** 2) for c, y in _targets(titanic))
    assert again.losses[0] == pytest.approx(returned, rel=1e-4)
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
    with pytest.raises(ValueError, match="adam"):
        RelaxedProjectionConfig(adam="sgd")
    with pytest.raises(ValueError, match="iterate"):
        RelaxedProjectionConfig(iterate="dual")
    with pytest.raises(ValueError, match="shape"):
        relaxed_projection(titanic.domain, [(clique, exact.ravel())], CONFIG,
                           np.random.default_rng(0))
    with pytest.raises(ValueError, match="not among the compiled cliques"):
        relaxed_projection(titanic.domain, [(clique, exact)], CONFIG, np.random.default_rng(0),
                           cliques=CLIQUES[1:])
    with pytest.raises(ValueError, match="distinct attributes"):
        relaxed_projection(titanic.domain, [(("Sex", "Nope"), exact)], CONFIG,
                           np.random.default_rng(0))


@pytest.mark.parametrize("adam", RAP_ADAMS)
def test_the_lazy_iterate_is_stepped_unprojected_and_read_projected(adam):
    """Twenty steps by hand, as RAP's code takes them: the gradient at the projection of Adam's
    iterate, the iterate itself never projected, the rows its projection; the projected variant
    projects every iterate. In float64 (see the same test of RAP on counting queries)."""
    with jax.enable_x64(True):
        domain, offsets = Domain(("a", "b"), (3, 2)), (0, 3, 5)
        target = np.array([[0.1, 0.4], [0.4, 0.1], [0.0, 0.0]])
        start = np.asarray(sparsemax(jnp.asarray(np.random.default_rng(0).random((6, 5))),
                                     offsets))
        optimiser = rap_adam(adam, 0.1)

        def loss(rows):
            marginal = jnp.einsum("na,nb->ab", rows[:, :3], rows[:, 3:]) / len(rows)
            return jnp.sum((marginal - target) ** 2)

        fitted = {}
        for iterate in ITERATES:
            point, state = jnp.asarray(start), optimiser.init(jnp.asarray(start))
            for _ in range(20):
                update, state = optimiser.update(jax.grad(loss)(sparsemax(point, offsets)),
                                                 state, point)
                point = point + update
                point = point if iterate == "lazy" else sparsemax(point, offsets)
            config = RelaxedProjectionConfig(n_synthetic=6, iterations=20, learning_rate=0.1,
                                             adam=adam, iterate=iterate)
            fitted[iterate] = relaxed_projection(
                domain, [(("a", "b"), target)], config, np.random.default_rng(1),
                init=RelaxedData(domain, start, "sparsemax")).params
            np.testing.assert_allclose(fitted[iterate], sparsemax(point, offsets), atol=1e-12)
        # the two schemes part once a coordinate is clipped at zero
        assert np.abs(fitted["lazy"] - fitted["projected"]).max() > 1e-2
