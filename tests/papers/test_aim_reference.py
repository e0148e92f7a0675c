"""The side-by-side table of the AIM runtime page."""

import pandas as pd
import pytest

from reprolib.papers.aim.reference import (
    baseline_reference_table,
    capacity_trace_table,
    error_trend,
    fit_replay_table,
    reference_table,
    seed_spread,
    speed_bar_in_words,
    zeros_reference_table,
)


def test_reference_table_keeps_the_last_run_per_engine_capacity_and_iterations(tmp_path):
    path = tmp_path / "aim-reference.csv"
    rows = [("ours:backtracking-2022", 80.0, 9, 1, 0.5, 3.0),
            ("reference-2022", 80.0, 8, 2, 0.6, 30.0),
            ("ours:backtracking-2022", 80.0, 10, 0, 0.4, 4.0),
            ("ours:backtracking-2022", 10.0, 7, 3, 0.7, 2.0)]
    runs = pd.DataFrame([{"dataset": "nltcs", "epsilon": 1.0, "engine": e, "max_model_size_mb": mb,
                          "pgm_iters": 100, "rounds": r, "anneals": a, "workload_error": w,
                          "seconds": s} for e, mb, r, a, w, s in rows])
    runs.to_csv(path, index=False)
    table = reference_table(path)
    assert table.loc[("nltcs", 80.0, 100, 1.0), ("ours:backtracking-2022", "rounds")] == 10
    assert table.loc[("nltcs", 80.0, 100, 1.0), ("reference-2022", "anneals")] == 2
    assert table.loc[("nltcs", 10.0, 100, 1.0), ("ours:backtracking-2022", "rounds")] == 7
    more = runs.assign(pgm_iters=1000, rounds=40)  # the same runs at 1000: kept apart
    pd.concat([runs, more]).to_csv(path, index=False)
    assert reference_table(path).loc[("nltcs", 80.0, 1000, 1.0),
                                     ("ours:backtracking-2022", "rounds")] == 40
    assert reference_table(path).loc[("nltcs", 80.0, 100, 1.0),
                                     ("ours:backtracking-2022", "rounds")] == 10


def test_the_speed_bar_is_read_off_the_last_seed_0_runs_of_its_setting(tmp_path):
    path = tmp_path / "aim-reference.csv"
    rows = [("reference-2022", 80.0, 100, 0, 50, 600.0), ("reference-2022", 80.0, 100, 0, 50, 450.0),
            ("ours:backtracking-2022", 80.0, 100, 0, 40, 100.0),
            ("ours:backtracking-2022", 10.0, 100, 0, 7, 1.0),  # another capacity
            ("ours:backtracking-2022", 80.0, 100, 1, 9, 1.0)]  # another seed
    pd.DataFrame([{"dataset": "nltcs", "epsilon": 1.0, "engine": e, "max_model_size_mb": mb,
                   "pgm_iters": i, "seed": seed, "rounds": r, "anneals": 0, "workload_error": 0.1,
                   "seconds": s} for e, mb, i, seed, r, s in rows]).to_csv(path, index=False)
    assert speed_bar_in_words(path) == (
        "the authors' 2022 engine 9.0 s a round, 7.5 minutes a run (50 rounds); "
        "ours 2.5 s a round, 1.7 minutes a run (40 rounds)")
    assert speed_bar_in_words(tmp_path / "absent.csv") == "not measured yet"


def test_no_table_before_the_benchmark_ran(tmp_path):
    assert reference_table(tmp_path / "absent.csv") is None


def test_the_pathology_shows_as_an_error_that_rises_with_epsilon(tmp_path):
    path = tmp_path / "aim-reference.csv"
    errors = {"ours:backtracking-2022": (0.3, 0.12, 0.07), "ours:mbi-2.0": (0.3, 0.14, 0.27)}
    runs = pd.DataFrame(
        [{"dataset": "adult", "max_model_size_mb": 80.0, "pgm_iters": 100, "epsilon": eps,
          "engine": e, "rounds": 1, "anneals": 0, "workload_error": w, "seconds": 1.0}
         for e, ws in errors.items() for eps, w in zip((0.1, 1.0, 10.0), ws, strict=True)]
        + [{"dataset": "adult", "max_model_size_mb": 80.0, "pgm_iters": 100, "epsilon": 0.1,
            "engine": "reference-2022", "rounds": 1, "anneals": 0, "workload_error": 0.3,
            "seconds": 9.0}])
    runs.to_csv(path, index=False)
    trend = error_trend(reference_table(path)).loc[("adult", 80.0, 100)]
    assert trend[("ours:backtracking-2022", "largest rise")] == pytest.approx(0.07 / 0.12)
    assert trend[("ours:backtracking-2022", "last / first")] == pytest.approx(0.07 / 0.3)
    assert trend[("ours:mbi-2.0", "largest rise")] == pytest.approx(0.27 / 0.14)
    assert pd.isna(trend[("reference-2022", "last / first")])
    pd.concat([runs, runs.head(1).assign(pgm_iters=1000)]).to_csv(path, index=False)
    assert ("adult", 80.0, 1000) not in error_trend(reference_table(path)).index  # one ε only


