"""Experiment of the preliminaries chapter: epsilon <-> rho under both conversions, and Gaussian sigma.

Each cell is one (conversion, delta, target epsilon); it records the largest rho meeting the target,
the noise standard deviation that rho allows a sensitivity-1 query, and the epsilon that rho maps
back to (a round-trip check). Closed forms only: no data, no randomness.
"""

from __future__ import annotations

import dataclasses
from typing import cast

import numpy as np
import pandas as pd

from reprolib.experiments._experiment import Experiment
from reprolib.experiments._scales import Scale
from reprolib.experiments._store import Cell
from reprolib.privacy import BOUNDS, Bound, eps_to_rho, gaussian_sigma, rho_to_eps

ARTIFACT = "prelim-conversions"
DELTAS = (1e-5, 1e-9)
# epsilons that other chapters quote: PrivPGD's 0.2 / 1.0 / 2.5 and AIM's grid 10^(k/2), k=-4..4
QUOTED_EPSILONS = (0.2, 1.0, 2.5)
POINTS_PER_DECADE = {"smoke": 2, "small": 10, "paper": 100}


def target_epsilons(scale: Scale) -> list[float]:
    """A log grid from 0.01 to 100 (``POINTS_PER_DECADE[scale]`` a decade) plus the quoted values."""
    per_decade = POINTS_PER_DECADE[scale]
    grid = {round(10.0 ** (j / per_decade), 12) for j in range(-2 * per_decade, 2 * per_decade + 1)}
    return sorted(grid | set(QUOTED_EPSILONS))


@dataclasses.dataclass(frozen=True, kw_only=True)
class ConversionSettings:
    """What users may change in the conversions grid.

    Attributes:
        epsilons: the target epsilons.
        deltas: the deltas of the (epsilon, delta) targets.
        sensitivity: the L2 sensitivity of the query whose Gaussian sigma is recorded.
    """

    epsilons: tuple[float, ...]
    deltas: tuple[float, ...] = DELTAS
    sensitivity: float = 1.0


def default_settings(scale: Scale) -> ConversionSettings:
    """The grid of a scale: :func:`target_epsilons`, both deltas, sensitivity 1."""
    return ConversionSettings(epsilons=tuple(target_epsilons(scale)))


def _cells(scale: Scale, settings: ConversionSettings) -> list[Cell]:
    del scale  # the scale's grid is in the settings
    return [
        Cell(artifact=ARTIFACT, mechanism=bound, dataset="closed-form", epsilon=eps, delta=delta,
             seed=0, params={"sensitivity": settings.sensitivity})
        for bound in BOUNDS for delta in settings.deltas for eps in settings.epsilons
    ]


def _compute(cell: Cell, device: str) -> dict[str, float]:
    del device  # closed forms run on the CPU
    assert cell.epsilon is not None and cell.delta is not None
    bound = cast(Bound, cell.mechanism)  # the cells' mechanisms are BOUNDS
    rho = eps_to_rho(cell.epsilon, cell.delta, bound=bound)
    return {
        "rho": rho,
        "sigma": gaussian_sigma(rho, float(cell.params["sensitivity"])),
        "eps_roundtrip": rho_to_eps(rho, cell.delta, bound=bound),
    }


CONVERSIONS = Experiment(artifact=ARTIFACT, settings=ConversionSettings,
                         defaults=default_settings, cells=_cells, compute=_compute)


def value_at(frame, *, bound: str, delta: float, epsilon: float, metric: str) -> float:
    """One recorded metric of the grid (raises a KeyError naming the missing point)."""
    rows = frame[(frame["mechanism"] == bound) & np.isclose(frame["delta"], delta, rtol=1e-12)
                 & np.isclose(frame["epsilon"], epsilon, rtol=1e-9)]
    if rows.empty:
        raise KeyError(f"no {bound} row at delta={delta:g}, epsilon={epsilon:g} in the results")
    return float(rows[f"metric.{metric}"].iloc[0])


def quoted_table(frame) -> pd.DataFrame:
    """Rho and sigma under both conversions at the epsilons other chapters quote."""
    rows = frame[frame["epsilon"].isin(QUOTED_EPSILONS)]
    table = rows.pivot_table(index=["delta", "epsilon"], columns="mechanism",
                             values=["metric.rho", "metric.sigma"])
    table.columns = [f"{'ρ' if m == 'metric.rho' else 'σ'} ({b})" for m, b in table.columns]
    table["σ saved by CKS (%)"] = 100 * (1 - table["σ (cks)"] / table["σ (bun-steinke)"])
    table = table.reset_index()
    table["delta"] = table["delta"].map("{:g}".format)
    return table.rename(columns={"delta": "δ", "epsilon": "ε"})
