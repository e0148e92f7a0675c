"""DP-MERF: the embedding and its one charge in closed form, training that reads nothing but the
release, uniform labels."""

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import torch

from reprolib.data import Dataset, Domain, MixedDataset
from reprolib.mechanisms import build, registration
from reprolib.mechanisms.deep import dp_merf
from reprolib.privacy import ORDERS, NeighbourRelation, PrivacyBudget, gaussian_rho, zcdp_curve
from reprolib.privacy._exact import round_up, sqrt_up

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
    features = dp_merf.FeatureMap(frequencies, "rff", 0, 0)
    embedding = features.mean_embedding(rows, labels, 2)
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
    sensitivity = round_up(Fraction(2, small_mixed.records))  # 2/n rounded up
    np.testing.assert_array_equal(charge.curve, zcdp_curve(gaussian_rho(sigma, sensitivity)))
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


def _tabular(data, seed=0, **overrides):
    return _fit(data, seed, **{**dp_merf.TABULAR, "features": 200, "epochs": 3, **overrides})


def test_tabular_mode_releases_proportions_and_embedding_at_one_noise_multiplier(small_mixed):
    result = _tabular(small_mixed)
    proportions, embedding = result.ledger.charges
    n = small_mixed.records
    assert (proportions.label, embedding.label) == ("class proportions", "mean embedding")
    # the embedding: z has a Fourier part and a one-hot part, norm up to sqrt(2)
    sigma = result.diagnostics["sigma"]
    sensitivity = round_up(2 * Fraction(sqrt_up(2)) / n)
    assert sensitivity >= 2 * math.sqrt(2) / n
    np.testing.assert_array_equal(embedding.curve, zcdp_curve(gaussian_rho(sigma, sensitivity)))
    assert Fraction(proportions.details["sensitivity"]) ** 2 >= Fraction(2, n * n)
    rho_proportions = proportions.curve[0] / ORDERS[0]
    assert rho_proportions == pytest.approx(embedding.curve[0] / ORDERS[0], rel=1e-9)
    spent = result.ledger.spent_epsilon()
    assert spent <= EPSILON and math.isclose(spent, EPSILON, rel_tol=1e-9)


def test_the_mixed_feature_map_is_the_same_on_records_and_on_generated_rows(small_mixed):
    config = dp_merf.DPMERFConfig(**{**dp_merf.TABULAR, "features": 40})
    blocks, numbers = (3, 2), 2
    features = dp_merf.FeatureMap.draw(blocks, numbers, config, np.random.default_rng(0))
    assert features.frequencies.shape == (20, 2) and features.largest_norm == math.sqrt(2)
    rng = np.random.default_rng(1)
    rows = np.concatenate([np.eye(3)[rng.integers(0, 3, 50)], np.eye(2)[rng.integers(0, 2, 50)],
                           rng.uniform(size=(50, 2))], axis=1)
    z = features(torch.as_tensor(rows)).numpy()
    np.testing.assert_allclose(np.linalg.norm(z, axis=1), math.sqrt(2), rtol=1e-12)
    np.testing.assert_allclose(z[:, -5:], rows[:, :5] / math.sqrt(2), rtol=1e-12)
    labels = rng.integers(0, 2, 50)
    np.testing.assert_allclose(features.mean_embedding(rows, labels, 2),
                               z.T @ np.eye(2)[labels] / 50, rtol=1e-10, atol=1e-15)


def test_tabular_labels_follow_the_released_proportions(small_mixed):
    result = _tabular(small_mixed, n_synthetic=3000)
    real = np.bincount(small_mixed.column("SEX"), minlength=2) / small_mixed.records
    synthetic = np.bincount(result.synthetic.column("SEX"), minlength=2) / 3000
    np.testing.assert_allclose(synthetic, real, atol=0.05)
    assert result.synthetic.domain == small_mixed.domain


