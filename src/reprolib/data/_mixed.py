"""Mixed-type data: integer-coded categorical columns beside numerical columns scaled to [0, 1].

RAP++ (and the other mechanisms that read numbers natively) work on this form. A numerical
column x with declared bounds [lo, hi] is stored as (x - lo) / (hi - lo); the bounds are part of
the coding, not of the data, so a coding fitted on public knowledge (a codebook's range) leaks
nothing, and one fitted on the private data's min and max says so (``bounds_from_data``) and
warns (:class:`DataBoundsWarning`).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from reprolib.data._containers import RawTable
from reprolib.data._domain import Dataset, Domain
from reprolib.data._errors import DataError

__all__ = ["DataBoundsWarning", "MixedCoding", "MixedDataset", "MixedDomain"]


class DataBoundsWarning(UserWarning):
    """A numerical column's bounds were read off the private data. The mechanisms' guarantees
    assume a coding fixed before the data is seen: one fitted on it is outside them (a record that
    moves a min or a max rescales every other record), and decoded records reveal the bounds.
    """


@dataclass(frozen=True)
class MixedDomain:
    """Categorical attributes with their sizes, and numerical attributes valued in [0, 1].

    Attributes:
        categorical: the categorical attributes (codes ``0 .. size-1``).
        numerical: the numerical attributes, in order.
        targets: the categorical attributes that are prediction targets (labels), if any.
    """

    categorical: Domain
    numerical: tuple[str, ...]
    targets: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "numerical", tuple(str(a) for a in self.numerical))
        object.__setattr__(self, "targets", tuple(str(a) for a in self.targets))
        unknown = [a for a in self.targets if a not in self.categorical]
        if unknown:
            raise ValueError(f"targets {unknown} are not categorical attributes "
                             f"({list(self.categorical.attributes)})")
        both = set(self.categorical.attributes) & set(self.numerical)
        if both or len(set(self.numerical)) != len(self.numerical):
            raise ValueError(f"attribute names must be unique across both kinds; repeated: "
                             f"{sorted(both) or self.numerical}")

    @property
    def attributes(self) -> tuple[str, ...]:
        """Categorical attributes, then numerical ones."""
        return self.categorical.attributes + self.numerical

    def __contains__(self, name: object) -> bool:
        return name in self.categorical or name in self.numerical

    def binned(self, bins: int) -> Domain:
        """The discrete domain of :meth:`MixedDataset.binned`: each numerical attribute has
        ``bins`` values, after the categorical ones.
        """
        _check_bins(bins)
        return Domain(self.attributes, self.categorical.sizes + (bins,) * len(self.numerical))


@dataclass(frozen=True, eq=False)
class MixedDataset:
    """Records with categorical codes (a :class:`Dataset`) and numerical values in [0, 1].

    Attributes:
        categorical: the categorical columns, integer coded.
        numerical: float64 array (records x numerical attributes), every entry in [0, 1].
        numerical_names: the numerical attributes, aligned with the columns of ``numerical``.
        targets: the categorical attributes that are prediction targets (labels), if any.
        source: where the records came from, quoted in error messages; optional.
    """

    categorical: Dataset
    numerical: np.ndarray
    numerical_names: tuple[str, ...]
    targets: tuple[str, ...] = ()
    source: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        where = f" in {self.source}" if self.source else ""
        values = np.asarray(self.numerical, dtype=np.float64)
        if values.ndim == 1 and not self.numerical_names:
            values = values.reshape(len(values), 0)
        object.__setattr__(self, "numerical", values)
        object.__setattr__(self, "numerical_names", tuple(self.numerical_names))
        object.__setattr__(self, "targets", tuple(self.targets))
        expected = (self.categorical.records, len(self.numerical_names))
        if values.shape != expected:
            raise DataError(f"numerical values{where} have shape {values.shape}; expected "
                            f"{expected} (one row per record, one column per numerical name)")
        bad = ~np.isfinite(values) | (values < 0.0) | (values > 1.0)
        if bad.any():
            row, column = map(int, np.argwhere(bad)[0])
            raise DataError(
                f"numerical column {self.numerical_names[column]!r}{where} has value "
                f"{float(values[row, column])!r} at row {row} ({int(bad.sum())} entries outside [0, 1] "
                "or missing in all); scale numerical columns into [0, 1] with a MixedCoding")
        self.domain  # noqa: B018 -- building it checks names and targets

    @property
    def domain(self) -> MixedDomain:
        """The categorical domain, the numerical names and the targets."""
        return MixedDomain(self.categorical.domain, self.numerical_names, self.targets)

    @property
    def records(self) -> int:
        """Number of records (rows)."""
        return self.categorical.records

    def column(self, name: str) -> np.ndarray:
        """The codes (int64) of a categorical attribute or the values of a numerical one."""
        if name in self.numerical_names:
            return self.numerical[:, self.numerical_names.index(name)]
        return self.categorical.frame[name].to_numpy()

    def take(self, rows: np.ndarray) -> MixedDataset:
        """The records at positions ``rows``, in that order."""
        rows = np.asarray(rows)
        frame = self.categorical.frame.iloc[rows].reset_index(drop=True)
        return MixedDataset(Dataset(frame, self.categorical.domain, self.source),
                            self.numerical[rows], self.numerical_names, self.targets, self.source)

    def binned(self, bins: int) -> Dataset:
        """A discrete dataset: every numerical value v in bin min(floor(v * bins), bins - 1) of
        ``bins`` equal-width bins of [0, 1] (equal width on the coding's declared range).
        """
        _check_bins(bins)
        codes = np.minimum(np.floor(self.numerical * bins), bins - 1).astype(np.int64)
        frame = self.categorical.frame.copy()
        for j, name in enumerate(self.numerical_names):
            frame[name] = codes[:, j]
        return Dataset(frame.reset_index(drop=True), self.domain.binned(bins), self.source)

    @classmethod
    def from_binned(cls, data: Dataset, numerical: Sequence[str], bins: int,
                    targets: Sequence[str] = ()) -> MixedDataset:
        """The inverse of :meth:`binned` up to the bin width: every bin code c becomes the bin's
        centre (c + 1/2) / bins.
        """
        _check_bins(bins)
        numerical = tuple(numerical)
        categorical = [a for a in data.domain.attributes if a not in numerical]
        values = np.stack([(data.frame[a].to_numpy() + 0.5) / bins for a in numerical], axis=1) \
            if numerical else np.zeros((data.records, 0))
        return cls(data.project(categorical), values, numerical, tuple(targets), data.source)


@dataclass(frozen=True)
class MixedCoding:
    """How a :class:`RawTable` becomes a :class:`MixedDataset`, and back.

    Attributes:
        categories: every categorical column's values; code i stands for ``categories[c][i]``.
        bounds: every numerical column's (lo, hi), lo < hi; x is stored as (x - lo) / (hi - lo).
        bounds_from_data: the numerical columns whose bounds were read off the private data
            (non-private, as in RAP++'s public code); empty when every bound was declared from
            public knowledge.
        clip: clip numbers outside their bounds into them (a declared range as a top-code)
            instead of refusing them.
    """

    categories: Mapping[str, tuple]
    bounds: Mapping[str, tuple[float, float]]
    bounds_from_data: tuple[str, ...] = ()
    clip: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "categories", {str(c): tuple(v) for c, v in self.categories.items()})
        object.__setattr__(self, "bounds", {str(c): (float(lo), float(hi))
                                            for c, (lo, hi) in self.bounds.items()})
        object.__setattr__(self, "bounds_from_data", tuple(str(c) for c in self.bounds_from_data))
        unknown = sorted(set(self.bounds_from_data) - set(self.bounds))
        if unknown:
            raise ValueError(f"bounds_from_data names {unknown}, which have no bounds")
        for name, (lo, hi) in self.bounds.items():
            if not lo < hi:
                raise ValueError(f"bounds of {name!r} must satisfy lo < hi, got ({lo}, {hi})")
        for name, values in self.categories.items():
            if not values:
                raise ValueError(f"categorical column {name!r} needs at least one category")

    @classmethod
    def fit(cls, table: RawTable, bounds: Mapping[str, tuple[float, float]] | None = None, *,
            categories: Mapping[str, Sequence] | None = None, clip: bool = False
            ) -> MixedCoding:
        """The declared ``categories`` (else those seen in ``table``, sorted) and numerical
        ``bounds``; a numerical column without declared bounds takes the data's min and max,
        and the coding records that (``bounds_from_data``) and warns (:class:`DataBoundsWarning`):
        no mechanism's guarantee then covers the coding, nor the records scaled by it.
        """
        bounds = dict(bounds or {})
        declared = dict(categories or {})
        unknown = sorted(set(bounds) - set(table.numerical))
        if unknown:
            raise ValueError(f"bounds given for {unknown}, which are not numerical columns of "
                             f"the table ({list(table.numerical)})")
        missing = [c for c in table.numerical if c not in bounds]
        for name in missing:
            column = table.frame[name]
            bounds[name] = (float(column.min()), float(column.max()))
            if not bounds[name][0] < bounds[name][1]:
                bounds[name] = (bounds[name][0], bounds[name][0] + 1.0)
        coded = {c: tuple(declared[c]) if c in declared else
                 tuple(sorted(table.frame[c].dropna().unique(), key=_sort_key))
                 for c in table.categorical}
        if missing:
            warnings.warn(DataBoundsWarning(
                f"the bounds of {missing} are the private data's min and max: the mechanisms' "
                "privacy guarantees assume a coding fixed without the data, so they do not cover "
                "this one, and decoded records reveal those values; declare public bounds, "
                "MixedCoding.fit(table, bounds={column: (lo, hi)})"),
                stacklevel=2)
        return cls(coded, {c: bounds[c] for c in table.numerical}, tuple(missing), clip)

    @property
    def domain(self) -> MixedDomain:
        """The coded domain: categorical sizes from the categories, numerical names in order."""
        return MixedDomain(Domain.from_dict({c: len(v) for c, v in self.categories.items()}),
                           tuple(self.bounds))

    def encode(self, table: RawTable) -> MixedDataset:
        """Code ``table``; a value outside its column's categories or bounds, or a missing one,
        raises DataError naming the column.
        """
        where = f" of {table.source}" if table.source else ""
        frame = table.frame
        codes = {}
        for name, known in self.categories.items():
            index = pd.Index(list(known), dtype=object).get_indexer(frame[name].astype(object))
            if (index < 0).any():
                bad = frame[name][index < 0].iloc[0]
                raise DataError(f"column {name!r}{where} has value {bad!r} in "
                                f"{int((index < 0).sum())} rows, outside its {len(known)} "
                                "categories; refit the coding or map missing values first")
            codes[name] = index.astype(np.int64)
        scaled = []
        for name, (lo, hi) in self.bounds.items():
            x = frame[name].to_numpy(dtype=np.float64, na_value=np.nan)
            if self.clip:
                x = np.clip(x, lo, hi)
            outside = ~np.isfinite(x) | (x < lo) | (x > hi)
            if outside.any():
                raise DataError(f"numerical column {name!r}{where} has {int(outside.sum())} "
                                f"values missing or outside its bounds [{lo:g}, {hi:g}] (first: "
                                f"{float(x[outside][0])!r}); widen the bounds or clean the column")
            scaled.append((x - lo) / (hi - lo))
        values = np.stack(scaled, axis=1) if scaled else np.zeros((len(frame), 0))
        categorical = Dataset(pd.DataFrame(codes), self.domain.categorical, table.source)
        target = table.target
        targets = (target,) if target is not None and target in self.categories else ()
        return MixedDataset(categorical, values, tuple(self.bounds), targets, table.source)

    def decode(self, data: MixedDataset) -> pd.DataFrame:
        """Records in the table's units: category values, and numbers lo + v (hi - lo)."""
        columns = {name: np.asarray(values, dtype=object)[data.column(name)]
                   for name, values in self.categories.items()}
        for name, (lo, hi) in self.bounds.items():
            columns[name] = lo + data.column(name) * (hi - lo)
        return pd.DataFrame(columns)


def _sort_key(value: object) -> tuple[int, object]:
    """Numbers before strings, each in their natural order."""
    return (0, value) if isinstance(value, (int, float, np.number)) else (1, str(value))


def _check_bins(bins: int) -> None:
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
        raise ValueError(f"bins must be a positive integer, got {bins!r}")
