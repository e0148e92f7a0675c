"""reprolib.papers.privpgd.pages: the tables of the PrivPGD pages, on small frames built here;
and the book's hyper-parameter tables against the configuration's fields."""

import dataclasses
import re
from pathlib import Path

import pandas as pd
import pytest

from reprolib.mechanisms.particles.privpgd import PrivPGDConfig, ThresholdConstraint
from reprolib.papers.privpgd.pages import (
    column_legend,
    dataset_title,
    distance_means,
    only_value,
    paper_lowest,
    paper_table,
    readable_sources,
    reduced_against_paper,
    reduction_in_words,
    short_headers,
    table_number,
)
from reprolib.papers.privpgd.reported import reported_results


def test_dataset_title():
    assert dataset_title("publiccoverage") == "ACS Public Coverage"
    assert dataset_title("not-a-dataset") == "not-a-dataset"


def test_only_value():
    frame = pd.DataFrame({"epsilon": [2.5, 2.5], "delta": [1e-5, 1e-6]})
    assert only_value(frame, "epsilon") == 2.5
    with pytest.raises(ValueError, match="expected one delta"):
        only_value(frame, "delta")


def test_table_number_comes_from_the_spec():
    assert table_number("privpgd-tab1") == 1
    assert table_number("privpgd-tab6") == 6
    with pytest.raises(KeyError, match="privpgd-fig1"):
        table_number("privpgd-fig1")


def test_readable_sources():
    sources = pd.DataFrame({"dataset": ["income"], "substituted": [True], "data": ["x"]})
    shown = readable_sources(sources)
    assert shown.loc[0, "dataset"] == "ACS Income" and shown.loc[0, "stand-in data"] == "yes"


def test_distance_means():
    frame = pd.DataFrame({"dataset": ["taxi"] * 2, "mechanism": ["PrivPGD"] * 2,
                          "metric.sw1": [1.0, 3.0], "metric.l1": [0.2, 0.4],
                          "metric.tv": [0.1, 0.2]})
    means = distance_means(frame)
    assert means.loc[("NYC Taxi Green Dec 2016", "PrivPGD"), "SW₁"] == pytest.approx(2.0)


def test_paper_lowest_counts_strict_wins():
    reported = pd.DataFrame({"epsilon": [1.0] * 4, "dataset": ["a", "a", "b", "b"],
                             "mechanism": ["PrivPGD", "GEM"] * 2, "sw1": [1.0, 2.0, 2.0, 2.0]})
    assert paper_lowest(reported, 1.0, "sw1") == (1, 2)


def test_paper_table_is_the_papers_rows():
    reported = reported_results()
    table = paper_table(reported, 1)
    assert ("ACS Employment", "PrivPGD") in table.index
    assert table.loc[("ACS Employment", "PrivPGD"), "SW₁"] == pytest.approx(0.00054)


def test_paper_table_headers_are_short_and_the_legend_spells_them_out():
    table = paper_table(reported_results(), 2)
    assert list(table.columns) == ["Down.", "Down. real", "Cov.", "Count.", "Thr.", "SW₁", "L1"]
    legend = column_legend(table)
    for header in table.columns:
        assert f"{header}: " in legend
    assert "thresholding-query error" in legend and "2·TV" in legend


def test_short_headers_rename_the_metric_level_only():
    columns = pd.MultiIndex.from_product([["covariance_error", "sw1"], ["ours", "paper"]])
    table = short_headers(pd.DataFrame([[1.0, 2.0, 3.0, 4.0]], columns=columns))
    assert list(table.columns) == [("Cov.", "ours"), ("Cov.", "paper"), ("SW₁", "ours"),
                                   ("SW₁", "paper")]
    assert column_legend(table) == ("Cov.: covariance error; SW₁: average SW₁ distance over the "
                                    "two-way marginals.")


def test_speed_benchmark_reads_the_committed_rows_or_says_none(tmp_path):
    from reprolib.papers.privpgd.pages import SPEED_COLUMNS, speed_benchmark

    assert speed_benchmark(tmp_path) is None
    rows = speed_benchmark()
    assert list(rows.columns) == list(SPEED_COLUMNS) and len(rows) > 0
    assert (rows["seconds_total"] >= rows["seconds_projection"]).all()


def test_reduced_against_paper_pairs_privpgd_runs_by_dataset_and_seed():
    def runs(errors, seeds, mechanism="PrivPGD"):
        return pd.DataFrame({"mechanism": mechanism, "dataset": "income", "seed": seeds,
                             "metric.l1": errors})
    reduced = pd.concat([runs([0.4, 0.2, 0.9], [0, 1, 2]), runs([5.0], [0], "PGM+MST")])
    paper = runs([0.1, 0.3], [0, 1])  # seed 2 has no paper run: it is left out
    table = reduced_against_paper(reduced, paper, ["l1"])
    assert table.index.tolist() == ["ACS Income"]
    assert table.loc["ACS Income", ("runs", "")] == 2
    assert table.loc["ACS Income", ("L1", "reduced")] == pytest.approx(0.3)
    assert table.loc["ACS Income", ("L1", "paper")] == pytest.approx(0.2)
    assert reduction_in_words(table) == ("Reduced over paper settings, PrivPGD's mean errors, "
                                         "median over the 1 datasets: L1 1.5; the largest on "
                                         "ACS Income, 1.5 to 1.5.")


