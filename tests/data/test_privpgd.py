import dataclasses
import re
from pathlib import Path
from urllib.error import URLError

import folktables
import numpy as np
import pandas as pd
import pytest
from sklearn.utils import Bunch

from reprolib.data import ACS_TASKS, DataError, Dataset, Domain, RawTable
from reprolib.papers.privpgd.data import (
    PRIVPGD_DATASETS,
    _split,
    load_privpgd_dataset,
    privpgd_data_claims,
    privpgd_discretisation,
)

# PrivPGD, Appendix A: n (records of the private 80 % split) and d (attributes with the target).
PAPER_APPENDIX_A = {
    "income": (760_157, 11),
    "employment": (1_503_938, 17),
    "mobility": (318_332, 22),
    "traveltime": (667_132, 17),
    "publiccoverage": (583_545, 20),
    "medical": (130_452, 3),
    "blackfriday": (133_456, 9),
    "taxi": (465_468, 9),
    "diabetes": (56_872, 7),
}
# Rows of the whole OpenML tables (before the split), from the tables' OpenML records.
OPENML_ROWS = {"medical": 163_065, "blackfriday": 166_821, "taxi": 581_835, "diabetes": 71_090}
# The offline substitutes: records of the whole table (train + test) and attributes.
SUBSTITUTE_SHAPES = {
    "income": (25_006, 7),
    "employment": (43_130, 11),
    "traveltime": (26_152, 9),
    "publiccoverage": (12_949, 13),
    "mobility": (8_890, 12),
    "medical": (163_065, 3),
    "blackfriday": (42_535, 9),
    "taxi": (135_727, 8),
    "diabetes": (71_090, 7),
}


@pytest.fixture(scope="module")
def substitutes(shared_data):
    """Every substitute, loaded once with the default seed."""
    return {name: load_privpgd_dataset(name, substitute="only") for name in PRIVPGD_DATASETS}


def test_registry_holds_the_nine_with_the_papers_numbers():
    assert privpgd_data_claims() == PAPER_APPENDIX_A
    tasks = {name: entry.task for name, entry in PRIVPGD_DATASETS.items()}
    assert {n for n, t in tasks.items() if t == "regression"} == {"medical", "blackfriday", "taxi"}
    for name, entry in PRIVPGD_DATASETS.items():
        assert entry.name == name and entry.substitute
        assert (entry.acs_task is None) != (entry.openml_id is None)
        assert entry.acs_task is None or entry.acs_task in ACS_TASKS
    ids = {e.name: e.openml_id for e in PRIVPGD_DATASETS.values() if e.openml_id}
    assert ids == {"medical": 44146, "blackfriday": 44057, "taxi": 44143, "diabetes": 45022}


def test_registry_is_frozen():
    with pytest.raises(TypeError):
        PRIVPGD_DATASETS["new"] = PRIVPGD_DATASETS["income"]  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        PRIVPGD_DATASETS["income"].paper_n = 1  # type: ignore[misc]


@pytest.mark.parametrize("name", sorted(OPENML_ROWS))
def test_paper_n_is_the_80_percent_split_of_the_openml_rows(name):
    rows = OPENML_ROWS[name]
    dataset = Dataset(pd.DataFrame({"x": np.zeros(rows, dtype=np.int64)}), Domain(("x",), (1,)))
    train, test = _split(dataset, seed=0)
    assert train.records == PAPER_APPENDIX_A[name][0]
    assert test.records == rows - train.records


@pytest.mark.parametrize("name", sorted(PAPER_APPENDIX_A))
def test_paper_n_and_d_on_the_real_data(name):
    try:
        data = load_privpgd_dataset(name, substitute="never")
    except DataError as err:
        pytest.skip(f"the paper's data for {name!r} is not available here: {err}")
    assert data.substitute is None and not data.source_label.startswith("substitute")
    assert (data.train.records, len(data.train.domain)) == PAPER_APPENDIX_A[name]


