"""Recorded run times of every mechanism in every paper: the data of the speed summary page.

Every experiment's store at the chosen scales is read once (artifacts that share a store share
its rows). Per (paper, mechanism, scale, device): how many runs are recorded, the median and the
largest wall time, and the dataset of the largest. These are the committed runs' own wall times
on the machines that recorded them (the store keeps the device of each row; rows recorded before
it named a CPU's model say ``cpu``, shown as :data:`UNNAMED_CPU`); the papers' speed pages add
their benchmarks, with the knobs and the machine's load.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable, Collection, Sequence
from pathlib import Path

import pandas as pd

from reprolib.experiments._catalogue import catalogue
from reprolib.experiments._experiment import (
    CellsNotStored,
    get_experiment,
    open_store,
    stored_only,
)
from reprolib.experiments._provenance import device_labels
from reprolib.experiments._store import Cell

SPEED_COLUMNS = ("paper", "mechanism", "scale", "device", "runs", "median_s", "max_s",
                 "slowest_dataset", "private")
# the papers' benchmarks at their own settings, one row per measured run (``paper_setting_speed``
# of each paper's pages module): how it was measured, the goal, and what the authors report;
# ``paper`` is the catalogue's key, as in ``SPEED_COLUMNS``
PAPER_SETTING_COLUMNS = ("paper", "mechanism", "setting", "device", "minutes", "measured", "goal",
                         "authors")
NO_DATA = ("none", "closed-form")  # the dataset names of rows that ran nothing on data


def _devices(rows: pd.DataFrame) -> pd.DataFrame:
    return rows.assign(device=device_labels(rows["device"]))


def recorded_speed(scales: Sequence[str] = ("small", "paper"),
                   root: Path | None = None) -> pd.DataFrame:
    """One row per (paper, mechanism, scale, device) with recorded runs (``SPEED_COLUMNS``),
    in the book's paper order. Rows that ran nothing on data (dataset statistics, declared
    traits, closed forms) are left out. ``private`` says whether any of the runs had an epsilon:
    False for the papers' non-private references (the original data, a classifier trained on
    the source domain alone).
    """
    papers = catalogue().papers
    frames, seen = [], set()
    for key, spec in papers.items():
        for artifact in spec.experiments:
            for scale in scales:
                store = open_store(artifact, scale, root)
                if store.path in seen or len(store) == 0:
                    continue
                seen.add(store.path)
                rows = _devices(store.frame()[["mechanism", "dataset", "device", "wall_time_s",
                                               "epsilon"]])
                ran = (rows["mechanism"] != "none") & ~rows["dataset"].isin(NO_DATA)
                frames.append(rows[ran].assign(paper=key, scale=scale))
    if not frames:
        return pd.DataFrame(columns=list(SPEED_COLUMNS))
    runs = pd.concat(frames, ignore_index=True)
    keys = ["paper", "mechanism", "scale", "device"]
    slowest = runs.loc[runs.groupby(keys)["wall_time_s"].idxmax(), [*keys, "dataset"]]
    table = (runs.assign(private=runs["epsilon"].notna()).groupby(keys)
             .agg(runs=("wall_time_s", "size"), median_s=("wall_time_s", "median"),
                  max_s=("wall_time_s", "max"), private=("private", "any"))
             .reset_index().merge(slowest.rename(columns={"dataset": "slowest_dataset"}),
                                  on=keys))
    order = {key: i for i, key in enumerate(papers)}
    table = table.sort_values(["paper", "mechanism", "scale", "device"],
                              key=lambda c: c.map(order) if c.name == "paper" else c)
    return table[list(SPEED_COLUMNS)].reset_index(drop=True)


def _without(cell: Cell, ignore: Collection[str]) -> str:
    params = {k: v for k, v in json.loads(cell.params_json).items() if k not in ignore}
    return dataclasses.replace(cell, params=params).key


def _nothing(mechanism: str) -> Collection[str]:
    del mechanism
    return ()


def _stored_cell(row: pd.Series) -> Cell:
    def number(value: float | None) -> float | None:
        return None if value is None or math.isnan(value) else float(value)

    return Cell(artifact=row["artifact"], mechanism=row["mechanism"], dataset=row["dataset"],
                epsilon=number(row["epsilon"]), delta=number(row["delta"]),
                seed=int(row["seed"]), params=json.loads(row["params_json"]))


def paper_setting_runs(paper: str, artifacts: Sequence[str], *, scale: str = "small",
                       ignore: Callable[[str], Collection[str]] = _nothing,
                       root: Path | None = None) -> pd.DataFrame:
    """The longest stored run at ``scale`` of each (mechanism, device) whose cell is also a
    paper-scale cell of its experiment (``PAPER_SETTING_COLUMNS``): the same data, budget,
    seed and hyper-parameters, since a cell's key covers them all, once the parameters that
    ``ignore(mechanism)`` names are set aside (those the mechanism does not read, or a
    data-source switch that resolves to the same offline data at both scales). Such a run's
    wall time is a paper-setting time. Rows that ran nothing on data are left out.
    """
    frames = []
    for artifact in artifacts:
        experiment = get_experiment(artifact)
        try:
            with stored_only():
                cells = experiment.cells("paper", experiment.settings_at("paper"))
        except CellsNotStored:
            continue
        wanted = {_without(cell, ignore(cell.mechanism)) for cell in cells}
        rows = open_store(artifact, scale, root).frame()
        if len(rows):
            rows = rows[(rows["mechanism"] != "none") & ~rows["dataset"].isin(NO_DATA)]
        if len(rows):
            keys = rows.apply(lambda row: _without(_stored_cell(row), ignore(row["mechanism"])),
                              axis=1)
            frames.append(_devices(rows[keys.isin(wanted)]))
    runs = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if runs.empty:
        return pd.DataFrame(columns=list(PAPER_SETTING_COLUMNS))
    counts = runs.groupby(["mechanism", "device"]).size()
    longest = runs.loc[runs.groupby(["mechanism", "device"])["wall_time_s"].idxmax()]
    stand_in = [column for column in ("metric.substituted", "metric.stand_in")
                if column in longest]
    return pd.DataFrame([
        {"paper": paper, "mechanism": row["mechanism"],
         "setting": f"{row['dataset']}"
                    f"{' (stand-in)' if any(row[c] is True for c in stand_in) else ''}, "
                    f"ε = {row['epsilon']:.3g}: the longest of "
                    f"{counts[row['mechanism'], row['device']]} {scale} runs at the paper's "
                    "settings",
         "device": row["device"], "minutes": row["wall_time_s"] / 60, "measured": "whole run",
         "goal": "", "authors": "not reported"}
        for _, row in longest.sort_values("mechanism").iterrows()],
        columns=list(PAPER_SETTING_COLUMNS))


def without_paper_setting_time(times: pd.DataFrame,
                               *measured: pd.DataFrame) -> dict[str, list[str]]:
    """Per paper, the private mechanisms with recorded runs (``recorded_speed``) that no table
    of paper-setting times (``PAPER_SETTING_COLUMNS``) names, sorted; papers with none are left
    out.
    """
    timed = {(row.paper, row.mechanism) for frame in measured for row in frame.itertuples()}
    missing: dict[str, list[str]] = {}
    private = times[times["private"].astype(bool)]  # an empty column is of object dtype
    for paper, mechanism in private[["paper", "mechanism"]].drop_duplicates().itertuples(index=False):
        if (paper, mechanism) not in timed:
            missing.setdefault(paper, []).append(mechanism)
    return {paper: sorted(mechanisms) for paper, mechanisms in missing.items()}
