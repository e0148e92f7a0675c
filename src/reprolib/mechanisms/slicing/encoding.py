"""Rows for the slicing mechanism: private bounds for the numbers, one-hot codes, bounded norms.

The paper preprocesses with SmartNoise at epsilon = 0.5 (its Appendix C): numerical columns are
min-max scaled between differentially private bounds, categorical columns one-hot encoded, and
the budget of the bounds is not counted in the reported epsilon. Ours does the same in two
steps. :func:`private_bounds` releases one Gaussian-noised histogram of every numerical column
(through :func:`reprolib.privacy.gaussian_mechanism`, so the ledger is charged) and takes, per
column, the outer edges of the bins whose noisy count clears a threshold; the categories are the
domain's, which is public. :class:`RowEncoding` then writes a record as its one-hot blocks
followed by its numbers rescaled to [0, 1] between those bounds (clipped), times
``row_norm / sqrt(columns)``: every block contributes exactly 1 and every number at most 1 to the
squared norm, so every row has L2 norm at most ``row_norm`` (the paper's "divide by sqrt(d)", with
d the number of original columns). Rows of numbers alone (images) may instead be scaled to norm
``row_norm`` exactly (``"unit"``), which keeps the most signal of each row within the bound.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Literal, get_args

import numpy as np
import pandas as pd

from reprolib.data import Dataset, MixedDataset
from reprolib.mechanisms.slicing.generator import OutputLayout
from reprolib.privacy import (
    Ledger,
    RdpLedger,
    gaussian_mechanism,
    gaussian_sigma,
    marginal_l2_sensitivity,
)

RowScaling = Literal["columns", "unit"]

THRESHOLD_SDS = 3.0
"""A bin counts as occupied when its noisy count exceeds this many noise standard deviations
(ours: an empty bin clears it with probability 0.13 %)."""


def private_bounds(values: np.ndarray, *, rho: float, bins: int, rng: np.random.Generator,
                   ledger: Ledger | RdpLedger) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds in [0, 1] of each column of ``values`` (records x columns, in
    [0, 1]), from one rho-zCDP release of their ``bins``-bin histograms.

    A record sits in one bin of each column's histogram, so the L2 sensitivity of all of them
    together is that of as many marginals. A column without an occupied bin keeps [0, 1].
    """
    columns = values.shape[1]
    edges = np.linspace(0.0, 1.0, bins + 1)
    cells = np.minimum((values * bins).astype(int), bins - 1)
    counts = np.stack([np.bincount(cells[:, j], minlength=bins) for j in range(columns)])
    sensitivity = marginal_l2_sensitivity(ledger.relation, columns)
    sigma = gaussian_sigma(rho, sensitivity)
    noisy = gaussian_mechanism(counts, sigma=sigma, sensitivity=sensitivity, rng=rng,
                               ledger=ledger, label=f"bounds of {columns} numerical columns")
    lower, upper = np.zeros(columns), np.ones(columns)
    for j, occupied in enumerate(noisy > THRESHOLD_SDS * sigma):
        if occupied.any():
            found = np.flatnonzero(occupied)
            lower[j], upper[j] = edges[found[0]], edges[found[-1] + 1]
    return lower, upper


@dataclasses.dataclass(frozen=True, eq=False)
class RowEncoding:
    """How a mixed record becomes a row of norm at most ``row_norm``, and back.

    Attributes:
        blocks: the one-hot block widths (the categorical attributes' sizes, in domain order).
        lower, upper: each numerical column's bounds (in the data's [0, 1] coding).
        row_norm: the largest L2 norm of a row.
        scaling: ``"columns"``: the row times ``row_norm / sqrt(columns)`` (the paper's);
            ``"unit"`` (numbers only, e.g. images, whose direction carries the content): the
            row scaled to norm ``row_norm`` exactly, decoded with its largest value at 1.
    """

    blocks: tuple[int, ...]
    lower: np.ndarray
    upper: np.ndarray
    row_norm: float
    scaling: RowScaling = "columns"

    def __post_init__(self) -> None:
        if self.scaling not in get_args(RowScaling):
            raise ValueError(f"row scaling must be one of {get_args(RowScaling)}, got "
                             f"{self.scaling!r}")
        if self.scaling == "unit" and self.blocks:
            raise ValueError("unit rows are for numerical columns only (one-hot blocks would "
                             "not decode); use row_scaling='columns'")

    @property
    def layout(self) -> OutputLayout:
        """The generator's output: the same blocks and numbers at the same scale."""
        if self.scaling == "unit":
            return OutputLayout((), len(self.lower), self.row_norm, unit=True)
        columns = len(self.blocks) + len(self.lower)
        return OutputLayout(self.blocks, len(self.lower), self.row_norm / math.sqrt(columns))

    def encode(self, data: MixedDataset) -> np.ndarray:
        """The rows of ``data`` (records x layout.width), each of norm at most ``row_norm``."""
        codes = data.categorical.frame.to_numpy()
        parts = [np.eye(size)[codes[:, i]] for i, size in enumerate(self.blocks)]
        width = np.maximum(self.upper - self.lower, np.finfo(float).tiny)
        parts.append(np.clip((data.numerical - self.lower) / width, 0.0, 1.0))
        rows = np.concatenate(parts, axis=1)
        if self.layout.unit:
            rows = rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True),
                                     np.finfo(float).tiny)
        return rows * self.layout.scale

    def decode(self, rows: np.ndarray, like: MixedDataset) -> MixedDataset:
        """Records of ``like``'s domain from encoded rows: the largest entry of each block, and
        each number mapped back from its bounds (unit rows: after dividing by their largest).
        """
        rows = np.asarray(rows, dtype=float) / self.layout.scale
        if self.layout.unit:
            rows = rows / np.maximum(rows.max(axis=1, keepdims=True), np.finfo(float).tiny)
        codes, start = {}, 0
        for attribute, size in zip(like.domain.categorical.attributes, self.blocks, strict=True):
            codes[attribute] = rows[:, start:start + size].argmax(axis=1)
            start += size
        numbers = self.lower + np.clip(rows[:, start:], 0.0, 1.0) * (self.upper - self.lower)
        frame = pd.DataFrame({a: c.astype(np.int64) for a, c in codes.items()},
                             index=pd.RangeIndex(len(rows)))
        return MixedDataset(Dataset(frame, like.domain.categorical, "slicing synthetic"),
                            numbers, like.domain.numerical, like.targets, "slicing synthetic")
