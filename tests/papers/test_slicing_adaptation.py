"""Figure 2 of the slicing paper: the grid, the target read only through the releases, a private
run's spend, the page's table and the claim check."""

import math

import numpy as np
import pandas as pd
import pytest
import torch

from reprolib.data import DataError, ImageSet
from reprolib.experiments._store import Cell
from reprolib.papers.slicing import adaptation
from reprolib.papers.slicing.adaptation import (
    ADAPTATION,
    DIRECTIONS,
    FEATURES,
    SETTINGS,
    Adaptation,
    Domains,
    adapt,
    alignment_steps,
    domains,
    feature_extractor,
)
from reprolib.papers.slicing.checks import _adaptation_wins
from reprolib.papers.slicing.pages import adaptation_table


def test_the_small_grid_covers_both_directions_budgets_and_the_non_private_runs():
    settings = SETTINGS["small"]
    cells = ADAPTATION.cells("small", settings)
    private = [c for c in cells if c.epsilon is not None]
    assert len(private) == 2 * len(settings.epsilons) * 2 * settings.seeds
    non_private = [c for c in cells if c.epsilon is None]
    assert {c.mechanism for c in non_private} == {"Slicing", "SliceWass", "Source only"}
    assert {c.dataset for c in cells} == set(DIRECTIONS)
    assert all(c.delta is None for c in non_private)


def test_features_are_sigmoids_so_their_scaled_norm_is_below_one():
    with torch.no_grad():
        rows = feature_extractor()(torch.randn(64, 1, 28, 28) * 10)
    assert rows.shape == (64, FEATURES)
    assert float((rows / math.sqrt(FEATURES)).norm(dim=1).max()) <= 1.0


def _domains(seed, count=300):
    rng = np.random.default_rng(seed)
    def images(n):
        return ImageSet(rng.random((n, 16 * 16), dtype=np.float32),
                        rng.integers(0, 10, n), (16, 16))
    return Domains(images(count), images(count), images(100))


def _recipe(loss="sliced-f"):
    return Adaptation(direction=DIRECTIONS["mnist-usps"], loss=loss, sigma=0.5, epochs=2,
                      align_from=1, projections=6, batch_size=64)


def test_training_reads_the_target_only_through_the_releases():
    """With releases that ignore the features they are handed, two different target sets
    train the same networks: nothing else reads the target."""
    calls = []

    def release(features, rng):
        calls.append(features(np.arange(64)).shape)
        return np.ones((FEATURES, 6)) / FEATURES, np.zeros((64, 6))

    first = _domains(0)
    second = Domains(first.source, _domains(1).target, first.evaluation)
    a = adapt(_recipe(), first, seed=3, release=release)
    b = adapt(_recipe(), second, seed=3, release=release)
    assert a["accuracy"] == b["accuracy"]
    steps = alignment_steps(2, 1, 300, 64)
    assert len(calls) == 2 * steps and set(calls) == {(64, FEATURES)}


def test_a_cpu_run_uses_one_thread_and_restores_the_count():
    """Convolution sums depend on the thread count: one thread gives every machine the same
    numbers (the smoke regression depends on it)."""
    seen = []

    def release(features, rng):
        seen.append(torch.get_num_threads())
        return np.ones((FEATURES, 6)) / FEATURES, np.zeros((64, 6))

    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        adapt(_recipe(), _domains(0), seed=0, release=release)
        assert set(seen) == {1} and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


@pytest.fixture(scope="module")
def usps_target():
    try:
        return domains("mnist-usps")
    except DataError as error:
        pytest.skip(f"shared data folder not available: {error}")


def test_a_private_run_spends_its_budget_over_every_release(usps_target, monkeypatch):
    monkeypatch.setattr(adaptation, "domains", lambda direction: Domains(
        ImageSet(usps_target.source.features[:640], usps_target.source.labels[:640], (28, 28)),
        usps_target.target, ImageSet(usps_target.evaluation.features[:200],
                                     usps_target.evaluation.labels[:200], (16, 16))))
    cell = Cell(artifact="slicing-fig2", mechanism="SliceWass", dataset="mnist-usps",
                epsilon=10.0, delta=1e-5, seed=0,
                params={"epochs": 2, "align_from": 1, "projections": 10, "batch_size": 128})
    metrics = adaptation._run(cell, "cpu")
    assert metrics["releases"] == 5 and metrics["private"]
    assert 10.0 * (1 - 1e-8) <= metrics["spent_epsilon"] <= 10.0
    assert metrics["sigma"] > 0


def _frame(accuracies):
    rows = []
    for (direction, epsilon, mechanism), values in accuracies.items():
        for seed, value in enumerate(values):
            rows.append({"dataset": direction, "epsilon": epsilon, "mechanism": mechanism,
                         "seed": seed, "metric.accuracy": value,
                         "metric.source_only_accuracy": 0.5, "metric.releases": 10,
                         "metric.sigma": np.nan if epsilon is None else 1.0})
    return pd.DataFrame(rows)


def test_the_claim_check_counts_clear_wins_in_the_private_pairs_only(recorded_rows):
    frame = _frame({("mnist-usps", 3.0, "Slicing"): [0.70, 0.72],
                    ("mnist-usps", 3.0, "SliceWass"): [0.50, 0.52],
                    ("mnist-usps", 10.0, "Slicing"): [0.70, 0.72],
                    ("mnist-usps", 10.0, "SliceWass"): [0.60, 0.62],
                    ("mnist-usps", None, "Slicing"): [0.1, 0.1],
                    ("mnist-usps", None, "SliceWass"): [0.9, 0.9]})
    outcome = _adaptation_wins(recorded_rows(frame), "small")
    assert outcome.status == "pass" and outcome.observed.startswith("2/2")
    # a gap inside the seeds' spread is no win
    frame.loc[(frame["mechanism"] == "Slicing") & (frame["epsilon"] == 10.0),
              "metric.accuracy"] = [0.55, 0.70]
    assert _adaptation_wins(recorded_rows(frame), "small").observed.startswith("1/2")
    assert _adaptation_wins(recorded_rows(frame), "small").status == "fail"


def test_the_table_puts_the_non_private_runs_at_infinity():
    table = adaptation_table(_frame({("usps-mnist", 3.0, "Slicing"): [0.6, 0.8],
                                     ("usps-mnist", None, "Source only"): [0.5]}))
    assert table.loc[("usps-mnist", 3.0, "Slicing"), "accuracy"] == 0.7
    assert table.loc[("usps-mnist", math.inf, "Source only"), "sigma"] == "–"
