"""Containers for data that is not (yet) integer coded: raw tables and image sets."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from reprolib.data._errors import DataError

__all__ = ["ColumnKind", "ImageSet", "RawTable"]

ColumnKind = Literal["categorical", "numerical"]
_KINDS = ("categorical", "numerical")


@dataclass(frozen=True, eq=False)
class RawTable:
    """A table with mixed column types, before discretisation.

    Missing values are ``NaN``/``<NA>`` (each loader documents which source marker it maps to
    missing). Numerical columns have a numeric dtype; categorical columns may hold strings or
    integer codes.

    Attributes:
        frame: The records.
        kinds: ``{column: "categorical" | "numerical"}`` for every column of ``frame``.
        target: Name of the prediction target column, if the table has one.
        source: Where the records came from (a file path), quoted in error messages; optional.
    """

    frame: pd.DataFrame
    kinds: Mapping[str, ColumnKind]
    target: str | None = None
    source: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "kinds", dict(self.kinds))
        where = f" of {self.source}" if self.source else ""
        columns = [str(c) for c in self.frame.columns]
        if set(columns) != set(self.kinds):
            raise DataError(
                f"Column kinds{where} must cover exactly the columns: columns without a kind"
                f" {[c for c in columns if c not in self.kinds]}, kinds without a column"
                f" {[c for c in self.kinds if c not in columns]}."
            )
        for name, kind in self.kinds.items():
            if kind not in _KINDS:
                raise DataError(f"Column {name!r}{where} has kind {kind!r}; use one of {_KINDS}.")
            if kind == "numerical" and not pd.api.types.is_numeric_dtype(self.frame[name]):
                raise DataError(
                    f"Numerical column {name!r}{where} has dtype {self.frame[name].dtype};"
                    " convert it to numbers (missing as NaN) or mark it categorical."
                )
        if self.target is not None and self.target not in self.kinds:
            raise DataError(f"Target column {self.target!r} is not a column{where}: {columns}.")

    @property
    def records(self) -> int:
        """Number of records (rows)."""
        return len(self.frame)

    @property
    def numerical(self) -> tuple[str, ...]:
        """Names of the numerical columns, in column order."""
        return tuple(c for c in self.frame.columns if self.kinds[c] == "numerical")

    @property
    def categorical(self) -> tuple[str, ...]:
        """Names of the categorical columns, in column order."""
        return tuple(c for c in self.frame.columns if self.kinds[c] == "categorical")


@dataclass(frozen=True, eq=False)
class ImageSet:
    """Labelled grey-scale images, flattened row-major.

    Attributes:
        features: ``float32`` array of shape ``(n, height * width)``, intensities in ``[0, 1]``
            (0 is background).
        labels: Integer class labels, shape ``(n,)``.
        image_shape: ``(height, width)`` of one image, in pixels.
        source: Where the images came from (a file path); optional.
    """

    features: np.ndarray
    labels: np.ndarray
    image_shape: tuple[int, int]
    source: str | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        where = f" of {self.source}" if self.source else ""
        features = np.asarray(self.features, dtype=np.float32)
        labels = np.asarray(self.labels)
        object.__setattr__(self, "features", features)
        object.__setattr__(self, "labels", labels.astype(np.int64))
        pixels = int(np.prod(self.image_shape))
        if features.ndim != 2 or features.shape[1] != pixels:
            raise DataError(
                f"Image features{where} have shape {features.shape}; expected (n, {pixels}) for"
                f" images of shape {tuple(self.image_shape)}."
            )
        if labels.shape != (features.shape[0],) or not np.issubdtype(labels.dtype, np.integer):
            raise DataError(
                f"Labels{where} have shape {labels.shape} and dtype {labels.dtype}; expected"
                f" {features.shape[0]} integer labels, one per image."
            )
        if features.size and (features.min() < 0.0 or features.max() > 1.0):
            raise DataError(
                f"Image intensities{where} span [{features.min()}, {features.max()}]; scale"
                " them to [0, 1] (e.g. divide 8-bit pixels by 255)."
            )

    @property
    def records(self) -> int:
        """Number of images."""
        return len(self.labels)

    def images(self) -> np.ndarray:
        """The features reshaped to ``(n, height, width)`` (a view, no copy)."""
        return self.features.reshape((-1, *self.image_shape))
