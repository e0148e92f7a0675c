"""Discrete domains and integer-coded datasets (the inputs of every marginal-based mechanism)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from reprolib.data._errors import DataError

if TYPE_CHECKING:  # mbi imports JAX, which is slow; it is imported only when converting.
    import mbi

__all__ = ["Dataset", "Domain"]


def _as_names(names: str | Iterable[str]) -> tuple[str, ...]:
    return (names,) if isinstance(names, str) else tuple(names)


@dataclass(frozen=True)
class Domain:
    """Named discrete attributes and their sizes; attribute ``a`` takes values ``0 .. size(a)-1``.

    Attributes:
        attributes: Attribute names, in order. Unique.
        sizes: Number of values of each attribute (>= 1), aligned with ``attributes``.

    Example:
        >>> d = Domain.from_dict({"age": 4, "sex": 2})
        >>> d.total_size, d.size("age"), d.project(["sex"]).attributes
        (8, 4, ('sex',))
    """

    attributes: tuple[str, ...]
    sizes: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "attributes", tuple(str(a) for a in self.attributes))
        object.__setattr__(self, "sizes", tuple(int(s) for s in self.sizes))
        if len(self.attributes) != len(self.sizes):
            raise ValueError(
                f"Domain has {len(self.attributes)} attributes but {len(self.sizes)} sizes; "
                "give one size per attribute."
            )
        duplicates = [a for a, count in Counter(self.attributes).items() if count > 1]
        if duplicates:
            raise ValueError(f"Domain attribute names must be unique; repeated: {duplicates}.")
        bad = {a: s for a, s in zip(self.attributes, self.sizes, strict=True) if s < 1}
        if bad:
            raise ValueError(f"Domain sizes must be >= 1; got {bad}.")

    @classmethod
    def from_dict(cls, mapping: Mapping[str, int]) -> Domain:
        """Build a domain from ``{name: size}``, keeping the mapping's key order."""
        return cls(tuple(mapping), tuple(mapping.values()))

    def size(self, name: str) -> int:
        """Number of values of attribute ``name``."""
        return self.sizes[self._index(name)]

    def project(self, names: str | Iterable[str]) -> Domain:
        """The sub-domain on ``names``, in the order given (not the domain's order)."""
        names = _as_names(names)
        return Domain(names, tuple(self.size(n) for n in names))

    @property
    def total_size(self) -> int:
        """Number of cells of the full contingency table (product of sizes; exact Python int)."""
        return math.prod(self.sizes)

    def as_dict(self) -> dict[str, int]:
        """``{name: size}`` in attribute order."""
        return dict(zip(self.attributes, self.sizes, strict=True))

    def to_mbi(self) -> mbi.Domain:
        """The equivalent ``mbi.Domain`` (Private-PGM 2.x)."""
        import mbi

        return mbi.Domain(self.attributes, self.sizes)

    def __len__(self) -> int:
        return len(self.attributes)

    def __contains__(self, name: object) -> bool:
        return name in self.attributes

    def _index(self, name: str) -> int:
        try:
            return self.attributes.index(name)
        except ValueError:
            raise KeyError(
                f"Unknown attribute {name!r}; the domain has {list(self.attributes)}."
            ) from None


def cell_index(columns: Sequence[np.ndarray], sizes: Sequence[int]) -> np.ndarray:
    """The row-major cell index of every record, given its codes (in range) on axes of ``sizes``.

    What ``np.ravel_multi_index`` returns, built in place without its bounds checks (5x slower),
    which codes checked against their domain do not need.
    """
    flat = np.asarray(columns[0]).astype(np.intp)
    for column, size in zip(columns[1:], sizes[1:], strict=True):
        flat *= size
        flat += column
    return flat


@dataclass(frozen=True, eq=False)
class Dataset:
    """A table of integer codes together with its :class:`Domain`.

    Every column of ``frame`` is an attribute of ``domain`` (same names, same order), has an
    integer dtype and holds values in ``[0, domain.size(column))``. Each row is one record
    (unit weight).

    Attributes:
        frame: The records, one column per attribute.
        domain: The attributes and their sizes.
        source: Where the records came from (a file path), quoted in error messages; optional.

    Raises:
        DataError: On columns that differ from the domain, non-integer or missing values, or
            values outside the domain.
    """

    frame: pd.DataFrame
    domain: Domain
    source: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        where = f" in {self.source}" if self.source else ""
        columns = tuple(str(c) for c in self.frame.columns)
        if columns != self.domain.attributes:
            missing = [a for a in self.domain.attributes if a not in columns]
            unknown = [c for c in columns if c not in self.domain]
            raise DataError(
                f"Columns{where} do not match the domain: missing {missing}, unknown {unknown}"
                f" (columns {list(columns)}, domain {list(self.domain.attributes)}). Select and"
                " order the columns as the domain lists them."
            )
        for name, size in zip(self.domain.attributes, self.domain.sizes, strict=True):
            self._check_column(name, size, where)

    def _check_column(self, name: str, size: int, where: str) -> None:
        column = self.frame[name]
        n_missing = int(column.isna().sum())
        if n_missing:
            raise DataError(
                f"Column {name!r}{where} has {n_missing} missing values; encode missing values"
                " as their own category (see reprolib.data.discretise)."
            )
        if not pd.api.types.is_integer_dtype(column.dtype) or pd.api.types.is_bool_dtype(
            column.dtype
        ):
            raise DataError(
                f"Column {name!r}{where} has dtype {column.dtype}, expected integer codes;"
                " convert with .astype('int64') or discretise the table first."
            )
        values = column.to_numpy()
        outside = (values < 0) | (values >= size)
        if outside.any():
            bad = values[outside]
            first = bad[0]
            raise DataError(
                f"Column {name!r}{where} has value {first} in {int((bad == first).sum())} rows"
                f" ({int(outside.sum())} rows outside the domain in all); allowed range is"
                f" [0, {size}). Fix the data or enlarge the domain size of {name!r}."
            )

    @property
    def records(self) -> int:
        """Number of records (rows)."""
        return len(self.frame)

    def project(self, names: str | Iterable[str]) -> Dataset:
        """The dataset restricted to ``names``, in the order given."""
        domain = self.domain.project(names)
        return Dataset(self.frame[list(domain.attributes)], domain, self.source)

    def marginal(self, names: str | Iterable[str]) -> np.ndarray:
        """Counts of every cell of the marginal on ``names`` (float64, not normalised).

        The result has shape ``tuple(domain.size(n) for n in names)``: entry ``[i, j, ...]``
        counts the records with ``names[0] == i``, ``names[1] == j``, and so on. For
        ``names=()`` it is the 0-d array holding the number of records.
        """
        domain = self.domain.project(names)
        if not domain.attributes:
            return np.array(float(self.records))
        flat = cell_index([self.frame[n].to_numpy() for n in domain.attributes], domain.sizes)
        counts = np.bincount(flat, minlength=domain.total_size)
        return counts.astype(np.float64).reshape(domain.sizes)

    def to_mbi(self) -> mbi.Dataset:
        """The equivalent ``mbi.Dataset`` (Private-PGM 2.x), with unit weights."""
        import mbi

        data = {a: self.frame[a].to_numpy() for a in self.domain.attributes}
        return mbi.Dataset(data, self.domain.to_mbi())
