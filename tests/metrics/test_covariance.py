"""The covariance error of Section 4.1 (item 2), its denominators and the code's row centring."""

import math

import numpy as np
import pandas as pd
import pytest

from reprolib.data import Dataset, Domain, embed
from reprolib.metrics import covariance_error

SIZES = {"a": 2, "b": 2}


def _dataset(a, b, sizes=SIZES) -> Dataset:
    frame = pd.DataFrame({"a": np.asarray(a, dtype=np.int64), "b": np.asarray(b, dtype=np.int64)})
    return Dataset(frame, Domain.from_dict(sizes))


# Embedded values are 0.25 / 0.75; with two copies of each record the sample variance is 1/12.
REAL = _dataset([0, 1, 0, 1], [0, 1, 0, 1])  # C = (1/12) [[1, 1], [1, 1]]
SYNTHETIC = _dataset([0, 1, 0, 1], [1, 0, 1, 0])  # C = (1/12) [[1, -1], [-1, 1]]


def test_closed_form_for_perfectly_correlated_versus_anti_correlated():
    # ||Delta C||_F = (1/12) sqrt(8); ||C||_F = 2/12 for both datasets.
    assert covariance_error(REAL, SYNTHETIC) == pytest.approx(math.sqrt(2))
    assert covariance_error(REAL, SYNTHETIC, denominator="real") == pytest.approx(math.sqrt(2))
    assert covariance_error(REAL, SYNTHETIC, denominator="none") == pytest.approx(
        math.sqrt(8) / 12
    )


def test_the_paper_divides_by_the_synthetic_covariance_and_the_code_by_the_real_one():
    rng = np.random.default_rng(0)
    sizes = {"a": 4, "b": 3}
    real = _dataset(rng.integers(0, 4, 200), rng.integers(0, 3, 200), sizes)
    synthetic = _dataset(rng.integers(0, 2, 150), rng.integers(0, 3, 150), sizes)
    c_real = np.cov(embed(real), rowvar=False)
    c_synthetic = np.cov(embed(synthetic), rowvar=False)
    delta = np.linalg.norm(c_real - c_synthetic)
    assert covariance_error(real, synthetic) == pytest.approx(delta / np.linalg.norm(c_synthetic))
    assert covariance_error(real, synthetic, denominator="real") == pytest.approx(
        delta / np.linalg.norm(c_real)
    )


def test_row_centring_is_the_projected_covariance():
    rng = np.random.default_rng(1)
    sizes = {"a": 5, "b": 3}
    real = _dataset(rng.integers(0, 5, 100), rng.integers(0, 3, 100), sizes)
    synthetic = _dataset(rng.integers(0, 5, 80), rng.integers(0, 3, 80), sizes)
    projector = np.eye(2) - np.full((2, 2), 0.5)
    c_real = projector @ np.cov(embed(real), rowvar=False) @ projector
    c_synthetic = projector @ np.cov(embed(synthetic), rowvar=False) @ projector
    assert covariance_error(real, synthetic, denominator="none", centre_rows=True) == (
        pytest.approx(np.linalg.norm(c_real - c_synthetic))
    )


def test_identical_and_reordered_data_have_zero_error():
    reordered = Dataset(REAL.frame.iloc[::-1].reset_index(drop=True), REAL.domain)
    assert covariance_error(REAL, reordered) == pytest.approx(0.0, abs=1e-15)


def test_bad_inputs_raise_clear_errors():
    with pytest.raises(ValueError, match="denominator must be one of"):
        covariance_error(REAL, SYNTHETIC, denominator="paper")
    with pytest.raises(ValueError, match="needs at least 2"):
        covariance_error(REAL, _dataset([0], [0]))
    with pytest.raises(ValueError, match='covariance is 0.*denominator="none"'):
        covariance_error(REAL, _dataset([0, 0], [1, 1]))
    with pytest.raises(ValueError, match="synthetic data's domain"):
        covariance_error(REAL, _dataset([0, 1], [0, 1], {"a": 2, "b": 3}))
