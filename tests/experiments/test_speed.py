"""The speed summary: recorded run times per paper, mechanism, scale and device."""

import dataclasses

import pandas as pd

from reprolib.experiments import (
    PAPER_SETTING_COLUMNS,
    SPEED_COLUMNS,
    UNNAMED_CPU,
    catalogue,
    get_experiment,
    open_store,
    paper_setting_runs,
    recorded_speed,
    without_paper_setting_time,
)
from reprolib.papers.aim.setup import unread_params


def test_an_empty_results_folder_gives_an_empty_table(tmp_path):
    table = recorded_speed(root=tmp_path)
    assert table.empty and list(table.columns) == list(SPEED_COLUMNS)
    assert without_paper_setting_time(table, table) == {}


def test_committed_runs_are_summarised_once_per_store_in_book_order():
    table = recorded_speed()
    assert list(table.columns) == list(SPEED_COLUMNS)
    papers = list(catalogue().papers)
    assert list(dict.fromkeys(table["paper"])) == [p for p in papers if p in set(table["paper"])]
    assert not table["slowest_dataset"].isin(["none", "closed-form"]).any()
    # the runs without an epsilon: the original data, a classifier, RAP++'s Figures 1 and 6
    # (its optimiser on exact answers) and the slicing paper's source-only classifier
    references = {("rappp", "original"), ("rappp", "logistic-regression"), ("rappp", "annealed"),
                  ("rappp", "fixed sigma"), ("slicing", "Source only")}
    assert set(table[~table["private"]][["paper", "mechanism"]].itertuples(index=False,
                                                                          name=None)) == references
    assert (table["runs"] > 0).all() and (table["max_s"] >= table["median_s"]).all()
    # each stored run counts once: PGM+MST's small runs are those of PrivPGD's stores
    experiments = catalogue().paper("privpgd").experiments
    stores = {open_store(a, "small").path: open_store(a, "small") for a in experiments}
    rows = pd.concat([store.frame() for store in stores.values() if len(store)])
    expected = int((rows["mechanism"] == "PGM+MST").sum())
    got = table[(table["paper"] == "privpgd") & (table["mechanism"] == "PGM+MST")
                & (table["scale"] == "small")]["runs"].sum()
    assert got == expected > 0


def _store_small(root, cell, seconds, device="cpu"):
    provenance = {"device": device, "versions": {}, "git_revision": "test",
                  "created_at": "2026-01-01T00:00:00+00:00"}
    open_store(cell.artifact, "small", root).append(cell, scale="small", metrics={},
                                                    wall_time_s=seconds, provenance=provenance)


def test_paper_setting_runs_are_small_runs_of_paper_cells_with_unread_knobs_set_aside(tmp_path):
    experiment = get_experiment("aim-fig1")
    paper = experiment.cells("paper", experiment.settings_at("paper"))
    mst, other_mst = [c for c in paper if c.mechanism == "MST"][:2]
    aim = next(c for c in paper if c.mechanism == "AIM")

    def small(cell, **changed):
        return dataclasses.replace(cell, params={**cell.params, **changed})

    _store_small(tmp_path, small(mst, max_model_size_mb=1.0), 30.0)  # MST does not read it
    _store_small(tmp_path, small(other_mst, max_model_size_mb=1.0), 60.0)
    _store_small(tmp_path, small(mst, workload="skewed"), 90.0)  # other data: not a paper cell
    _store_small(tmp_path, small(aim, pgm_iters=100), 120.0)  # AIM reads its iterations
    runs = paper_setting_runs("aim", ["aim-fig1"], ignore=unread_params, root=tmp_path)
    assert list(runs.columns) == list(PAPER_SETTING_COLUMNS)
    assert runs["mechanism"].tolist() == ["MST"]
    assert runs["minutes"].tolist() == [1.0] and "longest of 2 small runs" in runs["setting"][0]
    assert paper_setting_runs("aim", ["aim-fig1"], root=tmp_path).empty  # nothing set aside


def test_rows_stored_before_cpus_were_named_show_as_an_unnamed_cpu(tmp_path):
    experiment = get_experiment("aim-fig1")
    mst, other_mst = [c for c in experiment.cells("paper", experiment.settings_at("paper"))
                      if c.mechanism == "MST"][:2]
    named = "cpu (Some CPU, AVX2)"
    _store_small(tmp_path, mst, 30.0)
    _store_small(tmp_path, other_mst, 60.0, device=named)
    table = recorded_speed(root=tmp_path)
    assert sorted(table["device"]) == sorted([UNNAMED_CPU, named])
    runs = paper_setting_runs("aim", ["aim-fig1"], ignore=unread_params, root=tmp_path)
    assert sorted(runs["device"]) == sorted([UNNAMED_CPU, named])


def test_mechanisms_without_a_paper_setting_time_are_listed_per_paper():
    times = pd.DataFrame({"paper": ["aim", "aim", "aim", "rappp", "rappp"],
                          "mechanism": ["AIM", "AIM", "GEM", "PGM", "original"],
                          "private": [True, True, True, True, False]})  # the data itself
    settings = pd.DataFrame({"paper": ["aim"], "mechanism": ["AIM"]})
    baselines = pd.DataFrame({"paper": ["privpgd"], "mechanism": ["PGM"]})  # another paper's PGM
    assert without_paper_setting_time(times, settings, baselines) == {"aim": ["GEM"],
                                                                      "rappp": ["PGM"]}
    assert without_paper_setting_time(times, times) == {}
