"""The ordered embedding of discrete records into [0, 1]^d (PrivPGD, Eq. 4), one for every user.

PrivPGD (paper, Eq. 4) maps value x_i in {1, ..., k_i} to (2 x_i - 1) / (2 k_i), the centre of the
i-th of k_i equal bins of [0, 1]. Our :class:`~reprolib.data.Dataset` codes are 0-based, so code c
maps to (2 c + 1) / (2 k). The mechanism and the metrics both call these functions, so they agree.
"""

from __future__ import annotations

import numpy as np

from reprolib.data import Dataset, Domain


def embed_codes(codes: np.ndarray, size: int) -> np.ndarray:
    """The embedding of 0-based codes of an attribute with ``size`` values: (2x + 1) / (2 size)."""
    return (2.0 * np.asarray(codes, dtype=np.float64) + 1.0) / (2.0 * size)


def embed(data: Dataset) -> np.ndarray:
    """Emb(D): ``(n, d)`` float64, entry ``(2 c + 1) / (2 k)`` for 0-based code c of size k (Eq. 4)."""
    return np.stack([embed_codes(data.frame[a].to_numpy(), k)
                     for a, k in zip(data.domain.attributes, data.domain.sizes, strict=True)],
                    axis=1)


def bin_centres(size: int) -> np.ndarray:
    """The ``size`` embedded values of one attribute, ``(2 c + 1) / (2 size)`` for c = 0..size-1."""
    return embed_codes(np.arange(size), size)


def require_domain(data: Dataset, domain: Domain, what: str) -> None:
    """Raise ``ValueError`` unless ``data`` has exactly ``domain`` (names, order, sizes)."""
    if data.domain != domain:
        raise ValueError(
            f"the {what} data's domain {data.domain.as_dict()} differs from the expected"
            f" {domain.as_dict()} (the real data's, or the one the queries were drawn on); the"
            " metrics compare records on one embedded grid, so discretise all datasets with the"
            " same domain (same attributes, order and sizes)"
        )


def require_records(data: Dataset, what: str) -> None:
    """Raise ``ValueError`` if ``data`` has no records (every metric normalises by the count)."""
    if data.records == 0:
        raise ValueError(f"the {what} data has no records; the metrics need at least one")
