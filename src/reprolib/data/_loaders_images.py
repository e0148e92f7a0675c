"""Loaders of the digit image sets: USPS (train and test) and the MNIST test set."""

from __future__ import annotations

import gzip
from functools import partial
from pathlib import Path

import numpy as np

from reprolib.data._containers import ImageSet
from reprolib.data._errors import DataError
from reprolib.data._info import DatasetInfo

__all__ = ["IMAGE_DATASETS", "USPS_ROWS"]

USPS_ROWS = {"train": 7291, "test": 2007}
_IDX_MAGIC = {1: 0x00000801, 3: 0x00000803}  # idx format: unsigned bytes, 1 or 3 dimensions


def _load_usps(split: str, root: Path) -> ImageSet:
    """USPS split from ``usps/usps.h5`` (groups ``train``/``test`` with ``data`` and ``target``).

    16 x 16 images, intensities already in [0, 1].
    """
    import h5py

    path = root / "usps" / "usps.h5"
    with h5py.File(path, "r") as handle:
        features = handle[split]["data"][:]
        labels = handle[split]["target"][:]
    if len(labels) != USPS_ROWS[split]:
        raise DataError(
            f"{path} split {split!r} has {len(labels)} images, expected {USPS_ROWS[split]};"
            " the file is not the standard USPS split. Download it again."
        )
    return ImageSet(features, labels, (16, 16), source=f"{path}:{split}")


def _read_idx(path: Path, ndim: int) -> np.ndarray:
    """An idx-ubyte array (gzip-compressed): big-endian magic, ``ndim`` sizes, then uint8."""
    raw = gzip.decompress(path.read_bytes())
    header = np.frombuffer(raw, dtype=">u4", count=1 + ndim)
    if int(header[0]) != _IDX_MAGIC[ndim]:
        raise DataError(
            f"{path} has idx magic {int(header[0]):#010x}, expected {_IDX_MAGIC[ndim]:#010x};"
            " it is not an MNIST idx file. Download it again."
        )
    shape = tuple(int(s) for s in header[1:])
    return np.frombuffer(raw, dtype=np.uint8, offset=4 * (1 + ndim)).reshape(shape)


def _load_mnist_test(root: Path) -> ImageSet:
    """MNIST test set: 10,000 images of 28 x 28 pixels, 8-bit intensities divided by 255."""
    folder = root / "mnist"
    images = _read_idx(folder / "t10k-images-idx3-ubyte.gz", 3)
    labels = _read_idx(folder / "t10k-labels-idx1-ubyte.gz", 1)
    features = images.reshape(len(images), -1).astype(np.float32) / np.float32(255)
    return ImageSet(features, labels, (28, 28), source=str(folder / "t10k-images-idx3-ubyte.gz"))


_USPS_SOURCE = (
    "niuers/Learning-From-Data-A-Short-Course@879a698b960e5867f7c2b11f8938fa89c3d21839,"
    " data/usps.h5"
)

IMAGE_DATASETS: tuple[DatasetInfo, ...] = (
    *(
        DatasetInfo(
            name=f"usps/{split}",
            description=f"USPS handwritten digits, {split} split, {rows:,} images of 16 x 16",
            kind="images",
            source=_USPS_SOURCE,
            license="public research data set (USPS / Hull 1994)",
            files=("usps/usps.h5",),
            loader=partial(_load_usps, split),
        )
        for split, rows in USPS_ROWS.items()
    ),
    DatasetInfo(
        name="mnist/test",
        description="MNIST test set, 10,000 images of 28 x 28 (training images not offline)",
        kind="images",
        source="pmallari/MNIST@cffbed29f2a5bd3b662ffe9cea7c07129fdad5d2 (official MD5s)",
        license="CC BY-SA 3.0 (LeCun, Cortes, Burges)",
        files=("mnist/t10k-images-idx3-ubyte.gz", "mnist/t10k-labels-idx1-ubyte.gz"),
        loader=_load_mnist_test,
    ),
)
