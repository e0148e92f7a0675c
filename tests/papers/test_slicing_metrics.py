"""The slicing paper's scores through SDMetrics, each against an independent computation."""

import itertools

import numpy as np
import pytest
from scipy.stats import ks_2samp

from reprolib.papers.slicing.metrics import SCORES, sdmetrics_table, slicing_scores

TARGET = "SEX"


def _shuffled(data, seed):
    """The same columns, each permuted on its own: marginals kept, every dependence broken."""
    rng = np.random.default_rng(seed)
    copy = data.take(np.arange(data.records))
    for column in copy.categorical.frame.columns:
        copy.categorical.frame[column] = rng.permutation(copy.categorical.frame[column].to_numpy())
    copy.numerical[:] = np.stack([rng.permutation(c) for c in copy.numerical.T], axis=1)
    return copy


def _tv(a, b):
    keys = sorted(set(a) | set(b))
    fa, fb = (np.array([np.mean(np.asarray(x) == k) for k in keys]) for x in (a, b))
    return 0.5 * np.abs(fa - fb).sum()


def test_each_score_is_its_definition(small_mixed):
    real, synthetic = small_mixed, _shuffled(small_mixed.take(np.arange(700)), seed=1)
    scores = slicing_scores(real, synthetic, target=TARGET)
    assert set(scores) == set(SCORES)
    numbers = real.domain.numerical
    assert scores["KSComp"] == pytest.approx(np.mean(
        [1 - ks_2samp(real.column(c), synthetic.column(c)).statistic for c in numbers]))
    categories = real.domain.categorical.attributes
    assert scores["TVComp"] == pytest.approx(np.mean(
        [1 - _tv(real.column(c), synthetic.column(c)) for c in categories]))
    assert scores["ContSim"] == pytest.approx(np.mean(  # a pair of codes as one number
        [1 - _tv(real.column(a) * 1000 + real.column(b),
                 synthetic.column(a) * 1000 + synthetic.column(b))
         for a, b in itertools.combinations(categories, 2)]))
    assert scores["CorrSim"] == pytest.approx(np.mean(
        [1 - abs(np.corrcoef(real.column(a), real.column(b))[0, 1]
                 - np.corrcoef(synthetic.column(a), synthetic.column(b))[0, 1]) / 2
         for a, b in itertools.combinations(numbers, 2)]))


def test_the_real_table_scores_best_and_a_lone_number_has_no_correlation(small_mixed):
    same = slicing_scores(small_mixed, small_mixed, target=TARGET)
    assert all(same[s] == pytest.approx(1.0) for s in ("KSComp", "TVComp", "ContSim", "CorrSim"))
    shuffled = slicing_scores(small_mixed, _shuffled(small_mixed, seed=2), target=TARGET)
    assert shuffled["ContSim"] < same["ContSim"]
    assert shuffled["LogitRegression"] < same["LogitRegression"]
    one = small_mixed.take(np.arange(small_mixed.records))
    one = type(one)(one.categorical, one.numerical[:, :1], one.numerical_names[:1], one.targets)
    assert slicing_scores(one, one, target=TARGET)["CorrSim"] is None


def test_the_target_must_be_binary(small_mixed):
    frame, metadata = sdmetrics_table(small_mixed, TARGET)
    assert frame[TARGET].dtype == bool and metadata["columns"][TARGET] == {"sdtype": "boolean"}
    with pytest.raises(ValueError, match="binary"):
        sdmetrics_table(small_mixed, "MSP")
