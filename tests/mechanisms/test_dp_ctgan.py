"""DP-CTGAN: its two charges (the DP-SGD steps and the category counts) spend the budget, the
planned steps and noise, the conditions it trains on, and what it releases."""

import math

import numpy as np
import pytest
import torch

from reprolib.mechanisms import build, registration
from reprolib.mechanisms.deep import _tabular, dp_ctgan
from reprolib.privacy import (
    ORDERS,
    NeighbourRelation,
    PrivacyBudget,
    dp_sgd_steps,
    eps_to_rho,
    sampled_gaussian_rdp,
)

EPSILON, DELTA = 3.0, 1e-6


def _fit(data, seed=0, **overrides):
    mechanism = build("DP-CTGAN", {**registration("DP-CTGAN").quick, **overrides})
    budget = PrivacyBudget.from_epsilon_delta(EPSILON, DELTA,
                                              relation=NeighbourRelation.REPLACE_ONE)
    return mechanism.fit(data, budget, np.random.default_rng(seed))


def test_the_steps_and_the_counts_spend_the_budget(small_mixed):
    result = _fit(small_mixed)
    relation = NeighbourRelation.REPLACE_ONE
    steps, counts = result.ledger.charges
    n, batch = small_mixed.records, registration("DP-CTGAN").quick["batch_size"]
    assert steps.mechanism == "dp-sgd" and steps.repeat == 2 * (n // batch)  # every epoch
    assert steps.details["sample_rate"] == batch / n
    np.testing.assert_array_equal(
        steps.curve, sampled_gaussian_rdp(batch / n, result.diagnostics["noise_multiplier"],
                                          relation))
    blocks = len(small_mixed.domain.categorical.attributes)
    assert counts.label == "category counts"
    assert counts.details["sensitivity"] == pytest.approx(math.sqrt(2 * blocks))
    spent = result.ledger.spent_epsilon()
    assert spent <= EPSILON and spent == pytest.approx(EPSILON, rel=1e-9)
    # the counts took at least the room kept for them
    assert counts.details["rho"] >= 0.1 * eps_to_rho(EPSILON, DELTA, bound="bun-steinke")


def test_a_fixed_noise_multiplier_runs_the_most_steps_that_fit(small_mixed):
    result = _fit(small_mixed, noise_multiplier=6.0, epochs=500)
    n, batch = small_mixed.records, 100
    from reprolib.privacy import RdpBudget, RdpLedger

    fresh = RdpLedger(RdpBudget(epsilon=EPSILON, delta=DELTA,
                                relation=NeighbourRelation.REPLACE_ONE))
    room = 0.1 * eps_to_rho(EPSILON, DELTA, bound="bun-steinke") * ORDERS
    expected = dp_sgd_steps(fresh, sample_rate=batch / n, noise_multiplier=6.0,
                            most=500 * (n // batch), then=room)
    assert 0 < expected < 500 * (n // batch)
    assert result.diagnostics["steps"] == expected == result.ledger.charges[0].repeat
    assert result.ledger.spent_epsilon() == pytest.approx(EPSILON, rel=1e-9)
    with pytest.raises(ValueError, match="not one DP-SGD step"):
        _fit(small_mixed, noise_multiplier=0.3)


def test_it_releases_records_of_the_datas_domain(small_mixed):
    result = _fit(small_mixed, n_synthetic=321)
    synthetic = result.synthetic
    assert synthetic.records == 321
    assert synthetic.domain == small_mixed.domain and synthetic.targets == small_mixed.targets
    assert np.all((synthetic.numerical >= 0) & (synthetic.numerical <= 1))
    again = _fit(small_mixed, n_synthetic=321)
    np.testing.assert_array_equal(again.synthetic.numerical, synthetic.numerical)


def test_a_real_row_is_conditioned_on_one_of_its_own_categories():
    layout = _tabular.Layout((2, 3), 1)
    rows = np.array([[1, 0, 0, 0, 1, 0.3], [0, 1, 1, 0, 0, -0.5]], dtype=np.float32)
    conditions = dp_ctgan._real_conditions(np.repeat(rows, 50, axis=0), layout,
                                           np.random.default_rng(0))
    assert np.all(conditions.sum(axis=1) == 1)
    own = np.repeat(rows[:, :5], 50, axis=0)
    assert np.all(conditions <= own)  # only categories the row has
    assert conditions[:, :2].sum() > 0 and conditions[:, 2:].sum() > 0  # both blocks drawn


def test_fake_rows_draw_categories_from_the_released_frequencies():
    layout = _tabular.Layout((2, 3), 0)
    frequencies = [np.array([0.0, 1.0]), np.array([0.0, 0.0, 1.0])]
    conditions = dp_ctgan._fake_conditions(400, layout, frequencies, np.random.default_rng(0))
    assert np.all(conditions.sum(axis=1) == 1)
    assert set(np.flatnonzero(conditions.sum(axis=0))) == {1, 4}


def test_the_conditional_loss_is_the_cross_entropy_of_the_asked_category():
    layout = _tabular.Layout((2, 3), 1)
    raw = torch.tensor([[2.0, 0.0, 0.0, 1.0, 3.0, 0.5], [0.0, 1.0, 1.0, 2.0, 0.0, 0.1]])
    conditions = torch.tensor([[0.0, 0.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0, 0.0]])
    expected = (-torch.log_softmax(raw[0, 2:5], 0)[2] - torch.log_softmax(raw[1, 0:2], 0)[1]) / 2
    assert float(dp_ctgan._conditional_loss(raw, conditions, layout)) == pytest.approx(
        float(expected))


def test_the_config_rejects_settings_that_cannot_run():
    for bad in ({"epochs": 0}, {"generator": ()}, {"noise_multiplier": 0.0},
                {"frequency_share": 1.0}, {"temperature": 0.0}):
        with pytest.raises(ValueError):
            dp_ctgan.DPCTGANConfig(**bad)
