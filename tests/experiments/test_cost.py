"""``reprolib batch --dry-run``: the cells a batch would compute and their estimated compute."""

import pandas as pd
import pytest

from reprolib import cli
from reprolib.experiments import Cell, open_store, plan_batch, run_experiment, summarise_plan
from reprolib.experiments._cost import _at_epsilon, _estimate


def test_a_complete_store_leaves_nothing_to_compute(scratch_dirs):
    run_experiment("prelim-conversions", scale="smoke", device="cpu", progress=False)
    assert plan_batch("preliminaries", "smoke").empty
    assert summarise_plan(plan_batch("preliminaries", "smoke")).empty


def test_missing_cells_are_listed_and_timed_from_their_recorded_neighbours(scratch_dirs):
    rows = run_experiment("prelim-conversions", scale="smoke", device="cpu", progress=False)
    store = open_store("prelim-conversions", "smoke")
    kept = set(rows["key"][rows["epsilon"] != 1.0])  # drop every run at epsilon 1
    store.retain(kept)
    plan = plan_batch("preliminaries", "smoke")
    assert len(plan) == len(rows) - len(kept) and set(plan["epsilon"]) == {1.0}
    assert set(plan["basis"]) == {"dataset"}  # the same conversion's other runs are recorded
    recorded = rows[rows["key"].isin(kept)].groupby(["mechanism", "epsilon"])["wall_time_s"].mean()
    for _, row in plan.iterrows():  # interpolated between the recorded epsilons' mean times
        around = recorded[row["mechanism"]]
        assert around.min() * (1 - 1e-9) <= row["seconds"] <= around.max() * (1 + 1e-9)
    summary = summarise_plan(plan)
    assert list(summary["cells"]) == [len(plan)]
    assert summary["hours"].iloc[0] == pytest.approx(plan["seconds"].sum() / 3600)


def test_a_larger_scale_falls_back_on_the_smaller_ones_timings(scratch_dirs):
    run_experiment("prelim-conversions", scale="smoke", device="cpu", progress=False)
    plan = plan_batch("preliminaries", "small")
    assert not plan.empty and set(plan["basis"]) == {"smaller scale"}
    assert plan["seconds"].notna().all()


def test_the_dry_run_prints_the_plan_and_runs_nothing(scratch_dirs, capsys):
    assert cli.main(["batch", "--dry-run", "--paper", "preliminaries", "--scale", "smoke"]) == 0
    out = capsys.readouterr().out
    assert "prelim-conversions" in out and "nothing comparable recorded" in out
    row = next(line.split() for line in out.splitlines() if line.startswith("prelim-conversions"))
    assert row[2:5] == ["?", "?", "?"]  # no estimate: not zero hours
    assert len(open_store("prelim-conversions", "smoke")) == 0


def test_a_cells_epsilon_interpolates_the_recorded_times_log_linearly(scratch_dirs):
    runs = pd.DataFrame({"epsilon": [1.0, 1.0, 100.0], "wall_time_s": [8.0, 12.0, 1000.0]})
    assert _at_epsilon(runs, 10.0) == pytest.approx(100.0)  # halfway in log: 10 s to 1000 s
    assert _at_epsilon(runs, 0.01) == pytest.approx(10.0)  # held at the nearest outside
    assert _at_epsilon(runs, None) == pytest.approx(340.0)
    assert _at_epsilon(runs.assign(epsilon=None), 10.0) == pytest.approx(340.0)


def _cell(dataset: str, **params: float) -> Cell:
    return Cell(artifact="a", mechanism="m", dataset=dataset, epsilon=1.0, delta=None, seed=0,
                params=params)


def _runs(*rows: tuple[str, str, float, float]) -> pd.DataFrame:
    """Recorded runs of mechanism "m": (dataset, params_json, epsilon, seconds) each."""
    return pd.DataFrame(rows, columns=["dataset", "params_json", "epsilon", "wall_time_s"]
                        ).assign(mechanism="m")


def test_an_unrecorded_dataset_is_estimated_from_the_others_with_their_spread_as_its_range():
    cell = _cell("new", iters=100)
    same, other = cell.params_json, _cell("x", iters=9).params_json
    here = _runs(("fast", same, 1.0, 2.0), ("fast", same, 1.0, 4.0), ("slow", same, 1.0, 30.0),
                 ("new", other, 1.0, 1000.0))  # the cell's dataset, but other knobs
    assert _estimate(cell, here, []) == pytest.approx((16.5, 3.0, 30.0, "mechanism"))
    recorded = _runs(("new", same, 1.0, 7.0))
    assert _estimate(cell, pd.concat([here, recorded]), []) == pytest.approx((7.0, 7.0, 7.0, "dataset"))


def test_runs_with_other_knobs_give_an_estimate_without_a_range():
    cell = _cell("d", capacity_mb=10.0)
    other = _cell("d", capacity_mb=1.0).params_json
    assert _estimate(cell, _runs(("d", other, 1.0, 5.0), ("e", other, 1.0, 50.0)), []) == pytest.approx(
        (5.0, None, None, "other settings"))  # the same dataset first
    assert _estimate(cell, _runs(("e", other, 1.0, 50.0)), []) == pytest.approx(
        (50.0, None, None, "other settings"))
    smaller = _runs(("d", other, 1.0, 5.0))
    assert _estimate(cell, _runs().iloc[:0], [smaller]) == pytest.approx(
        (5.0, 5.0, None, "smaller scale"))


def test_the_summary_leaves_a_range_open_where_one_cells_range_is_open():
    plan = pd.DataFrame({"artifact": ["a", "a", "b"], "basis": ["dataset", "smaller scale", "none"],
                         "seconds": [3600.0, 7200.0, None], "low_seconds": [3600.0, 7200.0, None],
                         "high_seconds": [3600.0, None, None]})
    summary = summarise_plan(plan).set_index("artifact")
    assert summary.loc["a", ["cells", "hours", "hours_low"]].tolist() == [2, 3.0, 3.0]
    assert pd.isna(summary.loc["a", "hours_high"])
    assert summary.loc["b", ["hours", "hours_low", "hours_high", "none"]].tolist() == [0, 0, 0, 1]


def test_dataset_size_does_not_predict_the_time_as_the_docs_say():
    """The evidence book/reproducing.md and the cost module give for ignoring dataset size: in
    the committed AIM Figure 1 runs at small scale, nltcs has under half adult's records and
    takes over five times as long a run."""
    from reprolib.papers.aim.checks import PAPER_TABLE2

    runs = open_store("aim-fig1", "small").frame()
    seconds = runs[runs["mechanism"] == "AIM"].groupby("dataset")["wall_time_s"].mean()
    assert PAPER_TABLE2["nltcs"][0] * 2 < PAPER_TABLE2["adult"][0]
    assert seconds["nltcs"] > 5 * seconds["adult"]