def test_other_seeds_are_summarised_beside_the_seed_0_table(tmp_path):
    path = tmp_path / "aim-reference.csv"
    rows = [("ours:backtracking-2022", 0, 144, 0.0027), ("ours:backtracking-2022", 1, 180, 0.0023),
            ("reference-2022", 0, 190, 0.0023), ("reference-2022", 0, 150, 0.0025)]
    pd.DataFrame([{"dataset": "nltcs", "max_model_size_mb": 80.0, "pgm_iters": 100,
                   "epsilon": 100.0, "engine": e, "seed": seed, "rounds": r, "anneals": 1,
                   "workload_error": w, "seconds": 1.0} for e, seed, r, w in rows]).to_csv(path)
    table = reference_table(path)
    assert table.loc[("nltcs", 80.0, 100, 100.0), ("ours:backtracking-2022", "rounds")] == 144
    spread = seed_spread(path).loc[("nltcs", 80.0, 100, 100.0)]
    assert spread.loc["ours:backtracking-2022", "seeds"] == 2
    assert spread.loc["ours:backtracking-2022", "error"] == pytest.approx(0.0025)
    assert spread.loc["reference-2022", ["seeds", "rounds"]].tolist() == [1, 150]
    assert seed_spread(tmp_path / "absent.csv") is None


def test_gem_reference_table_averages_seeds_and_keeps_the_workload(tmp_path):
    path = tmp_path / "gem-reference.csv"
    rows = [("nltcs", "all-3way", 1.0, 0, "ours", 0.010, 80.0),
            ("nltcs", "all-3way", 1.0, 1, "ours", 0.012, 90.0),
            ("nltcs", "all-3way", 1.0, 0, "reference", 0.011, 110.0),
            ("nltcs", "all-3way", 1.0, 1, "reference", 0.009, 130.0),
            ("nltcs", "all-3way", 1.0, 1, "reference", 0.013, 120.0),  # a re-run: kept
            ("nltcs", "all-3way", 1.0, 0, "ours-stop-1.2", 0.006, 20.0),
            ("nltcs", "target", 1.0, 0, "ours", 0.5, 1.0)]
    pd.DataFrame(rows, columns=["dataset", "workload", "epsilon", "seed", "engine",
                                "workload_error", "seconds"]).to_csv(path, index=False)
    table = baseline_reference_table("gem", "all-3way", path).loc[("nltcs", 1.0)]
    ours, reference = table.loc["ours"], table.loc["reference"]
    assert ours["seeds"] == 2 and reference["seeds"] == 2
    assert ours["error"] == pytest.approx(0.011)
    assert reference["error"] == pytest.approx(0.012)
    assert reference["error max"] == pytest.approx(0.013)
    assert ours["error / reference"] == pytest.approx(0.011 / 0.012)
    assert table.loc["ours-stop-1.2", "error / reference"] == pytest.approx(0.006 / 0.012)
    assert reference["error / reference"] == 1
    assert baseline_reference_table("gem", "skewed", path) is None
    assert baseline_reference_table("gem", "all-3way", tmp_path / "absent.csv") is None


