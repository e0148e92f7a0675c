"""DP-CTGAN: its two charges (the DP-SGD steps and the category counts) spend the budget, the
planned steps and noise, the conditions it trains on, and what it releases."""

import math
import warnings

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


def test_its_diagnostics_read_the_data_only_through_private_releases(small_mixed):
    """Settings, the accountant's figures, timings, and the generator's losses (which see the data
    only through the DP-trained critic); no loss of the critic over real records."""
    released = set(_fit(small_mixed).diagnostics)
    assert released == {"noise_multiplier", "sigma", "encoded_columns", "sample_rate", "steps",
                        "epochs_run", "spent_epsilon", "uncounted_epsilon", "epoch_losses",
                        "training_seconds", "device"}


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


def _step_gradient(inputs, labels, config, multiplier=0.0):
    """The discriminator's DP-SGD gradient for one batch, times the expected batch (so the sum
    of the clipped per-row gradients plus noise); the same initial weights every call."""
    torch.manual_seed(0)
    critic, optimiser, loss = dp_ctgan._private_critic(inputs.shape[1], config, multiplier, "cpu")
    optimiser.zero_grad(set_to_none=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "Full backward hook is firing ..."
        loss(critic(inputs).squeeze(1), labels).backward()
    optimiser.pre_step()
    return torch.cat([p.grad.flatten() for p in critic.parameters()]) * optimiser.expected_batch_size


def _unclipped_gradient(inputs, labels, config):
    torch.manual_seed(0)  # the same weights and dropout masks as _step_gradient's
    plain = dp_ctgan._discriminator(inputs.shape[1], config.discriminator)
    loss = torch.nn.functional.binary_cross_entropy(plain(inputs).squeeze(1), labels,
                                                    reduction="sum")
    return torch.cat([g.flatten() for g in torch.autograd.grad(loss, list(plain.parameters()))])


def test_one_row_moves_a_step_by_at_most_its_clipped_gradient():
    """DP-SGD's sensitivity, which the accountant assumes: a row's whole gradient is clipped to
    the clipping norm C, so replacing one row moves the step's summed gradient by at most 2C."""
    config = dp_ctgan.DPCTGANConfig(batch_size=4, discriminator=(32, 32), max_grad_norm=0.5)
    rows = torch.rand(8, 6, generator=torch.Generator().manual_seed(1))
    labels = torch.tensor([1.0] * 4 + [0.0] * 4)
    far = rows.clone()
    far[0] = 10 * torch.tensor([1.0, -1.0, 1.0, -1.0, 1.0, -1.0])
    # one row alone: its gradient is far above C and comes out at C
    assert _unclipped_gradient(far[:1], labels[:1], config).norm() > 10 * config.max_grad_norm
    alone = _step_gradient(far[:1], labels[:1], config).norm()
    assert alone == pytest.approx(config.max_grad_norm, rel=1e-5)
    # replace-one neighbours in a batch
    moved = (_step_gradient(far, labels, config) - _step_gradient(rows, labels, config)).norm()
    unclipped = (_unclipped_gradient(far, labels, config)
                 - _unclipped_gradient(rows, labels, config)).norm()
    assert moved <= 2 * config.max_grad_norm * (1 + 1e-5) < unclipped


def test_the_step_noise_is_the_multiplier_times_the_clipping_norm():
    config = dp_ctgan.DPCTGANConfig(batch_size=4, discriminator=(64, 64), max_grad_norm=0.5)
    rows = torch.rand(8, 6, generator=torch.Generator().manual_seed(1))
    labels = torch.tensor([1.0] * 4 + [0.0] * 4)
    noise = _step_gradient(rows, labels, config, 2.0) - _step_gradient(rows, labels, config)
    assert len(noise) > 4000
    assert float(noise.mean()) == pytest.approx(0.0, abs=0.05)
    assert float(noise.std()) == pytest.approx(2.0 * config.max_grad_norm, rel=0.05)
