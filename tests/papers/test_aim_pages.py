"""reprolib.papers.aim.pages: the tables of the AIM pages, on small frames built here."""

import pandas as pd
import pytest

from reprolib.papers.aim.checks import PAPER_TABLE1
from reprolib.papers.aim.pages import (
    SPEED_COLUMNS,
    attribute_counts,
    compared_workload_aware,
    coverage_summary,
    datasets_table,
    first_round_parameters,
    marginal_errors,
    mwem_best,
    speed_benchmark,
    taxonomy_table,
    yes_no,
)


def test_yes_no():
    assert list(yes_no(pd.Series([True, False, 1]))) == ["yes", "no", "yes"]


def test_workload_aware_filter_drops_the_ablation_and_the_agnostic():
    # Gaussian answers the workload but is one of the paper's baselines, not a compared mechanism
    assert compared_workload_aware(["MST", "MWEM+RP", "Gaussian", "RAP", "AIM"]) == ("AIM", "RAP")
    assert compared_workload_aware(["MST"]) == ()


def _taxonomy(rows):
    return pd.DataFrame([
        {"mechanism": m, **{f"metric.{t}": v for t, v in zip(
            ("workload_aware", "data_aware", "budget_aware", "efficiency_aware"), traits,
            strict=True)}, "metric.relation": "add-remove"}
        for m, traits in rows.items()])


def test_taxonomy_table_says_where_we_differ_from_the_paper():
    rows = {"AIM": PAPER_TABLE1["AIM"], "MST": (True, True, False, True)}  # MST falsified
    table = taxonomy_table(_taxonomy(rows))
    assert table.loc["AIM", "as the paper"] == "yes"
    assert table.loc["MST", "as the paper"] == "no"
    assert table.loc["MST", "workload-aware"] == "yes"
    assert table.loc["AIM", "neighbours"] == "add or remove one record"


def test_datasets_table_and_attribute_counts():
    frame = pd.DataFrame({"dataset": ["adult", "nltcs", "fire"], "metric.records": [1, 2, 3],
                          "metric.attributes": [15, 16, 15], "metric.min_domain": [2, 2, 2],
                          "metric.max_domain": [42, 2, 46],
                          "metric.total_domain_log10": [1.0, 2.0, 3.0]})
    table = datasets_table(frame)
    assert table.loc["adult", "paper (records, attributes, min–max)"] == "48,842, 15, 2–42"
    assert attribute_counts(table) == {15: ["adult", "fire"], 16: ["nltcs"]}


def test_first_round_parameters_grow_less_noisy_with_epsilon():
    table = first_round_parameters([0.1, 1.0], 1e-9, [9])
    assert list(table.columns) == ["ε", "ρ", "σ₀, d = 9", "ε₁, d = 9"]
    assert table["σ₀, d = 9"].is_monotonic_decreasing
    assert table["ε₁, d = 9"].is_monotonic_increasing


def _bounds_results():
    return pd.DataFrame({"seed": [0, 1],
                         "metric.cliques": [[("a",), ("b",)], [("a",)]],
                         "metric.in_workload": [[True, False], [True]],
                         "metric.supported": [[True, False], [False]],
                         "metric.bound": [[1.0, 0.5], [0.2]],
                         "metric.error": [[0.5, 0.25], [0.4]]})


def test_marginal_errors_and_coverage():
    errors = marginal_errors(_bounds_results())
    assert list(errors["covered"]) == [True, True, False]
    assert list(errors["seed"]) == [0, 0, 1]
    summary = coverage_summary(errors)
    assert summary.loc["supported", "count"] == 1
    assert summary.loc["unsupported", "within the bound"] == pytest.approx(0.5)
    assert summary.loc["supported", "median bound / error"] == pytest.approx(2.0)


def test_mwem_best_takes_the_best_round_count():
    rows = []
    for mechanism, errors in (("MWEM+PGM", {5: 0.3, 10: 0.2}), ("MWEM+RP", {5: 0.25, 10: 0.4})):
        for rounds, error in errors.items():
            rows.append({"dataset": "titanic", "mechanism": mechanism, "epsilon": 1.0,
                         "param.rounds": rounds, "metric.workload_error": error, "seed": 0})
    best = mwem_best(pd.DataFrame(rows))
    row = best.loc[("titanic", 1.0)]
    assert row["error, MWEM+PGM"] == pytest.approx(0.2) and row["best T, MWEM+PGM"] == 10
    assert row["error, MWEM+RP"] == pytest.approx(0.25) and row["best T, MWEM+RP"] == 5
    assert bool(row["pgm_better"])


