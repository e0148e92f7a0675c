"""Counting and thresholding query sets (Section 4.1, items 3 and 4) and the error of Eq. 9."""

import json

import numpy as np
import pandas as pd
import pytest

from reprolib.data import Dataset, Domain, embed
from reprolib.metrics import (
    CountingQueries,
    ThresholdingQueries,
    absolute_query_error,
    relative_query_error,
)

SIZES = {"a": 3, "b": 4, "c": 5, "y": 2}


def _dataset(columns: dict, sizes: dict = SIZES) -> Dataset:
    frame = pd.DataFrame({a: np.asarray(columns[a], dtype=np.int64) for a in sizes})
    return Dataset(frame, Domain.from_dict(sizes))


def _random(n: int, seed: int, sizes: dict = SIZES) -> Dataset:
    rng = np.random.default_rng(seed)
    return _dataset({a: rng.integers(0, k, n) for a, k in sizes.items()}, sizes)


@pytest.fixture(scope="module")
def real():
    return _random(400, 0)


@pytest.fixture(scope="module")
def counting(real):
    return CountingQueries.draw(real, seed=11)


@pytest.fixture(scope="module")
def thresholding(real):
    return ThresholdingQueries.draw(real, seed=11)


# --- counting queries ------------------------------------------------------------------------


def test_counting_draw_is_reproducible_hashable_and_seed_dependent(real, counting):
    again = CountingQueries.draw(real, seed=11)
    assert again == counting and hash(again) == hash(counting)
    assert CountingQueries.draw(real, seed=12) != counting


def test_counting_queries_have_the_papers_shape_and_rejection_bounds(real, counting):
    assert len(counting.attributes) == 200
    assert all(len(set(names)) == 3 for names in counting.attributes)
    assert all(0 <= lo <= hi <= 1 for lows, highs in zip(counting.lower, counting.upper, strict=False)
               for lo, hi in zip(lows, highs, strict=False))
    answers = counting.answer(real)
    assert answers.min() >= 0.05 and answers.max() <= 0.95


def test_counting_answers_equal_the_literal_box_test_in_embedding_space(real, counting):
    # The authors' code: all((X_emb[:, cols] >= lb) & (X_emb[:, cols] <= ub), axis=1).mean().
    points, names = embed(real), list(real.domain.attributes)
    brute = [
        np.all((points[:, [names.index(a) for a in cols]] >= lo)
               & (points[:, [names.index(a) for a in cols]] <= hi), axis=1).mean()
        for cols, lo, hi in zip(counting.attributes, counting.lower, counting.upper, strict=False)
    ]
    np.testing.assert_array_equal(counting.answer(real), brute)


def test_counting_answer_by_hand():
    sizes = {"a": 2, "b": 4}
    data = _dataset({"a": [0, 0, 0, 1, 1], "b": [0, 2, 3, 2, 3]}, sizes)
    # a in [0, 0.5] keeps code 0 (centre .25); b in [0.5, 1] keeps codes 2, 3 (.625, .875).
    queries = CountingQueries(data.domain, (("a", "b"), ("b",)), ((0.0, 0.5), (0.0,)),
                              ((0.5, 1.0), (0.2,)), seed=0)
    np.testing.assert_allclose(queries.answer(data), [2 / 5, 1 / 5])


def _literal_draw(real, n_queries, seed):
    """The authors' rejection sampler, record by record, on the same random stream."""
    rng, points = np.random.default_rng(seed), embed(real)
    accepted = []
    while len(accepted) < n_queries:
        columns = rng.choice(points.shape[1], size=3, replace=False)
        lower, upper = np.empty(3), np.empty(3)
        for i in range(3):
            lower[i] = rng.uniform(0.0, 1.0)
            upper[i] = rng.uniform(lower[i], 1.0)
        inside = np.all((points[:, columns] >= lower) & (points[:, columns] <= upper), axis=1)
        if 0.05 <= inside.mean() <= 0.95:
            accepted.append((tuple(real.domain.attributes[c] for c in columns), tuple(lower),
                             tuple(upper)))
    return [tuple(query) for query in zip(*accepted, strict=True)]


@pytest.mark.parametrize("seed", [0, 11, 12])
def test_counting_draw_equals_the_literal_record_by_record_sampler(real, seed):
    drawn = CountingQueries.draw(real, n_queries=50, seed=seed)
    assert [drawn.attributes, drawn.lower, drawn.upper] == _literal_draw(real, 50, seed)


def test_counting_draw_finds_the_rare_boxes_of_concentrated_data():
    # three 32-bin attributes with 90 % of the records in the first bin, as medical charges'
    # money columns: about one random box in 5,000 has an answer in [5 %, 95 %]
    sizes = {"p": 32, "q": 32, "r": 32}
    rng = np.random.default_rng(0)
    columns = {a: np.where(rng.random(2000) < 0.9, 0, rng.integers(1, 32, 2000)) for a in sizes}
    concentrated = _dataset(columns, sizes)
    queries = CountingQueries.draw(concentrated, seed=0)
    answers = queries.answer(concentrated)
    assert len(answers) == 200 and answers.min() >= 0.05 and answers.max() <= 0.95
    assert [queries.attributes[:3], queries.lower[:3], queries.upper[:3]] == [
        q[:3] for q in _literal_draw(concentrated, 3, 0)]


def test_counting_draw_gives_up_on_data_where_no_box_is_acceptable():
    constant = _dataset({a: [0] * 10 for a in SIZES})
    with pytest.raises(ValueError, match="after 50 candidates"):
        CountingQueries.draw(constant, n_queries=2, max_attempts=50)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"k": 5}, r"k \(attributes per query\) must be in \[1, 4\]"),
     ({"n_queries": 0}, "n_queries must be >= 1"),
     ({"min_fraction": 0.9, "max_fraction": 0.1}, "min_fraction <= max_fraction")],
)
def test_counting_draw_rejects_bad_arguments(real, kwargs, message):
    with pytest.raises(ValueError, match=message):
        CountingQueries.draw(real, **kwargs)


