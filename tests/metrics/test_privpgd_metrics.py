"""privpgd_metrics returns every Section 4.1 metric under its name, consistent with each function."""

import numpy as np
import pandas as pd
import pytest

from reprolib.data import Dataset, Domain
from reprolib.metrics import (
    CountingQueries,
    ThresholdingQueries,
    absolute_query_error,
    average_l1,
    average_sw1,
    covariance_error,
    downstream_error,
    relative_query_error,
)
from reprolib.papers.privpgd.metrics import privpgd_metrics

SIZES = {"a": 4, "b": 3, "c": 5, "y": 2}
KEYS = {
    "downstream_error", "downstream_error_real", "downstream_ratio", "covariance_error",
    "counting_error", "counting_abs_error", "thresholding_error", "thresholding_abs_error",
    "sw1", "tv", "l1",
}


def _sample(n: int, seed: int, noise: float) -> Dataset:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 4, n)
    b = (a + rng.integers(0, 2, n)) % 3
    y = np.where(rng.random(n) < noise, rng.integers(0, 2, n), (a >= 2).astype(int))
    frame = pd.DataFrame({"a": a, "b": b, "c": rng.integers(0, 5, n), "y": y}).astype("int64")
    return Dataset(frame, Domain.from_dict(SIZES))


@pytest.fixture(scope="module")
def split():
    return _sample(300, 0, 0.2), _sample(200, 1, 0.5), _sample(100, 2, 0.2)


def test_every_metric_matches_its_function(split):
    real, synthetic, test = split
    counting = CountingQueries.draw(real, n_queries=20, seed=3)
    thresholding = ThresholdingQueries.draw(real, n_queries=20, seed=3)
    metrics = privpgd_metrics(real, synthetic, test, target="y", task="classification",
                              counting=counting, thresholding=thresholding, seed=4)
    assert set(metrics) == KEYS
    expected = {
        "downstream_error": downstream_error(synthetic, test, "y", "classification", seed=4),
        "downstream_error_real": downstream_error(real, test, "y", "classification", seed=4),
        "covariance_error": covariance_error(real, synthetic),
        "counting_error": relative_query_error(counting, real, synthetic),
        "counting_abs_error": absolute_query_error(counting, real, synthetic),
        "thresholding_error": relative_query_error(thresholding, real, synthetic),
        "thresholding_abs_error": absolute_query_error(thresholding, real, synthetic),
        "sw1": average_sw1(real, synthetic, seed=4),
        "l1": average_l1(real, synthetic),
    }
    for name, value in expected.items():
        assert metrics[name] == pytest.approx(value, rel=1e-12), name
    assert metrics["tv"] == pytest.approx(metrics["l1"] / 2)
    assert metrics["downstream_ratio"] == pytest.approx(
        metrics["downstream_error"] / metrics["downstream_error_real"]
    )


def test_default_queries_are_the_seed_0_draw_and_a_known_real_error_is_reused(split):
    real, synthetic, test = split
    defaults = privpgd_metrics(real, synthetic, test, target="y", task="classification",
                               real_downstream_error=0.5)
    assert defaults["downstream_error_real"] == 0.5
    assert defaults["counting_abs_error"] == pytest.approx(
        absolute_query_error(CountingQueries.draw(real), real, synthetic)
    )
    assert defaults["thresholding_abs_error"] == pytest.approx(
        absolute_query_error(ThresholdingQueries.draw(real), real, synthetic)
    )


def test_real_data_as_synthetic_scores_zero_on_every_distance(split):
    real, _, test = split
    metrics = privpgd_metrics(real, real, test, target="y", task="classification")
    for name in KEYS - {"downstream_error", "downstream_error_real"}:
        expected = 1.0 if name == "downstream_ratio" else 0.0
        assert metrics[name] == pytest.approx(expected, abs=1e-12), name


def test_a_test_split_on_another_domain_is_rejected(split):
    real, synthetic, _ = split
    other = Dataset(real.frame, Domain.from_dict({**SIZES, "c": 6}))
    with pytest.raises(ValueError, match="test data's domain"):
        privpgd_metrics(real, synthetic, other, target="y", task="classification")
