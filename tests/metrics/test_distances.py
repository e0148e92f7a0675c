"""Eq. 10 (average SW1) and Eq. 11 (average TV, and L1 = 2 TV) against closed forms and brute force."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from scipy.stats import wasserstein_distance

from reprolib.data import Dataset, Domain, embed
from reprolib.metrics import (
    average_l1,
    average_sw1,
    average_tv,
    pair_grid,
    sliced_w1,
    unit_directions,
)

SIZES = {"a": 3, "b": 4, "c": 2}


def _dataset(columns: dict, sizes: dict = SIZES) -> Dataset:
    frame = pd.DataFrame({a: np.asarray(columns[a], dtype=np.int64) for a in sizes})
    return Dataset(frame, Domain.from_dict(sizes))


def _random(n: int, seed: int, sizes: dict = SIZES) -> Dataset:
    rng = np.random.default_rng(seed)
    return _dataset({a: rng.integers(0, k, n) for a, k in sizes.items()}, sizes)


# --- sliced_w1 on explicit measures ---------------------------------------------------------


def test_point_masses_give_the_mean_absolute_projection_and_2_over_pi_in_expectation():
    a, b = np.array([0.1, 0.2]), np.array([0.7, 0.9])
    points, p, q = np.stack([a, b]), np.array([1.0, 0.0]), np.array([0.0, 1.0])
    directions = unit_directions(7, seed=3)
    assert sliced_w1(points, p, q, directions) == pytest.approx(
        np.mean(np.abs(directions @ (a - b))), rel=1e-12
    )
    # E_theta |<a - b, theta>| over the unit circle is (2 / pi) |a - b|.
    many = unit_directions(40_000, seed=0)
    assert sliced_w1(points, p, q, many) == pytest.approx(
        2 / math.pi * np.linalg.norm(a - b), rel=0.01
    )


def test_one_direction_along_an_axis_is_the_1d_w1_of_that_coordinate():
    rng = np.random.default_rng(1)
    points = pair_grid(3, 4)
    p, q = rng.dirichlet(np.ones(12)), rng.dirichlet(np.ones(12))
    expected = wasserstein_distance(points[:, 0], points[:, 0], p, q)
    assert sliced_w1(points, p, q, np.array([[1.0, 0.0]])) == pytest.approx(expected, rel=1e-12)


def test_sliced_w1_matches_scipy_direction_by_direction():
    rng = np.random.default_rng(2)
    points = pair_grid(5, 3)
    p, q = rng.dirichlet(np.ones(15)), rng.dirichlet(np.ones(15))
    directions = unit_directions(25, seed=4)
    brute = [wasserstein_distance(points @ t, points @ t, p, q) for t in directions]
    assert sliced_w1(points, p, q, directions) == pytest.approx(np.mean(brute), rel=1e-10)


def test_sliced_w1_rejects_unequal_masses_and_mismatched_shapes():
    points = pair_grid(2, 2)
    with pytest.raises(ValueError, match="equal totals"):
        sliced_w1(points, np.full(4, 0.25), np.full(4, 0.5), unit_directions(3))
    with pytest.raises(ValueError, match=r"directions must be \(L, 2\)"):
        sliced_w1(points, np.full(4, 0.25), np.full(4, 0.25), np.ones((3, 3)))
    with pytest.raises(ValueError, match="n_directions >= 1"):
        unit_directions(0)


def test_unit_directions_are_seeded_unit_vectors():
    first = unit_directions(50, seed=9)
    np.testing.assert_allclose(np.linalg.norm(first, axis=1), 1.0)
    np.testing.assert_array_equal(first, unit_directions(50, seed=9))
    assert not np.array_equal(first, unit_directions(50, seed=10))


def test_pair_grid_is_row_major_like_the_marginal():
    grid = pair_grid(2, 3)
    np.testing.assert_allclose(grid[1], [0.25, 0.5])  # cell (0, 1)
    np.testing.assert_allclose(grid[3], [0.75, 1 / 6])  # cell (1, 0)


# --- Eq. 10 on datasets -----------------------------------------------------------------------


def test_average_sw1_equals_brute_force_on_the_embedded_records():
    real, synthetic = _random(120, 0), _random(90, 1)
    directions = unit_directions(50, seed=0)
    real_points, synthetic_points = embed(real), embed(synthetic)
    per_pair = []
    for i, j in itertools.combinations(range(3), 2):
        x, y = real_points[:, [i, j]], synthetic_points[:, [i, j]]
        per_pair.append(np.mean([wasserstein_distance(x @ t, y @ t) for t in directions]))
    assert average_sw1(real, synthetic) == pytest.approx(np.mean(per_pair), rel=1e-10)


def test_average_sw1_reduces_to_1d_w1_when_only_one_attribute_differs():
    sizes = {"a": 4, "b": 3}
    real = _dataset({"a": [0, 1, 1, 3], "b": [2, 2, 2, 2]}, sizes)
    synthetic = _dataset({"a": [2, 3], "b": [2, 2]}, sizes)
    # Along theta the projected measures are the a-marginals scaled by theta_1, shifted alike.
    w1_a = wasserstein_distance(embed(real)[:, 0], embed(synthetic)[:, 0])
    directions = unit_directions(50, seed=5)
    expected = np.mean(np.abs(directions[:, 0])) * w1_a
    assert average_sw1(real, synthetic, seed=5) == pytest.approx(expected, rel=1e-12)


def test_identical_distributions_have_zero_distance_whatever_the_sizes():
    real = _random(200, 3)
    tripled = Dataset(pd.concat([real.frame] * 3, ignore_index=True), real.domain)
    shuffled = Dataset(tripled.frame.sample(frac=1.0, random_state=0), real.domain)
    assert average_sw1(real, shuffled) == pytest.approx(0.0, abs=1e-15)
    assert average_tv(real, shuffled) == pytest.approx(0.0, abs=1e-15)


def test_distances_are_symmetric_and_order_invariant():
    real, synthetic = _random(150, 4), _random(60, 5)
    reordered = Dataset(synthetic.frame.iloc[::-1].reset_index(drop=True), synthetic.domain)
    assert average_sw1(real, synthetic) == pytest.approx(average_sw1(synthetic, real), rel=1e-12)
    assert average_sw1(real, reordered) == pytest.approx(average_sw1(real, synthetic), rel=1e-12)
    assert average_l1(real, synthetic) == pytest.approx(average_l1(synthetic, real), rel=1e-12)


def test_average_sw1_is_seeded():
    real, synthetic = _random(100, 6), _random(100, 7)
    assert average_sw1(real, synthetic, seed=1) == average_sw1(real, synthetic, seed=1)
    assert average_sw1(real, synthetic, seed=1) != average_sw1(real, synthetic, seed=2)
    assert average_sw1(real, synthetic, n_directions=10) != average_sw1(real, synthetic)


# --- Eq. 11: TV and L1 -----------------------------------------------------------------------


def test_tv_and_l1_by_hand():
    sizes = {"a": 2, "b": 2}
    real = _dataset({"a": [0, 0, 1, 1], "b": [0, 1, 1, 1]}, sizes)  # cells (.25, .25, 0, .5)
    synthetic = _dataset({"a": [0, 1], "b": [0, 1]}, sizes)  # cells (.5, 0, 0, .5)
    assert average_l1(real, synthetic) == pytest.approx(0.5)
    assert average_tv(real, synthetic) == pytest.approx(0.25)


def test_disjoint_supports_give_tv_1_and_l1_2():
    real = _dataset({"a": [0] * 5, "b": [0] * 5, "c": [0] * 5})
    synthetic = _dataset({"a": [1] * 3, "b": [3] * 3, "c": [1] * 3})
    assert average_tv(real, synthetic) == 1.0
    assert average_l1(real, synthetic) == 2.0


def test_l1_is_twice_tv_and_averages_the_pairs():
    real, synthetic = _random(80, 8), _random(40, 9)
    per_pair = [
        0.5 * np.abs(real.marginal(s) / 80 - synthetic.marginal(s) / 40).sum()
        for s in itertools.combinations(SIZES, 2)
    ]
    assert average_tv(real, synthetic) == pytest.approx(np.mean(per_pair), rel=1e-12)
    assert average_l1(real, synthetic) == pytest.approx(2 * average_tv(real, synthetic), rel=1e-15)


# --- bad input ---------------------------------------------------------------------------------


def test_bad_inputs_raise_clear_errors():
    real = _random(10, 0)
    other = _random(10, 0, {"a": 3, "b": 4, "c": 3})
    with pytest.raises(ValueError, match="synthetic data's domain"):
        average_sw1(real, other)
    one = _random(10, 0, {"a": 3})
    with pytest.raises(ValueError, match="at least 2 attributes"):
        average_tv(one, one)
    empty = Dataset(real.frame.iloc[:0], real.domain)
    with pytest.raises(ValueError, match="synthetic data has no records"):
        average_l1(real, empty)
