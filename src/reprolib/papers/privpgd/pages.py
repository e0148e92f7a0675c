"""What the PrivPGD pages show, computed from the results and the paper's tables.

The notebooks and the checks call these; tables come back with readable labels (dataset titles,
"yes"/"no"), and the notebooks only style them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from reprolib.papers.privpgd import TABLE_NUMBERS
from reprolib.papers.privpgd.data import PRIVPGD_DATASETS


def dataset_title(name: str) -> str:
    """The paper's name of a dataset (``"publiccoverage"`` -> ``"ACS Public Coverage"``); a name
    that is not one of the paper's nine is returned unchanged.
    """
    entry = PRIVPGD_DATASETS.get(name)
    return entry.title if entry is not None else name


def only_value(results: pd.DataFrame, column: str) -> float:
    """The single value of ``column`` in ``results`` (epsilon or delta of one artifact's runs)."""
    values = results[column].dropna().unique()
    if len(values) != 1:
        raise ValueError(f"expected one {column} in the results, found {sorted(values)}")
    return float(values[0])


def table_number(artifact: str) -> int:
    """The paper's table number of a table artifact, from the PrivPGD spec."""
    if artifact not in TABLE_NUMBERS:
        raise KeyError(f"{artifact!r} is not one of PrivPGD's table artifacts "
                       f"({', '.join(TABLE_NUMBERS)})")
    return TABLE_NUMBERS[artifact]


def readable_sources(sources: pd.DataFrame) -> pd.DataFrame:
    """A ``data_sources`` frame for readers: dataset titles and "yes"/"no" for substitution."""
    return sources.assign(
        dataset=sources["dataset"].map(dataset_title),
        substituted=sources["substituted"].map(lambda v: "yes" if bool(v) else "no"),
    ).rename(columns={"substituted": "stand-in data"})


def distance_means(results: pd.DataFrame) -> pd.DataFrame:
    """Mean SW1, L1 and TV over runs per dataset (title) and mechanism."""
    means = results.groupby(["dataset", "mechanism"])[
        ["metric.sw1", "metric.l1", "metric.tv"]].mean()
    means.columns = ["SW₁", "L1", "TV"]
    return means.rename(index=dataset_title, level="dataset")


def paper_lowest(reported: pd.DataFrame, epsilon: float, metric: str,
                 mechanism: str = "PrivPGD") -> tuple[int, int]:
    """On how many of the paper's datasets at ``epsilon`` ``mechanism``'s ``metric`` is strictly
    below every other mechanism's: (count, datasets).
    """
    rows = reported[np.isclose(reported["epsilon"], epsilon)]
    means = rows.pivot_table(index="dataset", columns="mechanism", values=metric)
    lowest = means[mechanism] < means.drop(columns=mechanism).min(axis=1)
    return int(lowest.sum()), len(lowest)


def paper_table(reported: pd.DataFrame, number: int,
                metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """The paper's Table ``number`` as printed: one row per dataset (title) and mechanism."""
    rows = reported[reported["table"] == number].drop(columns=["table", "epsilon", "delta"])
    if metrics is not None:
        rows = rows[["dataset", "mechanism", *metrics]]
    return rows.assign(dataset=rows["dataset"].map(dataset_title)).set_index(
        ["dataset", "mechanism"])
