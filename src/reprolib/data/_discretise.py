"""Turning a :class:`RawTable` into integer codes, invertibly (the PrivPGD preprocessing)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from reprolib.data._containers import RawTable
from reprolib.data._domain import Dataset, Domain
from reprolib.data._errors import DataError

__all__ = ["ColumnCoding", "Discretisation", "discretise", "fit_discretisation"]

MISSING_LABEL = "missing"


@dataclass(frozen=True)
class ColumnCoding:
    """How one column maps to the codes ``0 .. size-1``.

    Exactly one of ``values`` and ``edges`` is set.

    Attributes:
        name: The column.
        numerical: Whether the column was numerical (decoding then gives floats).
        values: Code ``i`` stands for the value ``values[i]`` (sorted categories, or the exact
            values of a narrow integer column).
        edges: Code ``i`` stands for the bin ``[edges[i], edges[i+1])``; the last bin is closed.
        has_missing: If true, the last code (``size - 1``) stands for a missing value.
    """

    name: str
    numerical: bool
    values: tuple | None = None
    edges: tuple[float, ...] | None = None
    has_missing: bool = False

    @property
    def size(self) -> int:
        """Number of codes, including the missing code."""
        if self.values is not None:
            observed = len(self.values)
        else:
            assert self.edges is not None  # exactly one of values and edges is set
            observed = len(self.edges) - 1
        return observed + int(self.has_missing)

    def labels(self) -> tuple[str, ...]:
        """A readable label per code: the value, the bin ``[lo, hi)``, or ``"missing"``."""
        if self.values is not None:
            labels = [str(v) for v in self.values]
        else:
            e = self.edges
            assert e is not None  # exactly one of values and edges is set
            labels = [f"[{e[i]:g}, {e[i + 1]:g})" for i in range(len(e) - 2)]
            labels.append(f"[{e[-2]:g}, {e[-1]:g}]")
        return tuple(labels + [MISSING_LABEL] * self.has_missing)

    def encode(self, column: pd.Series) -> np.ndarray:
        """Codes (int64) of ``column``; numerical values outside the bins go to the end bins."""
        missing = column.isna().to_numpy()
        if missing.any() and not self.has_missing:
            raise DataError(
                f"Column {self.name!r} has {int(missing.sum())} missing values but its coding"
                " has no missing category; refit the discretisation on data that includes them."
            )
        if self.edges is not None:
            x = column.to_numpy(dtype=np.float64, na_value=np.nan)
            codes = np.searchsorted(np.asarray(self.edges[1:-1]), x, side="right")
        elif self.numerical:
            x = column.to_numpy(dtype=np.float64, na_value=np.nan)
            values = np.asarray(self.values, dtype=np.float64)
            codes = np.searchsorted(values, x).clip(max=max(len(values) - 1, 0))
            unseen = ~missing & (values[codes] != x) if len(values) else ~missing
        else:
            assert self.values is not None  # exactly one of values and edges is set
            codes = pd.Index(list(self.values), dtype=object).get_indexer(column.astype(object))
            unseen = (codes < 0) & ~missing
        if self.values is not None and unseen.any():
            raise DataError(
                f"Column {self.name!r} has value {column[unseen].iloc[0]!r}, which is not"
                f" among its {len(self.values)} fitted categories; refit the discretisation."
            )
        return np.where(missing, self.size - 1, codes).astype(np.int64)

    def decode(self, codes: np.ndarray) -> np.ndarray:
        """Values for ``codes``: the category, or the bin centre; missing as ``NaN``."""
        if self.edges is not None:
            e = np.asarray(self.edges)
            table = (e[:-1] + e[1:]) / 2
        else:
            table = np.asarray(self.values, dtype=np.float64 if self.numerical else object)
        table = np.append(table, [np.nan] * self.has_missing)
        return table[np.asarray(codes)]


@dataclass(frozen=True)
class Discretisation:
    """The coding of every column of a table; apply it to tables, invert it on datasets."""

    columns: tuple[ColumnCoding, ...]

    @property
    def domain(self) -> Domain:
        """The domain of the coded table: one attribute per column, its size incl. missing."""
        return Domain(tuple(c.name for c in self.columns), tuple(c.size for c in self.columns))

    def apply(self, table: RawTable) -> Dataset:
        """Code ``table``, whose columns must include those of this discretisation."""
        absent = [c.name for c in self.columns if c.name not in table.frame.columns]
        if absent:
            raise DataError(f"Table {table.source or ''} lacks the columns {absent}.")
        frame = pd.DataFrame({c.name: c.encode(table.frame[c.name]) for c in self.columns})
        return Dataset(frame, self.domain, table.source)

    def decode(self, data: Dataset) -> pd.DataFrame:
        """Map codes back to values (categories, exact integers or bin centres; NaN = missing)."""
        return pd.DataFrame({c.name: c.decode(data.frame[c.name].to_numpy()) for c in self.columns})


def _fit_column(name: str, column: pd.Series, numerical: bool, bins: int) -> ColumnCoding:
    observed = column.dropna()
    has_missing = len(observed) < len(column)
    if observed.empty:
        return ColumnCoding(name, numerical, values=(), has_missing=has_missing)
    if numerical:
        x = observed.to_numpy(dtype=np.float64)
        distinct = np.unique(x)
        if len(distinct) <= bins and np.all(distinct == np.round(distinct)):
            values = tuple(int(v) for v in distinct)
            return ColumnCoding(name, True, values=values, has_missing=has_missing)
        edges = tuple(float(e) for e in np.linspace(x.min(), x.max(), bins + 1))
        return ColumnCoding(name, True, edges=edges, has_missing=has_missing)
    try:
        values = tuple(sorted(observed.unique().tolist()))
    except TypeError as err:
        raise DataError(
            f"Categorical column {name!r} mixes value types ({err}); convert it to one type,"
            " e.g. .astype(str), before discretising."
        ) from None
    return ColumnCoding(name, False, values=values, has_missing=has_missing)


def fit_discretisation(table: RawTable, bins: int = 32) -> Discretisation:
    """Choose a coding for every column of ``table`` (deterministic; data-dependent, not DP).

    Rules, following PrivPGD (Donhauser et al., 2024, Sec. 5), which uses 32 equal-width bins for
    real-valued and wide integer columns:

    * numerical column with at most ``bins`` distinct values, all integers: one code per
      observed value, in increasing order;
    * other numerical column: ``bins`` equal-width bins between the observed minimum and
      maximum (bin ``i`` is ``[lo + i w, lo + (i+1) w)``, the last bin closed);
    * categorical column: one code per observed value, in sorted order;
    * missing values (NaN) of any column: one extra, last code labelled ``"missing"``.

    The edges depend on the data, so fitting them on private data is not differentially
    private; fit on public bounds or account for it separately.

    Args:
        table: The raw table.
        bins: Number of equal-width bins of a numerical column (>= 1).

    Returns:
        The per-column coding; ``.apply(table)`` codes a table, ``.decode(dataset)`` inverts.
    """
    if bins < 1:
        raise ValueError(f"bins must be >= 1, got {bins}.")
    return Discretisation(
        tuple(
            _fit_column(name, table.frame[name], table.kinds[name] == "numerical", bins)
            for name in table.frame.columns
        )
    )


def discretise(table: RawTable, bins: int = 32) -> Dataset:
    """Code ``table`` with :func:`fit_discretisation` (see there for the rules)."""
    return fit_discretisation(table, bins).apply(table)
