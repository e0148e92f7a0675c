"""Loaders of the integer-coded benchmark tables: AIM, Private-PGM, NIST 2021, PrivMRF."""

from __future__ import annotations

import json
import zipfile
from functools import partial
from pathlib import Path
from typing import IO

import numpy as np
import pandas as pd

from reprolib.data._domain import Dataset, Domain
from reprolib.data._errors import DataError
from reprolib.data._info import DatasetInfo

__all__ = ["DISCRETE_DATASETS"]

_HD = "ryan112358/hd-datasets@8e69757cec2ba8d430f7c915509163c708497f58, clean/"
_NIST = (
    "ryan112358/nist-synthetic-data-2021@56b7bc34be589c35a2b2e966928ef3501df1dabd,"
    " extensions/datasets/"
)
_PGM = "ryan112358/private-pgm@4d2b3c566b148da3ef800ce76e6189c548f2da22, data/"
_MRF = "caicre/PrivMRF@12f2cae3f1784281cee7e8e201560882332f60bb, "


def _read_codes(handle: IO[bytes] | Path, domain: Domain, source: str) -> Dataset:
    """Read an integer-coded CSV, keep the domain's columns in the domain's order."""
    try:
        frame = pd.read_csv(
            handle,
            usecols=list(domain.attributes),
            dtype=dict.fromkeys(domain.attributes, np.int64),
        )
    except ValueError as err:  # unknown column or non-integer cell
        raise DataError(
            f"Cannot read {source} as integer codes of {domain.attributes}: {err}"
        ) from err
    return Dataset(frame[list(domain.attributes)], domain, source)


def _load_csv_json(folder: str, stem: str, root: Path) -> Dataset:
    """``<folder>/<stem>.csv`` with its ``{column: size}`` domain ``<stem>-domain.json``."""
    domain = Domain.from_dict(json.loads((root / folder / f"{stem}-domain.json").read_text()))
    csv = root / folder / f"{stem}.csv"
    return _read_codes(csv, domain, str(csv))


def _load_nist_zip(stem: str, root: Path) -> Dataset:
    """``nist-2021-extensions/<stem>.zip`` (one CSV) with its domain file.

    The CSV may hold more columns than the domain (fire.csv also has ``Box`` and ``Address``);
    only the domain's columns are kept, in the domain's order.
    """
    folder = root / "nist-2021-extensions"
    domain = Domain.from_dict(json.loads((folder / f"{stem}-domain.json").read_text()))
    with zipfile.ZipFile(folder / f"{stem}.zip") as archive, archive.open(f"{stem}.csv") as csv:
        return _read_codes(csv, domain, f"{folder / stem}.zip:{stem}.csv")


def _load_privmrf(stem: str, root: Path) -> Dataset:
    """``privmrf/<stem>.csv`` with its spec ``privmrf/<stem>.json``.

    The spec reads ``{"0": {"type": "discrete", "domain": size}, ...}``: columns are named by
    position ("0", "1", ...) and all are discrete.
    """
    spec_path = root / "privmrf" / f"{stem}.json"
    spec = json.loads(spec_path.read_text())
    other = {k: v["type"] for k, v in spec.items() if v.get("type") != "discrete"}
    if other:
        raise DataError(f"{spec_path} has non-discrete columns {other}; expected all discrete.")
    domain = Domain.from_dict({name: entry["domain"] for name, entry in spec.items()})
    csv = root / "privmrf" / f"{stem}.csv"
    return _read_codes(csv, domain, str(csv))


def _aim(stem: str, description: str, license: str) -> DatasetInfo:
    return DatasetInfo(
        name=f"aim/{stem}",
        description=description,
        kind="discrete",
        source=f"{_HD}{stem}.csv (AIM paper, Table 2)",
        license=license,
        files=(f"aim-benchmark/{stem}.csv", f"aim-benchmark/{stem}-domain.json"),
        loader=partial(_load_csv_json, "aim-benchmark", stem),
    )


def _nist(stem: str, description: str, license: str) -> DatasetInfo:
    return DatasetInfo(
        name=f"nist/{stem}",
        description=description,
        kind="discrete",
        source=f"{_NIST}{stem}.zip (100-bin discretisation)",
        license=license,
        files=(f"nist-2021-extensions/{stem}.zip", f"nist-2021-extensions/{stem}-domain.json"),
        loader=partial(_load_nist_zip, stem),
    )


def _privmrf(stem: str, description: str) -> DatasetInfo:
    return DatasetInfo(
        name=f"privmrf/{stem}",
        description=description,
        kind="discrete",
        source=f"{_MRF}{stem}.csv and {stem}.json",
        license="Apache-2.0 (PrivMRF repository); original survey terms apply",
        files=(f"privmrf/{stem}.csv", f"privmrf/{stem}.json"),
        loader=partial(_load_privmrf, stem),
    )


DISCRETE_DATASETS: tuple[DatasetInfo, ...] = (
    _aim("adult", "UCI Adult census income, 48,842 x 15, sizes 2-42", "CC BY 4.0 (UCI)"),
    _aim("salary", "Public-employee salaries (DPBench), 135,727 x 9, sizes 3-501", "open data"),
    _aim(
        "msnbc",
        "MSNBC.com page-category sequences, first 16 visits, 989,818 x 16, size 18 each",
        "CC BY 4.0 (UCI)",
    ),
    _aim(
        "fire",
        "San Francisco fire-department calls (NIST 2018 DP challenge), 305,119 x 15, sizes 2-46",
        "public domain (US city open data)",
    ),
    _aim(
        "nltcs",
        "National Long-Term Care Survey disability indicators, 21,574 x 16, binary",
        "redistribution statement: aim-benchmark/nltcs-redistribution.pdf",
    ),
    _aim("titanic", "Titanic passenger list, 1,304 x 9, sizes 2-91", "public domain"),
    DatasetInfo(
        name="pgm/adult",
        description="UCI Adult, Private-PGM example binning (age 85, fnlwgt 100 bins), 48,842 x 14",
        kind="discrete",
        source=f"{_PGM}adult.csv and adult-domain.json",
        license="Apache-2.0 (Private-PGM); data CC BY 4.0 (UCI)",
        files=("private-pgm/adult.csv", "private-pgm/adult-domain.json"),
        loader=partial(_load_csv_json, "private-pgm", "adult"),
    ),
    _nist("fire", "SF fire calls, 305,119 x 30 (the zip has 32 columns)", "public domain"),
    _nist("msnbc", "MSNBC.com sequences, 989,818 x 16 (as aim/msnbc)", "CC BY 4.0 (UCI)"),
    _nist("loans", "Lending Club loans, 42,535 x 48", "Apache-2.0 (repository)"),
    _nist("stroke", "International Stroke Trial, 19,434 x 110", "Apache-2.0 (repository)"),
    _privmrf("acs", "IPUMS ACS extract, 47,461 x 23, binary"),
    _privmrf("br2000", "Brazil census 2000, 38,000 x 14, sizes 2-21"),
    _privmrf("nltcs", "National Long-Term Care Survey, 21,574 x 16, binary"),
)
