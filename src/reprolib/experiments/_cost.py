"""What a batch would compute, and how long it would take: ``reprolib batch --dry-run``.

Every experiment of the chosen papers lists its cells at a scale; the cells already in their
store cost nothing. Each missing cell's wall time is estimated from runs recorded in the same
store, the most specific match first:

1. ``dataset``: the same mechanism on the same dataset (other epsilons and seeds);
2. ``mechanism``: the same mechanism on the artifact's other datasets;
3. ``smaller scale``: the same mechanism and dataset at a smaller scale of the artifact (a lower
   bound: the larger scale turns the compute knobs up);
4. ``none``: nothing comparable is recorded.

Within a match the cell's epsilon counts: run times can grow steeply with the budget (AIM on
nltcs: 4 s at epsilon 0.01, 10 to 15 minutes at 31.6), so the matched runs' mean times per
epsilon are interpolated log-linearly in log epsilon at the cell's, and held at the nearest
recorded epsilon outside their range (so a cell beyond it is likely underestimated).

An experiment whose cells are read off other artifacts' runs that are not all stored yet (AIM
Figures 5-6) cannot list them: its one row has basis ``after its sources``.

Estimates are means of recorded wall times on whatever machines recorded them (the store keeps
the device per row), so they size a batch, they do not promise it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from reprolib.experiments._catalogue import catalogue
from reprolib.experiments._experiment import (
    CellsNotStored,
    get_experiment,
    open_store,
    stored_only,
)
from reprolib.experiments._scales import SCALES, check_scale

BASES = ("dataset", "mechanism", "smaller scale", "none", "after its sources")


def _recorded(artifact: str, scale: str, root: Path | None) -> pd.DataFrame:
    store = open_store(artifact, scale, root)
    columns = ["mechanism", "dataset", "epsilon", "wall_time_s"]
    if len(store) == 0:
        return pd.DataFrame(columns=columns)
    return store.frame()[columns]


def _at_epsilon(runs: pd.DataFrame, epsilon: float | None) -> float:
    """The mean wall time of ``runs`` at ``epsilon``: log-linear in log epsilon between the
    nearest recorded epsilons, the nearest one's outside them; the plain mean without epsilons.
    """
    budgeted = runs.dropna(subset=["epsilon"])
    if epsilon is None or budgeted.empty:
        return float(runs["wall_time_s"].mean())
    means = budgeted.groupby("epsilon")["wall_time_s"].mean()
    log_seconds = np.log(np.maximum(means.to_numpy(float), 1e-9))
    return float(np.exp(np.interp(np.log(epsilon), np.log(means.index.to_numpy(float)),
                                  log_seconds)))


def _estimate(mechanism: str, dataset: str, epsilon: float | None, here: pd.DataFrame,
              smaller: list[pd.DataFrame]) -> tuple[float | None, str]:
    same = here[(here["mechanism"] == mechanism) & (here["dataset"] == dataset)]
    if len(same):
        return _at_epsilon(same, epsilon), "dataset"
    same = here[here["mechanism"] == mechanism]
    if len(same):
        return _at_epsilon(same, epsilon), "mechanism"
    for frame in smaller:
        same = frame[(frame["mechanism"] == mechanism) & (frame["dataset"] == dataset)]
        if len(same):
            return _at_epsilon(same, epsilon), "smaller scale"
    return None, "none"


def plan_batch(paper: str | None, scale: str, root: Path | None = None) -> pd.DataFrame:
    """One row per cell a batch of ``paper`` (None: every paper) at ``scale`` would compute:
    artifact, mechanism, dataset, epsilon, seed, the estimated seconds and the estimate's basis
    (:data:`BASES`). Computes nothing. Experiments whose cells are read off other artifacts' runs
    that are not all stored (AIM Figures 5-6) get one row with basis ``"after its sources"``.
    """
    scale = check_scale(scale)
    smaller_scales = list(SCALES[:SCALES.index(scale)])[::-1]
    rows: list[dict[str, object]] = []
    for key, spec in catalogue().papers.items():
        if paper is not None and key != paper:
            continue
        for artifact in spec.experiments:
            experiment = get_experiment(artifact)
            try:
                with stored_only():
                    cells = experiment.cells(scale, experiment.settings_at(scale))
            except CellsNotStored:
                rows.append({"artifact": artifact, "mechanism": "", "dataset": "",
                             "epsilon": None, "seed": None, "seconds": None,
                             "basis": "after its sources"})
                continue
            store = open_store(artifact, scale, root)
            here = _recorded(artifact, scale, root)
            smaller = [_recorded(artifact, s, root) for s in smaller_scales]
            for cell in cells:
                if store.has(cell):
                    continue
                seconds, basis = _estimate(cell.mechanism, cell.dataset, cell.epsilon, here,
                                           smaller)
                rows.append({"artifact": artifact, "mechanism": cell.mechanism,
                             "dataset": cell.dataset, "epsilon": cell.epsilon, "seed": cell.seed,
                             "seconds": seconds, "basis": basis})
    return pd.DataFrame(rows, columns=["artifact", "mechanism", "dataset", "epsilon", "seed",
                                       "seconds", "basis"])


def summarise_plan(plan: pd.DataFrame) -> pd.DataFrame:
    """Per artifact: cells to compute, the estimated hours of those with an estimate, and how
    many cells each basis estimated.
    """
    if plan.empty:
        return pd.DataFrame(columns=["artifact", "cells", "hours", *BASES])
    counts = pd.crosstab(plan["artifact"], plan["basis"]).reindex(columns=list(BASES),
                                                                    fill_value=0)
    summary = plan.groupby("artifact").agg(cells=("basis", "size"),
                                           hours=("seconds", lambda s: s.sum() / 3600.0))
    return summary.join(counts).reset_index()
