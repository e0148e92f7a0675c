"""RAP++'s datasets: the paper's folktables ACS tasks, and the real stand-ins used offline.

The paper (Section 5, Table 1, Table 4): ACS person records of 2014 (1-Year, the authors' code)
for CA, NY, TX, FL and PA; five single-task datasets per state and one multitask dataset. Table 4
lost its check marks in the text; the membership below is the rebuild of the notes (folktables'
task features minus the high-cardinality ones, plus the ten numerical columns but the task's own
target, plus WAOB and FOCCP), which gives every count of Table 1. :func:`load_paper_task` builds
them from the Census files through folktables (a download on first use).

Offline there are no ACS rows of those states. The stand-ins are the SDNist excerpts (real 2018
ACS persons: the national sample and Massachusetts and Texas, standing in for states) with
binary targets made only from columns that exist, each named for what it is:

* ``income``: total income PINCP > $50,000 (people over 16 with PINCP > 100, folktables' income
  rows without the hours condition, which the excerpts lack);
* ``worked``: has an industry code, i.e. worked in the last five years (people 16 and over);
* ``owner``: lives in an owned home (people in housing units);
* ``married``: married, spouse present (people 15 and over);
* ``hispanic``: Hispanic origin (everyone).

On the excerpts numbers matter most for ``income`` (the poverty ratio) and not at all for
``hispanic``: the contrast of the paper's Table 3 (its income and employment), measured by
``rappp-tab3``. The multitask stand-in has all five targets over every person, a missing source
counting as the negative label (folktables' NaN -> 0).

Numbers are scaled by *declared* ranges, not the data's min and max (the authors' code reads
them off the whole data set, a leak the book lists among the errata): for the excerpts the
ranges of the SDNist data dictionary, for the paper's columns ranges of ours that contain the
PUMS codes, with values beyond them clipped. Missing numbers are 0, as in folktables.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import cast

import numpy as np
import pandas as pd

from reprolib.data import (
    ACS_BOUNDS,
    SDNIST_NUMERICAL,
    DataError,
    MixedCoding,
    MixedDataset,
    RawTable,
    data_dir,
    load_acs_persons,
    load_dataset,
    sdnist_bounds,
)

PAPER_STATES = ("CA", "NY", "TX", "FL", "PA")
PAPER_YEAR = 2014  # the authors' code: ACSDataSource(survey_year=2014, horizon="1-Year")
PAPER_NUMERICAL = ("AGEP", "WKHP", "PINCP", "PWGTP", "INTP", "JWMNP", "JWRIP", "SEMP", "WAGP",
                   "POVPIP")
STAND_INS = ("national2018", "ma2018", "tx2018")
"""Stand-in 'states': the SDNist 2018 excerpts (national sample, Massachusetts, Texas)."""
SPLIT = 0.8  # train share (the paper's 80/20 split, redrawn for every seed as the code does)

Rows = Callable[[pd.DataFrame], pd.Series]


@dataclasses.dataclass(frozen=True)
class Task:
    """One prediction task: its features, its binary targets and the rows it keeps.

    Attributes:
        name: the task's name.
        title: what the target is, for pages.
        categorical: categorical features (not the targets).
        numerical: numerical features.
        targets: target name -> rule giving 1 or 0 per row of the raw frame.
        rows: the raw rows kept (None: all).
    """

    name: str
    title: str
    categorical: tuple[str, ...]
    numerical: tuple[str, ...]
    targets: dict[str, Rows]
    rows: Rows | None = None


def _gt(column: str, value: float) -> Rows:
    return lambda f: f[column] > value


# -- the paper: Table 4 rebuilt --------------------------------------------------------------------

_INCOME_CATS = ("COW", "SCHL", "MAR", "RELP", "SEX", "RAC1P", "WAOB", "FOCCP")
_EMPLOYMENT_CATS = ("SCHL", "MAR", "RELP", "DIS", "ESP", "CIT", "MIG", "MIL", "ANC", "NATIVITY",
                    "DEAR", "DEYE", "DREM", "SEX", "RAC1P", "WAOB", "FOCCP")
_COVERAGE_CATS = ("SCHL", "MAR", "SEX", "DIS", "ESP", "CIT", "MIG", "MIL", "ANC", "NATIVITY",
                  "DEAR", "DEYE", "DREM", "ESR", "FER", "RAC1P", "WAOB", "FOCCP")
_TRAVEL_CATS = ("SCHL", "MAR", "SEX", "DIS", "ESP", "MIG", "RELP", "RAC1P", "CIT", "JWTR",
                "WAOB", "FOCCP")
_MOBILITY_CATS = ("SCHL", "MAR", "SEX", "DIS", "ESP", "CIT", "MIL", "ANC", "NATIVITY", "RELP",
                  "DEAR", "DEYE", "DREM", "RAC1P", "GCL", "COW", "ESR", "WAOB", "FOCCP")
_MULTITASK_CATS = ("COW", "SCHL", "MAR", "RELP", "SEX", "RAC1P", "WAOB", "FOCCP", "DIS", "ESP",
                   "CIT", "JWTR", "MIL", "ANC", "NATIVITY", "DEAR", "DEYE", "DREM", "GCL", "FER")
_PAPER_TARGETS: dict[str, Rows] = {
    "income": _gt("PINCP", 50_000), "employment": lambda f: f["ESR"] == 1,
    "coverage": lambda f: f["PUBCOV"] == 1, "travel": _gt("JWMNP", 20),
    "mobility": lambda f: f["MIG"] == 1}


def _without(*names: str) -> tuple[str, ...]:
    return tuple(c for c in PAPER_NUMERICAL if c not in names)


PAPER_TASKS: dict[str, Task] = {t.name: t for t in (
    Task("income", "income above $50,000", _INCOME_CATS, _without("PINCP"),
         {"income": _PAPER_TARGETS["income"]},
         lambda f: (f["AGEP"] > 16) & (f["PINCP"] > 100) & (f["WKHP"] > 0) & (f["PWGTP"] >= 1)),
    Task("employment", "employed (ESR = 1)", _EMPLOYMENT_CATS, PAPER_NUMERICAL,
         {"employment": _PAPER_TARGETS["employment"]}),
    Task("coverage", "public health coverage", _COVERAGE_CATS, PAPER_NUMERICAL,
         {"coverage": _PAPER_TARGETS["coverage"]},
         lambda f: (f["AGEP"] < 65) & (f["PINCP"] <= 30_000)),
    Task("travel", "commute over 20 minutes", _TRAVEL_CATS, _without("JWMNP"),
         {"travel": _PAPER_TARGETS["travel"]},
         lambda f: (f["AGEP"] > 16) & (f["PWGTP"] >= 1) & (f["ESR"] == 1)),
    Task("mobility", "same house a year ago", _MOBILITY_CATS, PAPER_NUMERICAL,
         {"mobility": _PAPER_TARGETS["mobility"]},
         lambda f: (f["AGEP"] > 18) & (f["AGEP"] < 35)),
    Task("multitask", "all five targets", _MULTITASK_CATS, _without("PINCP", "JWMNP"),
         dict(_PAPER_TARGETS)),
)}

# -- the offline stand-ins ------------------------------------------------------------------------

_SDNIST_CATS = ("PUMA", "SEX", "MSP", "HISP", "RAC1P", "NOC", "NPF", "HOUSING_TYPE", "OWN_RENT",
                "INDP_CAT", "EDU", "DVET", "DREM", "DPHY", "DEYE", "DEAR")
_SDNIST_NUMS = SDNIST_NUMERICAL
_STAND_IN_TARGETS: dict[str, tuple[str, Rows, Rows | None]] = {
    # target: (source column, rule, rows of the single task)
    "income": ("PINCP", _gt("PINCP", 50_000),
               lambda f: (f["AGEP"] > 16) & (f["PINCP"] > 100)),
    "worked": ("INDP_CAT", lambda f: f["INDP_CAT"] != "N", lambda f: f["AGEP"] >= 16),
    "owner": ("OWN_RENT", lambda f: f["OWN_RENT"] == "1", lambda f: f["OWN_RENT"] != "0"),
    "married": ("MSP", lambda f: f["MSP"] == "1", lambda f: f["MSP"] != "N"),
    "hispanic": ("HISP", lambda f: f["HISP"] != "0", None),
}
_STAND_IN_TITLES = {"income": "total income above $50,000",
                    "worked": "worked in the last five years", "owner": "lives in an owned home",
                    "married": "married, spouse present", "hispanic": "Hispanic origin"}


def _stand_in(name: str) -> Task:
    if name == "multitask":
        sources = {source for source, _, _ in _STAND_IN_TARGETS.values()}
        return Task("multitask", "all five targets",
                    tuple(c for c in _SDNIST_CATS if c not in sources),
                    tuple(c for c in _SDNIST_NUMS if c not in sources),
                    {t: rule for t, (_, rule, _) in _STAND_IN_TARGETS.items()})
    source, rule, rows = _STAND_IN_TARGETS[name]
    return Task(name, _STAND_IN_TITLES[name], tuple(c for c in _SDNIST_CATS if c != source),
                tuple(c for c in _SDNIST_NUMS if c != source), {name: rule}, rows)


STAND_IN_TASKS: dict[str, Task] = {n: _stand_in(n) for n in (*_STAND_IN_TARGETS, "multitask")}


# -- loading --------------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True, eq=False)
class RapppData:
    """A task's records, coded, with what they are.

    Attributes:
        data: the records (targets marked).
        coding: how raw values map to the codes and [0, 1] (and back).
        task: the task.
        state: the state (paper) or the stand-in excerpt (``STAND_INS``).
        stand_in: whether these are stand-in records rather than the paper's.
        source: the file the records came from.
    """

    data: MixedDataset
    coding: MixedCoding
    task: Task
    state: str
    stand_in: bool
    source: str


def split(data: MixedDataset, seed: int) -> tuple[MixedDataset, MixedDataset]:
    """(train, test): each record in train with probability 0.8, drawn from ``seed`` (the
    authors' ``np.random.rand(n) < 0.8``, redrawn for every run).
    """
    train = np.random.default_rng(seed).random(data.records) < SPLIT
    return data.take(np.flatnonzero(train)), data.take(np.flatnonzero(~train))


def _table(frame: pd.DataFrame, task: Task, categorical_as: type) -> RawTable:
    """The task's raw table: its rows, features (missing numbers 0) and 0/1 targets."""
    if task.rows is not None:
        frame = frame[task.rows(frame).to_numpy()]
    out = pd.DataFrame({c: frame[c].astype(categorical_as) for c in task.categorical})
    for column in task.numerical:
        out[column] = pd.to_numeric(frame[column]).fillna(0.0).astype(np.float64)
    for target, rule in task.targets.items():
        out[target] = rule(frame).fillna(False).astype(np.int64).to_numpy()
    kinds = {c: "categorical" for c in (*task.categorical, *task.targets)}
    kinds.update({c: "numerical" for c in task.numerical})
    return RawTable(out.reset_index(drop=True), kinds,  # type: ignore[arg-type]
                    source=frame.attrs.get("source"))


def _encode(table: RawTable, task: Task, bounds: Mapping[str, tuple[float, float]],
            categories: dict[str, tuple], clip: bool) -> tuple[MixedDataset, MixedCoding]:
    binary = {t: (0, 1) for t in task.targets}
    coding = MixedCoding.fit(table, {c: bounds[c] for c in task.numerical},
                             categories={**categories, **binary}, clip=clip)
    data = coding.encode(table)
    return MixedDataset(data.categorical, data.numerical, data.numerical_names,
                        tuple(task.targets), data.source), coding


def load_stand_in(task: str, state: str = "national2018", root: Path | None = None
                  ) -> RapppData:
    """The stand-in ``task`` on the SDNist excerpt ``state`` (one of ``STAND_INS``)."""
    if task not in STAND_IN_TASKS:
        raise ValueError(f"unknown stand-in task {task!r}; choose one of {list(STAND_IN_TASKS)}")
    if state not in STAND_INS:
        raise ValueError(f"unknown stand-in state {state!r}; choose one of {list(STAND_INS)}")
    root = Path(root) if root is not None else data_dir()
    raw = cast(RawTable, load_dataset(f"sdnist/{state}", data_dir=root))
    schema = json.loads((root / "sdnist-acs" / f"{state}.json").read_text())["schema"]
    spec = STAND_IN_TASKS[task]
    categories = {c: tuple(str(v) for v in schema[c]["values"]) for c in spec.categorical}
    frame = raw.frame.copy()
    frame.attrs["source"] = raw.source
    table = _table(frame, spec, str)
    data, coding = _encode(table, spec, sdnist_bounds(root), categories, clip=False)
    return RapppData(data, coding, spec, state, True, str(raw.source))


def load_paper_task(task: str, state: str, root: Path | None = None,
                    download: bool = False) -> RapppData:
    """The paper's ``task`` for ``state`` (2014, 1-Year person records, through folktables).

    The categorical attributes' values are those the file holds, not a public codebook's (the
    stand-ins read theirs from the SDNist schema): the runs treat the category lists as public,
    as the paper does; strictly, a value that one record alone holds is private.
    """
    if task not in PAPER_TASKS:
        raise ValueError(f"unknown task {task!r}; choose one of {list(PAPER_TASKS)}")
    if state not in PAPER_STATES:
        raise ValueError(f"the paper's states are {PAPER_STATES}, got {state!r}")
    folder = Path(root) / "folktables" if root is not None else None
    frame = load_acs_persons(state, PAPER_YEAR, folder, download)
    spec = PAPER_TASKS[task]
    columns = [*spec.categorical, *PAPER_NUMERICAL, "ESR", "PUBCOV", "MIG"]
    frame = frame[[c for c in dict.fromkeys(columns) if c in frame.columns]].copy()
    frame[list(spec.categorical)] = frame[list(spec.categorical)].fillna(0)
    frame.attrs["source"] = frame.attrs.get("source", f"ACS PUMS {PAPER_YEAR} {state}")
    table = _table(frame, spec, int)
    data, coding = _encode(table, spec, ACS_BOUNDS, {}, clip=True)
    return RapppData(data, coding, spec, state, False, str(frame.attrs["source"]))


def load_task(task: str, state: str, root: Path | None = None) -> RapppData:
    """The paper's task when ``state`` is a paper state, else the stand-in; a paper state whose
    records are not here raises DataError saying how to fetch them.
    """
    if state in PAPER_STATES:
        try:
            return load_paper_task(task, state, root)
        except DataError as error:
            raise DataError(f"{error} Offline, use a stand-in state {list(STAND_INS)}.") from None
    return load_stand_in(task, state, root)
