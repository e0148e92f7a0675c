"""Offline stand-ins for PrivPGD's nine datasets, built from real tables in the data directory.

None of the paper's tables is available offline (ACS California 2018 needs the Census Bureau, the
four benchmark tables need OpenML). Each stand-in below is real data, chosen for its likeness to
the paper's table, and each says plainly what it is. Every builder returns a :class:`RawTable`
whose target is its last column; :func:`reprolib.data.privpgd_discretisation` then codes it.

ACS tasks. The SDNist excerpts are real 2018 ACS person records (national sample, Massachusetts,
Texas; 43,130 persons pooled, disjoint areas) but hold only 22 PUMS variables. Each task
keeps its folktables filter and features where SDNist has them; ``N`` (not applicable) becomes 0,
as folktables turns missing values into 0. Mapping (folktables -> SDNist): AGEP, SEX, RAC1P, DEAR,
DEYE, DREM, PINCP, POVPIP as such; SCHL -> EDU (coarser: 12 levels); MAR -> MSP; OCCP -> INDP
(industry, not occupation); DIS -> DPHY (ambulatory difficulty, one of DIS's six parts); MIL ->
DVET (veterans' disability rating; 0 = not applicable); ST -> PUMA's state. Missing in SDNist:
COW, POBP, RELP, WKHP, ESP, CIT, MIG, ANC, NATIVITY, ESR, FER, GCL, JWMNP, JWTR, POWPUMA; and the
targets ESR, PUBCOV, MIG, JWMNP, replaced by the labels named in each task's description.

Benchmark tables. Diabetes and medical charges have their source data offline (re-prepared as
described below); Black Friday and NYC taxi have none, so two real tables with a money target
stand in for them (Lending Club loans, public-employee salaries), as their descriptions say.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from reprolib.data._containers import ColumnKind, RawTable
from reprolib.data._folktables import LABEL, _problem
from reprolib.data._registry import load_dataset

__all__ = ["ACS_COLUMNS", "SUBSTITUTES", "Substitute", "acs_stand_in_columns"]

SDNIST_2018 = ("national2018", "ma2018", "tx2018")
_ACS_NUMERICAL = frozenset({"AGEP", "PINCP", "POVPIP"})
#: Balanced undersampling of Diabetes 130 uses this fixed seed, so the table is the same for every
#: split seed (Grinsztajn et al. do not publish theirs).
DIABETES_UNDERSAMPLING_SEED = 0


@dataclass(frozen=True)
class Substitute:
    """What stands in for one paper dataset offline.

    Attributes:
        dataset: The table it is built from, by registry name (e.g. ``"aim/salary"``).
        description: What it is, in words, for the ``source_label``.
        build: Reads the data directory; returns the raw table, target last.
    """

    dataset: str
    description: str
    build: Callable[[Path], RawTable]


#: folktables feature -> the SDNist column standing in for it (ST is derived from PUMA).
ACS_COLUMNS = {
    "AGEP": "AGEP", "SCHL": "EDU", "MAR": "MSP", "OCCP": "INDP", "SEX": "SEX", "RAC1P": "RAC1P",
    "DIS": "DPHY", "MIL": "DVET", "DEAR": "DEAR", "DEYE": "DEYE", "DREM": "DREM",
    "PINCP": "PINCP", "POVPIP": "POVPIP", "ST": "ST", "PUMA": "PUMA",
}  # fmt: skip


@dataclass(frozen=True)
class _AcsStandIn:
    """A folktables-like task on the SDNist excerpts.

    The features are the folktables task's features that :data:`ACS_COLUMNS` maps, in folktables
    order, less ``leave_out``. ``keep`` filters rows and ``label`` computes the 0/1 label, both on
    the raw excerpts (``"N"`` still present).
    """

    task: str
    keep: Callable[[pd.DataFrame], pd.Series]
    label: Callable[[pd.DataFrame], pd.Series]
    leave_out: tuple[str, ...] = ()


def _sdnist_2018(root: Path) -> pd.DataFrame:
    frames = [load_dataset(f"sdnist/{name}", data_dir=root).frame for name in SDNIST_2018]
    frame = pd.concat(frames, ignore_index=True)
    frame["ST"] = frame["PUMA"].str[:2]
    return frame


def _as_codes(column: pd.Series) -> pd.Series:
    """Numbers of an SDNist column, with not-applicable (``"N"`` or NaN) as 0 as in folktables."""
    if pd.api.types.is_numeric_dtype(column):
        return column.fillna(0.0).astype(np.float64)
    return pd.to_numeric(column.where(column != "N", "0")).astype(np.int64)


def acs_stand_in_columns(task: str) -> list[str]:
    """The SDNist columns standing in for the features of ``task`` (an ``ACS_TASKS`` key)."""
    stand_in = next(s for s in _ACS.values() if s.task == task)
    features = _problem(task).features
    return [ACS_COLUMNS[f] for f in features if f in ACS_COLUMNS and f not in stand_in.leave_out]


def _build_acs(stand_in: _AcsStandIn, root: Path) -> RawTable:
    raw = _sdnist_2018(root)
    rows = raw[stand_in.keep(raw).to_numpy()]
    frame = pd.DataFrame({c: _as_codes(rows[c]) for c in acs_stand_in_columns(stand_in.task)})
    frame[LABEL] = stand_in.label(rows).to_numpy().astype(np.int64)
    kinds: dict[str, ColumnKind] = {
        c: "numerical" if c in _ACS_NUMERICAL else "categorical" for c in frame.columns
    }
    source = "sdnist-acs/{" + ",".join(SDNIST_2018) + "}.csv"
    return RawTable(frame.reset_index(drop=True), kinds, target=LABEL, source=source)


def _worked(f: pd.DataFrame) -> pd.Series:
    """Has an industry code: worked in the last five years (SDNist's only work variable)."""
    return f["INDP"] != "N"


_ACS: dict[str, _AcsStandIn] = {
    "income": _AcsStandIn(
        "income",
        keep=lambda f: (f.AGEP > 16) & (f.PINCP > 100) & _worked(f) & (f.PWGTP >= 1),
        label=lambda f: f.PINCP > 50_000,
    ),
    "employment": _AcsStandIn(
        "employment", keep=lambda f: pd.Series(True, index=f.index), label=_worked
    ),
    "publiccoverage": _AcsStandIn(
        "public_coverage",
        keep=lambda f: (f.AGEP < 65) & (f.PINCP <= 30_000) & f.POVPIP.notna(),
        label=lambda f: f.POVPIP <= 138,
    ),
    "mobility": _AcsStandIn(
        "mobility", keep=lambda f: (f.AGEP > 18) & (f.AGEP < 35), label=lambda f: f.OWN_RENT == "1"
    ),
    "traveltime": _AcsStandIn(
        "travel_time",
        keep=lambda f: (f.AGEP > 16) & (f.PWGTP >= 1) & _worked(f),
        label=lambda f: f.DENSITY.median() < f.DENSITY,
        leave_out=("PUMA", "ST"),
    ),
}
#: What each ACS stand-in's label is and which features it keeps (checked by the tests).
_ACS_TEXT = {
    "income": "label PINCP > 50,000 as in the paper, 6 of the 10 features, 'has an industry code'"
    " in place of the filter WKHP > 0",
    "employment": "label 'worked in the last 5 years' (has an industry code) in place of"
    " ESR == 1, 10 of the 16 features",
    "publiccoverage": "label 'income at most 138% of the poverty line' (Medicaid income"
    " eligibility) in place of PUBCOV == 1, persons with a poverty ratio, 12 of the 19 features",
    "mobility": "label 'lives in an owned home' in place of MIG == 1 (same house a year ago;"
    " SDNist has no migration variable), 11 of the 21 features",
    "traveltime": "label 'PUMA population density above the workers' median' in place of"
    " JWMNP > 20 (SDNist has no commute variable), 8 of the 16 features (PUMA and ST left out:"
    " they determine that label)",
}


_DIABETES_COLUMNS = (
    "num_lab_procedures", "num_medications", "number_outpatient", "number_emergency",
    "number_inpatient", "number_diagnoses", "readmitted",
)  # fmt: skip
_LOANS_COLUMNS = (
    "emp_length", "home_ownership", "annual_inc", "verification_status", "purpose", "addr_state",
    "term", "grade", "loan_amnt",
)  # fmt: skip
_SALARY_COLUMNS = (
    "organization-name", "pay-rate", "system", "regular-earnings", "overtime-earning",
    "other-earnings", "ytd-gross", "annual-salary",
)  # fmt: skip
_CHARGES_COLUMNS = ("Total Discharges", "Average Covered Charges", "Average Total Payments")


def _build_diabetes(root: Path) -> RawTable:
    """Diabetes 130 as Grinsztajn et al. (2022) prepared OpenML 45022, as far as known.

    Their rules: numerical features only, those with fewer than 10 distinct values removed
    (num_procedures, 7 values); the target reduced to its two most frequent classes (NO, >30) and
    balanced by undersampling the larger one. This gives exactly OpenML 45022's 71,090 rows
    (2 x 35,545). PrivPGD then drops the first column (time_in_hospital): 6 features and the
    target, the paper's d = 7. The undersampled rows differ from Grinsztajn's (seed unknown).
    """
    frame = load_dataset("diabetes130/raw", data_dir=root).frame
    counts = frame["readmitted"].value_counts()
    top_two, size = counts.index[:2], int(counts.iloc[1])
    rng = np.random.default_rng(DIABETES_UNDERSAMPLING_SEED)
    chosen = [
        rng.choice(np.flatnonzero(frame["readmitted"] == label), size, replace=False)
        for label in top_two
    ]
    rows = frame.iloc[np.sort(np.concatenate(chosen))][list(_DIABETES_COLUMNS)]
    kinds: dict[str, ColumnKind] = {c: "numerical" for c in _DIABETES_COLUMNS}
    kinds["readmitted"] = "categorical"
    return RawTable(rows.reset_index(drop=True), kinds, "readmitted", "diabetes130/raw")


def _build_columns(dataset: str, columns: tuple[str, ...], root: Path) -> RawTable:
    """Columns of a registered table (raw or coded), target last, all taken as numbers."""
    frame = load_dataset(dataset, data_dir=root).frame[list(columns)].reset_index(drop=True)
    kinds: dict[str, ColumnKind] = {c: "numerical" for c in columns}
    return RawTable(frame, kinds, target=columns[-1], source=dataset)


_SDNIST_TEXT = "SDNist ACS excerpts national2018+ma2018+tx2018 (43,130 real 2018 ACS persons)"

SUBSTITUTES: dict[str, Substitute] = {
    **{
        name: Substitute(
            "sdnist/{national,ma,tx}2018",
            f"{_SDNIST_TEXT}, {_ACS[name].task} stand-in: {text}",
            partial(_build_acs, _ACS[name]),
        )
        for name, text in _ACS_TEXT.items()
    },
    "medical": Substitute(
        "medical-charges/raw",
        "CMS Medicare inpatient charges FY2011, the same 163,065 rows as OpenML 44146 but the"
        " first release, which lacks Average Medicare Payments; Total Discharges takes its place",
        partial(_build_columns, "medical-charges/raw", _CHARGES_COLUMNS),
    ),
    "blackfriday": Substitute(
        "nist/loans",
        "Lending Club loans (NIST 2021 extension, 42,535 rows): loan amount from 8 borrower and"
        " loan attributes, as Black Friday's purchase amount from customer and product attributes",
        partial(_build_columns, "nist/loans", _LOANS_COLUMNS),
    ),
    "taxi": Substitute(
        "aim/salary",
        "public-employee salaries (AIM benchmark, 135,727 rows): annual salary from the pay"
        " amounts and job attributes, as the tip from the fare amounts; first-name left out",
        partial(_build_columns, "aim/salary", _SALARY_COLUMNS),
    ),
    "diabetes": Substitute(
        "diabetes130/raw",
        "UCI Diabetes 130-US raw table with Grinsztajn et al.'s preparation re-applied (numerical"
        " features, two largest classes, balanced by seeded undersampling)",
        _build_diabetes,
    ),
}
