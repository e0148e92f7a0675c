"""Private-PGM's own mirror descent fits what mbi's MirrorDescent fits, in NumPy and in JAX, and
the 2022 library's line search ("backtracking-2022") follows its rule and reaches the same optimum."""

import jax
import jax.numpy as jnp
import mbi
import numpy as np
import pytest
from mbi import estimation, marginal_loss, marginal_oracles

from reprolib.mechanisms.pgm import float64, model_marginals
from reprolib.mechanisms.pgm._junction_tree import NumpyModel, combine_potentials
from reprolib.mechanisms.pgm._mirror_descent import (
    _jax_backtracking,
    _jax_descent,
    _numpy_backtracking,
    _numpy_descent,
    mirror_descent,
    prefers_numpy,
)

DOMAIN = mbi.Domain(("a", "b", "c", "d", "e"), (3, 4, 2, 5, 3))
SINGLETONS = [("a",), ("b",), ("c",), ("d",), ("e",)]
STRUCTURES = {
    "singletons": SINGLETONS,
    "chain": SINGLETONS + [("a", "b"), ("b", "c"), ("c", "d"), ("d", "e")],
    "cycle, triangulated by the junction tree": [("a", "b"), ("b", "c"), ("c", "d"), ("a", "d")],
    # ("b", "c") twice and inside both triples: its loss term is read from the smaller triple
    "overlapping triples, repeats, an unmeasured attribute": [
        ("a", "b", "c"), ("b", "c", "d"), ("b", "c"), ("b", "c"), ("d",)],
}
ENGINES = ("numpy", "jax")


@pytest.fixture(autouse=True)
def _in_float64():
    """mbi's reference fits and reads of the models at Private-PGM's precision, as the engine's."""
    with float64():
        yield


def _measurements(cliques, seed=0):
    """Noisy marginals of a random table of 2,000 records, with unequal noise scales."""
    rng = np.random.default_rng(seed)
    table = rng.multinomial(2000, rng.dirichlet(np.ones(DOMAIN.size()))).reshape(DOMAIN.shape)
    measurements = []
    for k, clique in enumerate(cliques):
        kept = [DOMAIN.attributes.index(a) for a in clique]
        marginal = table.sum(axis=tuple(i for i in range(5) if i not in kept))
        sigma = (1.0, 4.0, 15.0)[k % 3]
        noisy = marginal + rng.normal(0.0, sigma, marginal.shape)
        measurements.append(mbi.LinearMeasurement(noisy.ravel(), clique, stddev=sigma))
    return measurements


class _Quadratic:
    """mu = theta and loss 0.5 mu^2: a trial step a is accepted iff a <= 1 (then theta *= 1 - a)."""

    def marginals(self, theta):
        return theta

    def loss_and_gradient(self, mu):
        return 0.5 * float(mu @ mu), mu


def _quadratic_2022(alpha, steps, engine):
    if engine == "numpy":
        theta, _ = _numpy_backtracking(_Quadratic(), np.array([1.0]), alpha, steps)
        return float(theta[0])
    domain = mbi.Domain(("x",), (1,))
    loss_fn = marginal_loss.MarginalLossFn((("x",),), _half_square)
    start = mbi.CliqueVector(domain, [("x",)], {("x",): mbi.Factor(domain, jnp.ones(1))})
    theta, _ = _jax_backtracking(start, alpha, steps, loss_fn, 1.0, (), oracle=_identity_oracle)
    return float(np.asarray(theta["x",].values)[0])


@pytest.mark.parametrize("engine", ENGINES)
def test_2022_rule_doubles_the_last_step_then_halves(engine):
    # first trial 0.3 (accepted), then twice the last step: 0.6 (accepted), 1.2 (rejected) -> 0.6,
    # 1.2 -> 0.6; a fixed first trial at every step would give 0.7**4 instead
    assert _quadratic_2022(0.3, 4, engine) == pytest.approx(0.7 * 0.4**3, rel=1e-12)


@pytest.mark.parametrize("engine", ENGINES)
def test_2022_rule_takes_the_25th_trial_regardless(engine):
    # 2**30 halved 24 times is 64 > 1: every trial fails the test and the last one is taken
    assert _quadratic_2022(2.0**30, 1, engine) == pytest.approx(1.0 - 64.0, rel=1e-12)


