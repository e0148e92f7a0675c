"""PATE-GAN: every charge is a teacher vote, the last batch spends the rest under both
accountings, the calibrated noise, the teachers, and what it releases."""

import numpy as np
import pytest

from reprolib.mechanisms import build, registration
from reprolib.mechanisms.deep import pate_gan
from reprolib.privacy import NeighbourRelation, PrivacyBudget, vote_rdp

EPSILON, DELTA = 1.0, 1e-6


def _fit(data, seed=0, **overrides):
    mechanism = build("PATE-GAN", {**registration("PATE-GAN").quick, **overrides})
    budget = PrivacyBudget.from_epsilon_delta(EPSILON, DELTA,
                                              relation=NeighbourRelation.REPLACE_ONE)
    return mechanism.fit(data, budget, np.random.default_rng(seed))


def test_calibrated_noise_spends_the_budget_over_the_planned_iterations(small_mixed):
    result = _fit(small_mixed, iterations=3)
    charges = result.ledger.charges
    assert {c.mechanism for c in charges} == {"pate-vote"}
    quick = registration("PATE-GAN").quick
    assert len(charges) == 3  # one charge per iteration
    assert all(c.repeat == quick["student_iters"] * quick["batch_size"] for c in charges)
    assert result.diagnostics["iterations"] == 3 and result.diagnostics["last_inverse_scale"] is None
    spent = result.ledger.spent_epsilon()
    assert spent <= EPSILON and spent == pytest.approx(EPSILON, rel=1e-9)


@pytest.mark.parametrize("accounting", ["data-independent", "data-dependent"])
def test_a_fixed_noise_runs_until_the_last_iteration_spends_the_rest(small_mixed, accounting):
    lam = 0.02
    result = _fit(small_mixed, inverse_scale=lam, iterations=None, accounting=accounting)
    *votes, last = result.ledger.charges
    assert all(c.details["inverse_scale"] == lam for c in votes)
    assert all(c.details["data_dependent"] == (accounting == "data-dependent") for c in votes)
    assert last.details["data_dependent"] == 0.0 and last.details["inverse_scale"] < lam
    assert result.diagnostics["last_inverse_scale"] == last.details["inverse_scale"]
    assert result.ledger.spent_epsilon() == pytest.approx(EPSILON, rel=1e-9)
    quick = registration("PATE-GAN").quick
    per_iteration = quick["student_iters"] * quick["batch_size"]
    assert result.diagnostics["votes"] == per_iteration * len(result.ledger.charges)
    assert result.diagnostics["iterations"] == len(result.ledger.charges)


def test_a_data_dependent_charge_never_exceeds_the_independent_one(small_mixed):
    common = {"inverse_scale": 0.02, "iterations": None, "teachers": 5}
    independent = _fit(small_mixed, **common)
    dependent = _fit(small_mixed, accounting="data-dependent", **common)
    quick = registration("PATE-GAN").quick
    per_iteration = quick["student_iters"] * quick["batch_size"]
    for charge in dependent.ledger.charges[:-1]:
        assert charge.repeat == 1
        assert np.all(np.asarray(charge.curve) <= per_iteration * vote_rdp(0.02) * (1 + 1e-9))
    assert dependent.diagnostics["votes"] >= independent.diagnostics["votes"]


def test_smartnoise_gives_one_teacher_per_thousand_records(small_mixed):
    result = _fit(small_mixed, teachers=None)
    assert result.diagnostics["teachers"] == max(1, small_mixed.records // 1000)


def test_it_releases_records_of_the_datas_domain(small_mixed):
    result = _fit(small_mixed, n_synthetic=123)
    synthetic = result.synthetic
    assert synthetic.records == 123
    assert synthetic.domain == small_mixed.domain and synthetic.targets == small_mixed.targets
    assert np.all((synthetic.numerical >= 0) & (synthetic.numerical <= 1))
    again = _fit(small_mixed, n_synthetic=123)
    np.testing.assert_array_equal(again.synthetic.numerical, synthetic.numerical)


def test_the_config_rejects_settings_that_cannot_run():
    for bad in ({"batch_size": 0}, {"teachers": 0}, {"inverse_scale": 0.0},
                {"inverse_scale": None}, {"inverse_scale": 1e-3, "iterations": 5},
                {"inverse_scale": None, "iterations": 5, "accounting": "data-dependent"},
                {"accounting": "moments"}):
        with pytest.raises(ValueError):
            pate_gan.PATEGANConfig(**bad)
