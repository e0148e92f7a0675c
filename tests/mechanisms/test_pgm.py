"""Private-PGM helpers: batched model marginals and generation equal mbi's own, closure."""

import math

import jax
import numpy as np
import pytest

from reprolib.mechanisms.pgm import (
    NoisyMarginal,
    downward_closure,
    fit_model,
    float64,
    junction_tree_size_mb,
    measure_marginal,
    model_marginals,
    synthetic_dataset,
)
from reprolib.privacy import Ledger, NeighbourRelation, PrivacyBudget


@pytest.fixture(scope="module")
def model(titanic):
    ledger = Ledger(PrivacyBudget(rho=10.0, relation=NeighbourRelation.ADD_REMOVE))
    rng = np.random.default_rng(0)
    cliques = [("Survived", "Sex"), ("Sex", "Age"), ("Pclass", "Fare"), ("Fare", "Embarked")]
    cliques += [(a,) for a in titanic.domain.attributes]  # Parch, SibSp, Cabin: own components
    measured = [measure_marginal(titanic, c, sigma=4.0, rng=rng, ledger=ledger, label=str(c))
                for c in cliques]
    return fit_model(titanic.domain, measured, iters=100)


def test_batched_marginals_equal_variable_elimination(titanic, model):
    queries = [("Survived",), ("Age", "Sex"), ("Survived", "Age"), ("Survived", "Pclass", "Fare"),
               ("Survived", "Embarked", "Parch"), ("SibSp", "Parch", "Cabin")]
    batched = model_marginals(model, queries)
    for clique in queries:
        with float64():
            reference = np.asarray(model.project(clique).datavector(flatten=False))
        assert batched[clique].shape == tuple(titanic.domain.size(a) for a in clique)
        np.testing.assert_allclose(batched[clique], reference, rtol=1e-8, atol=1e-8)


def test_measurement_charges_the_gaussian_cost(titanic):
    ledger = Ledger(PrivacyBudget(rho=1.0, relation=NeighbourRelation.REPLACE_ONE))
    measured = measure_marginal(titanic, ("Sex",), sigma=2.0, rng=np.random.default_rng(0),
                                ledger=ledger, label="sex")
    assert measured.values.shape == (2,)
    assert math.isclose(ledger.spent_rho, 2.0 / (2 * 2.0**2))  # replace-one: sensitivity sqrt(2)


def test_loss_weighting_is_checked(titanic):
    with pytest.raises(ValueError, match="weighting"):
        fit_model(titanic.domain, [NoisyMarginal(("Sex",), np.ones(2), 1.0)], iters=1,
                  weighting="l1")


def test_generation_is_seeded_and_leaves_global_state_alone(titanic, model):
    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    first = synthetic_dataset(model, titanic.domain, np.random.default_rng(5))
    again = synthetic_dataset(model, titanic.domain, np.random.default_rng(5))
    assert first.frame.equals(again.frame)
    assert first.domain == titanic.domain
    np.testing.assert_array_equal(np.random.get_state()[1], before)


def test_fit_marginals_and_records_are_float64_whatever_jax_is_set_to(titanic):
    measured = [NoisyMarginal(("Sex", "Age"), titanic.marginal(("Sex", "Age")), 1.0)]
    with jax.enable_x64(False):
        model = fit_model(titanic.domain, measured, iters=50)
        marginal = model_marginals(model, [("Age",)])[("Age",)]
        synthetic_dataset(model, titanic.domain, np.random.default_rng(0))
        assert not jax.config.jax_enable_x64
    assert model.potentials[("Sex", "Age")].values.dtype == np.float64
    assert model.marginals[("Sex", "Age")].values.dtype == np.float64
    assert marginal.dtype == np.float64


def test_generation_draws_the_records_mbi_draws(titanic, model):
    # synthetic_dataset ports mbi's randomized rounding onto NumPy marginals: same seed, same rows.
    # In this model no column has two parents, so mbi's hash-seeded order of parents cannot matter
    seed = int(np.random.default_rng(5).integers(2**32))
    state = np.random.get_state()
    try:
        np.random.seed(seed)
        with float64():
            expected = model.synthetic_data().to_dict()
    finally:
        np.random.set_state(state)
    ours = synthetic_dataset(model, titanic.domain, np.random.default_rng(5))
    for attribute in titanic.domain.attributes:
        np.testing.assert_array_equal(ours.frame[attribute].to_numpy(), expected[attribute])


@pytest.mark.parametrize("shape", [(4,), (3, 5), (300, 2, 7)])
def test_parent_groups_are_the_groups_np_unique_finds(shape):
    from reprolib.mechanisms.pgm._sampling import _parent_groups

    rng = np.random.default_rng(len(shape))
    parents = tuple(rng.integers(0, size // 2 + 1, 2000).astype(np.min_scalar_type(size))
                    for size in shape)  # about half of each axis's values: some cells stay empty
    present, inverse, counts = _parent_groups(parents, shape)
    uniques, expected_inverse, expected_counts = np.unique(
        np.stack(parents, -1), axis=0, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(np.unravel_index(present, shape), uniques.T)
    np.testing.assert_array_equal(inverse, expected_inverse.ravel())
    np.testing.assert_array_equal(counts, expected_counts)


def test_downward_closure_and_size():
    closure = downward_closure([("a", "b", "c"), ("c", "d")])
    assert closure[:4] == [("a",), ("b",), ("c",), ("d",)]
    assert len(closure) == 7 + 2
    from reprolib.data import Domain

    domain = Domain.from_dict({"a": 4, "b": 8, "c": 2})
    assert math.isclose(junction_tree_size_mb(domain, [("a", "b"), ("b", "c")]),
                        (32 + 16) * 8 / 2**20)


def test_generation_respects_constraints_outside_the_model_cliques(small_titanic):
    import mbi

    ledger = Ledger(PrivacyBudget(rho=10.0, relation=NeighbourRelation.ADD_REMOVE))
    rng = np.random.default_rng(0)
    measured = [measure_marginal(small_titanic, (a,), sigma=1.0, rng=rng, ledger=ledger, label=a)
                for a in small_titanic.domain.attributes]
    forbidden = np.array([[0, 0], [1, 1], [2, 0]])
    constraint = mbi.Constraint(small_titanic.domain.project(("Survived", "Sex")).to_mbi(),
                                invalid=forbidden)
    model = fit_model(small_titanic.domain, measured, iters=50, constraints=(constraint,))
    synthetic = synthetic_dataset(model, small_titanic.domain, np.random.default_rng(1))
    counts = synthetic.marginal(("Survived", "Sex"))
    assert counts[tuple(forbidden.T)].sum() == 0
    np.testing.assert_allclose(model_marginals(model, [("Survived", "Sex")])[("Survived", "Sex")]
                               [tuple(forbidden.T)], 0.0, atol=1e-9)
