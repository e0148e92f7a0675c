"""Definition 2 (L1 / (k |D|)) and the reference script's TV variant, on a hand-checked toy."""

import numpy as np
import pandas as pd
import pytest

from reprolib.data import Dataset, Domain
from reprolib.metrics._workload_error import (
    marginal_l1_errors,
    workload_error,
    workload_error_tv,
    workload_errors,
)
from reprolib.queries import Workload

DOMAIN = Domain(("a", "b", "c"), (2, 3, 2))


def _dataset(rows):
    return Dataset(pd.DataFrame(rows, columns=list(DOMAIN.attributes)).astype("int64"), DOMAIN)


@pytest.fixture
def data():
    return _dataset([[0, 0, 0], [0, 1, 1], [1, 2, 0], [1, 2, 1], [0, 0, 1], [1, 1, 0]])


WORKLOAD = Workload("toy", (("a", "b"), ("c",)), (2.0, 1.0))


def test_identical_estimate_has_zero_error(data):
    assert workload_error(data, data, WORKLOAD) == 0.0
    assert workload_error_tv(data, data.marginal, WORKLOAD) == 0.0


def test_definition_2_by_hand(data):
    # Move one record's worth of mass in (a, b) and add 1.5 counts to c = 0.
    def estimate(clique):
        values = data.marginal(clique)
        if clique == ("a", "b"):
            values[0, 0] -= 1.0
            values[1, 0] += 1.0
        else:
            values[0] += 1.5
        return values

    np.testing.assert_allclose(marginal_l1_errors(data, estimate, WORKLOAD.cliques), [2.0, 1.5])
    # (1 / (k |D|)) sum_i c_i L1_i = (2 * 2 + 1 * 1.5) / (2 * 6)
    assert workload_error(data, estimate, WORKLOAD) == pytest.approx(5.5 / 12)


def test_tv_variant_is_half_of_definition_2_at_equal_totals(data):
    rng = np.random.default_rng(0)
    synthetic = _dataset(rng.integers(0, [2, 3, 2], size=(6, 3)))
    l1 = workload_error(data, synthetic, WORKLOAD)
    assert l1 > 0
    assert workload_error_tv(data, synthetic, WORKLOAD) == pytest.approx(0.5 * l1, rel=1e-12)


def test_tv_variant_normalises_each_marginal_by_its_own_total(data):
    def doubled(clique):
        return 2.0 * data.marginal(clique)

    assert workload_error_tv(data, doubled, WORKLOAD) == pytest.approx(0.0, abs=1e-15)
    # Definition 2 does not renormalise: every cell is off by its own count, so L1 = |D| each.
    assert workload_error(data, doubled, WORKLOAD) == pytest.approx((2.0 + 1.0) / 2)


def test_estimate_of_wrong_shape_is_rejected_with_the_expected_shape(data):
    with pytest.raises(ValueError, match=r"shape \(3, 2\), expected \(2, 3\)"):
        workload_error(data, lambda clique: np.zeros(DOMAIN.project(clique).sizes[::-1]),
                       Workload("ab", (("a", "b"),), (1.0,)))


def test_tv_variant_rejects_an_empty_estimate(data):
    with pytest.raises(ValueError, match="positive total"):
        workload_error_tv(data, lambda clique: np.zeros(DOMAIN.project(clique).sizes), WORKLOAD)


def test_one_pass_gives_both_errors_and_asks_each_marginal_once(data):
    def doubled(clique):
        asked.append(tuple(clique))
        return 2.0 * data.marginal(clique) + np.arange(DOMAIN.project(clique).total_size).reshape(
            DOMAIN.project(clique).sizes
        )

    asked = []
    both = workload_errors(data, doubled, WORKLOAD)
    assert asked == list(WORKLOAD.cliques)
    assert both == pytest.approx(
        (workload_error(data, doubled, WORKLOAD), workload_error_tv(data, doubled, WORKLOAD)),
        rel=1e-12,
    )
    assert both[0] != pytest.approx(2 * both[1])  # unequal totals: not the trivial half