def _images(records=60, side=8, classes=3, seed=0):
    """Labelled side x side greyscale images as mixed records: the label, one number per pixel."""
    rng = np.random.default_rng(seed)
    labels = Dataset(pd.DataFrame({"digit": rng.integers(0, classes, records)}),
                     Domain(("digit",), (classes,)), "images")
    pixels = tuple(f"pixel{i}" for i in range(side * side))
    return MixedDataset(labels, rng.uniform(size=(records, side * side)), pixels, ("digit",),
                        "images")


def test_the_conv_generator_is_the_authors_architecture():
    """ConvCondGen at the authors' MNIST settings: 5 + 10 inputs, 200 hidden, 16 maps of 7 x 7,
    kernels 5, 8 then 1 channel; its parameters counted layer by layer."""
    generator = dp_merf._ConvConditionalGenerator(5, 10, 200, 28, (16, 8), (5, 5))
    expected = ((15 * 200 + 200) + 2 * 200            # first linear layer, its batch norm
                + (200 * 784 + 784) + 2 * 784         # to 16 x 7 x 7 maps, their batch norm
                + (16 * 8 * 25 + 8) + (8 * 1 * 25 + 1))  # the two 5 x 5 convolutions
    assert sum(p.numel() for p in generator.parameters()) == expected
    images = generator(torch.randn(4, 15))
    assert images.shape == (4, 784) and bool(((images > 0) & (images < 1)).all())


def test_the_conv_generator_fits_images_and_spends_the_budget():
    data = _images()
    result = _fit(data, generator="conv", hidden=(12, 12), channels=(4, 2), n_synthetic=30)
    assert result.synthetic.numerical.shape == (30, 64)
    assert ((result.synthetic.numerical >= 0) & (result.synthetic.numerical <= 1)).all()
    assert math.isclose(result.ledger.spent_epsilon(), EPSILON, rel_tol=1e-9)


@pytest.mark.parametrize("side", [6, 8])
def test_the_conv_generator_refuses_records_that_are_not_images(small_mixed, side):
    data = small_mixed if side == 8 else _images(side=side)  # categorical blocks; 6 is not 4k
    mechanism = build("DP-MERF", {**registration("DP-MERF").quick, "generator": "conv"})
    budget = PrivacyBudget.from_epsilon_delta(EPSILON, DELTA,
                                              relation=NeighbourRelation.REPLACE_ONE)
    with pytest.raises(ValueError, match="square greyscale images"):
        mechanism.fit(data, budget, np.random.default_rng(0))


@pytest.mark.parametrize("embedding", ["rff", "mixed"])
def test_the_embedding_moves_by_at_most_its_sensitivity_between_neighbours(embedding):
    """Replacing one record (its label too, or not) moves the released mean embedding by at
    most 2 x the largest feature norm / n in Frobenius norm, the sensitivity charged."""
    rng = np.random.default_rng(0)
    blocks, numbers, classes, n = (3, 4), 2, 3, 50
    config = dp_merf.DPMERFConfig(features=40, embedding=embedding)
    features = dp_merf.FeatureMap.draw(blocks, numbers, config, rng)

    def record():
        one_hot = [np.eye(size)[rng.integers(size)] for size in blocks]
        return np.concatenate([*one_hot, rng.random(numbers)])

    rows = np.array([record() for _ in range(n)])
    labels = rng.integers(classes, size=n)
    before = features.mean_embedding(rows, labels, classes)
    bound = 2 * features.largest_norm / n
    ratios = []
    for _ in range(300):
        other, other_labels = rows.copy(), labels.copy()
        i = rng.integers(n)
        other[i], other_labels[i] = record(), rng.integers(classes)
        moved = np.linalg.norm(features.mean_embedding(other, other_labels, classes) - before)
        ratios.append(moved / bound)
    assert max(ratios) <= 1 + 1e-12
    assert max(ratios) > 0.5  # the records and labels searched come near the bound
