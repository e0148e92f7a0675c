"""The slicing paper's tabular data: the five tasks' stand-ins, their public coding, Table 2."""

import json

import pandas as pd
import pytest

from reprolib.data import DataError, acs_stand_in, acs_stand_in_coding, sdnist_bounds
from reprolib.experiments._store import Cell
from reprolib.papers.slicing.checks import _table_2
from reprolib.papers.slicing.data import TASKS, load_table
from reprolib.papers.slicing.datasets import DATASETS
from reprolib.papers.slicing.reported import TABLE_2

NUMERICAL = {"income": ("AGEP",), "coverage": ("AGEP", "PINCP"), "mobility": ("AGEP", "PINCP"),
             "employment": ("AGEP",), "traveltime": ("AGEP", "POVPIP")}


@pytest.mark.parametrize("task", list(TASKS))
def test_each_task_has_its_numbers_and_a_binary_label_target(task, sdnist_root):
    table = load_table(task, "stand-in", sdnist_root)
    assert table.data.numerical_names == NUMERICAL[task]
    assert table.data.targets == ("label",)
    assert table.data.categorical.domain.attributes[-1] == "label"
    assert set(table.data.column("label")) == {0, 1}
    assert table.source == "stand-in" and "stand-in" in table.description


def test_the_stand_in_coding_comes_from_the_published_schemas(sdnist_root):
    coding = acs_stand_in_coding("income", sdnist_root)
    schemas = [json.loads((sdnist_root / "sdnist-acs" / f"{e}.json").read_text())["schema"]
               for e in ("national2018", "ma2018", "tx2018")]
    published = {0 if v == "N" else int(v) for s in schemas for v in s["INDP"]["values"]}
    assert set(coding.categories["INDP"]) == published
    seen = set(acs_stand_in("income", sdnist_root).frame["INDP"])
    assert seen < published  # codes no income record holds are categories all the same
    assert coding.bounds["AGEP"] == sdnist_bounds(sdnist_root)["AGEP"]


def test_the_papers_records_say_how_to_get_them(tmp_path):
    with pytest.raises(DataError, match="download=True"):
        load_table("income", "paper", tmp_path)


def test_unknown_tasks_and_sources_are_refused():
    with pytest.raises(ValueError, match="the slicing paper's tasks are"):
        load_table("wages")
    with pytest.raises(ValueError, match="source must be one of"):
        load_table("income", "census")  # type: ignore[arg-type]


def test_table_2_counts_columns_without_the_label(sdnist_root, monkeypatch):
    monkeypatch.setenv("REPROLIB_DATA_DIR", str(sdnist_root))
    cell = Cell(artifact="slicing-tab2", mechanism="none", dataset="coverage", epsilon=None,
                delta=None, seed=0, params={"source": "stand-in"})
    counts = DATASETS.compute(cell, "cpu")
    assert (counts["categorical"], counts["numerical"], counts["columns"]) == (10, 2, 12)
    assert counts["stand_in"] is True and counts["records"] == 12_949


def _row(task, counts, stand_in):
    return {"dataset": task, "metric.stand_in": stand_in,
            **{f"metric.{c}": n for c, n in zip(("records", "columns", "categorical",
                                                  "numerical"), counts, strict=True)}}


def test_table_2_check_compares_only_the_papers_own_records(recorded_rows):
    stand_ins = pd.DataFrame([_row("income", (25_006, 6, 5, 1), True)])
    assert _table_2(recorded_rows(stand_ins)).status == "not-applicable"
    # mobility's four quantities against the paper's two numerical columns: not compared
    mobility = (80_329, 21, 17, 4)
    real = pd.DataFrame([_row("income", TABLE_2["income"], False),
                         _row("mobility", mobility, False)])
    outcome = _table_2(recorded_rows(real))
    assert (outcome.status, outcome.observed) == ("pass", "2/2 tasks match")
    wrong = pd.DataFrame([_row("income", (195_664, 10, 8, 2), False)])
    assert _table_2(recorded_rows(wrong)).status == "fail"
