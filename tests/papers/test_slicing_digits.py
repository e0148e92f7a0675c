"""Figure 1 of the slicing paper: the MNIST halves, the grid, the mechanisms' settings, the page
and the claims."""

import numpy as np
import pandas as pd
import pytest

from reprolib.data import DataError
from reprolib.mechanisms import build
from reprolib.papers.slicing.checks import _digits_improve, _merf_crossover
from reprolib.papers.slicing.digits import (
    DIGITS,
    LABEL,
    SETTINGS,
    as_mixed,
    mechanism_config,
    mnist_halves,
)
from reprolib.papers.slicing.pages import accuracy_table


@pytest.fixture(scope="module")
def halves():
    try:
        return mnist_halves()
    except DataError as error:
        pytest.skip(f"shared data folder not available: {error}")


def test_the_halves_split_the_test_set_the_same_way_every_time(halves):
    pool, held_out = halves
    assert len(pool.labels) == len(held_out.labels) == 5000
    again, _ = mnist_halves()
    np.testing.assert_array_equal(pool.features, again.features)
    # every class of the pool can give the default 400 images without padding
    assert np.bincount(pool.labels).min() > SETTINGS["small"].per_class


def test_images_become_labelled_rows_of_pixels(halves):
    data = as_mixed(halves[0])
    assert data.targets == (LABEL,) and data.domain.categorical.size(LABEL) == 10
    assert data.numerical.shape == (5000, 784) and data.numerical.max() <= 1.0


def test_the_small_grid_and_the_mechanisms_settings():
    cells = DIGITS.cells("small", SETTINGS["small"])
    assert len(cells) == len(SETTINGS["small"].epsilons) * 3 * 3
    assert {c.mechanism for c in cells} == {"Slicing", "SliceWass", "DP-MERF"}
    config = build("Slicing", mechanism_config("Slicing", dict(cells[0].params))).config
    wass = build("SliceWass", mechanism_config("SliceWass", dict(cells[0].params))).config
    assert config.slices * config.slice_dim == wass.slices * wass.slice_dim == 100
    assert (config.per_class, config.numerical_bounds, config.row_scaling) == (
        400, "public", "unit")
    assert config.n_synthetic == 4000
    merf = next(c for c in cells if c.mechanism == "DP-MERF")
    merf_config = build("DP-MERF", mechanism_config("DP-MERF", dict(merf.params))).config
    assert (merf_config.n_synthetic, merf_config.generator) == (4000, "conv")


def _runs(accuracies):
    return pd.DataFrame([{"mechanism": m, "epsilon": e, "seed": s, "metric.accuracy": a,
                          "metric.real_accuracy": 0.9, "metric.sigma": 0.1}
                         for (m, e), values in accuracies.items()
                         for s, a in enumerate(values)])


def test_the_page_summarises_each_epsilon_and_mechanism():
    table = accuracy_table(_runs({("Slicing", 1.0): [0.2, 0.4], ("SliceWass", 1.0): [0.3]}))
    assert table.loc[(1.0, "Slicing"), "accuracy"] == pytest.approx(0.3)
    assert table.loc[(1.0, "Slicing"), ["lowest", "highest"]].tolist() == [0.2, 0.4]
    assert table.loc[(1.0, "SliceWass"), "runs"] == 1
    assert table.loc[(1.0, "SliceWass"), "sigma"] == "0.1"


def test_the_claims_read_the_curves(recorded_rows):
    rising = _runs({("Slicing", 1.0): [0.2], ("Slicing", 10.0): [0.5],
                    ("SliceWass", 1.0): [0.2], ("SliceWass", 10.0): [0.4]})
    assert _digits_improve(recorded_rows(rising)).status == "pass"
    falling = _runs({("Slicing", 1.0): [0.2], ("Slicing", 10.0): [0.1],
                     ("SliceWass", 1.0): [0.2], ("SliceWass", 10.0): [0.4]})
    assert _digits_improve(recorded_rows(falling)).status == "fail"
    assert _merf_crossover(recorded_rows(rising)).status == "missing"
    with_merf = pd.concat([rising, _runs({("DP-MERF", 1.0): [0.3], ("DP-MERF", 10.0): [0.35]})])
    assert _merf_crossover(recorded_rows(with_merf)).status == "pass"
    behind = pd.concat([rising, _runs({("DP-MERF", 1.0): [0.1], ("DP-MERF", 10.0): [0.35]})])
    assert _merf_crossover(recorded_rows(behind)).status == "fail"
