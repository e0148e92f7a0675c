"""The five folktables ACS prediction tasks, and how PrivPGD discretised them."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from reprolib.data._containers import ColumnKind, RawTable
from reprolib.data._domain import Domain
from reprolib.data._errors import DataError
from reprolib.data._info import DatasetInfo
from reprolib.data._paths import data_dir as default_data_dir
from reprolib.data._paths import require_file, user_cache_dir

__all__ = [
    "ACS_BOUNDS",
    "ACS_DATASETS",
    "ACS_HORIZONS",
    "ACS_NUMERICAL",
    "ACS_TASKS",
    "LABEL",
    "AcsSchema",
    "acs_schema",
    "load_acs_persons",
    "load_acs_task",
]

#: Task name -> (folktables problem, folder infix of PrivPGD's schemas).
ACS_TASKS = {
    "income": ("ACSIncome", "income"),
    "employment": ("ACSEmployment", "employment"),
    "public_coverage": ("ACSPublicCoverage", "publiccoverage"),
    "mobility": ("ACSMobility", "mobility"),
    "travel_time": ("ACSTravelTime", "traveltime"),
}
#: ACS variables that are quantities (age, hours, income, poverty ratio, minutes); all other
#: task features are codes and are categorical.
ACS_NUMERICAL = frozenset({"AGEP", "WKHP", "PINCP", "POVPIP", "JWMNP"})
#: Public ranges of ACS PUMS quantities (ours, wide enough for every PUMS code; a missing value
#: is 0): what codes these columns into [0, 1] without reading the records.
ACS_BOUNDS = {"AGEP": (0, 99), "WKHP": (0, 99), "PINCP": (-20_000, 2_000_000),
              "PWGTP": (0, 9_999), "INTP": (-10_000, 1_000_000), "JWMNP": (0, 200),
              "JWRIP": (0, 10), "SEMP": (-10_000, 1_000_000), "WAGP": (0, 1_000_000),
              "POVPIP": (0, 501)}
#: Name of the binary label column (the task's target after folktables' transform).
LABEL = "label"
#: ACS PUMS horizons folktables serves; PrivPGD used the 5-year sample.
ACS_HORIZONS = ("1-Year", "5-Year")
_SCHEMA_SOURCE = "jaabmar/private-pgd@dd315e0ad3d09b2b326028d99754e781307ac4b8, data/datasets/"


def _problem(task: str):
    import folktables

    try:
        problem_name, _ = ACS_TASKS[task]
    except KeyError:
        raise ValueError(f"Unknown ACS task {task!r}; choose one of {list(ACS_TASKS)}.") from None
    return getattr(folktables, problem_name)


def _person_file(root: Path, state: str, year: int, horizon: str = "1-Year") -> Path:
    """Where folktables keeps (and looks for) the person file of ``state``, ``year``, horizon."""
    from folktables.load_acs import _STATE_CODES

    if state not in _STATE_CODES:
        raise ValueError(
            f"Unknown state {state!r}; use a code such as 'CA' ({sorted(_STATE_CODES)})."
        )
    if year < 2014:
        raise ValueError(f"folktables serves ACS years from 2014 on, got {year}.")
    if horizon not in ACS_HORIZONS:
        raise ValueError(f"Unknown ACS horizon {horizon!r}; choose one of {ACS_HORIZONS}.")
    name = (
        f"psam_p{_STATE_CODES[state]}.csv"
        if year >= 2017
        else f"ss{year % 100:02d}p{state.lower()}.csv"
    )
    return root / str(year) / horizon / name


def _default_root(state: str, year: int, horizon: str = "1-Year") -> Path:
    """``<data_dir()>/folktables`` if it holds the file or is writable, else the user cache."""
    shared = default_data_dir() / "folktables"
    if _person_file(shared, state, year, horizon).is_file():
        return shared
    existing = next((p for p in (shared, *shared.parents) if p.exists()), shared)
    return shared if os.access(existing, os.W_OK) else user_cache_dir() / "folktables"


def load_acs_persons(
    state: str = "CA",
    year: int = 2018,
    root_dir: Path | str | None = None,
    download: bool = False,
    horizon: str = "1-Year",
) -> pd.DataFrame:
    """Every ACS PUMS person record of ``state`` and ``year``, all columns, through folktables.

    ``attrs["source"]`` names the file. Arguments as :func:`load_acs_task`.

    Raises:
        ValueError: For an unknown state or horizon.
        DataError: If the file is missing and ``download`` is false.
    """
    import folktables

    root = Path(root_dir) if root_dir is not None else _default_root(state, year, horizon)
    person_file = _person_file(root, state, year, horizon)
    if not download and not person_file.is_file():
        raise DataError(
            f"ACS PUMS rows for {state} {year} ({horizon}, person) are not available offline:"
            f" {person_file} does not exist. On a machine with network access pass"
            " download=True, which fetches them from www2.census.gov through folktables, or"
            " copy the file there."
        )
    source = folktables.ACSDataSource(
        survey_year=str(year), horizon=horizon, survey="person", root_dir=str(root)
    )
    rows = source.get_data(states=[state], download=download)
    rows.attrs["source"] = str(person_file)
    return rows


def load_acs_task(
    task: str,
    state: str = "CA",
    year: int = 2018,
    root_dir: Path | str | None = None,
    download: bool = False,
    horizon: str = "1-Year",
) -> RawTable:
    """Features and label of a folktables ACS task (person survey of one state).

    The rows pass the task's folktables filter (e.g. ACSIncome: age > 16, income > 100, hours
    > 0); missing feature values become 0, as folktables does. The label column ``"label"``
    holds 0/1: income PINCP > 50,000; employment ESR == 1; public_coverage PUBCOV == 1;
    mobility MIG == 1; travel_time JWMNP > 20 minutes. Columns in :data:`ACS_NUMERICAL` are
    numerical (float), the other features and the label categorical (int64 codes).

    Args:
        task: One of ``income``, ``employment``, ``public_coverage``, ``mobility``,
            ``travel_time``.
        state: Two-letter state code.
        year: Survey year (>= 2014).
        root_dir: folktables' data folder (it holds ``<year>/<horizon>/psam_p<fips>.csv``).
            Default: ``<data_dir()>/folktables``, or ``~/.cache/reprolib/data/folktables``
            when that is not writable.
        download: Fetch the file from the Census Bureau if it is missing (needs network).
        horizon: ``"1-Year"`` (default) or ``"5-Year"`` (the sample PrivPGD used).

    Raises:
        ValueError: For an unknown task, state or horizon.
        DataError: If the file is missing and ``download`` is false.
    """
    problem = _problem(task)
    rows = load_acs_persons(state, year, root_dir, download, horizon)
    person_file = rows.attrs["source"]
    features, target, _ = problem.df_to_pandas(rows)
    frame = pd.DataFrame(
        {
            name: features[name].astype(np.float64 if name in ACS_NUMERICAL else np.int64)
            for name in features.columns
        }
    )
    frame[LABEL] = target.iloc[:, 0].to_numpy().astype(np.int64)
    kinds: dict[str, ColumnKind] = {
        name: "numerical" if name in ACS_NUMERICAL else "categorical" for name in frame.columns
    }
    return RawTable(frame, kinds, target=LABEL, source=str(person_file))


@dataclass(frozen=True, eq=False)
class AcsSchema:
    """PrivPGD's discretisation of an ACS CA-2018 task (32 bins per feature, binary label).

    Attributes:
        task: The task name.
        domain: Attributes named by the task's folktables features (in folktables order) and
            ``"label"``; every feature 32 codes, the label 2.
        bin_centres: ``{attribute: centres}``, the value each code decodes to (PrivPGD's
            ``inverse_mapping``), one float per code.
    """

    task: str
    domain: Domain
    bin_centres: dict[str, np.ndarray]


def acs_schema(task: str, data_dir: Path | str | None = None) -> AcsSchema:
    """Read PrivPGD's domain and bin centres of ``task`` (files ``acs_<task>_CA_2018/``).

    PrivPGD names columns by position ("0", "1", ...) in the task's folktables feature list;
    here they are renamed to the feature names.

    Args:
        task: One of the five task names of :func:`load_acs_task`.
        data_dir: The data directory; default :func:`reprolib.data.data_dir`.
    """
    features = list(_problem(task).features)
    root = Path(data_dir) if data_dir is not None else default_data_dir()
    folder = f"privpgd-acs-schemas/acs_{ACS_TASKS[task][1]}_CA_2018"
    source = f"{_SCHEMA_SOURCE}acs_{ACS_TASKS[task][1]}_CA_2018_default_32/"
    paths = {
        stem: require_file(f"acs-schema/{task}", f"{folder}/{stem}.json", root, source)
        for stem in ("domain", "bin_centres")
    }
    sizes = json.loads(paths["domain"].read_text())
    centres = json.loads(paths["bin_centres"].read_text())
    expected = [str(i) for i in range(len(features))] + [LABEL]
    if list(sizes) != expected or sorted(centres) != sorted(expected):
        raise DataError(
            f"{paths['domain']} has columns {list(sizes)}, expected {expected} (one per"
            f" folktables feature of {task}, then the label); the schema does not fit the task."
        )
    names = {key: features[int(key)] if key != LABEL else LABEL for key in expected}
    domain = Domain(tuple(names.values()), tuple(sizes[key] for key in expected))
    return AcsSchema(
        task, domain, {names[key]: np.asarray(centres[key], dtype=np.float64) for key in expected}
    )


def _load_registered(task: str, root: Path) -> RawTable:
    return load_acs_task(task, root_dir=root / "folktables")


ACS_DATASETS: tuple[DatasetInfo, ...] = tuple(
    DatasetInfo(
        name=f"acs/{task}",
        description=f"folktables {problem}, California 2018 (not offline; needs a download)",
        kind="raw",
        source="US Census Bureau ACS PUMS 1-Year via folktables 0.0.12 (www2.census.gov)",
        license="public domain (US federal data)",
        files=(),
        loader=partial(_load_registered, task),
    )
    for task, (problem, _) in ACS_TASKS.items()
)
