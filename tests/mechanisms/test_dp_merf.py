"""DP-MERF: the embedding and its one charge in closed form, training that reads nothing but the
release, uniform labels."""

import math

import numpy as np
import pytest

from reprolib.data import MixedDataset
from reprolib.mechanisms import build, registration
from reprolib.mechanisms.deep import dp_merf
from reprolib.privacy import ORDERS, NeighbourRelation, PrivacyBudget, gaussian_rho

EPSILON, DELTA = 2.0, 1e-6


def _fit(data, seed=0, **overrides):
    mechanism = build("DP-MERF", {**registration("DP-MERF").quick, **overrides})
    budget = PrivacyBudget.from_epsilon_delta(EPSILON, DELTA,
                                              relation=NeighbourRelation.REPLACE_ONE)
    return mechanism.fit(data, budget, np.random.default_rng(seed))


def test_the_embedding_is_the_mean_of_unit_fourier_features_times_the_label():
    rng = np.random.default_rng(0)
    rows, labels = rng.uniform(size=(2500, 3)), rng.integers(0, 2, size=2500)
    frequencies = rng.normal(size=(7, 3))
    embedding = dp_merf._mean_embedding(rows, labels, 2, frequencies)
    by_hand = np.zeros((14, 2))
    for x, y in zip(rows, labels, strict=True):
        z = np.concatenate([np.cos(frequencies @ x), np.sin(frequencies @ x)]) / math.sqrt(7)
        assert np.linalg.norm(z) == pytest.approx(1.0)
        by_hand[:, y] += z / len(rows)
    np.testing.assert_allclose(embedding, by_hand, rtol=1e-12)


def test_one_release_of_sensitivity_two_over_n_spends_the_budget(small_mixed):
    result = _fit(small_mixed)
    (charge,) = result.ledger.charges
    sigma = result.diagnostics["sigma"]
    sensitivity = 2.0 / small_mixed.records
    np.testing.assert_array_equal(charge.curve, gaussian_rho(sigma, sensitivity) * ORDERS)
    spent = result.ledger.spent_epsilon()
    assert spent <= EPSILON and math.isclose(spent, EPSILON, rel_tol=1e-9)
    sizes = small_mixed.domain.categorical.sizes
    assert result.diagnostics["encoded_columns"] == sum(sizes) - 2 + 3  # SEX is the label


def test_labels_are_uniform_and_records_in_the_domain(small_mixed):
    result = _fit(small_mixed, n_synthetic=101)
    assert np.bincount(result.synthetic.column("SEX")).tolist() == [51, 50]
    assert result.synthetic.domain == small_mixed.domain


def test_training_reads_the_release_only(small_mixed, monkeypatch):
    """Scrambling the records right after the release changes nothing that follows."""
    expected = _fit(small_mixed, seed=3)
    data = small_mixed.take(np.arange(small_mixed.records))
    real = dp_merf.gaussian_mechanism

    def release_then_scramble(values, **kwargs):
        out = real(values, **kwargs)
        data.numerical[:] = np.nan
        data.categorical.frame.iloc[:, :] = 0
        return out

    monkeypatch.setattr(dp_merf, "gaussian_mechanism", release_then_scramble)
    scrambled = _fit(data, seed=3)
    assert np.isnan(data.numerical).all()
    assert np.array_equal(scrambled.synthetic.numerical, expected.synthetic.numerical)


def test_unlabelled_data_and_odd_feature_counts_are_refused(small_mixed):
    unlabelled = MixedDataset(small_mixed.categorical, small_mixed.numerical,
                              small_mixed.numerical_names)
    with pytest.raises(ValueError, match="no target attribute"):
        _fit(unlabelled)
    with pytest.raises(ValueError, match="even number"):
        build("DP-MERF", {"features": 5})