@pytest.mark.parametrize("engine", ENGINES)
def test_2022_rule_reaches_mbis_optimum(engine):
    # 1e-3 counts of 2,000 records: after 1000 steps the two still differ by up to 5e-4
    measurements = _measurements(STRUCTURES["overlapping triples, repeats, an unmeasured attribute"])
    model = mirror_descent(DOMAIN, measurements, known_total=2000.0, iters=1000, engine=engine,
                           step_rule="backtracking-2022")
    reference = _reference(measurements, 4000)
    for clique in reference.cliques:
        np.testing.assert_allclose(np.asarray(model.marginals[clique].values),
                                   np.asarray(reference.marginals[clique].values), atol=1e-3)


@pytest.mark.parametrize("engine", ENGINES)
def test_2022_rule_stays_finite_when_the_loss_is_flat(engine):
    # MST at tiny epsilon compresses attributes to one value: a one-cell marginal always equals
    # the total, every trial is "accepted" with no decrease, and doubling the step 1,100 times
    # overflowed it to inf and the potentials to NaN (found on titanic, MST, eps 0.0316)
    domain = mbi.Domain(("a", "b"), (1, 3))
    measurements = [mbi.LinearMeasurement(np.array([1900.0]), ("a",), stddev=30.0),
                    mbi.LinearMeasurement(np.array([700.0, 600.0, 650.0]), ("b",), stddev=30.0)]
    flat = [measurements[0]]
    for measured in (flat, measurements):
        model = mirror_descent(domain, measured, known_total=2000.0, iters=1500, engine=engine,
                               step_rule="backtracking-2022")
        for clique in model.cliques:
            assert np.all(np.isfinite(np.asarray(model.potentials[clique].values)))
            assert np.asarray(model.marginals[clique].values).sum() == pytest.approx(2000.0)
    # the least-squares fit of b under the total: each count plus a third of the missing 50
    np.testing.assert_allclose(np.asarray(model.marginals["b",].values),
                               np.array([700.0, 600.0, 650.0]) + 50.0 / 3.0, rtol=1e-6)


def test_2022_rule_fits_a_precise_measurement_that_mbis_step_bound_makes_slow():
    # AIM's situation at large epsilon: coarse one-way marginals of large attributes, then one
    # precise 3-way marginal. mbi's first step 2 / (L N) uses L = max_C sum |C| / |c| / sigma^2,
    # which the one-way terms inside the 3-way clique make large; 100 steps grow it at most
    # 1.01**100-fold. The 2022 rule doubles its step until the line search stops it.
    domain = mbi.Domain(("a", "b", "c"), (30, 30, 20))
    rng = np.random.default_rng(3)
    table = rng.multinomial(5000, rng.dirichlet(0.3 * np.ones(domain.size()))).reshape(
        domain.shape)
    measurements = [mbi.LinearMeasurement(table.sum(axis=tuple(j for j in range(3) if j != i))
                                          + rng.normal(0.0, 20.0, domain.shape[i]), (a,),
                                          stddev=20.0) for i, a in enumerate("abc")]
    measurements.append(mbi.LinearMeasurement(table.ravel() + rng.normal(0.0, 0.5, table.size),
                                              ("a", "b", "c"), stddev=0.5))
    loss_fn = marginal_loss.from_linear_measurements(measurements, domain)
    optimum = float(loss_fn(_reference_on(domain, measurements, 5000).marginals))
    losses = {rule: float(loss_fn(mirror_descent(domain, measurements, known_total=5000.0,
                                                 iters=100, engine="numpy",
                                                 step_rule=rule).marginals))
              for rule in ("backtracking-2022", "mbi-2.0")}
    # measured: mbi-2.0 ends at 4.9 times the optimal loss (28,133 vs 5,749)
    assert losses["backtracking-2022"] < 1.5 * optimum
    assert losses["mbi-2.0"] > 3.0 * optimum


def _reference_on(domain, measurements, iters):
    return estimation.MirrorDescent().estimate(domain, measurements, known_total=5000.0,
                                               iters=iters)