def test_speed_benchmark_reads_the_shown_columns(tmp_path):
    assert speed_benchmark(tmp_path / "missing.csv") is None
    path = tmp_path / "speed.csv"
    pd.DataFrame([{**{c: 1 for c in SPEED_COLUMNS}, "host": "x"}]).to_csv(path, index=False)
    assert list(speed_benchmark(path).columns) == list(SPEED_COLUMNS)


def test_the_single_fit_table_orders_the_runs_by_setting(tmp_path):
    from reprolib.papers.aim.pages import SINGLE_FIT_COLUMNS, single_fit_table

    assert single_fit_table(tmp_path / "missing.csv") is None
    rows = [{**{c: 1 for c in SINGLE_FIT_COLUMNS}, "iters": iters, "epsilon": epsilon,
             "git_revision": "0123456" + "9" * 33, "usable_cores": 2}
            for epsilon, iters in ((100.0, 5000), (1.0, 1000), (100.0, 100))]
    path = tmp_path / "single-fit.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    table = single_fit_table(path)
    assert list(table.columns) == list(SINGLE_FIT_COLUMNS)
    assert list(zip(table["epsilon"], table["iters"], strict=True)) == [
        (1.0, 1000), (100.0, 100), (100.0, 5000)]
    assert set(table["git_revision"]) == {"0123456"}


def test_committed_speed_benchmark_has_the_shown_columns():
    from reprolib._paths import repo_root
    from reprolib.papers.aim.pages import SPEED_CSV

    path = repo_root() / "results" / SPEED_CSV
    if not path.is_file():
        pytest.skip("no committed speed benchmark")
    assert set(SPEED_COLUMNS) <= set(pd.read_csv(path, nrows=1).columns)


def test_the_committed_gem_step_benchmark_is_read_with_short_revisions(tmp_path):
    from reprolib.papers.aim.pages import GEM_STEP_COLUMNS, gem_step_benchmark

    assert gem_step_benchmark(tmp_path / "missing.csv") is None
    rows = gem_step_benchmark()  # committed: the speed page shows it
    assert rows is not None and list(rows.columns) == list(GEM_STEP_COLUMNS)
    assert rows["git_revision"].str.len().eq(7).all() and (rows["seconds_per_step"] > 0).all()


def test_spot_comparison_pairs_each_spot_run_with_its_reduced_twin():
    from reprolib.papers.aim.pages import spot_comparison

    def runs(errors, rounds):
        return pd.DataFrame({"mechanism": "AIM", "dataset": ["nltcs", "nltcs", "adult"],
                             "epsilon": [1.0, 10.0, 1.0], "seed": 0,
                             "metric.workload_error": errors, "metric.rounds": rounds,
                             "metric.seconds": [1.0, 2.0, 3.0]})

    reduced = runs([0.2, 0.1, 0.3], [10, 20, 30])
    paper = runs([0.1, 0.1, 0.3], [12, 25, 30]).iloc[:2]  # no spot run on adult
    table = spot_comparison(reduced, paper)
    assert list(table.index.get_level_values("dataset")) == ["nltcs", "nltcs"]
    assert list(table["error", "paper / reduced"]) == [0.5, 1.0]
    assert list(table["rounds", "paper"]) == [12, 25] and list(table["rounds", "reduced"]) == [10, 20]


