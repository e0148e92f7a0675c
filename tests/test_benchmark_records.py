"""The benchmarks' CSV writer: rows are appended under the header they match, never shifted."""

import csv
import importlib.util

import pytest

from reprolib._paths import repo_root


def _records():
    spec = importlib.util.spec_from_file_location("_records", repo_root() / "benchmarks" / "_records.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_rows_are_appended_under_their_header_and_a_changed_row_is_refused(tmp_path):
    append = _records().append
    path = tmp_path / "nested" / "runs.csv"
    append(path, {"a": 1, "b": 2})
    append(path, {"a": 3, "b": 4})
    assert list(csv.reader(path.open(newline=""))) == [["a", "b"], ["1", "2"], ["3", "4"]]
    for row in ({"a": 5, "b": 6, "c": 7}, {"b": 6, "a": 5}):
        with pytest.raises(ValueError, match="add the new columns to the old rows first"):
            append(path, row)
    assert len(list(csv.reader(path.open(newline="")))) == 3
