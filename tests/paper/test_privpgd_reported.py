"""PrivPGD's Tables 1-6 as data: every number equals the paper text's, and the derived ratios."""

import re

import numpy as np
import pandas as pd
import pytest

from reprolib._paths import repo_root
from reprolib.papers.privpgd.reported import (
    FIGURE_METRICS,
    MECHANISMS,
    PAPER_LABELS,
    REPORTED_EPSILONS,
    reported_log2_ratios,
    reported_results,
)

NUMBERS = ["downstream_error", "downstream_error_real", "covariance_error", "counting_error",
           "thresholding_error", "sw1", "l1"]
KEY = ["table", "dataset", "mechanism"]
ACS = {"income", "employment", "traveltime", "publiccoverage", "mobility"}

# The text versions print a table as a header line, then per dataset its abbreviation (alone on a
# line in the ICML text, leading the first row in the arXiv text) and one row per mechanism,
# "PGM+AIM 0.19/0.19 0.04 0.0025 0.0026 0.0019 0.026", then the caption naming epsilon.
_ABBREVIATION = "|".join(map(re.escape, PAPER_LABELS.values()))
_NUMBER = r"(\d+(?:\.\d+)?)"
_ROW = re.compile(rf"^(?:({_ABBREVIATION})\s+)?({'|'.join(map(re.escape, MECHANISMS))}) "
                  rf"{_NUMBER}/{_NUMBER}" + rf" {_NUMBER}" * 5 + "$")
_LABEL = re.compile(rf"^({_ABBREVIATION})$")
_CAPTION = re.compile(r"Table ([1-6])[.:] The mean of the errors.*?ϵ\s*=\s*(\d+(?:\.\d+)?)",
                      re.DOTALL)
_HEADER = "dataset inference downstream covariance counting query thresholding query"


def _papers_dir():
    root = repo_root()
    for candidate in (root / "shared" / "papers", root.parent / "shared" / "papers"):
        if candidate.is_dir():
            return candidate
    pytest.skip(f"the papers folder (shared/papers inside or beside {root}) is absent, so the "
                "reported tables cannot be compared with the paper text")


def _parse_tables(text: str) -> pd.DataFrame:
    """Every row of Tables 1-6 in a paper text; fails on any line of a table it cannot read."""
    dataset_of = {label: name for name, label in PAPER_LABELS.items()}
    rows = []
    for caption in _CAPTION.finditer(text):
        start = text.rfind(_HEADER, 0, caption.start())
        assert start >= 0, f"no header before the caption of Table {caption[1]}"
        dataset = None
        for line in text[start:caption.start()].splitlines()[1:]:
            line = line.strip()
            if label := _LABEL.match(line):
                dataset = dataset_of[label[1]]
            elif row := _ROW.match(line):
                dataset = dataset_of[row[1]] if row[1] else dataset
                rows.append([int(caption[1]), float(caption[2]), dataset, row[2],
                             *map(float, row.groups()[2:])])
            else:
                assert not line, f"Table {caption[1]}: unreadable line {line!r}"
    return pd.DataFrame(rows, columns=["table", "epsilon", "dataset", "mechanism", *NUMBERS])


def _differences(ours: pd.DataFrame, paper: pd.DataFrame) -> list[str]:
    """Rows only on one side, and every cell whose number differs, as readable strings."""
    left, right = ours.set_index(KEY), paper.set_index(KEY)
    found = [f"{key}: only in the module" for key in left.index.difference(right.index)]
    found += [f"{key}: only in the paper" for key in right.index.difference(left.index)]
    common = left.index.intersection(right.index)
    for column in ["epsilon", *NUMBERS]:
        differ = left.loc[common, column] != right.loc[common, column]
        found += [f"{key} {column}: module {left.loc[key, column]}, paper {right.loc[key, column]}"
                  for key in common[differ.to_numpy()]]
    return found


