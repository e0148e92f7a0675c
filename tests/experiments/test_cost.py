"""``reprolib batch --dry-run``: the cells a batch would compute and their estimated compute."""

import pandas as pd
import pytest

from reprolib import cli
from reprolib.experiments import open_store, plan_batch, run_experiment, summarise_plan


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
    assert len(open_store("prelim-conversions", "smoke")) == 0


def test_a_cells_epsilon_interpolates_the_recorded_times_log_linearly(scratch_dirs):
    from reprolib.experiments._cost import _at_epsilon

    runs = pd.DataFrame({"epsilon": [1.0, 1.0, 100.0], "wall_time_s": [8.0, 12.0, 1000.0]})
    assert _at_epsilon(runs, 10.0) == pytest.approx(100.0)  # halfway in log: 10 s to 1000 s
    assert _at_epsilon(runs, 0.01) == pytest.approx(10.0)  # held at the nearest outside
    assert _at_epsilon(runs, None) == pytest.approx(340.0)
    assert _at_epsilon(runs.assign(epsilon=None), 10.0) == pytest.approx(340.0)
