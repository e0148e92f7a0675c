import numpy as np
import pandas as pd
import pytest

from reprolib.data import DataError, RawTable, discretise, fit_discretisation


@pytest.fixture
def table() -> RawTable:
    frame = pd.DataFrame(
        {
            "income": [0.0, 10.0, 20.0, 30.0, 40.0, np.nan, 25.5],
            "children": [0, 1, 2, 2, 0, 1, 3],
            "colour": ["red", "blue", None, "red", "green", "blue", "red"],
        }
    )
    kinds = {"income": "numerical", "children": "numerical", "colour": "categorical"}
    return RawTable(frame, kinds, target="colour")


def test_equal_width_bins(table):
    coding = fit_discretisation(table, bins=4)
    income = coding.columns[0]
    assert income.edges == (0.0, 10.0, 20.0, 30.0, 40.0)
    assert income.size == 5  # 4 bins + missing
    codes = coding.apply(table).frame["income"].tolist()
    assert codes == [0, 1, 2, 3, 3, 4, 2]  # max goes to the last bin, NaN to the missing code


def test_narrow_integer_column_keeps_values(table):
    coding = fit_discretisation(table, bins=4)
    children = coding.columns[1]
    assert children.values == (0, 1, 2, 3) and children.edges is None
    assert discretise(table, bins=4).frame["children"].tolist() == [0, 1, 2, 2, 0, 1, 3]
    wide = fit_discretisation(table, bins=3).columns[1]  # 4 distinct values > 3 bins
    assert wide.edges is not None and len(wide.edges) == 4


def test_categorical_sorted_with_missing_last(table):
    colour = fit_discretisation(table).columns[2]
    assert colour.labels() == ("blue", "green", "red", "missing")
    assert discretise(table).frame["colour"].tolist() == [2, 0, 3, 2, 1, 0, 2]


def test_domain_sizes_and_default_32_bins(table):
    data = discretise(table)
    assert data.domain.as_dict() == {"income": 33, "children": 4, "colour": 4}
    assert data.records == table.records


def test_deterministic(table):
    first, second = discretise(table, bins=5), discretise(table, bins=5)
    pd.testing.assert_frame_equal(first.frame, second.frame)
    assert fit_discretisation(table, 5) == fit_discretisation(table, 5)


def test_inverse_labels_and_decode(table):
    coding = fit_discretisation(table, bins=4)
    assert coding.columns[0].labels() == (
        "[0, 10)",
        "[10, 20)",
        "[20, 30)",
        "[30, 40]",
        "missing",
    )
    decoded = coding.decode(coding.apply(table))
    np.testing.assert_array_equal(decoded["income"], [5, 15, 25, 35, 35, np.nan, 25])
    np.testing.assert_array_equal(decoded["children"], table.frame["children"])
    assert decoded["colour"].tolist()[:2] == ["red", "blue"]
    assert pd.isna(decoded["colour"][2])


def test_unseen_category_is_an_error(table):
    coding = fit_discretisation(table)
    other = RawTable(
        table.frame.assign(colour=["purple"] * table.records), table.kinds, source="other.csv"
    )
    with pytest.raises(DataError, match="'colour' has value 'purple'"):
        coding.apply(other)


def test_raw_table_validates_kinds(table):
    with pytest.raises(DataError, match=r"without a kind \['colour'\]"):
        RawTable(table.frame, {"income": "numerical", "children": "numerical"})
    with pytest.raises(DataError, match="Numerical column 'colour'"):
        RawTable(table.frame, {**table.kinds, "colour": "numerical"})
