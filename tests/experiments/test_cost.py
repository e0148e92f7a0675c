"""``reprolib batch --dry-run``: the cells a batch would compute and their estimated compute."""

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
    recorded = rows[rows["key"].isin(kept)].groupby("mechanism")["wall_time_s"].mean()
    for _, row in plan.iterrows():
        assert row["seconds"] == pytest.approx(recorded[row["mechanism"]])
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
