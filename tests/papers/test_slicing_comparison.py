"""Tables 1 and 3 of the slicing paper: the grids, the mechanisms' settings, the page, the claim."""

import pandas as pd

from reprolib.mechanisms import build
from reprolib.papers.slicing.checks import _wins
from reprolib.papers.slicing.comparison import SETTINGS, TABLE_1, TABLE_3, mechanism_config
from reprolib.papers.slicing.pages import comparison_table, pate_gan_cost_in_words
from reprolib.papers.slicing.reported import SCORES


def test_the_small_grid_is_every_task_five_mechanisms_three_seeds_at_the_tables_epsilon():
    for experiment, epsilon in ((TABLE_1, 5.1), (TABLE_3, 8.1)):
        cells = experiment.cells("small", SETTINGS["small"])
        assert len(cells) == 5 * 5 * 3
        assert {c.mechanism for c in cells} == {"Slicing", "SliceWass", "DP-MERF", "DP-CTGAN",
                                                "PATE-GAN"}
        assert {c.epsilon for c in cells} == {epsilon}
        assert {c.params.get("sampling_rate") for c in cells
                if c.mechanism not in ("PATE-GAN", "DP-CTGAN")} == {0.25}
        assert {c.params["gan_epochs"] for c in cells if c.mechanism == "DP-CTGAN"} == {30}


def test_both_mechanisms_release_the_same_number_of_projections():
    params = {"projections": 100, "sampling_rate": 0.25, "epochs": 3, "learning_rate": 2e-5}
    slicing = build("Slicing", mechanism_config("Slicing", params)).config
    wass = build("SliceWass", mechanism_config("SliceWass", params)).config
    assert slicing.slices * slicing.slice_dim == wass.slices * wass.slice_dim == 100
    assert (slicing.training.epochs, wass.training.loss) == (3, "sliced-wasserstein")


def test_merf_runs_with_its_authors_tabular_settings():
    params = {"projections": 100, "sampling_rate": 0.25, "epochs": 3, "learning_rate": 2e-5}
    merf = build("DP-MERF", mechanism_config("DP-MERF", params)).config
    assert (merf.labels, merf.embedding, merf.features, merf.epochs, merf.batch_fraction) == (
        "private", "mixed", 2000, 200, 0.1)


def _runs(slicing_tv, wass_tv, merf_tv=()):
    rows = []
    for mechanism, tv in (("Slicing", slicing_tv), ("SliceWass", wass_tv), ("DP-MERF", merf_tv)):
        for seed, value in enumerate(tv):
            rows.append({"dataset": "income", "mechanism": mechanism, "seed": seed, "epsilon": 5.1,
                         **{f"metric.{s}": 0.5 for s in SCORES}, "metric.TVComp": value,
                         "metric.CorrSim": None})
    return pd.DataFrame(rows)


def test_the_page_shows_our_mean_and_std_beside_every_printed_row():
    table = comparison_table(_runs([0.6, 0.8], [0.5, 0.5]), "slicing-tab1")
    assert len(table) == 25  # five tasks, five mechanisms as printed
    assert table.loc[("income", "Slicing"), ("TVComp", "ours")] == "0.70 ± 0.10"
    assert table.loc[("income", "Slicing"), ("TVComp", "paper")] == "0.70 ± 0.01"
    assert table.loc[("income", "DP-MERF"), ("TVComp", "ours")] == "–"
    assert table.loc[("income", "DP-MERF"), ("TVComp", "paper")] == "0.51 ± 0.04"
    assert table.loc[("income", "Slicing"), ("CorrSim", "ours")] == "–"
    assert table.loc[("income", "DP-MERF"), "runs"].item() == 0
    assert table.loc[("income", "PATE-GAN"), "runs"].item() == 0


