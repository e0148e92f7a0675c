"""Checks pass on correct results, fail on wrong ones, and report missing results as failures."""

import json

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from reprolib._device import describe_device
from reprolib._paths import repo_root
from reprolib.experiments import (
    Check,
    CheckContext,
    Outcome,
    OutputChange,
    checks_of,
    evaluate_checks,
    most,
    regression_check,
    run_experiment,
    scorecard_frame,
    tally_in_words,
)

COMMITTED = repo_root() / "results"


def _statuses(root):
    card = scorecard_frame(evaluate_checks(checks_of("preliminaries"), root))
    return dict(zip(card["check"], card["status"], strict=False))


def test_committed_results_pass_every_check():
    statuses = _statuses(COMMITTED)
    assert statuses and set(statuses.values()) == {"pass"}, statuses


def test_missing_results_are_reported_not_skipped(tmp_path):
    statuses = _statuses(tmp_path)
    assert set(statuses.values()) == {"missing"}


def _tamper(results, scale, epsilon=1.0, move=lambda rho: rho * 1.001):
    """Move one recorded rho (cks, delta 1e-9, ``epsilon``) of the ``scale`` store, by 0.1 %
    unless ``move`` says otherwise."""
    path = results / "preliminaries" / "prelim-conversions" / f"{scale}.parquet"
    table = pq.read_table(path)
    frame = table.to_pandas()
    assert set(frame["device"]) == {describe_device("cpu")}
    row = frame.index[(frame["mechanism"] == "cks") & (frame["delta"] == 1e-9)
                      & (frame["epsilon"] == epsilon)][0]
    metrics = json.loads(frame.at[row, "metrics_json"])
    metrics["rho"] = move(metrics["rho"])
    frame.at[row, "metrics_json"] = json.dumps(metrics)
    tampered_table = pa.Table.from_pandas(frame, preserve_index=False)
    pq.write_table(tampered_table.replace_schema_metadata(table.schema.metadata), path)


@pytest.fixture
def recorded(scratch_dirs):
    """The conversions' smoke and small grids, recorded on this CPU."""
    results, _ = scratch_dirs
    run_experiment("prelim-conversions", scale="smoke", device="cpu", progress=False)
    run_experiment("prelim-conversions", scale="small", device="cpu", progress=False)
    return results


@pytest.fixture
def tampered(recorded):
    """Recorded smoke and small results in which one smoke rho is off by 0.1 %."""
    _tamper(recorded, "smoke")
    return recorded


def test_wrong_results_fail_the_exact_and_regression_checks(tampered):
    statuses = _statuses(tampered)
    assert statuses["prelim-aim-code-rho-smoke"] == "fail"
    assert statuses["prelim-conversions-regression"] == "fail"
    assert statuses["prelim-aim-code-rho-small"] == "pass"  # the small results are untouched


def test_a_regression_is_bit_for_bit_only_on_the_recording_cpu(tampered):
    """Rows this CPU recorded are held to rtol; rows another CPU recorded to cross_cpu_rtol."""
    check = regression_check("prelim-conversions", ["rho"], rtol=1e-9, cross_cpu_rtol=1e-2,
                             data="closed forms")
    [(_, here)] = evaluate_checks([check], tampered)
    assert here.status == "fail" and "on the recording CPU" in here.observed
    assert here.expected == "same cells, rel. diff <= 1e-09"

    path = tampered / "preliminaries" / "prelim-conversions" / "smoke.parquet"
    table = pq.read_table(path)
    elsewhere = table.set_column(table.schema.get_field_index("device"), "device",
                                 pa.array(["cpu (Another CPU, AVX2)"] * len(table)))
    pq.write_table(elsewhere.replace_schema_metadata(table.schema.metadata), path)
    [(_, there)] = evaluate_checks([check], tampered)
    assert there.status == "pass", there.observed
    assert "recorded on cpu (Another CPU, AVX2), recomputed on cpu (" in there.observed
    assert there.expected == "same cells, rel. diff <= 0.01 (across CPUs)"


def test_a_recorded_metric_that_is_nan_where_the_code_gives_a_number_fails(recorded):
    _tamper(recorded, "smoke", move=lambda rho: float("nan"))
    check = regression_check("prelim-conversions", ["rho"], rtol=1e-9, data="closed forms")
    [(_, outcome)] = evaluate_checks([check], recorded)
    assert outcome.status == "fail" and "max rel. diff inf" in outcome.observed


def test_small_spots_catch_a_small_grid_the_code_no_longer_reproduces(recorded):
    _tamper(recorded, "small", epsilon=10.0)

    def outcome(**spots):
        check = regression_check("prelim-conversions", ["rho"], rtol=1e-9, data="closed forms",
                                 small_spots=spots or None)
        [(_, result)] = evaluate_checks([check], recorded)
        return result

    assert outcome().status == "pass"  # the smoke grid alone does not see it
    assert outcome(epsilons=(1.0,)).status == "pass"
    moved = outcome(epsilons=(1.0, 10.0))
    assert moved.status == "fail" and "0 unmatched" in moved.observed
    unstored = outcome(epsilons=(0.123,))  # spots must be cells of the stored small grid
    assert unstored.status == "fail" and "4 unmatched" in unstored.observed


