"""The numbers behind the comparison figures: states averaged first, then seeds."""

import numpy as np
import pandas as pd
import pytest

from reprolib.papers.rappp.summaries import error_summary, f1_summary, sensitivity_summary


def _runs(rows):
    return pd.DataFrame(rows, columns=["mechanism", "dataset", "epsilon", "seed",
                                       "metric.mm_mean_error", "metric.f1.income"])


def test_errors_average_the_states_then_take_mean_and_sd_over_seeds():
    frame = _runs([("RAP++", "income/a", 1.0, 0, 1.0, 0.5), ("RAP++", "income/b", 1.0, 0, 3.0, 0.5),
                   ("RAP++", "income/a", 1.0, 1, 2.0, 0.5), ("RAP++", "income/b", 1.0, 1, 6.0, 0.5),
                   ("original", "income/a", None, 0, 0.0, 0.9)])
    summary = error_summary(frame, "mm_mean_error")
    assert len(summary) == 1  # the original rows are no mechanism's
    row = summary.iloc[0]
    assert (row["task"], row["mechanism"], row["epsilon"], row["seeds"]) == ("income", "RAP++",
                                                                            1.0, 2)
    assert row["mean"] == pytest.approx(3.0)  # seed means 2 and 4
    assert row["std"] == pytest.approx(np.std([2.0, 4.0], ddof=1))


def test_f1_keeps_the_real_datas_line_and_every_target_of_a_multitask_run():
    frame = _runs([("PGM", "multitask/a", 0.5, 0, 0.0, 0.6), ("original", "multitask/a", None, 0,
                                                               0.0, 0.9)])
    frame["metric.f1.owner"] = [0.7, 0.8]
    summary = f1_summary(frame, by_state=True).set_index(["target", "mechanism"])
    assert summary.loc[("income", "PGM"), "mean"] == 0.6
    assert summary.loc[("owner", "original"), "mean"] == 0.8
    assert np.isnan(summary.loc[("owner", "original"), "epsilon"])


def test_the_sweep_labels_each_point_by_its_mechanisms_knob():
    frame = _runs([("PGM", "income/a", 1.0, 0, 0.0, 0.6), ("PGM", "income/a", 1.0, 1, 0.0, 0.8),
                   ("RAP++", "income/a", 1.0, 0, 0.0, 0.7), ("original", "income/a", None, 0,
                                                              0.0, 0.9)])
    frame["param.bins"] = [10, 10, 30, np.nan]
    frame["param.lt_rounds"] = [np.nan, np.nan, 50, np.nan]
    frame["metric.seconds"] = [1.0, 3.0, 10.0, 0.0]
    summary = sensitivity_summary(frame).set_index("mechanism")
    assert (summary.at["PGM", "knob_name"], summary.at["PGM", "knob"]) == ("bins", 10)
    assert (summary.at["RAP++", "knob_name"], summary.at["RAP++", "knob"]) == ("T_LT", 50)
    assert summary.at["PGM", "f1 mean"] == pytest.approx(0.7)
    assert summary.at["PGM", "seconds mean"] == pytest.approx(2.0)


def test_the_speed_summary_names_each_paper_size_run_against_the_goal():
    from reprolib.papers.rappp.pages import GOAL_SECONDS, PAPER_SIZE, speed_summary

    small = {"n_synthetic": 500, "max_steps": 500, "lt_queries": 20_000}
    rows = [{**PAPER_SIZE, "device": "gpu A", "wall_seconds": GOAL_SECONDS - 1, "rounds": 66,
             "adam_steps": 37_798, "records": 140_742},
            {**PAPER_SIZE, "device": "cpu B", "wall_seconds": GOAL_SECONDS + 1, "rounds": 66,
             "adam_steps": 40_000, "records": 140_742},
            {**small, "device": "gpu A", "wall_seconds": 10, "rounds": 66, "adam_steps": 1,
             "records": 1}]
    lines = speed_summary(pd.DataFrame(rows)).splitlines()
    assert len(lines) == 2
    assert "gpu A" in lines[0] and "within" in lines[0] and "37,798 Adam steps" in lines[0]
    assert "cpu B" in lines[1] and "over" in lines[1]
    assert speed_summary(pd.DataFrame(rows[2:])).startswith("No paper-size run")


def test_the_runs_scored_before_the_seeded_linear_model_are_due_to_rerun():
    from reprolib.experiments import OUTPUT_CHANGES
    from reprolib.experiments._staleness import rows_to_rerun

    seeded = next(change for change in OUTPUT_CHANGES if change.short == "abc8b51")
    before = {"git_revision": "31e6533181eec86c3bc0b75ba7e18cbcaf38a053",  # abc8b51's parent
              "created_at": "2026-11-24T20:00:00+00:00"}
    after = {"git_revision": seeded.commit, "created_at": "2026-11-25T09:00:00+00:00"}
    runs = pd.DataFrame([{"artifact": a, "mechanism": m, **when} for a, m, when in (
        ("rappp-fig8", "RAP++", before), ("rappp-fig9", "original", before),
        ("rappp-fig3", "PGM", after), ("aim-fig1", "PGM", before))])  # AIM scores no F1
    marks = rows_to_rerun(runs, (seeded,)).tolist()
    assert marks[:2] == ["abc8b51"] * 2 and "abc8b51" not in marks[2:]
