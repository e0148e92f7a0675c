"""GEM: every charge from its closed form, the selection, the update's loss and gradient, output.

The total spend, the relation, seeding and the output domain are in test_contract.py."""

import functools
import itertools
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from reprolib.mechanisms.relaxed import gem
from reprolib.mechanisms.relaxed.gem import GEM, GEMConfig
from reprolib.metrics import workload_error
from reprolib.privacy import NeighbourRelation, PrivacyBudget
from reprolib.queries import Workload, all_kway

SMALL = {"rows": 100, "code_dim": 8, "hidden": (32, 32), "iterations": 30}
WORKLOAD = Workload("test", (("Survived", "Pclass", "Sex"), ("Pclass", "Embarked"),
                             ("Sex", "SibSp"), ("Survived", "Embarked")), (1.0,) * 4)


def _fit(data, rho, workload=WORKLOAD, seed=0, **settings):
    mechanism = GEM(GEMConfig(**{**SMALL, **settings}))
    return mechanism.fit(data, PrivacyBudget(rho=rho, relation=NeighbourRelation.REPLACE_ONE),
                         np.random.default_rng(seed), workload=workload)


@pytest.mark.parametrize("alpha", [0.5, 0.7])
def test_every_charge_matches_the_closed_form(small_titanic, alpha):
    rho, rounds = 0.3, 3
    run = _fit(small_titanic, rho, rounds=rounds, alpha=alpha)
    charges = run.ledger.charges
    assert [c.mechanism for c in charges] == ["exponential", "gaussian"] * rounds
    select = rho / rounds * alpha**2 / (alpha**2 + (1 - alpha) ** 2)
    for selection in charges[::2]:  # eps^2 / 8 with sensitivity 1 (counts, largest cell)
        assert selection.rho == pytest.approx(select, rel=1e-12)
        assert selection.details["epsilon"] == pytest.approx(math.sqrt(8 * select), rel=1e-12)
        assert selection.details["sensitivity"] == 1.0
    for measurement in charges[1::2]:  # replace-one: L2 sensitivity sqrt(2) in counts
        assert measurement.details["sensitivity"] == pytest.approx(math.sqrt(2))
        assert measurement.rho == pytest.approx(rho / rounds - select, rel=1e-9)
    # the authors' per-round parameter eps0 = sqrt(2 rho / (T (a^2 + (1 - a)^2))): their
    # selection softmax(a eps0 s / Delta) is our exponential mechanism at eps = 2 a eps0, their
    # noise scale sqrt(2) Delta / ((1 - a) eps0) our sigma
    eps0 = math.sqrt(2 * rho / (rounds * (alpha**2 + (1 - alpha) ** 2)))
    assert charges[0].details["epsilon"] == pytest.approx(2 * alpha * eps0, rel=1e-12)
    assert charges[1].details["sigma"] == pytest.approx(math.sqrt(2) / ((1 - alpha) * eps0),
                                                        rel=1e-9)
    assert run.ledger.spent_rho == pytest.approx(rho, rel=1e-12)


def test_rounds_are_capped_by_the_workload_and_select_each_marginal_once(small_titanic):
    run = _fit(small_titanic, 1.0, rounds=10)
    assert run.diagnostics["rounds"] == len(WORKLOAD)
    selected = [tuple(c) for c in run.diagnostics["selected"]]
    assert sorted(selected) == sorted(WORKLOAD.cliques)