@pytest.mark.parametrize("name", sorted(PAPER_APPENDIX_A))
def test_substitute_loads_labelled_and_coded(substitutes, name):
    data = substitutes[name]
    entry = PRIVPGD_DATASETS[name]
    assert data.substitute == entry.substitute and data.name == name and data.task == entry.task
    assert data.source_label.startswith("substitute: ")
    assert data.source_label.endswith(f"(paper: {entry.title}, {entry.source})")
    domain = data.train.domain
    assert data.test.domain == domain and domain.attributes[-1] == data.target
    assert (data.train.records + data.test.records, len(domain)) == SUBSTITUTE_SHAPES[name]
    assert max(domain.sizes) <= 32
    for column in data.discretisation.columns:
        if column.edges is not None:
            assert column.size == 32, column.name
    if data.task == "classification":
        assert domain.size(data.target) == 2


@pytest.mark.parametrize("name", sorted(PAPER_APPENDIX_A))
def test_substitute_split_is_80_20_and_seeded(substitutes, shared_data, name):
    data = substitutes[name]
    total = data.train.records + data.test.records
    assert data.test.records == -(-total // 5)
    again = load_privpgd_dataset(name, substitute="only", seed=0, data_dir=shared_data)
    pd.testing.assert_frame_equal(again.train.frame, data.train.frame)
    pd.testing.assert_frame_equal(again.test.frame, data.test.frame)
    other = load_privpgd_dataset(name, substitute="only", seed=1, data_dir=shared_data)
    assert not other.test.frame.equals(data.test.frame)


@pytest.mark.parametrize(
    "name", ["income", "employment", "traveltime", "publiccoverage", "mobility"]
)
def test_acs_substitute_feature_count_matches_its_label(substitutes, name):
    data = substitutes[name]
    kept, total = map(int, re.search(r"(\d+) of the (\d+) features", data.source_label).groups())
    problem = getattr(folktables, ACS_TASKS[PRIVPGD_DATASETS[name].acs_task][0])
    assert (kept, total) == (len(data.train.domain) - 1, len(problem.features))


def test_split_is_a_disjoint_cover():
    rows = 1_001
    frame = pd.DataFrame({"id": np.arange(rows, dtype=np.int64)})
    train, test = _split(Dataset(frame, Domain(("id",), (rows,))), seed=3)
    ids_train, ids_test = set(train.frame["id"]), set(test.frame["id"])
    assert not ids_train & ids_test and ids_train | ids_test == set(range(rows))
    assert (train.records, test.records) == (800, 201)


def test_discretisation_follows_the_papers_rule():
    frame = pd.DataFrame(
        {
            "real": np.linspace(0.0, 3.1, 40),
            "narrow": np.r_[np.arange(1, 33), [1] * 8],  # 32 integers: one code each
            "gappy": np.r_[[0, 5, 31], [0] * 37],  # span 32 with gaps: codes 0..31
            "wide": np.arange(40),  # span 40 > 32: binned
            "code": np.r_[[170, 9920], [170] * 38],  # integer codes of a categorical: binned
            "word": ["b", "a"] * 20,
        }
    )
    kinds = {c: "numerical" for c in frame} | {"code": "categorical", "word": "categorical"}
    coding = privpgd_discretisation(RawTable(frame, kinds))
    sizes = coding.domain.as_dict()
    assert sizes == {"real": 32, "narrow": 32, "gappy": 32, "wide": 32, "code": 32, "word": 2}
    by_name = {c.name: c for c in coding.columns}
    assert by_name["real"].edges[0] == 0.0 and by_name["real"].edges[-1] == pytest.approx(3.1)
    assert by_name["gappy"].values == tuple(range(32))
    assert by_name["word"].values == ("a", "b")
    coded = coding.apply(RawTable(frame, kinds)).frame
    assert coded["wide"].tolist()[-1] == 31 and coded["code"].tolist()[:2] == [0, 31]


def _write_income_person_file(root: Path, rows: int = 200) -> None:
    """A synthetic CA 2018 5-year person file with the columns ACSIncome reads."""
    rng = np.random.default_rng(5)
    codes = {"COW": 8, "SCHL": 24, "MAR": 5, "OCCP": 9920, "POBP": 554, "RELP": 17, "SEX": 2}
    frame = pd.DataFrame(
        {
            "RT": "P",
            "SERIALNO": [f"2018GQ{i:07d}" for i in range(rows)],
            "AGEP": rng.integers(17, 95, rows),
            "PINCP": rng.integers(200, 200_000, rows).astype(float),
            "WKHP": rng.integers(1, 80, rows),
            "PWGTP": rng.integers(1, 100, rows),
            "RAC1P": rng.integers(1, 10, rows),
            **{name: rng.integers(1, top + 1, rows) for name, top in codes.items()},
        }
    )
    path = root / "folktables" / "2018" / "5-Year" / "psam_p06.csv"
    path.parent.mkdir(parents=True)
    frame.to_csv(path, index=False)


def test_real_acs_path_reads_the_5_year_file(tmp_path):
    _write_income_person_file(tmp_path)
    data = load_privpgd_dataset("income", substitute="never", data_dir=tmp_path)
    assert data.substitute is None and "ACSIncome" in data.source_label
    assert data.train.records + data.test.records == 200 and data.test.records == 40
    assert len(data.train.domain) == 11 and data.target == "label"
    assert data.train.domain.size("SEX") == 2 and data.train.domain.size("OCCP") == 32


def test_missing_acs_file_names_the_file_and_the_download(tmp_path):
    with pytest.raises(DataError, match=r"psam_p06\.csv.*5-Year.*download=True"):
        load_privpgd_dataset("mobility", substitute="never", data_dir=tmp_path)


def test_auto_falls_back_to_the_substitute_without_the_acs_file(shared_data):
    if (shared_data / "folktables" / "2018" / "5-Year" / "psam_p06.csv").is_file():
        pytest.skip("the real ACS file is present here; auto loads it")
    data = load_privpgd_dataset("mobility", data_dir=shared_data)
    assert data.substitute is not None and data.source_label.startswith("substitute: ")


def _fake_openml(monkeypatch, result):
    def fetch_openml(**kwargs):
        if isinstance(result, Exception):
            raise result
        return result

    monkeypatch.setattr("sklearn.datasets.fetch_openml", fetch_openml)


def test_openml_path_drops_missing_rows_and_the_first_column(monkeypatch, tmp_path):
    frame = pd.DataFrame(
        {
            "AverageTotalPayments": np.linspace(1.0, 50.0, 10),
            "Total_Discharges": np.r_[np.arange(11, 20), np.nan],
            "Average_Covered_Charges": np.linspace(5.0, 500.0, 10),
            "Average_Medicare_Payments": np.linspace(1.0, 40.0, 10),
        }
    )
    features = ["Total_Discharges", "Average_Covered_Charges", "Average_Medicare_Payments"]
    bunch = Bunch(frame=frame, feature_names=features, target_names=["AverageTotalPayments"])
    _fake_openml(monkeypatch, bunch)
    data = load_privpgd_dataset("medical", substitute="never", data_dir=tmp_path)
    assert data.substitute is None and "OpenML 44146" in data.source_label
    assert data.train.domain.attributes == (*features[1:], "AverageTotalPayments")
    assert data.train.records + data.test.records == 9


def test_openml_offline_raises_or_falls_back(monkeypatch, shared_data):
    _fake_openml(monkeypatch, URLError("Name or service not known"))
    with pytest.raises(DataError, match=r"OpenML dataset 44146.*could not be downloaded"):
        load_privpgd_dataset("medical", substitute="never", data_dir=shared_data)
    data = load_privpgd_dataset("medical", substitute="auto", data_dir=shared_data)
    assert data.substitute == "medical-charges/raw"


def test_openml_wrong_target_is_an_error(monkeypatch, tmp_path):
    bunch = Bunch(frame=pd.DataFrame({"a": [1.0], "b": [2.0]}), feature_names=["a"],
                  target_names=["b"])  # fmt: skip
    _fake_openml(monkeypatch, bunch)
    with pytest.raises(DataError, match="expects 'Purchase'"):
        load_privpgd_dataset("blackfriday", substitute="never", data_dir=tmp_path)


def test_unknown_name_and_mode():
    with pytest.raises(KeyError, match="'incme'.*'income'"):
        load_privpgd_dataset("incme")
    with pytest.raises(ValueError, match="substitute must be"):
        load_privpgd_dataset("income", substitute="sometimes")  # type: ignore[arg-type]
