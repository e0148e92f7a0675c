"""The conversions experiment: grid per scale, closed-form metrics, resumable through the store."""

import pytest

from reprolib.experiments import open_store, run_experiment
from reprolib.papers.aim.setup import DELTA as AIM_DELTA
from reprolib.papers.preliminaries.experiments import (
    DELTAS,
    QUOTED_EPSILONS,
    quoted_table,
    target_epsilons,
)
from reprolib.papers.privpgd.reported import DELTA as PRIVPGD_DELTA
from reprolib.papers.privpgd.reported import REPORTED_EPSILONS
from reprolib.privacy import eps_to_rho, gaussian_sigma


def test_grids_grow_with_scale_and_keep_the_quoted_epsilons():
    smoke, small, paper = (target_epsilons(s) for s in ("smoke", "small", "paper"))
    assert len(smoke) < len(small) < len(paper)
    for grid in (smoke, small, paper):
        assert set(QUOTED_EPSILONS) <= set(grid) and min(grid) == 0.01 and max(grid) == 100.0


def test_the_grid_holds_the_budgets_the_papers_use():
    # The chapter's page looks its quoted values up at the papers' own DELTA constants.
    assert {AIM_DELTA, PRIVPGD_DELTA} <= set(DELTAS)
    assert set(REPORTED_EPSILONS) <= set(QUOTED_EPSILONS)


def test_metrics_are_the_privacy_core_values(scratch_dirs):
    frame = run_experiment("prelim-conversions", scale="smoke", device="cpu", progress=False)
    row = frame[(frame["mechanism"] == "cks") & (frame["epsilon"] == 1.0) & (frame["delta"] == 1e-9)]
    assert float(row["metric.rho"].iloc[0]) == eps_to_rho(1.0, 1e-9)
    assert float(row["metric.sigma"].iloc[0]) == gaussian_sigma(eps_to_rho(1.0, 1e-9), 1.0)
    table = quoted_table(frame)
    assert (table["σ saved by CKS (%)"] > 0).all()


def test_second_run_reads_the_store(scratch_dirs):
    first = run_experiment("prelim-conversions", scale="smoke", device="cpu", progress=False)
    store = open_store("prelim-conversions", "smoke")
    stamp = store.path.stat().st_mtime_ns
    second = run_experiment("prelim-conversions", scale="smoke", device="cpu", progress=False)
    assert store.path.stat().st_mtime_ns == stamp  # nothing recomputed or rewritten
    assert list(first["key"]) == list(second["key"])


def test_overrides_change_the_grid(scratch_dirs):
    frame = run_experiment("prelim-conversions", scale="smoke", device="cpu", progress=False,
                           overrides={"epsilons": [0.5], "deltas": [1e-6]})
    assert len(frame) == 2 and set(frame["delta"]) == {1e-6}


def test_unknown_scale_is_refused(scratch_dirs):
    with pytest.raises(ValueError, match="scale must be one of"):
        run_experiment("prelim-conversions", scale="huge", device="cpu")
