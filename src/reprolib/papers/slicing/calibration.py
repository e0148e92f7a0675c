"""The slicing mechanism's noise for the paper's budgets: Theorem 1, the exact Rényi curve and
Proposition 3, after inverting the paper's Poisson amplification.

The paper reports epsilon 5.1 (Table 1) and 8.1 (Table 3) *after* amplification by Poisson
subsampling at rate 0.25 (its Lemma 1); the mechanism itself must meet the base budget
epsilon_0 = log(1 + (e^epsilon - 1) / 0.25), delta_0 = delta / 0.25. The paper gives no delta;
ours is 1e-5 after amplification. Each cell is one (curve, reported epsilon, d, m') and records
the base budget, the smallest sigma that meets it, and what that sigma spends. Rows are scaled so
that neighbours' differing rows are at most C = 1 apart (the paper's Definition 1). Proposition
3's rows use k = 1 (m = m' fixed orthonormal directions). Closed forms: no data, no randomness.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Literal

import numpy as np

from reprolib.experiments._experiment import Experiment
from reprolib.experiments._scales import Scale
from reprolib.experiments._store import Cell
from reprolib.privacy import (
    SlicingCurve,
    poisson_amplified,
    poisson_base,
    projection_epsilon,
    projection_sigma,
    slicing_epsilon,
    slicing_sigma,
)

ARTIFACT = "slicing-calibration"
REPORTED_EPSILONS = (5.1, 8.1)  # Tables 1 and 3, after amplification
SAMPLING_RATE = 0.25  # Appendix C
DELTA = 1e-5  # after amplification (ours: the paper gives none)
Curve = Literal["theorem-1", "exact", "proposition-3"]
CURVES: tuple[Curve, ...] = ("theorem-1", "exact", "proposition-3")


@dataclasses.dataclass(frozen=True, kw_only=True)
class CalibrationSettings:
    """The calibration grid.

    Attributes:
        epsilons: reported (amplified) epsilons.
        dims: d, the encoded columns.
        projections: m' = m k, the released projections.
        delta: the reported (amplified) delta.
        rate: the Poisson sampling rate.
    """

    epsilons: tuple[float, ...] = REPORTED_EPSILONS
    dims: tuple[int, ...] = (100, 500)
    projections: tuple[int, ...] = (100, 1000, 2000)
    delta: float = DELTA
    rate: float = SAMPLING_RATE


SETTINGS: dict[Scale, CalibrationSettings] = {
    "smoke": CalibrationSettings(epsilons=(5.1,), dims=(100,), projections=(100,)),
    "small": CalibrationSettings(),
    "paper": CalibrationSettings(),
}


def _cells(scale: Scale, settings: CalibrationSettings) -> list[Cell]:
    del scale
    return [Cell(artifact=ARTIFACT, mechanism=curve, dataset="closed-form", epsilon=epsilon,
                 delta=settings.delta, seed=0,
                 params={"dim": dim, "projections": projections, "rate": settings.rate})
            for curve, epsilon, dim, projections in itertools.product(
                CURVES, settings.epsilons, settings.dims, settings.projections)]


def _compute(cell: Cell, device: str) -> dict[str, float]:
    del device
    assert cell.epsilon is not None and cell.delta is not None
    dim, projections = int(cell.params["dim"]), int(cell.params["projections"])
    base_epsilon, base_delta = poisson_base(cell.epsilon, cell.delta, float(cell.params["rate"]))
    if cell.mechanism == "proposition-3":
        sigma = projection_sigma(base_epsilon, base_delta, blocks=projections)
        spent, order = projection_epsilon(sigma, base_delta, blocks=projections)
    else:
        curve: SlicingCurve = "lemma-2" if cell.mechanism == "theorem-1" else "exact"
        sigma = slicing_sigma(base_epsilon, base_delta, dim=dim, projections=projections,
                              curve=curve)
        spent, order = slicing_epsilon(sigma, base_delta, dim=dim, projections=projections,
                                       curve=curve)
    amplified, _ = poisson_amplified(spent, base_delta, float(cell.params["rate"]))
    return {"base_epsilon": base_epsilon, "base_delta": base_delta, "sigma": sigma,
            "spent_base_epsilon": spent, "spent_epsilon": amplified, "order": order}


CALIBRATION = Experiment(artifact=ARTIFACT, settings=CalibrationSettings,
                         defaults=SETTINGS.__getitem__, cells=_cells, compute=_compute)


def epsilon_curves(sigmas: np.ndarray, *, dim: int, projections: int, delta: float
                   ) -> dict[str, np.ndarray]:
    """Base epsilon against sigma under each curve (the chapter's figure)."""
    return {
        "theorem-1": np.array([slicing_epsilon(s, delta, dim=dim, projections=projections)[0]
                               for s in sigmas]),
        "exact": np.array([slicing_epsilon(s, delta, dim=dim, projections=projections,
                                           curve="exact")[0] for s in sigmas]),
        "proposition-3": np.array([projection_epsilon(s, delta, blocks=projections)[0]
                                   for s in sigmas]),
    }