def test_selection_picks_the_largest_cell_error_when_the_budget_is_large(small_titanic):
    """With a huge budget the exponential mechanism is an argmax of max_c |M(D) - N M(G)|."""
    config = GEMConfig(**SMALL, rounds=1)
    rng = np.random.default_rng(3)
    domain = small_titanic.domain
    offsets = tuple(int(o) for o in np.cumsum([0, *domain.sizes]))
    params = gem._initial_params(config, offsets[-1], rng)
    codes = jnp.asarray(rng.standard_normal((config.rows, config.code_dim)), jnp.float32)
    rows = gem._mixture(params, codes, domain, offsets)
    gaps = [np.abs(small_titanic.marginal(c) / small_titanic.records - rows.marginal(c)).max()
            for c in WORKLOAD.cliques]
    run = GEM(config).fit(small_titanic, PrivacyBudget(rho=1e8, relation=NeighbourRelation.REPLACE_ONE),
                          np.random.default_rng(3), workload=WORKLOAD)
    assert tuple(run.diagnostics["selected"][0]) == WORKLOAD.cliques[int(np.argmax(gaps))]


def test_the_generator_fits_what_it_measured(small_titanic):
    """Nearly noiseless measurements: the workload error falls far below the first rounds'."""
    early = _fit(small_titanic, 1e6, rounds=1, iterations=1)
    late = _fit(small_titanic, 1e6, rounds=len(WORKLOAD), iterations=300, learning_rate=3e-3,
                error_threshold=0.0)
    before = workload_error(small_titanic, early.synthetic, WORKLOAD)
    after = workload_error(small_titanic, late.synthetic, WORKLOAD)
    assert after < 0.5 * before, (before, after)


def test_releases_n_records_by_default_and_the_count_asked_for(small_titanic):
    assert _fit(small_titanic, 1.0, rounds=1).synthetic.records == small_titanic.records
    run = _fit(small_titanic, 1.0, rounds=1, records=123)
    assert run.synthetic.records == 123 and run.synthetic.domain == small_titanic.domain


def test_forward_gives_one_distribution_per_attribute():
    config = GEMConfig(**SMALL)
    offsets = (0, 3, 5, 9)
    rng = np.random.default_rng(0)
    rows = gem._forward(gem._initial_params(config, 9, rng),
                        jnp.asarray(rng.standard_normal((7, config.code_dim)), jnp.float32),
                        offsets)
    assert rows.shape == (7, 9) and bool(jnp.all(rows >= 0))
    for lo, hi in itertools.pairwise(offsets):
        np.testing.assert_allclose(rows[:, lo:hi].sum(axis=1), 1.0, rtol=1e-6)


@pytest.mark.parametrize("loss_p", [1, 2])
def test_the_cellwise_gradient_is_autodiff_through_whole_marginals(loss_p):
    """The step's loss and gradient (the kept cells' values read column by column) against
    autodiff of ||a_S - q_S||_p / |S| through the whole marginals, S the top cells at or above
    the threshold; cliques of one, two and three attributes, so padded positions are used."""
    # a math check: full float32 products (JAX on a GPU multiplies in TF32 by default)
    with jax.default_matmul_precision("highest"):
        config = GEMConfig(**SMALL)
        rng = np.random.default_rng(1)
        offsets, cliques = (0, 2, 5, 7), ((0, 1), (1, 2), (0, 1, 2), (2,))
        static = gem._Static(offsets=offsets, cliques=cliques, cells=12, slots=3)
        params = gem._initial_params(config, 7, rng)
        codes = jnp.asarray(rng.standard_normal((config.rows, config.code_dim)), jnp.float32)
        slots = gem._Slots.empty(static)
        measured = (2, 3, 1)  # cliques (0, 1, 2): 12 cells, (2,): 2, (1, 2): 3 x 2
        for clique in measured:
            slots.add(clique, rng.random(math.prod(static.sizes[clique])).astype(np.float32))
        threshold, top = 0.2, 9
        done, loss, grads = jax.jit(functools.partial(
            gem._loss_and_grad, static=static, top=top, loss_p=loss_p))(
            params, codes, *slots.arrays(), jnp.float32(threshold))
        assert not bool(done)

        targets = jnp.asarray(np.concatenate([slots.measured(k) for k in range(3)]))

        def answers(p):
            every = gem._all_marginals(p, codes, static=static)
            return jnp.concatenate([every[c, :math.prod(static.sizes[c])] for c in measured])

        errors = np.abs(np.asarray(targets - answers(params)))
        flat = np.where(errors >= threshold, errors, -1)
        keep = np.zeros(flat.size, bool)
        keep[np.argsort(-flat, kind="stable")[:top]] = True
        keep = jnp.asarray(keep & (flat >= 0))
        assert 0 < int(keep.sum()) <= top < int((errors >= threshold).sum())

        def reference(p):
            residual = jnp.where(keep, targets - answers(p), 0.0)
            return jnp.sum(jnp.abs(residual) ** loss_p) ** (1 / loss_p) / keep.sum()

        assert float(loss) == pytest.approx(float(reference(params)), rel=1e-5)
        for got, want in zip(jax.tree.leaves(grads), jax.tree.leaves(jax.grad(reference)(params)),
                             strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-7)


