"""Loaders of mixed-type tables: SDNist ACS excerpts, Diabetes 130, Medicare charges."""

from __future__ import annotations

import json
import zipfile
from dataclasses import replace
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from reprolib.data._containers import ColumnKind, RawTable
from reprolib.data._discretise import ColumnCoding, Discretisation
from reprolib.data._domain import Dataset
from reprolib.data._info import DatasetInfo
from reprolib.data._paths import data_dir as default_data_dir
from reprolib.data._paths import require_file

__all__ = ["SDNIST_EXCERPTS", "TABLE_DATASETS", "sdnist_discretisation"]

SDNIST_EXCERPTS = ("national2018", "national2019", "ma2018", "ma2019", "tx2018", "tx2019")
SDNIST_WEIGHTS = ("PWGTP", "WGTP")
NOT_APPLICABLE = "N"
_SDNIST = (
    "usnistgov/SDNist@b535c5eb4fa92b1c2e3568f2c4e078885de2a5d6, nist community data"
    " excerpts/ACSDataExcerpts/"
)
_DIABETES_IDS = ("encounter_id", "patient_nbr")
_DIABETES_NUMERICAL = (
    "time_in_hospital",
    "num_lab_procedures",
    "num_procedures",
    "num_medications",
    "number_outpatient",
    "number_emergency",
    "number_inpatient",
    "number_diagnoses",
)
_CHARGES_NUMERICAL = ("Total Discharges", "Average Covered Charges", "Average Total Payments")


def _sdnist_schema(name: str, root: Path) -> dict[str, dict]:
    return json.loads((root / "sdnist-acs" / f"{name}.json").read_text())["schema"]


def _load_sdnist_raw(name: str, root: Path) -> RawTable:
    """An SDNist ACS excerpt as a raw table, column kinds from its JSON schema.

    A schema entry with ``min``/``max`` (AGEP, DENSITY, PINCP, POVPIP, PWGTP, WGTP) makes a
    numerical column, parsed as float with the not-applicable marker ``"N"`` as NaN. An entry
    with ``values`` (PUMA, SEX, MSP, NOC, INDP, ...) makes a categorical column, kept as the
    strings of the file, where ``"N"`` stays the explicit category "not applicable".
    """
    path = root / "sdnist-acs" / f"{name}.csv"
    schema = _sdnist_schema(name, root)
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    kinds: dict[str, ColumnKind] = {}
    for column, entry in schema.items():
        if "values" in entry:
            kinds[column] = "categorical"
        else:
            kinds[column] = "numerical"
            text = frame[column].replace(NOT_APPLICABLE, None)
            frame[column] = pd.to_numeric(text).astype(np.float64)
    return RawTable(frame[list(schema)], kinds, source=str(path))


def sdnist_discretisation(name: str, data_dir: Path | str | None = None) -> Discretisation:
    """The coding of the discrete SDNist excerpt ``name``, from its public JSON schema only.

    Rule (fixed in advance, independent of the records): the sampling weights PWGTP and WGTP
    are dropped; a categorical column gets one code per schema value, in the schema's order,
    ``"N"`` (not applicable) being one of them; a numerical column (AGEP, DENSITY, PINCP,
    POVPIP) gets 32 equal-width bins between the schema's ``min`` and ``max``, plus a last
    code for ``"N"`` when the schema says ``has_null``. This mirrors PrivPGD's 32-bin
    discretisation, with public bounds instead of the observed ones.

    Args:
        name: One of :data:`SDNIST_EXCERPTS`.
        data_dir: The data directory; default :func:`reprolib.data.data_dir`.
    """
    if name not in SDNIST_EXCERPTS:
        raise ValueError(f"Unknown SDNist excerpt {name!r}; choose one of {SDNIST_EXCERPTS}.")
    root = Path(data_dir) if data_dir is not None else default_data_dir()
    relative_path = f"sdnist-acs/{name}.json"
    require_file(f"sdnist/{name}-discrete", relative_path, root, f"{_SDNIST}{name}.json")
    columns = []
    for column, entry in _sdnist_schema(name, root).items():
        if column in SDNIST_WEIGHTS:
            continue
        if "values" in entry:
            values = tuple(str(v) for v in entry["values"])
            columns.append(ColumnCoding(column, numerical=False, values=values))
        else:
            edges = tuple(float(e) for e in np.linspace(entry["min"], entry["max"], 33))
            has_null = bool(entry.get("has_null", False))
            columns.append(ColumnCoding(column, True, edges=edges, has_missing=has_null))
    return Discretisation(tuple(columns))


def _load_sdnist_discrete(name: str, root: Path) -> Dataset:
    return sdnist_discretisation(name, root).apply(_load_sdnist_raw(name, root))


