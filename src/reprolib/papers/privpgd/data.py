"""The nine datasets of PrivPGD (Donhauser et al., ICML 2024, Section 4.1 and Appendix A).

Five ACS California 2018 prediction tasks (folktables, 5-year sample) and four tables of the
Grinsztajn et al. (2022) benchmark (OpenML). :func:`load_privpgd_dataset` loads the paper's table
where it can (the ACS person file on disk, or OpenML over the network or from its cache) and
otherwise a clearly labelled real substitute (see ``_privpgd_substitutes``). Either way it applies
the paper's preprocessing: :func:`privpgd_discretisation` on the whole table, then a seeded
80/20 split into the private data D and the test data D_test.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Literal
from urllib.error import HTTPError, URLError

import numpy as np
import pandas as pd

from reprolib.data._containers import ColumnKind, RawTable
from reprolib.data._discretise import ColumnCoding, Discretisation
from reprolib.data._domain import Dataset
from reprolib.data._errors import DataError
from reprolib.data._folktables import (
    ACS_TASKS,
    LABEL,
    _default_root,
    _person_file,
    load_acs_task,
)
from reprolib.data._paths import data_dir as default_data_dir
from reprolib.data._paths import user_cache_dir
from reprolib.papers.privpgd._substitutes import SUBSTITUTES

__all__ = [
    "PRIVPGD_DATASETS",
    "PrivPGDData",
    "PrivPGDDataset",
    "load_privpgd_dataset",
    "privpgd_data_claims",
    "privpgd_discretisation",
]

Task = Literal["classification", "regression"]
SubstituteMode = Literal["auto", "never", "only"]
#: Bins of a real-valued or wide integer column (paper, Section 4.1).
PAPER_BINS = 32
_ACS_YEAR, _ACS_STATE, _ACS_HORIZON = 2018, "CA", "5-Year"


@dataclass(frozen=True)
class PrivPGDDataset:
    """One of the paper's nine datasets.

    Attributes:
        name: Short name, as the paper's tables abbreviate it (``"income"``, ``"taxi"``, ...).
        title: The paper's name of the dataset.
        source: Where the paper's data comes from, in words.
        acs_task: The folktables task (a key of ``ACS_TASKS``), for the ACS datasets.
        openml_id: The OpenML dataset id, for the benchmark tables.
        target: Name of the target column in the paper's data (``"label"`` for ACS).
        target_meaning: What the target is.
        task: ``"classification"`` (0-1 error) or ``"regression"`` (MSE of the target's bin).
        paper_n: Records of the private 80 % split D, as the paper reports them.
        paper_d: Attributes including the target, as the paper reports them.
        substitute: The real table standing in for it offline (registry name), or None.
    """

    name: str
    title: str
    source: str
    acs_task: str | None
    openml_id: int | None
    target: str
    target_meaning: str
    task: Task
    paper_n: int
    paper_d: int
    substitute: str | None


def _acs(name: str, task: str, title: str, meaning: str, n: int, d: int) -> PrivPGDDataset:
    source = f"folktables {ACS_TASKS[task][0]}, {_ACS_STATE} {_ACS_YEAR} {_ACS_HORIZON} ACS PUMS"
    return PrivPGDDataset(
        name, title, source, task, None, LABEL, meaning, "classification", n, d,
        SUBSTITUTES[name].dataset,
    )  # fmt: skip


def _openml(
    name: str, title: str, openml_id: int, target: str, meaning: str, task: Task, n: int, d: int
) -> PrivPGDDataset:
    source = f"OpenML {openml_id} (Grinsztajn et al. 2022 benchmark)"
    return PrivPGDDataset(
        name, title, source, None, openml_id, target, meaning, task, n, d,
        SUBSTITUTES[name].dataset,
    )  # fmt: skip


#: The paper's nine datasets by short name, with n and d from Appendix A.
PRIVPGD_DATASETS: MappingProxyType[str, PrivPGDDataset] = MappingProxyType({
    entry.name: entry
    for entry in (
        _acs("income", "income", "ACS Income", "PINCP > 50,000", 760_157, 11),
        _acs("employment", "employment", "ACS Employment", "ESR == 1 (employed)", 1_503_938, 17),
        _acs("traveltime", "travel_time", "ACS Travel Time", "JWMNP > 20 minutes", 667_132, 17),
        _acs("publiccoverage", "public_coverage", "ACS Public Coverage", "PUBCOV == 1",
             583_545, 20),
        _acs("mobility", "mobility", "ACS Mobility", "MIG == 1 (same house)", 318_332, 22),
        _openml("medical", "Medical charges", 44146, "AverageTotalPayments",
                "average total payment per discharge", "regression", 130_452, 3),
        _openml("blackfriday", "Black Friday", 44057, "Purchase", "purchase amount",
                "regression", 133_456, 9),
        _openml("taxi", "NYC Taxi Green Dec 2016", 44143, "tip_amount", "tip amount",
                "regression", 465_468, 9),
        _openml("diabetes", "Diabetes 130-US", 45022, "readmitted", "readmitted (>30 days or no)",
                "classification", 56_872, 7),
    )
})  # fmt: skip


def privpgd_data_claims() -> dict[str, tuple[int, int]]:
    """The paper's ``(n, d)`` per dataset: records of the 80 % split D, attributes with target."""
    return {name: (entry.paper_n, entry.paper_d) for name, entry in PRIVPGD_DATASETS.items()}


@dataclass(frozen=True, eq=False)
class PrivPGDData:
    """A PrivPGD dataset, discretised and split.

    Attributes:
        name: The dataset's short name.
        task: ``"classification"`` or ``"regression"``.
        target: The target column of ``train`` and ``test`` (last column).
        train: The private data D (80 %).
        test: The test data D_test (20 %); same domain as ``train``.
        source_label: What was loaded, in words; ``"substitute: ... (paper: ...)"`` for a substitute.
        substitute: The substitute table's registry name, or None for the paper's own data.
        discretisation: The coding of every column (``.decode`` maps codes back to values).
    """

    name: str
    task: Task
    target: str
    train: Dataset
    test: Dataset
    source_label: str
    substitute: str | None
    discretisation: Discretisation


def _fit_column(name: str, column: pd.Series, bins: int) -> ColumnCoding:
    missing = bool(column.isna().any())
    if not pd.api.types.is_numeric_dtype(column):
        values = tuple(sorted(column.dropna().unique()))
        return ColumnCoding(name, False, values=values, has_missing=missing)
    x = column.dropna().to_numpy(dtype=np.float64)
    lo, hi = (float(x.min()), float(x.max())) if len(x) else (0.0, 0.0)
    if np.all(x == np.round(x)) and hi - lo + 1 <= bins:
        values = tuple(range(int(lo), int(hi) + 1))
        return ColumnCoding(name, True, values=values, has_missing=missing)
    if lo == hi:
        return ColumnCoding(name, True, values=(lo,), has_missing=missing)
    edges = tuple(float(e) for e in np.linspace(lo, hi, bins + 1))
    return ColumnCoding(name, True, edges=edges, has_missing=missing)


def privpgd_discretisation(table: RawTable, bins: int = PAPER_BINS) -> Discretisation:
    """PrivPGD's coding (Section 4.1): "every dimension containing real values or integer values
    exceeding a range of 32 [goes] into 32 equally-sized bins".

    Decided by values, not by the column's kind, so integer codes count as integers (as the paper
    and the authors' code treat them): a column of numbers gets ``bins`` equal-width bins between
    its minimum and maximum if it holds a non-integer or spans more than ``bins`` integers
    (max - min + 1 > bins); otherwise one code per integer from min to max. Any other column
    (strings) gets one code per distinct value, sorted. Missing values get an extra last code.
    Fitted on the data, so not differentially private (neither is the paper's).
    """
    if bins < 1:
        raise ValueError(f"bins must be >= 1, got {bins}.")
    return Discretisation(
        tuple(_fit_column(name, table.frame[name], bins) for name in table.frame.columns)
    )


def _split(data: Dataset, seed: int) -> tuple[Dataset, Dataset]:
    """Seeded 80/20 split; the test part has ceil(n/5) rows, as scikit-learn's
    ``train_test_split(test_size=0.2)`` used by the authors, so the paper's n are reproduced.
    """
    order = np.random.default_rng(seed).permutation(data.records)
    n_test = -(-data.records // 5)

    def part(rows: np.ndarray) -> Dataset:
        frame = data.frame.iloc[np.sort(rows)].reset_index(drop=True)
        return Dataset(frame, data.domain, data.source)

    return part(order[n_test:]), part(order[:n_test])


class _Unavailable(DataError):
    """The paper's data is not on disk and cannot be downloaded here."""


def _load_acs(entry: PrivPGDDataset, root: Path | None) -> RawTable:
    assert entry.acs_task is not None  # called for the ACS datasets only
    if root is not None:
        folder = root / "folktables"
    else:
        folder = _default_root(_ACS_STATE, _ACS_YEAR, _ACS_HORIZON)
    path = _person_file(folder, _ACS_STATE, _ACS_YEAR, _ACS_HORIZON)
    if not path.is_file():
        raise _Unavailable(
            f"PrivPGD dataset {entry.name!r} needs the ACS PUMS person file {path} ({_ACS_STATE}"
            f" {_ACS_YEAR}, {_ACS_HORIZON}), which does not exist. On a machine with network"
            f" access run reprolib.data.load_acs_task({entry.acs_task!r}, horizon="
            f"{_ACS_HORIZON!r}, root_dir={str(folder)!r}, download=True) (from www2.census.gov),"
            " or copy the file there; or pass substitute='auto' or 'only' for the offline"
            " substitute."
        )
    return load_acs_task(
        entry.acs_task, _ACS_STATE, _ACS_YEAR, root_dir=folder, horizon=_ACS_HORIZON
    )


def _openml_home(root: Path | None) -> Path:
    """``<data dir>/openml`` if it holds a prepared cache, else the user cache (never written
    into the data directory, which may be shared).
    """
    shared = (root if root is not None else default_data_dir()) / "openml"
    return shared if shared.is_dir() else user_cache_dir() / "openml"


def _load_openml(entry: PrivPGDDataset, root: Path | None) -> RawTable:
    """The OpenML table as the authors prepared it: rows with a missing value dropped, target
    last, then the first column dropped (``iloc[:, 1:]`` in their code; it gives the paper's d).
    """
    from sklearn.datasets import fetch_openml

    home = _openml_home(root)
    try:
        with warnings.catch_warnings():  # one retry warns before failing; the error says it all
            warnings.filterwarnings("ignore", "A network error occurred", UserWarning)
            bunch = fetch_openml(
                data_id=entry.openml_id, data_home=home, as_frame=True, n_retries=1, delay=0.01
            )
    except HTTPError:
        raise  # the server answered: not an offline problem
    except (URLError, TimeoutError) as err:
        raise _Unavailable(
            f"PrivPGD dataset {entry.name!r} is OpenML dataset {entry.openml_id}; it is not in"
            f" the OpenML cache {home} and could not be downloaded ({err}). On a machine with"
            f" network access run load_privpgd_dataset({entry.name!r}, substitute='never')"
            " once to fill that cache, or copy the cache there; or pass substitute='auto' or"
            " 'only' for the offline substitute."
        ) from err
    if list(bunch.target_names) != [entry.target]:
        raise DataError(
            f"OpenML dataset {entry.openml_id} has target {bunch.target_names}, but"
            f" PRIVPGD_DATASETS expects {entry.target!r}; correct the registry entry."
        )
    frame = bunch.frame[[*bunch.feature_names, entry.target]].dropna().iloc[:, 1:]
    kinds: dict[str, ColumnKind] = {
        c: "numerical" if pd.api.types.is_numeric_dtype(frame[c]) else "categorical"
        for c in frame.columns
    }
    return RawTable(frame.reset_index(drop=True), kinds, entry.target, f"OpenML {entry.openml_id}")


def load_privpgd_dataset(
    name: str,
    *,
    substitute: SubstituteMode = "auto",
    seed: int = 0,
    data_dir: Path | str | None = None,
) -> PrivPGDData:
    """Load, discretise and split one of PrivPGD's nine datasets.

    Args:
        name: A key of :data:`PRIVPGD_DATASETS`.
        substitute: ``"auto"``: the paper's data if present or downloadable, else the offline
            substitute; ``"never"``: the paper's data or a :class:`DataError` saying what is
            missing; ``"only"``: the substitute, without looking for the paper's data.
        seed: Seed of the 80/20 split (a NumPy generator's permutation).
        data_dir: The data directory; default :func:`reprolib.data.data_dir`. The ACS person
            file is looked for in ``<data_dir>/folktables``; OpenML tables are cached in
            ``<data_dir>/openml`` if that folder exists, else in ``~/.cache/reprolib/data/openml``.

    Raises:
        KeyError: For an unknown name.
        ValueError: For an unknown ``substitute`` mode.
        DataError: With ``"never"``, if the paper's data is missing; if a file is missing or wrong.
    """
    if name not in PRIVPGD_DATASETS:
        raise KeyError(f"Unknown PrivPGD dataset {name!r}; choose one of {list(PRIVPGD_DATASETS)}.")
    if substitute not in ("auto", "never", "only"):
        raise ValueError(f"substitute must be 'auto', 'never' or 'only', got {substitute!r}.")
    entry = PRIVPGD_DATASETS[name]
    root = Path(data_dir) if data_dir is not None else None
    if substitute != "only":
        load_real = _load_acs if entry.acs_task is not None else _load_openml
        try:
            table = load_real(entry, root)
        except _Unavailable:
            if substitute == "never":
                raise
        else:
            return _prepare(
                entry, table, f"{entry.title}: {entry.source} (paper's data)", None, seed
            )
    stand_in = SUBSTITUTES[name]
    table = stand_in.build(root if root is not None else default_data_dir())
    label = f"substitute: {stand_in.description} (paper: {entry.title}, {entry.source})"
    return _prepare(entry, table, label, stand_in.dataset, seed)


def _prepare(
    entry: PrivPGDDataset, table: RawTable, label: str, substitute: str | None, seed: int
) -> PrivPGDData:
    assert table.target is not None  # every loader and substitute names its target
    coding = privpgd_discretisation(table)
    train, test = _split(coding.apply(table), seed)
    return PrivPGDData(entry.name, entry.task, table.target, train, test, label, substitute, coding)
