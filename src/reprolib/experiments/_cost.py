"""What a batch would compute, and how long it would take: ``reprolib batch --dry-run``.

Every experiment of the chosen papers lists its cells at a scale; the cells already in their
store cost nothing. Each missing cell's wall time is estimated from runs recorded in the same
store, the most specific match first:

1. ``dataset``: the same mechanism with the same settings (the cell's hyper-parameters, which
   hold the compute knobs: iterations, model capacity, particles, ...) on the same dataset, at
   other epsilons and seeds;
2. ``mechanism``: the same mechanism and settings on the artifact's other datasets: the mean of
   their estimates, with the fastest and the slowest of them as the estimate's range;
3. ``other settings``: the same mechanism with other settings (on the same dataset if it is
   recorded, else on the others): no range, since a knob may move the time either way;
4. ``smaller scale``: the same mechanism and dataset at a smaller scale of the artifact (a lower
   bound: the larger scale turns the compute knobs up, so the range has no upper end);
5. ``none``: nothing comparable is recorded.

Dataset size is not a predictor, because the recorded runs show that it is not one: at ``small``
scale AIM's Figure 1 runs take 73 s on average on nltcs (21,574 records) and 10 s on adult
(48,842); its time follows its rounds and model capacity, which a dry run cannot know. The
range of the ``mechanism`` basis says how far the other datasets disagree; a dataset unlike all
the recorded ones can still take longer than its upper end.

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
from reprolib.experiments._store import Cell

BASES = ("dataset", "mechanism", "other settings", "smaller scale", "none", "after its sources")


def _recorded(artifact: str, scale: str, root: Path | None) -> pd.DataFrame:
    store = open_store(artifact, scale, root)
    columns = ["mechanism", "dataset", "params_json", "epsilon", "wall_time_s"]
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


Estimate = tuple[float | None, float | None, float | None, str]


def _estimate(cell: Cell, here: pd.DataFrame, smaller: list[pd.DataFrame]) -> Estimate:
    """The estimated seconds of one cell, its range (low, high; None where unbounded) and basis."""
    mechanism = here[here["mechanism"] == cell.mechanism]
    settings = mechanism[mechanism["params_json"] == cell.params_json]
    same = settings[settings["dataset"] == cell.dataset]
    if len(same):
        seconds = _at_epsilon(same, cell.epsilon)
        return seconds, seconds, seconds, "dataset"
    if len(settings):
        per_dataset = [_at_epsilon(runs, cell.epsilon) for _, runs in settings.groupby("dataset")]
        return float(np.mean(per_dataset)), min(per_dataset), max(per_dataset), "mechanism"
    if len(mechanism):
        same = mechanism[mechanism["dataset"] == cell.dataset]
        return _at_epsilon(same if len(same) else mechanism, cell.epsilon), None, None, \
            "other settings"
    for frame in smaller:
        same = frame[(frame["mechanism"] == cell.mechanism) & (frame["dataset"] == cell.dataset)]
        if len(same):
            seconds = _at_epsilon(same, cell.epsilon)
            return seconds, seconds, None, "smaller scale"
    return None, None, None, "none"


def plan_batch(paper: str | None, scale: str, root: Path | None = None) -> pd.DataFrame:
    """One row per cell a batch of ``paper`` (None: every paper) at ``scale`` would compute:
    artifact, mechanism, dataset, epsilon, seed, the estimated seconds with their range
    (``low_seconds``, ``high_seconds``; NaN where unbounded or unknown) and the estimate's basis
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
                             "epsilon": None, "seed": None, "seconds": None, "low_seconds": None,
                             "high_seconds": None, "basis": "after its sources"})
                continue
            store = open_store(artifact, scale, root)
            here = _recorded(artifact, scale, root)
            smaller = [_recorded(artifact, s, root) for s in smaller_scales]
            for cell in cells:
                if store.has(cell):
                    continue
                seconds, low, high, basis = _estimate(cell, here, smaller)
                rows.append({"artifact": artifact, "mechanism": cell.mechanism,
                             "dataset": cell.dataset, "epsilon": cell.epsilon, "seed": cell.seed,
                             "seconds": seconds, "low_seconds": low, "high_seconds": high,
                             "basis": basis})
    return pd.DataFrame(rows, columns=["artifact", "mechanism", "dataset", "epsilon", "seed",
                                       "seconds", "low_seconds", "high_seconds", "basis"]
                        ).astype({"seconds": float, "low_seconds": float, "high_seconds": float})


def summarise_plan(plan: pd.DataFrame) -> pd.DataFrame:
    """Per artifact: cells to compute, the estimated hours of those with an estimate and their
    range (``hours_low``, ``hours_high``: NaN where a cell's range is open at that end), and how
    many cells each basis estimated.
    """
    columns = ["artifact", "cells", "hours", "hours_low", "hours_high", *BASES]
    if plan.empty:
        return pd.DataFrame(columns=columns)
    counts = pd.crosstab(plan["artifact"], plan["basis"]).reindex(columns=list(BASES),
                                                                    fill_value=0)
    estimated = plan.dropna(subset=["seconds"]).groupby("artifact")
    summary = plan.groupby("artifact").agg(cells=("basis", "size"))
    for column, seconds in (("hours", "seconds"), ("hours_low", "low_seconds"),
                            ("hours_high", "high_seconds")):
        summary[column] = estimated[seconds].agg(_hours).reindex(summary.index, fill_value=0.0)
    return summary.join(counts).reset_index()[columns]


def _hours(seconds: pd.Series) -> float:
    """Total hours of estimated cells' seconds; NaN if one of them is unbounded (NaN)."""
    return float(seconds.sum()) / 3600.0 if seconds.notna().all() else float("nan")
