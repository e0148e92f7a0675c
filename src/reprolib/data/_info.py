"""The typed description of one registered dataset."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from reprolib.data._containers import ImageSet, RawTable
from reprolib.data._domain import Dataset

__all__ = ["DatasetInfo", "DatasetKind", "LoadedData"]

DatasetKind = Literal["discrete", "raw", "images"]
LoadedData = Dataset | RawTable | ImageSet


@dataclass(frozen=True)
class DatasetInfo:
    """What a registry entry is, where it comes from, and how to load it.

    Attributes:
        name: Registry name, ``"<family>/<table>"`` (e.g. ``"aim/adult"``).
        description: One line: what the records are and the table's shape.
        kind: ``"discrete"`` (a :class:`Dataset`), ``"raw"`` (a :class:`RawTable`) or
            ``"images"`` (an :class:`ImageSet`).
        source: Provenance: repository, commit and path (or the public service) of the files.
        license: Licence or terms of the original data.
        files: Paths below the data directory that the loader reads; each is checked to exist
            and to match ``checksums.txt`` before loading.
        loader: Reads the dataset, given the data directory.
    """

    name: str
    description: str
    kind: DatasetKind
    source: str
    license: str
    files: tuple[str, ...]
    loader: Callable[[Path], LoadedData]