def _load_diabetes(root: Path) -> RawTable:
    """diabetic_data.csv from the zip; ``?`` is missing; the two identifier columns are dropped.

    ``encounter_id`` and ``patient_nbr`` identify records, they are not attributes. Eight count
    columns are numerical (int64), the rest categorical strings (ICD-9 codes stay strings). The
    string ``"None"`` of max_glu_serum and A1Cresult means "not measured" and stays a category.
    """
    path = root / "diabetes130" / "dataset_diabetes.zip"
    with zipfile.ZipFile(path) as archive, archive.open("dataset_diabetes/diabetic_data.csv") as f:
        frame = pd.read_csv(f, dtype=str, na_values=["?"], keep_default_na=False)
    frame = frame.drop(columns=list(_DIABETES_IDS))
    for column in _DIABETES_NUMERICAL:
        frame[column] = pd.to_numeric(frame[column]).astype(np.int64)
    kinds: dict[str, ColumnKind] = {
        c: "numerical" if c in _DIABETES_NUMERICAL else "categorical" for c in frame.columns
    }
    return RawTable(frame, kinds, target="readmitted", source=f"{path}:diabetic_data.csv")


def _parse_currency(column: pd.Series) -> pd.Series:
    """Dollar amounts as float: ``"$1,234.56"`` -> 1234.56; numbers pass through."""
    if pd.api.types.is_numeric_dtype(column):
        return column.astype(np.float64)
    return pd.to_numeric(column.str.replace(r"[$,]", "", regex=True)).astype(np.float64)


def _load_medical_charges(root: Path) -> RawTable:
    """CMS Medicare inpatient charges FY2011 (163,065 rows), header names stripped of spaces.

    A close stand-in for OpenML 44146 ``medical_charges``, not the same table: this first
    release lacks ``Average Medicare Payments`` (one of 44146's three features; its target is
    ``AverageTotalPayments``). No target is set here.
    Currency columns are parsed to float dollars.
    """
    path = root / "medical-charges" / "IPPS_DRG_CSV.zip"
    with zipfile.ZipFile(path) as archive:
        (member,) = archive.namelist()
        with archive.open(member) as f:
            frame = pd.read_csv(f, dtype={"Provider Id": str, "Provider Zip Code": str})
    frame.columns = [c.strip() for c in frame.columns]
    for column in _CHARGES_NUMERICAL:
        frame[column] = _parse_currency(frame[column])
    kinds: dict[str, ColumnKind] = {
        c: "numerical" if c in _CHARGES_NUMERICAL else "categorical" for c in frame.columns
    }
    return RawTable(frame, kinds, source=f"{path}:{member}")


def _sdnist_infos(name: str) -> tuple[DatasetInfo, DatasetInfo]:
    raw = DatasetInfo(
        name=f"sdnist/{name}",
        description=f"ACS PUMS person records, SDNist excerpt {name}, 24 columns, 'N' = n/a",
        kind="raw",
        source=f"{_SDNIST}{name}.csv and {name}.json",
        license="NIST public data notice (attribution requested)",
        files=(f"sdnist-acs/{name}.csv", f"sdnist-acs/{name}.json"),
        loader=partial(_load_sdnist_raw, name),
    )
    discrete = replace(
        raw,
        name=f"sdnist/{name}-discrete",
        description=f"SDNist excerpt {name}, 22 columns coded by sdnist_discretisation",
        kind="discrete",
        loader=partial(_load_sdnist_discrete, name),
    )
    return raw, discrete


TABLE_DATASETS: tuple[DatasetInfo, ...] = (
    *(info for name in SDNIST_EXCERPTS for info in _sdnist_infos(name)),
    DatasetInfo(
        name="diabetes130/raw",
        description="UCI Diabetes 130-US hospitals 1999-2008, 101,766 x 48, target readmitted",
        kind="raw",
        source="swatia600/MyDiabetesCare@d350d3a73013880bc3e30cff60acc783292cab32,"
        " data/dataset_diabetes.zip",
        license="CC BY 4.0 (UCI)",
        files=("diabetes130/dataset_diabetes.zip",),
        loader=_load_diabetes,
    ),
    DatasetInfo(
        name="medical-charges/raw",
        description="CMS Medicare inpatient charges FY2011, 163,065 x 11 (near OpenML 44146)",
        kind="raw",
        source="muschellij2/Shiny_Health_Data@d027ad0dd8996132e6fde1c84297ef40c9846671,"
        " IPPS_DRG_CSV.zip",
        license="public domain (US federal data)",
        files=("medical-charges/IPPS_DRG_CSV.zip",),
        loader=_load_medical_charges,
    ),
)
