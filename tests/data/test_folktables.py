from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from reprolib.data import ACS_TASKS, DataError, load_acs_task, load_dataset

# Every column the five tasks read (features, targets, filter columns), with plausible codes.
_CODES = {
    "COW": 8, "SCHL": 24, "MAR": 5, "OCCP": 9920, "POBP": 554, "RELP": 17, "SEX": 2,
    "RAC1P": 9, "DIS": 2, "ESP": 8, "CIT": 5, "MIG": 3, "MIL": 4, "ANC": 4, "NATIVITY": 2,
    "DEAR": 2, "DEYE": 2, "DREM": 2, "ESR": 6, "ST": 1, "FER": 2, "GCL": 2, "JWTR": 12,
    "PUMA": 11300, "POWPUMA": 11300, "PUBCOV": 2,
}  # fmt: skip


def _write_acs_fixture(root: Path, rows: int = 300) -> Path:
    """A synthetic CA 2018 person file where folktables looks for it."""
    rng = np.random.default_rng(7)
    frame = pd.DataFrame(
        {
            "RT": "P",
            "SERIALNO": [f"2018GQ{i:07d}" for i in range(rows)],
            "AGEP": rng.integers(0, 95, rows),
            "PINCP": rng.integers(-1000, 200_000, rows).astype(float),
            "WKHP": rng.integers(0, 80, rows),
            "PWGTP": rng.integers(0, 100, rows),
            "POVPIP": rng.integers(0, 501, rows),
            "JWMNP": rng.integers(1, 120, rows),
            **{name: rng.integers(1, top + 1, rows) for name, top in _CODES.items()},
        }
    )
    path = root / "2018" / "1-Year" / "psam_p06.csv"
    path.parent.mkdir(parents=True)
    frame.to_csv(path, index=False)
    return path


@pytest.fixture
def acs_root(tmp_path) -> Path:
    _write_acs_fixture(tmp_path)
    return tmp_path


def test_income_applies_folktables_filter_and_label(acs_root):
    table = load_acs_task("income", root_dir=acs_root)
    raw = pd.read_csv(acs_root / "2018" / "1-Year" / "psam_p06.csv")
    kept = raw[(raw.AGEP > 16) & (raw.PINCP > 100) & (raw.WKHP > 0) & (raw.PWGTP >= 1)]
    assert table.records == len(kept) > 0
    assert table.target == "label"
    np.testing.assert_array_equal(table.frame["label"], (kept.PINCP > 50_000).astype(int))
    assert table.kinds["AGEP"] == table.kinds["WKHP"] == "numerical"
    assert table.kinds["OCCP"] == "categorical" and table.frame["OCCP"].dtype == np.int64
    assert list(table.frame.columns)[:3] == ["AGEP", "COW", "SCHL"]


def test_employment_keeps_all_rows(acs_root):
    table = load_acs_task("employment", state="CA", year=2018, root_dir=acs_root)
    assert table.records == 300
    assert len(table.frame.columns) == 17  # 16 features + label
    assert set(np.unique(table.frame["label"])) <= {0, 1}


@pytest.mark.parametrize("task", sorted(ACS_TASKS))
def test_every_task_loads_from_fixture(acs_root, task):
    table = load_acs_task(task, root_dir=acs_root)
    assert table.records > 0 and "label" in table.kinds


def test_registry_reads_data_dir_folktables(tmp_path):
    _write_acs_fixture(tmp_path / "folktables")
    assert load_dataset("acs/employment", data_dir=tmp_path).records == 300


def test_unknown_task_lists_the_five():
    with pytest.raises(ValueError, match=r"'incme'.*'income', 'employment', 'public_coverage'"):
        load_acs_task("incme")


def test_missing_file_says_offline(tmp_path):
    with pytest.raises(DataError, match=r"not available offline.*psam_p06\.csv.*download=True"):
        load_acs_task("income", root_dir=tmp_path)


def test_horizon_selects_the_folder(acs_root):
    with pytest.raises(DataError, match=r"5-Year/psam_p06\.csv does not exist"):
        load_acs_task("income", root_dir=acs_root, horizon="5-Year")
    with pytest.raises(ValueError, match="Unknown ACS horizon '3-Year'"):
        load_acs_task("income", root_dir=acs_root, horizon="3-Year")