def test_update_stops_once_no_cell_is_above_the_threshold():
    config = GEMConfig(**SMALL)
    rng = np.random.default_rng(2)
    static = gem._Static(offsets=(0, 2, 4), cliques=((0, 1),), cells=4, slots=1)
    params = gem._initial_params(config, 4, rng)
    codes = jnp.asarray(rng.standard_normal((config.rows, config.code_dim)), jnp.float32)
    slots = gem._Slots.empty(static)
    slots.add(0, np.full(4, 0.25, np.float32))
    moved, steps, _ = gem._update(params, codes, *slots.arrays(), jnp.float32(2.0),
                                  static=static, iterations=50, learning_rate=1e-2, top=4,
                                  loss_p=2)
    assert int(steps) == 0
    for got, want in zip(jax.tree.leaves(moved), jax.tree.leaves(params), strict=True):
        np.testing.assert_array_equal(got, want)


def test_weight_average_is_the_codes_exponential_moving_average():
    a, b, c = ({"w": jnp.full(2, v)} for v in (1.0, 2.0, 4.0))
    averaged = gem._averaged([a, b, c], 0.9)
    np.testing.assert_allclose(averaged["w"], 0.9 * (0.9 * 1 + 0.1 * 2) + 0.1 * 4)


def test_weight_average_switch_changes_the_release(small_titanic):
    plain = _fit(small_titanic, 1.0, rounds=4)
    averaged = _fit(small_titanic, 1.0, rounds=4, average_weights=True)
    assert plain.ledger.spent_rho == averaged.ledger.spent_rho
    assert not plain.synthetic.frame.equals(averaged.synthetic.frame)


def test_each_authors_script_is_a_valid_config_and_the_defaults_are_july_2022s(small_titanic):
    for changes in gem.AUTHORS_SCRIPTS.values():
        GEMConfig(**changes)  # names GEMConfig's fields, with valid values
    assert gem.AUTHORS_SCRIPTS["2022-07"] == {}
    # the 2021 script's one block of 512 and averaged weights run (at a small size)
    first = {**gem.AUTHORS_SCRIPTS["2021-11"], "rounds": 3, "hidden": (16,)}
    run = _fit(small_titanic, 1.0, **first)
    assert run.ledger.spent_rho == pytest.approx(1.0, rel=1e-9)


def test_a_whole_workload_of_three_way_marginals_runs(small_titanic):
    workload = all_kway(small_titanic.domain, 3)
    run = _fit(small_titanic, 0.5, workload=workload, rounds=3)
    assert len(run.diagnostics["selected"]) == 3
    assert all(len(c) == 3 for c in run.diagnostics["selected"])


@pytest.mark.parametrize(("setting", "value"), [
    ("rounds", 0), ("alpha", 1.0), ("alpha", 0.0), ("loss_p", 3), ("rows", 0),
    ("hidden", (0,)), ("error_threshold", 1.5), ("records", 0), ("learning_rate", 0.0)])
def test_config_refuses_bad_settings(setting, value):
    with pytest.raises(ValueError, match=setting):
        GEMConfig(**{setting: value})