def test_error_figure_of_one_setting_warns_nothing():
    """One epsilon and one trial per mechanism (the smoke grid): matplotlib gets arrays, not
    one-element Series, whose float() pandas deprecates (the warning showed on the page)."""
    import warnings

    from reprolib.papers.aim.figures import error_vs_epsilon

    frame = pd.DataFrame({"dataset": "titanic", "mechanism": ["AIM", "GEM"], "epsilon": 1.0,
                          "metric.workload_error": [0.2, 0.3]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        error_vs_epsilon(frame)


def test_error_figure_wraps_panels_and_its_legend_names_every_mechanism():
    """Five datasets make two rows of three panels; the spare cell holds the legend, which
    names a mechanism that did not run on the last dataset too."""
    from reprolib.papers.aim.figures import error_vs_epsilon

    datasets = ["adult", "fire", "nltcs", "salary", "titanic"]
    frame = pd.DataFrame([{"dataset": d, "mechanism": m, "epsilon": e,
                           "metric.workload_error": 0.1 * e}
                          for d in datasets for m in ("AIM", "GEM", "MST") for e in (1.0, 10.0)
                          if (m, d) != ("GEM", "titanic")])
    fig = error_vs_epsilon(frame)
    panels = [ax for ax in fig.axes if ax.axison]
    assert [ax.get_title() for ax in panels] == datasets
    assert len(fig.axes) == 6 and fig.axes[0].get_gridspec().get_geometry() == (2, 3)
    (spare,) = [ax for ax in fig.axes if not ax.axison]
    assert [t.get_text() for t in spare.get_legend().get_texts()] == ["AIM", "GEM", "MST"]


def test_error_figure_without_a_spare_cell_puts_the_legend_beside_the_panels():
    from reprolib.papers.aim.figures import error_vs_epsilon

    frame = pd.DataFrame([{"dataset": d, "mechanism": m, "epsilon": 1.0,
                           "metric.workload_error": 0.1}
                          for d in ("adult", "nltcs", "salary", "titanic") for m in ("AIM", "MST")])
    fig = error_vs_epsilon(frame)
    assert fig.axes[0].get_gridspec().get_geometry() == (2, 2)
    assert all(ax.get_legend() is None for ax in fig.axes)
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["AIM", "MST"]


def test_grid_rows_come_from_the_committed_store_else_the_pending_grid(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from reprolib.experiments._experiment import store_path
    from reprolib.papers.aim.pages import grid_rows

    table = pq.read_table(store_path("aim-fig1", "small"))
    titanic = table.filter(pa.compute.equal(table["dataset"], "titanic"))
    fire = titanic.set_column(titanic.schema.get_field_index("dataset"), "dataset",
                              pa.array(["fire"] * len(titanic)))
    for root, rows in ((tmp_path, titanic), (tmp_path / "pending" / "fire", fire)):
        path = store_path("aim-fig1", "small", root)
        path.parent.mkdir(parents=True)
        pq.write_table(rows, path)
    assert grid_rows("aim-fig1", "titanic", tmp_path)[1] == "committed"
    rows, source = grid_rows("aim-fig1", "fire", tmp_path)
    assert source == "pending" and len(rows) == len(titanic) and set(rows["dataset"]) == {"fire"}
    rows, source = grid_rows("aim-fig1", "msnbc", tmp_path)
    assert rows.empty and source == ""


def test_trials_are_worded_with_their_range_and_aims_rounds():
    from reprolib.papers.aim.pages import trials_in_words

    rows = pd.DataFrame({"mechanism": ["AIM", "AIM", "AIM", "MST"],
                         "epsilon": [10 ** 0.5, 3.1623, 1.0, 10 ** 0.5], "seed": [0, 1, 0, 0],
                         "metric.workload_error": [0.04, 0.05, 0.2, 0.1],
                         "metric.rounds": [40, 42, 30, 0]})
    assert trials_in_words(rows, "AIM", 10 ** 0.5) == "0.0450 (2 trials, 0.040 to 0.050; 41 rounds)"
    assert trials_in_words(rows, "AIM", 10 ** 0.5, seed=1) == "0.0500 (1 trial; 42 rounds)"
    assert trials_in_words(rows, "MST", 10 ** 0.5) == "0.1000 (1 trial)"
    assert trials_in_words(rows, "MST", 100) == "not run yet"


def test_wall_minutes_per_dataset_from_the_stores_then_the_pending_grids(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from reprolib.experiments._experiment import store_path
    from reprolib.papers.aim.pages import wall_minutes_in_words

    table = pq.read_table(store_path("aim-fig1", "small"))
    gem = table.filter(pa.compute.equal(table["mechanism"], "GEM"))
    titanic = gem.filter(pa.compute.equal(gem["dataset"], "titanic")).slice(0, 3)
    seconds = pa.array([60.0, 120.0, 600.0])
    titanic = titanic.set_column(titanic.schema.get_field_index("wall_time_s"), "wall_time_s",
                                 seconds)
    salary = titanic.slice(0, 1).set_column(titanic.schema.get_field_index("dataset"), "dataset",
                                            pa.array(["salary"]))
    for folder, rows in ((tmp_path, titanic), (tmp_path / "pending" / "gem-salary", salary),
                         (tmp_path / "pending" / "gem-2021", titanic)):  # titanic: committed
        path = store_path("aim-fig1", "small", folder)
        path.parent.mkdir(parents=True)
        pq.write_table(rows, path)
    assert wall_minutes_in_words("GEM", root=tmp_path) == (
        "titanic 2 (at most 10; 3 runs), salary 1 (1 run, pending)")
    assert wall_minutes_in_words("GEM", ("salary",), tmp_path) == "salary 1 (1 run, pending)"
    assert wall_minutes_in_words("RAP", root=tmp_path) == "no runs stored yet"


def test_rap_and_gem_in_words_are_counted_over_the_stored_settings(tmp_path, monkeypatch):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from reprolib.experiments import listed_in_words as _listed
    from reprolib.experiments import open_store
    from reprolib.experiments._experiment import store_path
    from reprolib.papers.aim.pages import relaxed_baselines_in_words

    assert relaxed_baselines_in_words(tmp_path) == {
        "rap_runs": "0", "gem_runs": "0", "gem_datasets": "none", "gem_pending": "still to run on "
        "salary and msnbc, where the pages judge each setting among the mechanisms that ran and "
        "say so",
        "rap_lowest": "none of the 0 settings", "rap_best_prior": "no setting",
        "rap_beats_independent": "no setting (no runs of both stored)"}
    table = pq.read_table(store_path("aim-fig1", "small"))
    keep = pa.compute.and_(pa.compute.equal(table["dataset"], "titanic"), pa.compute.is_in(
        table["mechanism"], pa.array(["RAP", "GEM", "Independent"])))
    path = store_path("aim-fig1", "small", tmp_path)
    path.parent.mkdir(parents=True)
    pq.write_table(table.filter(keep), path)
    rows = open_store("aim-fig1", "small", tmp_path).frame()
    means = rows.groupby(["epsilon", "mechanism"])["metric.workload_error"].mean().unstack()
    below = int((means["RAP"] < means["Independent"]).sum())
    words = relaxed_baselines_in_words(tmp_path)
    assert words["rap_runs"] == str(int((rows["mechanism"] == "RAP").sum()))
    assert words["rap_beats_independent"].startswith(
        f"{below} of the {len(means)} (dataset, workload, ε) settings")
    lowest = means.idxmin(axis=1)
    assert words["rap_lowest"] == (
        f"{int((lowest == 'RAP').sum()) or 'none'} of the {len(means)} settings")
    best_prior = [f"{e:.3g}" for e in means.index if means.loc[e, "RAP"] < means.loc[e, "GEM"]]
    assert best_prior, "the fixture needs a setting where RAP beats GEM"
    assert words["rap_best_prior"] == f"titanic at ε = {_listed(best_prior)}"
    assert words["gem_datasets"] == "titanic"
    monkeypatch.setattr("reprolib.papers.aim.pages.pending_runs", lambda scale: {})
    assert relaxed_baselines_in_words(tmp_path)["gem_pending"] == "that is every dataset of the profile"
    assert (_listed([]), _listed(["a"]), _listed(["a", "b", "c"])) == ("none", "a", "a, b and c")


def test_gem_at_the_2021_settings_is_set_beside_the_stored_runs(tmp_path):
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq

    from reprolib.experiments._experiment import store_path
    from reprolib.papers.aim.pages import GEM_2021_GRID, gem_scripts_compared

    assert gem_scripts_compared("aim-fig1", tmp_path).empty
    table = pq.read_table(store_path("aim-fig1", "small"))
    gem = table.filter(pa.compute.and_(pa.compute.equal(table["dataset"], "titanic"),
                                       pa.compute.equal(table["mechanism"], "GEM")))
    metrics = [json.loads(m) for m in gem["metrics_json"].to_pylist()]
    halved = gem.set_column(gem.schema.get_field_index("metrics_json"), "metrics_json", pa.array(
        [json.dumps(m | {"workload_error": m["workload_error"] / 2}) for m in metrics]))
    for folder, rows in ((tmp_path, gem), (tmp_path / GEM_2021_GRID, halved)):
        path = store_path("aim-fig1", "small", folder)
        path.parent.mkdir(parents=True)
        pq.write_table(rows, path)
    compared = gem_scripts_compared("aim-fig1", tmp_path)
    assert set(compared["dataset"]) == {"titanic"}
    assert len(compared) == len(set(gem["epsilon"].to_pylist()))
    assert compared["2021 / 2022"].to_numpy() == pytest.approx(0.5)
    assert (compared["trials"] == 3).all()