def test_rows_of_this_cpu_stay_bit_for_bit_beside_rows_of_another(tampered):
    path = tampered / "preliminaries" / "prelim-conversions" / "smoke.parquet"
    table = pq.read_table(path)
    devices = table.column("device").to_pylist()
    elsewhere = ["cpu (Another CPU, AVX2)" if i % 2 else device for i, device in enumerate(devices)]
    frame = table.to_pandas()
    tampered_here = frame.index[(frame["mechanism"] == "cks") & (frame["delta"] == 1e-9)
                                & (frame["epsilon"] == 1.0)][0]
    assert elsewhere[tampered_here] == describe_device("cpu"), "the tampered row stays this CPU's"
    pq.write_table(table.set_column(table.schema.get_field_index("device"), "device",
                                    pa.array(elsewhere)).replace_schema_metadata(
                                        table.schema.metadata), path)
    check = regression_check("prelim-conversions", ["rho"], rtol=1e-9, cross_cpu_rtol=1e-2,
                             data="closed forms")
    [(_, mixed)] = evaluate_checks([check], tampered)
    assert mixed.status == "fail", mixed.observed  # 1e-3 on a row of this CPU: above 1e-9
    assert "on the rows this CPU recorded" in mixed.observed
    assert mixed.expected == "same cells, rel. diff <= 1e-09 (this CPU's rows), <= 0.01 (across CPUs)"


def test_rows_recorded_before_a_registered_change_fail_the_regression_check(
        recorded, history, monkeypatch):
    from reprolib.experiments import _staleness

    repository, (before, change, _) = history
    monkeypatch.setattr(_staleness, "repo_root", lambda: repository)
    check = regression_check("prelim-conversions", ["rho"], rtol=1e-9, data="closed forms",
                             changes=(OutputChange(change, "2000-01-01T00:00:00+00:00", ("cks",),
                                                   "a fix"),))
    [(_, unplaced)] = evaluate_checks([check], recorded)  # this checkout's revision: not there
    assert unplaced.status == "pass", unplaced.observed

    path = recorded / "preliminaries" / "prelim-conversions" / "smoke.parquet"
    table = pq.read_table(path)
    frame = table.to_pandas()
    frame.loc[frame["mechanism"] == "cks", "git_revision"] = before
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False).replace_schema_metadata(
        table.schema.metadata), path)
    [(_, outdated)] = evaluate_checks([check], recorded)
    count = int((frame["mechanism"] == "cks").sum())
    assert outdated.status == "fail"
    assert (f"0 unmatched, {count} smoke rows recorded before a registered change of their "
            "mechanism (reprolib rerun prelim-conversions --scale smoke)") in outdated.observed


def _documented(status, figures=None, deviation="Not seen: {share:.0%} of {n} settings."):
    return Check(id="d", artifact="prelim-conversions", kind="claim", scale="small", data="d",
                 description="d", deviation=deviation,
                 evaluate=lambda context: Outcome(status, "seen", "expected", figures or {}))


def test_a_deviations_note_quotes_the_figures_its_evaluation_computed(tmp_path):
    context = CheckContext(tmp_path)
    found = _documented("fail", {"share": 0.39, "n": 36}).run(context)
    assert (found.status, found.note) == ("deviation", "Not seen: 39% of 36 settings.")
    stale = _documented("pass", {"share": 0.61, "n": 36}).run(context)  # the claim now holds
    assert stale.status == "fail" and "no longer observed" in stale.observed
    unquoted = _documented("fail", {"share": 0.39}).run(context)  # a figure it does not give
    assert unquoted.status == "fail" and "'n'" in unquoted.observed and unquoted.note == ""
    undocumented = _documented("fail", deviation=None).run(context)
    assert (undocumented.status, undocumented.note) == ("fail", "")


def test_a_tally_in_words_ranks_by_count_then_alphabetically():
    winners = pd.Series(["PGM", "GEM", "RAP", "GEM", "PGM", "AIM"],
                        index=["a", "b", "c", "d", "e", "f"])
    assert tally_in_words(winners) == "GEM at 2, PGM at 2, AIM at 1, RAP at 1"
    assert tally_in_words(winners, "{label}'s on {count} dataset{s} ({members})") == (
        "GEM's on 2 datasets (b, d), PGM's on 2 datasets (a, e), AIM's on 1 dataset (f), "
        "RAP's on 1 dataset (c)")
    others = winners[winners != "PGM"]
    assert tally_in_words(others, "{label} {share:.0%}", of=len(winners)) == (
        "GEM 33%, AIM 17%, RAP 17%")
    assert tally_in_words(pd.Index(["x", "y", "y"])) == "y at 2, x at 1"
    assert tally_in_words(pd.Series([], dtype=object)) == "none"


def test_most_is_strictly_more_than_half():
    assert most(19, 36) and most(0.51) and most(1, 1)
    assert not most(18, 36) and not most(0.5) and not most(0, 0) and not most(0.0)