@pytest.fixture(scope="module", params=["privpgd-icml.txt", "privpgd-arxiv.txt"])
def paper_tables(request) -> pd.DataFrame:
    text = (_papers_dir() / request.param).read_text(encoding="utf-8")
    return _parse_tables(text)


def test_every_row_of_every_table_matches_the_paper_text(paper_tables):
    assert len(paper_tables) == 156  # 3 x (5 ACS datasets: 28 rows + 4 others: 24 rows)
    assert _differences(reported_results(), paper_tables) == []


@pytest.mark.parametrize("change", ["number", "row"])
def test_a_changed_number_or_missing_row_is_caught(paper_tables, change):
    tampered = reported_results()
    where = (tampered["dataset"] == "medical") & (tampered["mechanism"] == "GEM") & (
        tampered["table"] == 2)
    if change == "number":
        tampered.loc[where, "l1"] = 1.3
        expected = "(2, 'medical', 'GEM') l1: module 1.3, paper 1.4"
    else:
        tampered = tampered[~where]
        expected = "(2, 'medical', 'GEM'): only in the paper"
    assert _differences(tampered, paper_tables) == [expected]


def test_six_tables_at_the_papers_epsilons_and_delta():
    tables = reported_results()
    assert list(tables.columns) == ["table", "epsilon", "delta", "dataset", "mechanism", *NUMBERS]
    epsilons = tables.groupby("table")["epsilon"].unique().map(tuple).to_dict()
    assert epsilons == {1: (2.5,), 2: (2.5,), 3: (1.0,), 4: (1.0,), 5: (0.2,), 6: (0.2,)}
    assert set(tables["delta"]) == {1e-5}
    assert set(tables["mechanism"]) == set(MECHANISMS)
    for table, rows in tables.groupby("table"):
        assert set(rows["dataset"]) == (ACS if table % 2 else set(PAPER_LABELS) - ACS)
    assert not tables.duplicated(KEY).any()


def test_gem_and_rap_have_no_employment_rows_and_all_others():
    tables = reported_results()
    present = tables.groupby("dataset")["mechanism"].agg(set)
    assert present["employment"] == {"PrivPGD", "PGM+AIM", "PGM+MST", "Private GSD"}
    assert all(present.drop("employment").map(lambda found: found == set(MECHANISMS)))
    assert (tables.groupby(["table", "dataset"]).size().drop("employment", level=1) == 6).all()


def test_the_tv_column_is_l1():
    # A TV distance is at most 1; the "TV distance" column shows 1.4 (GEM on medical).
    assert reported_results()["l1"].max() == 1.4


def test_log2_ratios_come_from_the_table_means():
    ratios = reported_log2_ratios(2.5).set_index(["dataset", "mechanism", "metric"])["log2_ratio"]
    assert list(ratios.index.names) == ["dataset", "mechanism", "metric"]
    assert set(ratios.index.get_level_values("metric")) == set(FIGURE_METRICS)
    assert len(ratios) == 52 * len(FIGURE_METRICS)
    # Table 1, income: PGM+MST covariance 0.051 against PrivPGD's 0.001.
    assert ratios[("income", "PGM+MST", "covariance_error")] == pytest.approx(np.log2(51.0))
    # Table 2, medical: GEM downstream 75 against PrivPGD's 2.2 (synthetic-trained errors).
    assert ratios[("medical", "GEM", "downstream_error")] == pytest.approx(np.log2(75 / 2.2))


@pytest.mark.parametrize("epsilon", REPORTED_EPSILONS)
def test_privpgd_log2_ratio_is_zero(epsilon):
    ratios = reported_log2_ratios(epsilon)
    assert (ratios.loc[ratios["mechanism"] == "PrivPGD", "log2_ratio"] == 0.0).all()
    assert ratios["log2_ratio"].notna().all()


def test_unreported_epsilon_is_refused_with_the_choices():
    with pytest.raises(ValueError, match=r"choose one of \(2.5, 1.0, 0.2\)"):
        reported_log2_ratios(0.5)
