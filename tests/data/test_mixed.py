"""Mixed-type records: coding to [0, 1] and back, binning, and the errors on bad input."""

import numpy as np
import pandas as pd
import pytest

from reprolib.data import (
    DataBoundsWarning,
    DataError,
    Dataset,
    Domain,
    MixedCoding,
    MixedDataset,
    RawTable,
)


def _table(**overrides) -> RawTable:
    frame = pd.DataFrame({"colour": ["red", "blue", "red", "green"], "age": [20.0, 35.0, 50.0, 80.0],
                          "income": [0.0, 1e4, 5e4, 2e5], "label": [0, 1, 1, 0]})
    frame = frame.assign(**overrides)
    kinds = {"colour": "categorical", "age": "numerical", "income": "numerical",
             "label": "categorical"}
    return RawTable(frame, kinds, target="label")


def test_declared_bounds_scale_and_decode_back():
    table = _table()
    coding = MixedCoding.fit(table, bounds={"age": (0, 100), "income": (0, 4e5)})
    assert not coding.bounds_from_data
    data = coding.encode(table)
    assert data.targets == ("label",)
    assert data.domain.categorical.as_dict() == {"colour": 3, "label": 2}
    np.testing.assert_allclose(data.column("age"), [0.2, 0.35, 0.5, 0.8])
    np.testing.assert_allclose(data.column("income"), [0.0, 0.025, 0.125, 0.5])
    back = coding.decode(data)
    assert list(back["colour"]) == ["red", "blue", "red", "green"]
    np.testing.assert_allclose(back["income"].to_numpy(float), table.frame["income"])


def test_bounds_read_off_the_data_are_flagged_and_warned_about():
    with pytest.warns(DataBoundsWarning, match=r"bounds of \['income'\] are the private data's"):
        coding = MixedCoding.fit(_table(), bounds={"age": (0, 100)})
    assert coding.bounds_from_data == ("income",) and coding.bounds["income"] == (0.0, 2e5)
    with pytest.raises(ValueError, match=r"names \['x'\], which have no bounds"):
        MixedCoding({}, {"age": (0, 1)}, bounds_from_data=("x",))


def test_values_outside_declared_bounds_are_refused_with_the_column_named():
    coding = MixedCoding.fit(_table(), bounds={"age": (0, 60), "income": (0, 4e5)})
    with pytest.raises(DataError, match="'age' has 1 values missing or outside"):
        coding.encode(_table())


def test_unknown_categories_are_refused():
    coding = MixedCoding.fit(_table(), bounds={"age": (0, 100), "income": (0, 4e5)})
    with pytest.raises(DataError, match="'colour' has value 'purple'"):
        coding.encode(_table(colour=["purple", "red", "red", "red"]))


def test_numbers_outside_the_unit_interval_are_refused():
    codes = Dataset(pd.DataFrame({"a": [0, 1]}), Domain.from_dict({"a": 2}))
    with pytest.raises(DataError, match="'x' has value 1.5 at row 1"):
        MixedDataset(codes, np.array([[0.2], [1.5]]), ("x",))
    with pytest.raises(ValueError, match="targets \\['b'\\]"):
        MixedDataset(codes, np.array([[0.2], [0.5]]), ("x",), targets=("b",))


def test_binning_is_equal_width_and_unbinning_gives_the_centres():
    codes = Dataset(pd.DataFrame({"a": [0, 1, 1]}), Domain.from_dict({"a": 2}))
    data = MixedDataset(codes, np.array([[0.0], [0.55], [1.0]]), ("x",), targets=("a",))
    binned = data.binned(10)
    assert binned.domain.as_dict() == {"a": 2, "x": 10}
    assert list(binned.frame["x"]) == [0, 5, 9]
    back = MixedDataset.from_binned(binned, ("x",), 10, targets=("a",))
    np.testing.assert_allclose(back.numerical[:, 0], [0.05, 0.55, 0.95])
    assert back.domain == data.domain
