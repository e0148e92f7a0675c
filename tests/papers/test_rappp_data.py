"""RAP++'s data: the stand-in tasks on the SDNist excerpts and the paper's Table 4 rebuild."""

import numpy as np
import pandas as pd
import pytest

from reprolib.data import DataError, sdnist_bounds
from reprolib.papers.rappp.data import (
    PAPER_TASKS,
    STAND_IN_TASKS,
    load_paper_task,
    load_stand_in,
    load_task,
    split,
)

# Table 1 of the paper: categorical features (label included) and numerical features per task
TABLE_1_COUNTS = {"income": (9, 9), "employment": (18, 10), "coverage": (19, 10),
                  "travel": (13, 9), "mobility": (20, 10)}


@pytest.mark.parametrize("task", list(TABLE_1_COUNTS))
def test_the_rebuilt_feature_lists_give_table_1s_counts(task):
    spec = PAPER_TASKS[task]
    assert (len(spec.categorical) + len(spec.targets), len(spec.numerical)) == \
        TABLE_1_COUNTS[task]


def test_the_multitask_set_has_25_categorical_columns_and_the_rules_8_numbers():
    spec = PAPER_TASKS["multitask"]
    assert len(spec.categorical) + len(spec.targets) == 25
    assert len(spec.numerical) == 8  # the paper says 9: its code lists PAP instead of PINCP


def test_stand_in_targets_follow_their_rules(sdnist_root):
    income = load_stand_in("income", "ma2018", sdnist_root)
    raw = income.coding.decode(income.data)
    assert income.stand_in and income.data.targets == ("income",)
    assert "PINCP" not in income.data.domain.numerical  # the target's source is not a feature
    worked = load_stand_in("worked", "ma2018", sdnist_root)
    assert "INDP_CAT" not in worked.data.domain.categorical
    assert set(raw["income"]) <= {0, 1}
    multitask = load_stand_in("multitask", "ma2018", sdnist_root)
    assert multitask.data.targets == tuple(STAND_IN_TASKS["multitask"].targets)
    for source in ("PINCP", "INDP_CAT", "OWN_RENT", "MSP", "HISP"):
        assert source not in multitask.data.domain


def test_numbers_are_scaled_by_the_dictionarys_ranges(sdnist_root):
    bounds = sdnist_bounds(sdnist_root)
    assert bounds["AGEP"] == (0, 99) and bounds["POVPIP"][1] == 501
    data = load_stand_in("hispanic", "tx2018", sdnist_root)
    assert not data.coding.bounds_from_data
    age = data.coding.decode(data.data)["AGEP"].to_numpy(float)
    np.testing.assert_allclose(data.data.column("AGEP"), age / 99)


def test_the_split_keeps_four_fifths_and_changes_with_the_seed(sdnist_root):
    data = load_stand_in("owner", "ma2018", sdnist_root).data
    train, test = split(data, 0)
    assert train.records + test.records == data.records
    assert abs(train.records / data.records - 0.8) < 0.02
    assert split(data, 1)[0].records != train.records or not np.array_equal(
        split(data, 1)[0].numerical, train.numerical)


def test_the_paper_task_is_built_from_person_records(tmp_path, monkeypatch):
    """The folktables path on a fake person file: rows filtered, target made, codes kept."""
    rows = pd.DataFrame({c: [1, 1, 2] for c in PAPER_TASKS["income"].categorical})
    rows = rows.assign(AGEP=[30, 15, 40], WKHP=[40, 0, 20], PINCP=[60_000, 0, 20_000],
                       PWGTP=[10, 10, 10], INTP=[0, 0, 5e6], JWMNP=[10, None, 30], JWRIP=[1, 1, 1],
                       SEMP=[0, 0, 0], WAGP=[60_000, 0, 20_000], POVPIP=[400, 100, 200],
                       ESR=[1, 6, 1], PUBCOV=[2, 1, 2], MIG=[1, 1, 3])
    rows.attrs["source"] = "fake.csv"
    monkeypatch.setattr("reprolib.papers.rappp.data.load_acs_persons",
                        lambda *args, **kwargs: rows.copy())
    loaded = load_paper_task("income", "NY", tmp_path)
    assert not loaded.stand_in and loaded.data.records == 2  # the 15-year-old is filtered out
    assert list(loaded.data.column("income")) == [1, 0]
    assert loaded.coding.clip and loaded.data.column("INTP").max() == 1.0  # 5e6 clipped


def test_a_paper_state_without_records_says_how_to_get_them(tmp_path):
    with pytest.raises(DataError, match="download=True.*stand-in state"):
        load_task("income", "CA", tmp_path)
