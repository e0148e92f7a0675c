"""Appendix C: the binomial L1 deviation in closed form and the resampling baseline's error."""

import numpy as np
import pytest
from scipy.stats import binom

from reprolib.data import DataError, Dataset, load_dataset
from reprolib.metrics._workload_error import workload_error, workload_error_tv
from reprolib.papers.aim.subsampling import (
    expected_l1_deviation,
    expected_subsample_error,
    matching_fraction,
)
from reprolib.queries import all_kway


@pytest.fixture(scope="module")
def titanic():
    try:
        return load_dataset("aim/titanic")
    except DataError as error:
        pytest.skip(f"shared data folder not available: {error}")


@pytest.fixture(scope="module")
def workload(titanic):
    return all_kway(titanic.domain, 3)


def _exact_deviation(m, p):
    x = np.arange(m + 1)
    return float(np.sum(np.abs(x - m * p) * binom.pmf(x, m, p)))


@pytest.mark.parametrize("m", [0, 1, 2, 3, 7, 8, 50, 333])
def test_closed_form_matches_summation_over_the_pmf(m):
    # includes p = 0, p = 1, tiny p, and p with m p an integer (p = k/8, p = 0.5)
    ps = np.concatenate([[0.0, 1e-9, 1e-3, 0.125, 0.25, 0.5, 0.75, 1.0 - 1e-9, 1.0],
                         np.random.default_rng(m).uniform(size=20)])
    closed = expected_l1_deviation(m, ps)
    exact = [_exact_deviation(m, p) for p in ps]
    np.testing.assert_allclose(closed, exact, rtol=1e-10, atol=1e-12)
    assert closed[0] == 0.0 and closed[8] == 0.0  # p = 0 and p = 1


def test_closed_form_is_stable_for_large_m():
    m, p = 10**7, np.array([1e-6, 0.3, 0.999])
    value = expected_l1_deviation(m, p)
    assert np.all(np.isfinite(value))
    # normal approximation E|X - mp| ~ sqrt(2 m p (1 - p) / pi) for large m p (1 - p)
    np.testing.assert_allclose(value[1:], np.sqrt(2 * m * p[1:] * (1 - p[1:]) / np.pi), rtol=1e-3)


def test_normalised_deviation_does_not_increase_with_m():
    ps = np.linspace(0.0, 1.0, 401)
    per_record = np.array([expected_l1_deviation(m, ps) / m for m in range(1, 300)])
    assert np.all(np.diff(per_record, axis=0) <= 1e-15)


def test_invalid_inputs_name_the_fix():
    with pytest.raises(ValueError, match="probabilities in"):
        expected_l1_deviation(5, [0.2, 1.5])
    with pytest.raises(ValueError, match="integer >= 0"):
        expected_l1_deviation(2.5, 0.3)


def _monte_carlo(data, workload, m, reps, seed):
    """Definition-2 errors of ``reps`` resamples of m records, rescaled to |D| records."""
    n = data.records
    flat = {c: np.ravel_multi_index(tuple(data.frame[a].to_numpy() for a in c),
                                    data.domain.project(c).sizes) for c in workload.cliques}
    rng = np.random.default_rng(seed)
    errors = []
    for _ in range(reps):
        rows = rng.integers(0, n, size=m)

        def resampled(clique, rows=rows):
            shape = data.domain.project(clique).sizes
            counts = np.bincount(flat[clique][rows], minlength=int(np.prod(shape)))
            return counts.reshape(shape) * (n / m)

        errors.append(workload_error(data, resampled, workload))
    return np.array(errors)


@pytest.mark.parametrize("m", [60, 1304])
def test_expected_error_matches_monte_carlo(titanic, m):
    # six attributes (20 three-way marginals, up to 91 * 32 * 9 cells) keep the simulation fast
    data = titanic.project(["Survived", "Pclass", "Sex", "Age", "SibSp", "Fare"])
    workload = all_kway(data.domain, 3)
    errors = _monte_carlo(data, workload, m, reps=120, seed=m)
    standard_error = errors.std(ddof=1) / np.sqrt(len(errors))
    expected = expected_subsample_error(data, workload, m)
    assert abs(errors.mean() - expected) <= 4 * standard_error
    assert standard_error < 0.01 * expected  # the test has the power to see a 4 % mistake


def test_tv_variant_of_a_resample_is_exactly_half(titanic, workload):
    rows = np.random.default_rng(5).integers(0, titanic.records, size=200)
    resample = Dataset(titanic.frame.iloc[rows].reset_index(drop=True), titanic.domain)
    l1 = workload_error(titanic, lambda c: resample.marginal(c) * titanic.records / 200, workload)
    assert workload_error_tv(titanic, resample, workload) == pytest.approx(0.5 * l1, rel=1e-12)


def test_matching_fraction_inverts_the_expected_error(titanic, workload):
    n = titanic.records
    target = expected_subsample_error(titanic, workload, 400)
    fraction = matching_fraction(titanic, workload, target)
    assert fraction == 400 / n
    # and between two sample sizes it rounds up to the larger one
    between = 0.5 * (target + expected_subsample_error(titanic, workload, 399))
    assert matching_fraction(titanic, workload, between) == 400 / n


def test_matching_fraction_is_capped_at_one_and_floored_at_one_record(titanic, workload):
    full = expected_subsample_error(titanic, workload, titanic.records)
    assert matching_fraction(titanic, workload, 0.9 * full) == 1.0
    assert matching_fraction(titanic, workload, full) == 1.0
    assert matching_fraction(titanic, workload, 10.0) == 1 / titanic.records
    with pytest.raises(ValueError, match=">= 0"):
        matching_fraction(titanic, workload, -0.1)