def _gsd_benchmark(root, **columns):
    from reprolib.papers.privpgd.pages import GSD_REFERENCE_CSV

    path = root / GSD_REFERENCE_CSV
    path.parent.mkdir(parents=True)
    pd.DataFrame({"dataset": "adult", "max_generations": 200, **columns}).to_csv(path, index=False)


def test_gsd_reference_table_pairs_engines_by_dataset_and_rho(tmp_path):
    from reprolib.papers.privpgd.pages import gsd_reference_table

    assert gsd_reference_table(tmp_path) is None
    _gsd_benchmark(
        tmp_path, rho=0.05, seed=[0, 1, 0, 0, 0], stop_tolerance=[1e-4, 1e-4, 1e-4, 1e-4, 0.0],
        engine=["ours", "ours", "reference", "reference", "ours"],
        # the reference's seed 0 ran twice: the last counts; the run without early stopping
        # belongs to the search-length table
        tv_distance=[0.02, 0.04, 0.99, 0.04, 0.5], generations=[100, 300, 50, 60, 200],
        stopped_early=[True, True, False, False, False], seconds=[1.0, 3.0, 9.0, 10.0, 20.0])
    table = gsd_reference_table(tmp_path)
    ours, reference = table.loc[("adult", 0.05, "ours")], table.loc[("adult", 0.05, "reference")]
    assert ours["seeds"] == 2 and reference["seeds"] == 1
    assert ours["TV"] == pytest.approx(0.03)
    assert ours["stopped early"] == 2 and reference["generations"] == 60
    assert ours["TV / reference"] == pytest.approx(0.75) and reference["TV / reference"] == 1


def test_gsd_search_length_table_puts_runs_without_early_stopping_beside_early_ones(tmp_path):
    from reprolib.papers.privpgd.pages import gsd_search_length_table

    _gsd_benchmark(tmp_path, rho=[0.5, 0.005, 0.005, 0.005, 0.005], seed=[0, 0, 0, 1, 0],
                   engine=["ours", "ours", "ours", "ours", "reference"],
                   stop_tolerance=[1e-4, 1e-4, 0.0, 0.0, 0.0], tv_distance=[0.9, 0.1, 0.2, 0.4, 9.0],
                   generations=[90, 80, 200, 200, 200], stopped_early=False, seconds=1.0)
    table = gsd_search_length_table(tmp_path)
    # rho 0.5 has no run without early stopping, and the reference's runs are not ours
    assert table.index.tolist() == [("adult", 0.005, "early"), ("adult", 0.005, "200 generations")]
    assert table["seeds"].tolist() == [1, 2]
    assert table["TV"].tolist() == pytest.approx([0.1, 0.3])
    no_search = tmp_path / "other"
    _gsd_benchmark(no_search, rho=[0.5], seed=0, engine="ours", stop_tolerance=1e-4,
                   tv_distance=0.1, generations=90, stopped_early=True, seconds=1.0)
    assert gsd_search_length_table(no_search) is None


def hyper_parameter_rows():
    """(table title, cells) for each row of the book's PrivPGD hyper-parameter tables."""
    text = (Path(__file__).parents[2] / "book" / "privpgd" / "algorithm.md").read_text()
    section = text.split("## Hyper-parameters", 1)[1].split("\n## ", 1)[0]
    title, rows = "", []
    for line in section.splitlines():
        if line.startswith("**"):
            title = line
        elif line.startswith("| ") and not line.startswith("| hyper-parameter"):
            rows.append((title, [cell.strip() for cell in line.strip("|").split("|")]))
    return rows


def test_hyper_parameter_tables_name_real_fields_with_the_paper_defaults():
    rows = hyper_parameter_rows()
    assert len(rows) > 20
    checked = 0
    for title, (name, paper, _, field) in rows:
        owner = ThresholdConstraint if "ThresholdConstraint" in title else PrivPGDConfig
        fields = {f.name: f for f in dataclasses.fields(owner)}
        names = re.findall(r"`([a-z_]+)`", field)
        for found in names:
            assert found in fields or found in {"all_pairs", "fit"}, (name, found)
        number = re.fullmatch(r"([0-9.]+)(k| %)?", paper)
        if number and len(names) == 1:
            scale = {"k": 1000, " %": 0.01}.get(number.group(2), 1)
            assert fields[names[0]].default == pytest.approx(float(number.group(1)) * scale), name
            checked += 1
    assert checked >= 12