def _reference(measurements, iters, warm_start=None, constraints=()):
    return estimation.MirrorDescent().estimate(
        DOMAIN, measurements, known_total=2000.0, iters=iters, warm_start=warm_start,
        constraints=constraints)


def _assert_same_marginals(model, reference):
    assert tuple(model.cliques) == tuple(reference.cliques)
    for clique in reference.cliques:
        np.testing.assert_allclose(np.asarray(model.marginals[clique].values),
                                   np.asarray(reference.marginals[clique].values),
                                   rtol=1e-8, atol=1e-8)
        # the potentials are the model: their own marginals are the ones returned
        np.testing.assert_allclose(np.asarray(model.project(clique).values),
                                   np.asarray(reference.project(clique).values),
                                   rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("structure", STRUCTURES)
def test_fits_what_mbi_fits(structure, engine):
    measurements = _measurements(STRUCTURES[structure])
    model = mirror_descent(DOMAIN, measurements, known_total=2000.0, iters=100, engine=engine,
                           step_rule="mbi-2.0")
    _assert_same_marginals(model, _reference(measurements, 100))


@pytest.mark.parametrize("engine", ENGINES)
def test_fits_in_float64_whatever_jax_is_set_to(engine):
    measurements = _measurements(STRUCTURES["chain"])
    with jax.enable_x64(False):
        model = mirror_descent(DOMAIN, measurements, known_total=2000.0, iters=50, engine=engine)
        assert not jax.config.jax_enable_x64  # restored on return
    for clique in model.cliques:
        assert model.potentials[clique].values.dtype == jnp.float64
        assert model.marginals[clique].values.dtype == jnp.float64
    assert jax.config.jax_enable_x64  # the fixture's float64() again


def _half_square(mu, data):
    return 0.5 * mu.dot(mu)


def _identity_oracle(theta, total, constraints=()):
    return theta


def test_line_search_rule_on_a_quadratic():
    # mu = theta and loss 0.5 mu^2: a trial is accepted iff alpha <= 1 (then theta *= 1 - alpha);
    # the step grows by 1.01 after an acceptance and halves after a rejection
    alphas = [0.95 * 1.01**k for k in range(6)] + [0.95 * 1.01**6 / 2]  # 7th trial: 1.0084 > 1
    expected = np.prod([1.0 - a for a in alphas])

    theta, _ = _numpy_descent(_Quadratic(), np.array([1.0]), 0.95, steps=8)
    np.testing.assert_allclose(theta, [expected], rtol=1e-12)
    domain = mbi.Domain(("x",), (1,))
    loss_fn = marginal_loss.MarginalLossFn((("x",),), _half_square)
    start = mbi.CliqueVector(domain, [("x",)], {("x",): mbi.Factor(domain, jnp.ones(1))})
    theta, _ = _jax_descent(start, 0.95, 8, loss_fn, 1.0, (), oracle=_identity_oracle)
    np.testing.assert_allclose(np.asarray(theta["x",].values), [expected], rtol=1e-12)


@pytest.mark.parametrize("engine", ENGINES)
def test_past_the_first_rejections_both_reach_mbis_optimum(engine):
    # the step grows by 1 % per accepted step until it outgrows the curvature; from there until
    # the line search rejects, rounding differences grow exponentially (in mbi's own runs too),
    # so long runs are compared where they end, at the optimum, not step by step
    measurements = _measurements(STRUCTURES["overlapping triples, repeats, an unmeasured attribute"])
    model = mirror_descent(DOMAIN, measurements, known_total=2000.0, iters=2000, engine=engine,
                           step_rule="mbi-2.0")
    reference = _reference(measurements, 2000)
    for clique in reference.cliques:
        np.testing.assert_allclose(np.asarray(model.marginals[clique].values),
                                   np.asarray(reference.marginals[clique].values), atol=1e-4)


@pytest.mark.parametrize("engine", ENGINES)
def test_warm_start_onto_new_cliques_and_partial_blocks(engine):
    # mbi runs whole blocks of 50 steps: iters=60 is 100 steps, iters=1 is 50
    first = _measurements(STRUCTURES["chain"])
    more = first + _measurements([("a", "b", "e"), ("c", "d", "e")], seed=1)
    ours = mirror_descent(DOMAIN, first, known_total=2000.0, iters=60, engine=engine,
                          step_rule="mbi-2.0")
    ours = mirror_descent(DOMAIN, more, known_total=2000.0, iters=1, warm_start=ours,
                          engine=engine, step_rule="mbi-2.0")
    reference = _reference(more, 1, warm_start=_reference(first, 60))
    _assert_same_marginals(ours, reference)


CYCLE = [("a", "b"), ("b", "c"), ("c", "d"), ("a", "d")]  # triangulated as abc, acd (and e)


def _fit(measurements, potentials, engine, warm_start=None):
    return mirror_descent(DOMAIN, measurements, known_total=2000.0, iters=40, engine=engine,
                          warm_start=warm_start, potentials=potentials)


def _assert_same_measured_marginals(model, other, cliques):
    for clique in cliques:
        np.testing.assert_allclose(np.asarray(model.project(clique).values),
                                   np.asarray(other.project(clique).values), rtol=1e-8, atol=1e-8)


def test_combine_adds_each_old_potential_to_the_first_home_or_drops_it():
    old = {("a", "b"): np.arange(12.0).reshape(3, 4), ("b", "d"): np.ones((4, 5))}
    combined = combine_potentials(DOMAIN, old, [("c",), ("a", "b", "c"), ("a", "b", "e")])
    np.testing.assert_array_equal(combined[("a", "b", "c")],
                                  np.broadcast_to(old[("a", "b")][:, :, None], (3, 4, 2)))
    assert not combined[("a", "b", "e")].any() and not combined[("c",)].any()  # ("b", "d"): gone


@pytest.mark.parametrize("engine", ENGINES)
def test_junction_tree_potentials_move_the_model_as_measured_ones_do(engine):
    measurements = _measurements(CYCLE)
    on_tree = _fit(measurements, "junction-tree-2022", engine)
    assert set(on_tree.cliques) == {("a", "b", "c"), ("a", "c", "d"), ("e",)}  # fill-in a, c
    _assert_same_measured_marginals(on_tree, _fit(measurements, "measured-cliques", engine), CYCLE)


@pytest.mark.parametrize("engine", ENGINES)
def test_junction_tree_warm_start_drops_what_a_new_triangulation_does_not_hold(engine):
    first = _measurements(CYCLE)
    on_tree = _fit(first, "junction-tree-2022", engine)
    measured = _fit(first, "measured-cliques", engine)
    # ("b", "d") re-triangulates the cycle as abd, bcd: neither old potential has a home left,
    # so the 2022 warm start is no warm start at all
    retriangulated = first + _measurements([("b", "d")], seed=1)
    cold = _fit(retriangulated, "junction-tree-2022", engine)
    _assert_same_measured_marginals(
        _fit(retriangulated, "junction-tree-2022", engine, warm_start=on_tree), cold, CYCLE)
    kept = _fit(retriangulated, "measured-cliques", engine, warm_start=measured)
    assert not np.allclose(np.asarray(kept.project(("a", "b")).values),
                           np.asarray(cold.project(("a", "b")).values), rtol=1e-6)
    # ("a", "c", "e") keeps abc and acd: then both homes warm-start alike
    extended = first + _measurements([("a", "c", "e")], seed=1)
    _assert_same_measured_marginals(
        _fit(extended, "junction-tree-2022", engine, warm_start=on_tree),
        _fit(extended, "measured-cliques", engine, warm_start=measured), CYCLE)


def test_unknown_potentials_home_is_refused():
    with pytest.raises(ValueError, match="potentials must be one of"):
        _fit(_measurements(CYCLE), "junction-tree", "numpy")


ZEROS = {
    "two forbidden pairs": (mbi.Constraint(DOMAIN.project(("a", "b")),
                                           invalid=np.array([[0, 1], [2, 3]])),),
    # b = 0 with no a at all: every message through b carries -inf, which HUGIN cannot divide
    "a forbidden value": (mbi.Constraint(DOMAIN.project(("a", "b")),
                                         invalid=np.array([[a, 0] for a in range(3)])),),
    # sets no measured clique holds (they join the tree), given out of the domain's order
    "sets outside the model, valid cells": (
        mbi.Constraint(DOMAIN.project(("d", "b")), valid=np.array([[d, d % 4] for d in range(5)])),
        mbi.Constraint(DOMAIN.project(("e", "c", "a")), invalid=np.array([[0, 1, 2], [2, 0, 0]]))),
}


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("zeros", ZEROS)
def test_structural_zeros_fit_what_mbi_fits(zeros, engine):
    measurements = _measurements(STRUCTURES["chain"])
    constraints = ZEROS[zeros]
    model = mirror_descent(DOMAIN, measurements, known_total=2000.0, iters=50, engine=engine,
                           constraints=constraints, step_rule="mbi-2.0")
    assert model.constraints == constraints
    _assert_same_marginals(model, _reference(measurements, 50, constraints=constraints))
    for constraint in constraints:  # the fitted model gives the forbidden cells no mass
        attributes = tuple(constraint.domain.attributes)
        allowed = np.isfinite(np.asarray(constraint.potential.values))
        assert model_marginals(model, [attributes])[attributes][~allowed].max() < 1e-9


@pytest.mark.parametrize("potentials", ["measured-cliques", "junction-tree-2022"])
def test_structural_zeros_fit_alike_in_numpy_and_jax_under_the_2022_rule(potentials):
    measurements = _measurements(CYCLE)
    constraints = ZEROS["sets outside the model, valid cells"]
    numpy_model, jax_model = (
        mirror_descent(DOMAIN, measurements, known_total=2000.0, iters=40, engine=engine,
                       constraints=constraints, potentials=potentials) for engine in ENGINES)
    _assert_same_marginals(numpy_model, jax_model)


@pytest.mark.parametrize("zeros", ZEROS)
def test_numpy_marginals_under_zeros_equal_mbis_constrained_oracle(zeros):
    measurements = _measurements(STRUCTURES["overlapping triples, repeats, an unmeasured attribute"])
    constraints = ZEROS[zeros]
    reference = _reference(measurements, 50, constraints=constraints)
    cliques = tuple(reference.cliques)
    numpy_model = NumpyModel(DOMAIN, cliques, measurements, 2000.0, constraints)
    theta = {c: np.asarray(reference.potentials[c].values) for c in cliques}
    expected = marginal_oracles.message_passing_shafer_shenoy(
        reference.potentials, 2000.0, constraints=constraints)
    marginals = numpy_model.tables(numpy_model.marginals(numpy_model.flatten(theta)))
    for clique, table in marginals.items():
        np.testing.assert_allclose(table, np.asarray(expected[clique].values), rtol=1e-10,
                                   atol=1e-10)


def test_numpy_marginals_equal_the_oracle():
    measurements = _measurements(STRUCTURES["overlapping triples, repeats, an unmeasured attribute"])
    reference = _reference(measurements, 50)
    cliques = tuple(reference.cliques)
    numpy_model = NumpyModel(DOMAIN, cliques, measurements, 2000.0)
    theta = {c: np.asarray(reference.potentials[c].values) for c in cliques}
    marginals = numpy_model.tables(numpy_model.marginals(numpy_model.flatten(theta)))
    for clique, table in marginals.items():
        np.testing.assert_allclose(table, np.asarray(reference.marginals[clique].values),
                                   rtol=1e-10)


def test_numpy_is_chosen_for_small_models_only():
    assert prefers_numpy(cells=10_000, steps=1000)
    assert not prefers_numpy(cells=10_000_000, steps=100)


@pytest.mark.parametrize("step_rule", ["backtracking-2022", "mbi-2.0"])
def test_jax_fits_keep_no_compiled_program(step_rule):
    # every AIM round has a new clique structure: kept programs only pile up in memory
    descent = _jax_backtracking if step_rule == "backtracking-2022" else _jax_descent
    for structure in ("chain", "singletons"):
        mirror_descent(DOMAIN, _measurements(STRUCTURES[structure]), known_total=2000.0,
                       iters=5, engine="jax", step_rule=step_rule)
        assert descent._cache_size() == 0