def test_zeros_table_pairs_each_engines_seeds_with_and_without_zeros(tmp_path):
    path = tmp_path / "aim-reference-zeros.csv"
    rows = [("ours", 0, 0, 0.06), ("ours", 0, 2030, 0.09), ("ours", 1, 0, 0.08),
            ("ours", 1, 2030, 0.07), ("ours", 2, 0, 0.5),  # seed 2 lacks its AIM+SZ run
            ("reference-2022", 0, 0, 0.064), ("reference-2022", 0, 2030, 0.9),
            ("reference-2022", 0, 2030, 0.085)]  # a rerun: the last row counts
    pd.DataFrame([{"dataset": "fire", "epsilon": 10.0, "engine": e, "seed": seed,
                   "structural_zeros": z, "workload_error": w, "max_model_size_mb": 10.0,
                   "pgm_iters": 100, "rounds": 20 + seed + z // 1000}
                  for e, seed, z, w in rows]).to_csv(path)
    table = zeros_reference_table(path)
    ours, reference = table.loc[(10.0, 100, 10.0, "ours")], table.loc[(10.0, 100, 10.0,
                                                                      "reference-2022")]
    assert ours["seeds"] == 2 and ours["AIM"] == pytest.approx(0.07)
    assert ours["AIM / AIM+SZ"] == pytest.approx(0.07 / 0.08)
    assert ours[["rounds AIM", "rounds AIM+SZ"]].tolist() == [20.5, 22.5]  # seeds 0 and 1
    assert reference[["seeds", "AIM+SZ"]].tolist() == [1, 0.085]
    assert zeros_reference_table(tmp_path / "absent.csv") is None
    pd.read_csv(path).query("structural_zeros == 0").to_csv(path)  # no AIM+SZ run yet
    assert zeros_reference_table(path) is None


def test_fit_replay_table_flags_anneals_and_keeps_the_last_replay(tmp_path):
    path = tmp_path / "aim-fit-replay.csv"

    def row(revision, round_, ours, reference, dropped):
        return {"dataset": "fire", "epsilon": 1.0, "delta": 1e-9, "seed": 0,
                "max_model_size_mb": 10.0, "pgm_iters": 100, "structural_zeros": 0,
                "round": round_, "selected": "a x b",
                "sigma": 5.0, "threshold": 100.0, "shift_ours": ours,
                "shift_ours_jt2022": reference, "shift_reference": reference, "loss_ours": 1.0,
                "loss_ours_jt2022": 2.0, "loss_reference": 2.0, "reference_dropped": dropped,
                "git_revision": revision}

    # an older replay of three rounds, then the current one of two
    rows = [row("old", r, 1.0, 1.0, 0) for r in (1, 2, 3)]
    rows += [row("new", 1, 500.0, 500.0, 0), row("new", 2, 90.0, 150.0, 2)]
    pd.DataFrame(rows).to_csv(path, index=False)
    table = fit_replay_table(path)
    assert table.index.get_level_values("round").tolist() == [1, 2]
    second = table.loc[("fire", 1.0, 0, 0, 2)]
    assert second[("ours", "anneals")] and not second[("reference-2022", "anneals")]
    assert second[("reference-2022", "dropped")] == 2
    assert fit_replay_table(tmp_path / "absent.csv") is None


def test_capacity_trace_flags_fits_larger_than_the_filter_computed(tmp_path):
    path = tmp_path / "aim-capacity-2022.csv"

    def row(home, round_, filter_mb, fit_mb, stopped=False, revision="new"):
        return {"dataset": "fire", "epsilon": 100.0, "seed": 0, "potentials": home,
                "structural_zeros": 9, "max_model_size_mb": 10.0, "pgm_iters": 100,
                "round": round_, "selected": "a | b", "filter_jt_mb": filter_mb,
                "fit_jt_mb": fit_mb, "reference_filter_jt_mb": filter_mb,
                "reference_fit_jt_mb": fit_mb + (0.5 if home == "measured-cliques" else 0.0),
                "fit_seconds": 1.0, "stopped": stopped, "git_revision": revision}

    rows = [row("junction-tree-2022", 1, 9.0, 9.0, revision="old")]  # an older trace: dropped
    rows += [row("junction-tree-2022", 1, 2.0, 2.5), row("junction-tree-2022", 2, 6.0, 4.0),
             row("junction-tree-2022", 3, 6.2, 557.0, stopped=True),
             row("measured-cliques", 1, 2.0, 2.0), row("measured-cliques", 2, 3.0, 3.0)]
    pd.DataFrame(rows).to_csv(path, index=False)
    table = capacity_trace_table(path)
    old_home = table.loc[(100.0, 0, "junction-tree-2022", 9, 10.0)]
    assert old_home["rounds"] == 3 and old_home["sizes differ"] == 3
    assert old_home["fit MB"] == 557.0 and old_home["filter MB"] == 6.2
    assert old_home["first round over"] == 3 and old_home["stopped"]
    assert old_home["gap to 2022 MB"] == 0.0
    default = table.loc[(100.0, 0, "measured-cliques", 9, 10.0)]
    assert default["sizes differ"] == 0 and pd.isna(default["first round over"])
    assert not default["stopped"] and default["gap to 2022 MB"] == 0.5
    assert capacity_trace_table(tmp_path / "absent.csv") is None
