"""Offline stand-ins for PrivPGD's nine datasets, built from real tables in the data directory.

None of the paper's tables is available offline (ACS California 2018 needs the Census Bureau, the
four benchmark tables need OpenML). Each stand-in below is real data, chosen for its likeness to
the paper's table, and each says plainly what it is. Every builder returns a :class:`RawTable`
whose target is its last column; :func:`reprolib.data.privpgd_discretisation` then codes it.

ACS tasks: the SDNist stand-ins of :mod:`reprolib.data` (``acs_stand_in``), which say what they
keep and what replaces each label.

Benchmark tables. Diabetes and medical charges have their source data offline (re-prepared as
described below); Black Friday and NYC taxi have none, so two real tables with a money target
stand in for them (Lending Club loans, public-employee salaries), as their descriptions say.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import cast

import numpy as np

from reprolib.data import ACS_STAND_INS, Dataset, acs_stand_in, acs_stand_in_text
from reprolib.data._containers import ColumnKind, RawTable
from reprolib.data._registry import load_dataset

__all__ = ["SUBSTITUTES", "Substitute"]

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
    frame = cast(RawTable, load_dataset("diabetes130/raw", data_dir=root)).frame
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
    table = cast(Dataset | RawTable, load_dataset(dataset, data_dir=root))
    frame = table.frame[list(columns)].reset_index(drop=True)
    kinds: dict[str, ColumnKind] = {c: "numerical" for c in columns}
    return RawTable(frame, kinds, target=columns[-1], source=dataset)


_SDNIST_TEXT = "SDNist ACS excerpts national2018+ma2018+tx2018 (43,130 real 2018 ACS persons)"

SUBSTITUTES: dict[str, Substitute] = {
    **{
        name: Substitute(
            "sdnist/{national,ma,tx}2018",
            f"{_SDNIST_TEXT}, {acs_stand_in_text(name)}",
            partial(acs_stand_in, name),
        )
        for name in ACS_STAND_INS
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
