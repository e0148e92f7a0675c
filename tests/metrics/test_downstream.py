"""Downstream error of gradient boosting (Section 4.1, item 1) and the tables' synthetic/real ratio."""

import math

import numpy as np
import pandas as pd
import pytest

from reprolib.data import Dataset, Domain
from reprolib.metrics import downstream_error, downstream_ratio

SIZES = {"x": 4, "z": 3, "y": 4}


def _dataset(x, z, y) -> Dataset:
    frame = pd.DataFrame({"x": x, "z": z, "y": y}).astype("int64")
    return Dataset(frame, Domain.from_dict(SIZES))


def _copy_task(n: int, seed: int, noise: float = 0.0) -> Dataset:
    """y = x % 2 (classification) with a fraction ``noise`` of labels flipped."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 4, n)
    flip = rng.random(n) < noise
    return _dataset(x, rng.integers(0, 3, n), np.where(flip, 1 - x % 2, x % 2))


def test_classification_error_is_the_0_1_error_on_the_test_split():
    train, test = _copy_task(200, 0), _copy_task(100, 1)
    assert downstream_error(train, test, "y", "classification") == 0.0
    flipped = _dataset(train.frame.x, train.frame.z, 1 - train.frame.y)
    assert downstream_error(flipped, test, "y", "classification") == 1.0


def test_regression_error_is_the_mse_in_bins():
    rng = np.random.default_rng(2)
    x = rng.integers(0, 4, 150)
    test = _dataset(x, rng.integers(0, 3, 150), x)
    # A constant training target is fitted exactly (the boosting starts at the mean).
    constant = _dataset(rng.integers(0, 4, 100), rng.integers(0, 3, 100), np.full(100, 1))
    expected = float(np.mean((1 - x) ** 2))
    assert downstream_error(constant, test, "y", "regression") == pytest.approx(expected)
    assert downstream_error(test, test, "y", "regression") < 1e-3


def test_a_single_class_training_set_predicts_that_class():
    test = _copy_task(100, 3)
    single = _dataset([0, 1, 2], [0, 0, 0], [1, 1, 1])
    expected = float(np.mean(test.frame.y != 1))
    assert downstream_error(single, test, "y", "classification") == pytest.approx(expected)


def test_downstream_error_is_seeded():
    train, test = _copy_task(300, 4, noise=0.3), _copy_task(200, 5, noise=0.3)
    first = downstream_error(train, test, "y", "classification", seed=7)
    assert downstream_error(train, test, "y", "classification", seed=7) == first


def test_ratio_divides_synthetic_by_real_and_is_nan_when_real_is_perfect():
    real_train, real_test = _copy_task(300, 6, noise=0.2), _copy_task(200, 7, noise=0.2)
    synthetic = _copy_task(300, 8, noise=0.45)
    ratio = downstream_ratio(synthetic, real_train, real_test, "y", "classification")
    expected = downstream_error(synthetic, real_test, "y", "classification") / downstream_error(
        real_train, real_test, "y", "classification"
    )
    assert ratio == pytest.approx(expected) and ratio > 1
    clean_train, clean_test = _copy_task(100, 9), _copy_task(100, 10)
    assert math.isnan(downstream_ratio(synthetic, clean_train, clean_test, "y", "classification"))


def test_bad_arguments_raise_clear_errors():
    data = _copy_task(20, 0)
    with pytest.raises(ValueError, match="task must be one of"):
        downstream_error(data, data, "y", "ranking")
    with pytest.raises(ValueError, match="target 'w' is not an attribute"):
        downstream_error(data, data, "w", "classification")
    other = Dataset(data.frame, Domain.from_dict({"x": 4, "z": 3, "y": 5}))
    with pytest.raises(ValueError, match="test data's domain"):
        downstream_error(data, other, "y", "classification")
    only_target = Dataset(data.frame[["y"]], Domain.from_dict({"y": 4}))
    with pytest.raises(ValueError, match="no attribute besides the target"):
        downstream_error(only_target, only_target, "y", "classification")


def test_the_linear_models_score_does_not_read_the_global_generator(monkeypatch):
    """liblinear shuffles coordinates; unseeded it draws from NumPy's global state, and where it
    stops before converging (synthetic records often) the F1 then depends on process history."""
    import sklearn.linear_model

    from reprolib.data import Dataset, Domain, MixedDataset
    from reprolib.metrics import logistic_macro_f1

    seen = []
    real = sklearn.linear_model.LogisticRegression

    def spy(**settings):
        seen.append(settings)
        return real(**settings)

    monkeypatch.setattr(sklearn.linear_model, "LogisticRegression", spy)
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.integers(0, 3, 200), "y": rng.integers(0, 2, 200)})
    data = MixedDataset(Dataset(frame, Domain.from_dict({"a": 3, "y": 2})), rng.random((200, 2)),
                        ("u", "v"), targets=("y",))
    scores = set()
    for state in (1, 2):
        np.random.seed(state)
        scores.add(logistic_macro_f1(data, data, "y"))
    assert len(scores) == 1
    assert seen and all(isinstance(s.get("random_state"), int) for s in seen)
