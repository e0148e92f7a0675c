"""From relaxed rows to records: RAP++'s oversampling and plain sampling.

A relaxed row holds a distribution per categorical attribute (a block on the simplex) and a
number in [0, 1] per numerical attribute. Each row becomes ``per_row`` records that copy its
numbers; the categorical values are drawn independently per attribute:

* ``"oversample"`` (the authors' code, ``get_upsampled_dataset_from_relaxed``, 40 records per
  row): value c gets round(per_row p_c) of the row's records (round half up), in a random order
  of the values, the list cut or padded with its last value to ``per_row``, then shuffled;
* ``"sample"`` (the paper: "recover a dataset ... by random sampling"): each record draws every
  value from p independently.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd

from reprolib.data import Dataset, MixedDataset
from reprolib.queries import OneHotLayout

Rounding = Literal["oversample", "sample"]
ROUNDINGS: tuple[Rounding, ...] = ("oversample", "sample")


def round_rows(rows: np.ndarray, layout: OneHotLayout, rng: np.random.Generator,
               rounding: Rounding, per_row: int) -> MixedDataset:
    """``per_row`` records per relaxed row (rows x layout.width, blocks on the simplex)."""
    rows = np.asarray(rows, dtype=np.float64)
    n = len(rows)
    domain = layout.domain
    codes = {}
    for attribute, (start, stop) in zip(domain.categorical.attributes, layout.blocks(), strict=True):
        block = np.clip(rows[:, start:stop], 0.0, None)
        sums = block.sum(axis=1, keepdims=True)
        p = np.where(sums > 0, block / np.where(sums > 0, sums, 1.0), 1.0 / block.shape[1])
        if rounding == "sample":
            cdf = np.cumsum(np.repeat(p, per_row, axis=0), axis=1)
            draws = (rng.random((n * per_row, 1)) * cdf[:, -1:] >= cdf).sum(axis=1)
            codes[attribute] = np.minimum(draws, block.shape[1] - 1)
        else:
            codes[attribute] = np.concatenate([_oversample(q, per_row, rng) for q in p])
    numbers = np.clip(np.repeat(rows[:, layout.categorical_width:], per_row, axis=0), 0.0, 1.0)
    frame = pd.DataFrame({a: codes[a].astype(np.int64) for a in domain.categorical.attributes})
    return MixedDataset(Dataset(frame, domain.categorical, "synthetic"), numbers,
                        domain.numerical, domain.targets, "synthetic")


def _oversample(p: np.ndarray, per_row: int, rng: np.random.Generator) -> np.ndarray:
    """The code's rounding of one distribution to ``per_row`` values (module docstring)."""
    counts = np.floor(per_row * p + 0.5).astype(np.int64)
    order = rng.permutation(len(p))
    values = np.repeat(order, counts[order])
    if len(values) == 0:
        values = order[-1:]
    values = np.concatenate([values, np.full(max(per_row - len(values), 0), values[-1])])
    return rng.permutation(values[:per_row])