def test_counting_construction_validates_bounds_and_attributes(real):
    with pytest.raises(ValueError, match="0 <= lower <= upper <= 1"):
        CountingQueries(real.domain, (("a",),), ((0.6,),), ((0.5,),), seed=0)
    with pytest.raises(ValueError, match="distinct attributes of the domain"):
        CountingQueries(real.domain, (("a", "z"),), ((0.0, 0.0),), ((1.0, 1.0),), seed=0)


def test_counting_queries_round_trip_through_json(counting):
    assert CountingQueries.from_dict(json.loads(json.dumps(counting.to_dict()))) == counting


# --- thresholding queries ----------------------------------------------------------------------


def test_thresholding_draw_is_reproducible_with_one_shared_support(real, thresholding):
    assert ThresholdingQueries.draw(real, seed=11) == thresholding
    assert hash(ThresholdingQueries.draw(real, seed=11)) == hash(thresholding)
    assert ThresholdingQueries.draw(real, seed=12) != thresholding
    assert len(thresholding.attributes) == 3 and len(set(thresholding.attributes)) == 3
    assert len(thresholding.weights) == len(thresholding.offsets) == 200
    np.testing.assert_allclose(np.linalg.norm(thresholding.weights, axis=1), 1.0)


def test_thresholding_offsets_lie_in_the_range_of_the_real_projections(real, thresholding):
    columns = [real.domain.attributes.index(a) for a in thresholding.attributes]
    projections = embed(real)[:, columns] @ np.asarray(thresholding.weights).T
    offsets = np.asarray(thresholding.offsets)
    assert np.all(offsets >= projections.min(axis=0) - 1e-12)
    assert np.all(offsets <= projections.max(axis=0) + 1e-12)
    # The literal "+ b" query of the authors' code.
    np.testing.assert_array_equal(thresholding.answer(real), (projections + offsets > 0).mean(0))


def test_plus_b_makes_queries_with_non_negative_weights_always_true(real, thresholding):
    # Embedded values are > 0, so <x, theta> > 0 and b >= min <x, theta> > 0 when theta >= 0.
    positive = np.all(np.asarray(thresholding.weights) >= 0, axis=1)
    assert positive.any()
    assert np.all(thresholding.answer(real)[positive] == 1.0)


def test_thresholding_answer_by_hand():
    sizes = {"a": 2, "b": 2}
    data = _dataset({"a": [0, 1, 1], "b": [0, 0, 1]}, sizes)  # points (.25,.25), (.75,.25), (.75,.75)
    queries = ThresholdingQueries(data.domain, ("a", "b"), ((1.0, 0.0), (0.0, -1.0)),
                                  (-0.5, 0.5), seed=0)
    # Query 1: x_a - 0.5 > 0 for 2 of 3 records; query 2: 0.5 - x_b > 0 for 2 of 3.
    np.testing.assert_allclose(queries.answer(data), [2 / 3, 2 / 3])


def test_thresholding_queries_round_trip_through_json(thresholding):
    restored = ThresholdingQueries.from_dict(json.loads(json.dumps(thresholding.to_dict())))
    assert restored == thresholding


def test_thresholding_construction_validates_shapes(real):
    with pytest.raises(ValueError, match="2 weights"):
        ThresholdingQueries(real.domain, ("a", "b"), ((1.0, 0.0, 0.0),), (0.0,), seed=0)


# --- Eq. 9 -------------------------------------------------------------------------------------


def test_eq_9_by_hand():
    sizes = {"a": 2, "b": 2}
    real = _dataset({"a": [0, 0, 1, 1], "b": [0, 1, 0, 1]}, sizes)
    synthetic = _dataset({"a": [0, 0, 0, 1], "b": [0, 0, 0, 0]}, sizes)
    queries = CountingQueries(real.domain, (("a",), ("b",)), ((0.0,), (0.0,)),
                              ((0.5,), (0.5,)), seed=0)
    # True answers (1/2, 1/2); synthetic answers (3/4, 1): mean |diff| = 3/8, mean truth = 1/2.
    assert absolute_query_error(queries, real, synthetic) == pytest.approx(3 / 8)
    assert relative_query_error(queries, real, synthetic) == pytest.approx(3 / 4)


def test_identical_data_has_zero_query_error(real, counting, thresholding):
    doubled = Dataset(pd.concat([real.frame] * 2, ignore_index=True), real.domain)
    for queries in (counting, thresholding):
        assert absolute_query_error(queries, real, doubled) == 0.0
        assert relative_query_error(queries, real, doubled) == 0.0


def test_relative_error_is_undefined_when_every_true_answer_is_zero():
    sizes = {"a": 2, "b": 2}
    real = _dataset({"a": [1, 1], "b": [0, 1]}, sizes)
    synthetic = _dataset({"a": [0, 1], "b": [0, 1]}, sizes)
    queries = CountingQueries(real.domain, (("a",),), ((0.0,),), ((0.5,),), seed=0)
    assert absolute_query_error(queries, real, synthetic) == 0.5
    with pytest.raises(ValueError, match="relative error of Eq. 9 is undefined"):
        relative_query_error(queries, real, synthetic)


def test_answering_on_another_domain_is_rejected(counting, thresholding):
    other = _random(20, 1, {"a": 3, "b": 4, "c": 6, "y": 2})
    for queries in (counting, thresholding):
        with pytest.raises(ValueError, match="queried data's domain"):
            queries.answer(other)
