"""Offline stand-ins for the folktables ACS tasks, built from the SDNist excerpts.

The SDNist excerpts are real 2018 ACS person records (national sample, Massachusetts, Texas;
43,130 persons pooled, disjoint areas) but hold only 22 PUMS variables. Each stand-in keeps its
folktables task's filter and features where SDNist has them; ``N`` (not applicable) becomes 0, as
folktables turns missing values into 0. Mapping (folktables -> SDNist): AGEP, SEX, RAC1P, DEAR,
DEYE, DREM, PINCP, POVPIP as such; SCHL -> EDU (coarser: 12 levels); MAR -> MSP; OCCP -> INDP
(industry, not occupation); DIS -> DPHY (ambulatory difficulty, one of DIS's six parts); MIL ->
DVET (veterans' disability rating; 0 = not applicable); ST -> PUMA's state. Missing in SDNist:
COW, POBP, RELP, WKHP, ESP, CIT, MIG, ANC, NATIVITY, ESR, FER, GCL, JWMNP, JWTR, POWPUMA; and the
targets ESR, PUBCOV, MIG, JWMNP, replaced by the labels :func:`acs_stand_in_text` names.

PrivPGD's and the slicing paper's ACS tasks read these (``reprolib.data.acs_stand_in``).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import numpy as np
import pandas as pd

from reprolib.data._containers import ColumnKind, RawTable
from reprolib.data._folktables import LABEL, _problem
from reprolib.data._mixed import MixedCoding
from reprolib.data._registry import load_dataset

SDNIST_2018 = ("national2018", "ma2018", "tx2018")
#: The SDNist columns that are quantities; the others are codes.
SDNIST_NUMERICAL = ("AGEP", "DENSITY", "PINCP", "POVPIP", "PWGTP", "WGTP")
_ACS_NUMERICAL = frozenset({"AGEP", "PINCP", "POVPIP"})

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
    frames = [cast(RawTable, load_dataset(f"sdnist/{name}", data_dir=root)).frame
              for name in SDNIST_2018]
    frame = pd.concat(frames, ignore_index=True)
    frame["ST"] = frame["PUMA"].str[:2]
    return frame


def _as_codes(column: pd.Series) -> pd.Series:
    """Numbers of an SDNist column, with not-applicable (``"N"`` or NaN) as 0 as in folktables."""
    if pd.api.types.is_numeric_dtype(column):
        return column.fillna(0.0).astype(np.float64)
    return pd.to_numeric(column.where(column != "N", "0")).astype(np.int64)


def acs_stand_in_columns(task: str) -> list[str]:
    """The SDNist columns standing in for the features of folktables task ``task``."""
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


ACS_STAND_INS: tuple[str, ...] = tuple(_ACS)
"""The ACS tasks with an SDNist stand-in, by the names PrivPGD's datasets use."""


def acs_stand_in(name: str, root: Path) -> RawTable:
    """The stand-in of ACS task ``name`` (of :data:`ACS_STAND_INS`) from the data folder ``root``,
    its 0/1 label last.
    """
    if name not in _ACS:
        raise KeyError(f"no ACS stand-in named {name!r}; there are {list(_ACS)}")
    return _build_acs(_ACS[name], root)


def acs_stand_in_coding(name: str, root: Path) -> MixedCoding:
    """The public coding of stand-in ``name``: every categorical column's values from the three
    excerpts' published schemas (ST from their PUMA codes, "N" as 0 as :func:`acs_stand_in`
    codes it), numerical bounds from :func:`sdnist_bounds`, the label 0/1. Nothing is read off
    the records, so the coding costs no privacy.
    """
    schemas = [_sdnist_schema(root, excerpt) for excerpt in SDNIST_2018]
    columns = acs_stand_in_columns(_ACS[name].task)
    categories: dict[str, tuple] = {}
    for column in (c for c in columns if c not in _ACS_NUMERICAL):
        source = "PUMA" if column == "ST" else column
        values = {str(v) for schema in schemas for v in schema[source]["values"]}
        if column == "ST":
            values = {v[:2] for v in values}
        categories[column] = tuple(sorted(0 if v == "N" else int(v) for v in values))
    categories[LABEL] = (0, 1)
    bounds = sdnist_bounds(root)
    return MixedCoding(categories, {c: bounds[c] for c in columns if c in _ACS_NUMERICAL})


@functools.lru_cache(maxsize=8)
def _sdnist_schema(root: Path, excerpt: str) -> dict:
    return json.loads((Path(root) / "sdnist-acs" / f"{excerpt}.json").read_text())["schema"]


@functools.lru_cache(maxsize=8)
def _sdnist_dictionary(root: Path) -> dict:
    return json.loads((Path(root) / "sdnist-acs" / "data_dictionary.json").read_text())


def sdnist_bounds(root: Path) -> dict[str, tuple[float, float]]:
    """The declared range of every numerical SDNist column, from its public data dictionary:
    the dictionary's min and max, widened to its numeric special codes (POVPIP's 501, WGTP's 0)
    and to 0, the value a missing number takes.
    """
    dictionary = _sdnist_dictionary(Path(root))
    out = {}
    for column in SDNIST_NUMERICAL:
        values = dictionary[column]["values"]
        special = [float(k) for k in values if k not in ("min", "max") and _is_number(k)]
        out[column] = (min([values["min"], 0.0, *special]), max([values["max"], *special]))
    return out


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def acs_stand_in_text(name: str) -> str:
    """What the stand-in of ``name`` is: its folktables task, label and kept features."""
    return f"{_ACS[name].task} stand-in: {_ACS_TEXT[name]}"
