"""PrivPGD's covariance error (paper, Section 4.1, item 2).

err = ||C(Emb(D)) - C(Emb(D_DP))||_F / ||C(Emb(D_DP))||_F, with C the centred (sample, ddof = 1)
covariance matrix of the embedded records, ``numpy.cov(X, rowvar=False)``. Two variants of the
authors' evaluation code (``correlation_difference``) are available as options:

* ``denominator="real"``: the code returns ||C(Emb(D))||_F as the base, not the paper's
  ||C(Emb(D_DP))||_F; ``denominator="none"`` gives the unnormalised ||Delta C||_F, which the notes
  suspect the aggregation actually published (its division by the base never fired);
* ``centre_rows=True``: the code subtracts each record's mean over its d features before
  ``numpy.cov``, which turns C into P C P with P = I - 11^T / d.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from reprolib.data import Dataset
from reprolib.data._embedding import embed, require_domain

CovarianceDenominator = Literal["synthetic", "real", "none"]
_DENOMINATORS = ("synthetic", "real", "none")


def _covariance(data: Dataset, what: str, centre_rows: bool) -> np.ndarray:
    if data.records < 2:
        raise ValueError(
            f"the {what} data has {data.records} records; a sample covariance needs at least 2"
        )
    points = embed(data)
    if centre_rows:
        points = points - points.mean(axis=1, keepdims=True)
    return np.atleast_2d(np.cov(points, rowvar=False))


def covariance_error(
    real: Dataset,
    synthetic: Dataset,
    *,
    denominator: CovarianceDenominator = "synthetic",
    centre_rows: bool = False,
) -> float:
    """||C(Emb(D)) - C(Emb(D_DP))||_F divided by ||C(Emb(D_DP))||_F (the paper's default).

    Args:
        real: D, the real (private training) data.
        synthetic: D_DP, on the same domain.
        denominator: ``"synthetic"`` (paper), ``"real"`` (the code's base ||C(Emb(D))||_F) or
            ``"none"`` (absolute Frobenius error, in squared embedding units).
        centre_rows: Subtract every record's mean over its features first (the code's variant).

    Raises:
        ValueError: On different domains, fewer than 2 records, an unknown ``denominator``, or
            a zero denominator (constant data).
    """
    if denominator not in _DENOMINATORS:
        raise ValueError(f"denominator must be one of {_DENOMINATORS}, got {denominator!r}")
    require_domain(synthetic, real.domain, "synthetic")
    real_cov = _covariance(real, "real", centre_rows)
    synthetic_cov = _covariance(synthetic, "synthetic", centre_rows)
    error = float(np.linalg.norm(real_cov - synthetic_cov, "fro"))
    if denominator == "none":
        return error
    base = float(np.linalg.norm(synthetic_cov if denominator == "synthetic" else real_cov, "fro"))
    if base == 0.0:
        raise ValueError(
            f"the {denominator} data's covariance is 0 (every attribute constant), so the relative"
            ' covariance error is undefined; use denominator="none" for the absolute error'
        )
    return error / base
