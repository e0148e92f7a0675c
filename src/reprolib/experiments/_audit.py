"""Recompute a few committed cells of a grid with today's code and compare every metric.

The regression checks recompute the smoke grid and a few named spots of the small one. An audit
does the same for any grid at any scale, on a sample chosen from what is stored: the cheapest
stored cell of each mechanism, cheapest first. It answers "does the code still give the
committed numbers?" for a store the checks do not cover, e.g. after a change to a shared engine.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from reprolib._device import describe_device, resolve_device
from reprolib.experiments._experiment import get_experiment, open_store, stored_only
from reprolib.experiments._grid import run_grid
from reprolib.experiments._scales import check_scale
from reprolib.experiments._store import Cell, ResultsStore

AUDIT_COLUMNS = ["cell", "recorded_on", "recorded_at", "same_cpu", "metrics", "worst_metric",
                 "stored", "recomputed", "relative_difference"]
_MISSING = object()  # a parameter a cell does not have


def _is_timing(metric: str) -> bool:
    """Wall-clock metrics (``seconds``, ``training_seconds``, ...) differ on every run."""
    return "seconds" in metric


def cheapest_cells(recorded: pd.DataFrame, count: int) -> pd.DataFrame:
    """The cheapest stored row of each mechanism (by wall time), cheapest first, then the next
    cheapest rows, ``count`` rows in all.
    """
    by_time = recorded.sort_values("wall_time_s", kind="stable")
    if "mechanism" in by_time:
        first = by_time.groupby("mechanism", sort=False).head(1)
        by_time = pd.concat([first, by_time.drop(first.index)])
    return by_time.head(count)


def varying_params(cells: Iterable[Cell]) -> list[str]:
    """The parameters whose values differ between ``cells`` (Figure 4's capacity, Figure 7's
    rounds), a missing one counting as a value: with mechanism, dataset, epsilon, delta and
    seed they tell the cells apart.
    """
    cells = list(cells)
    names = sorted({name for cell in cells for name in cell.params})
    return [name for name in names
            if len({repr(cell.params.get(name, _MISSING)) for cell in cells}) > 1]


def audit_grid(artifact_id: str, scale: str = "small", *, cells: int = 2, device: str = "cpu",
               results_root: Path | None = None, progress: bool = False) -> pd.DataFrame:
    """Recompute ``cells`` stored cells of an artifact's grid in a scratch store and compare
    every metric except wall-clock times with the stored row; the store is not written.

    Only cells of the grid the experiment asks for today are sampled. An experiment whose cells
    are read off other artifacts' runs (AIM Figures 5-6) reads the stored source runs and
    computes none.

    Returns:
        One row per recomputed cell (:data:`AUDIT_COLUMNS`): the cell in words (with the
        parameters that tell it apart from the grid's other cells, see :func:`varying_params`),
        where and at which revision it was recorded, whether this kind of CPU recorded it, how
        many metrics were compared, and the metric that moved most with its stored and
        recomputed values and relative difference (0 when every metric agrees exactly, inf when
        one became missing).

    Raises:
        LookupError: the store holds no cell of today's grid.
    """
    scale = check_scale(scale)
    experiment = get_experiment(artifact_id)
    grid = {cell.key: cell for cell in experiment.cells(scale, experiment.settings_at(scale))}
    recorded = open_store(artifact_id, scale, results_root).frame()
    recorded = recorded[recorded["key"].isin(grid)]
    if recorded.empty:
        raise LookupError(f"no stored cell of today's {artifact_id} grid at scale {scale}: "
                          f"run it first (reprolib run {artifact_id} --scale {scale})")
    chosen = cheapest_cells(recorded, cells)
    distinguishing = varying_params(grid.values())
    resolved = resolve_device(device)
    here = describe_device(resolved)
    with tempfile.TemporaryDirectory() as scratch, stored_only():
        fresh = run_grid([grid[key] for key in chosen["key"]],
                         lambda cell: experiment.compute_on(cell, resolved),
                         ResultsStore(Path(scratch) / f"{scale}.parquet"), scale=scale,
                         device=here, progress=progress)
    rows = []
    for (_, old), (_, new) in zip(chosen.iterrows(), fresh.iterrows(), strict=True):
        cell = grid[old["key"]]
        label = " ".join([cell.describe().removeprefix(f"artifact={cell.artifact} "),
                          *(f"{name}={cell.params.get(name)}" for name in distinguishing)])
        compared, *worst = largest_move(old, new)
        rows.append([label, old["device"], str(old["git_revision"])[:7], old["device"] == here,
                     compared, *worst])
    return pd.DataFrame(rows, columns=AUDIT_COLUMNS)


def largest_move(old: pd.Series, new: pd.Series) -> tuple[int, str, float, float, float]:
    """How many metrics of a stored row ``old`` (wall-clock times aside) were compared with its
    recomputation ``new``, and the one that moved most: its name, both values and the relative
    difference (0 when every metric agrees exactly, inf when one became missing).
    """
    worst, compared = ("", np.nan, np.nan, 0.0), 0
    for metric in (c for c in old.index if c.startswith("metric.") and not _is_timing(c)):
        stored, recomputed = _number(old[metric]), _number(new.get(metric))
        if stored is None or not np.isfinite(stored):
            continue
        compared += 1
        recomputed = np.nan if recomputed is None else recomputed
        difference = (abs(recomputed - stored) / max(abs(stored), np.finfo(float).tiny)
                      if np.isfinite(recomputed) else np.inf)
        if difference > worst[3] or not worst[0]:
            worst = (metric.removeprefix("metric."), stored, recomputed, difference)
    return compared, *worst


def replacement_moves(before: pd.DataFrame, after: pd.DataFrame) -> pd.DataFrame:
    """For each row of a store's frame ``before`` that ``after`` holds re-recorded (same key,
    another ``created_at``): where both were recorded and the metric that moved most
    (:func:`largest_move`), one row each, in ``before``'s order.
    """
    fresh = after.set_index("key")
    rows = []
    for _, old in before.iterrows():
        if old["key"] not in fresh.index:
            continue
        new = fresh.loc[old["key"]]
        if new["created_at"] == old["created_at"]:
            continue
        compared, *worst = largest_move(old, new)
        rows.append([old["key"], old["device"], new["device"], compared, *worst])
    return pd.DataFrame(rows, columns=["key", "recorded_on", "rerun_on", "metrics",
                                       "worst_metric", "stored", "recomputed",
                                       "relative_difference"])


def _number(value: object) -> float | None:
    """A metric as a float, None for what is not a number (names, flags, lists, missing)."""
    if isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool):
        return float(value)
    return None