def test_the_claim_counts_the_pairs_where_algorithm_1_is_ahead(recorded_rows):
    # KSComp, ContSim and LogitRegression tie at 0.5; CorrSim is absent: 1 win of 4 pairs
    outcome = _wins(recorded_rows(_runs([0.6, 0.8], [0.5, 0.5])), "slicing-tab1", "SliceWass")
    assert (outcome.status, outcome.observed.split(" in ")[1][:3]) == ("fail", "1/4")
    # the figures its deviation quotes: the TVComp gap, 0.2, is twice Algorithm 1's spread, 0.1
    assert {k: outcome.figures[k] for k in ("epsilon", "won", "pairs", "within_spread",
                                            "won_by_score")} == {
        "epsilon": "5.1", "won": 1, "pairs": 4, "within_spread": 3, "won_by_score": "TVComp at 1"}
    assert outcome.figures["slicing_on_income"].startswith("KSComp 0.50 (printed 0.40), TVComp "
                                                          "0.70 (printed 0.70)")
    only_ours = _runs([0.6], [])
    assert _wins(recorded_rows(only_ours), "slicing-tab1", "SliceWass").status == "missing"


def test_a_gap_within_the_seeds_spread_is_no_win(recorded_rows):
    # Algorithm 1 ahead on TVComp by 0.1, its seeds' spread 0.1 too: ahead, but not a win
    outcome = _wins(recorded_rows(_runs([0.5, 0.7], [0.5, 0.5])), "slicing-tab1", "SliceWass")
    assert (outcome.figures["won"], outcome.figures["clear"]) == (1, 0)
    assert outcome.observed.split(" in ")[1][:3] == "0/4"
    # twice as far ahead on every score as the spread: a win in every pair
    runs = _runs([0.9, 0.9], [0.5, 0.5])
    runs.loc[runs["mechanism"] == "Slicing", [f"metric.{s}" for s in ("KSComp", "ContSim",
                                                                       "LogitRegression")]] = 0.9
    outcome = _wins(recorded_rows(runs), "slicing-tab1", "SliceWass")
    assert (outcome.status, outcome.figures["clear"], outcome.figures["pairs"]) == ("pass", 4, 4)


def test_the_merf_claim_counts_the_pairs_where_algorithm_1_is_ahead_of_dp_merf(recorded_rows):
    rows = recorded_rows(_runs([0.6, 0.8], [], [0.4, 0.4]))
    outcome = _wins(rows, "slicing-tab1", "DP-MERF")
    assert (outcome.status, outcome.observed.split(" in ")[1][:3]) == ("fail", "1/4")


def test_slicewass_is_judged_against_a_rival_as_algorithm_1_is(recorded_rows):
    # TVComp: Algorithm 1 level with DP-MERF on average, SliceWass clearly ahead of it
    rows = recorded_rows(_runs([0.3, 0.5], [0.5, 0.5], [0.4, 0.4]))
    assert _wins(rows, "slicing-tab1", "DP-MERF").figures["clear"] == 0
    outcome = _wins(rows, "slicing-tab1", "DP-MERF", champion="SliceWass")
    assert (outcome.figures["clear"], outcome.figures["name"]) == (1, "SliceWass")
    assert outcome.observed.startswith("SliceWass's mean above DP-MERF's by more than the seeds' "
                                       "spread in 1/4")


def test_pate_gans_cost_is_worded_from_its_runs():
    runs = pd.DataFrame({"mechanism": ["PATE-GAN"] * 3 + ["Slicing"], "epsilon": 5.1,
                         "dataset": ["mobility", "mobility", "income", "income"],
                         "seed": [0, 1, 0, 0], "device": "cpu A",
                         "metric.iterations": [729.0, 729.0, 729.0, None],
                         "metric.votes": [233280.0, 233280.0, 233280.0, None],
                         "metric.teachers": [8.0, 8.0, 25.0, None],
                         "wall_time_s": [23.4, 25.2, 193.0, 1.0]})
    assert pate_gan_cost_in_words(runs) == (
        "at ε = 5.1 the budget lasted 729 iterations and 233,280 votes on every task; a run "
        "took (2 seeds, on cpu A) mobility, 8 teachers: 23 to 25 s; income, 25 teachers: 193 s")
    assert pate_gan_cost_in_words(runs[runs["mechanism"] == "Slicing"]) == ""
