"""The dataset registry: every loadable dataset by name, with its provenance."""

from __future__ import annotations

import difflib
from pathlib import Path

from reprolib.data._folktables import ACS_DATASETS
from reprolib.data._info import DatasetInfo, LoadedData
from reprolib.data._loaders_discrete import DISCRETE_DATASETS
from reprolib.data._loaders_images import IMAGE_DATASETS
from reprolib.data._loaders_tables import TABLE_DATASETS
from reprolib.data._paths import data_dir as default_data_dir
from reprolib.data._paths import require_file

__all__ = ["dataset_info", "list_datasets", "load_dataset"]

_REGISTRY: dict[str, DatasetInfo] = {
    info.name: info
    for info in (*DISCRETE_DATASETS, *TABLE_DATASETS, *IMAGE_DATASETS, *ACS_DATASETS)
}


def list_datasets() -> list[DatasetInfo]:
    """Every registered dataset, in registration order (whether or not its files are present)."""
    return list(_REGISTRY.values())


def dataset_info(name: str) -> DatasetInfo:
    """The registry entry ``name``.

    Raises:
        KeyError: For an unknown name; the message suggests the closest names and lists all.
    """
    try:
        return _REGISTRY[name]
    except KeyError:
        close = difflib.get_close_matches(name, _REGISTRY, n=3)
        hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
        raise KeyError(
            f"Unknown dataset {name!r}.{hint} Known datasets: {', '.join(_REGISTRY)}."
        ) from None


def load_dataset(name: str, data_dir: Path | str | None = None, verify: bool = True) -> LoadedData:
    """Load a registered dataset.

    Args:
        name: A registry name, e.g. ``"aim/adult"`` (see :func:`list_datasets`).
        data_dir: The data directory; default :func:`reprolib.data.data_dir`.
        verify: Check each file's SHA-256 against the recorded one (cached per process).

    Returns:
        A :class:`Dataset` (kind ``"discrete"``), :class:`RawTable` (``"raw"``) or
        :class:`ImageSet` (``"images"``).

    Raises:
        KeyError: For an unknown name.
        DataError: If a file is missing, has the wrong checksum, or holds invalid values.
    """
    info = dataset_info(name)
    root = Path(data_dir) if data_dir is not None else default_data_dir()
    for relative_path in info.files:
        require_file(name, relative_path, root, info.source, verify=verify)
    return info.loader(root)
