"""Recorded run times of every mechanism in every paper: the data of the speed summary page.

Every experiment's store at the chosen scales is read once (artifacts that share a store share
its rows). Per (paper, mechanism, scale, device): how many runs are recorded, the median and the
largest wall time, and the dataset of the largest. These are the committed runs' own wall times
on the machines that recorded them (the store keeps the device of each row); the papers' speed
pages add their benchmarks, with the knobs and the machine's load.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from reprolib.experiments._catalogue import catalogue
from reprolib.experiments._experiment import open_store

SPEED_COLUMNS = ("paper", "mechanism", "scale", "device", "runs", "median_s", "max_s",
                 "slowest_dataset")
# the papers' benchmarks at their own settings, one row per measured run (``paper_setting_speed``
# of each paper's pages module): how it was measured, the goal, and what the authors report
PAPER_SETTING_COLUMNS = ("paper", "mechanism", "setting", "device", "minutes", "measured", "goal",
                         "authors")
NO_DATA = ("none", "closed-form")  # the dataset names of rows that ran nothing on data


def recorded_speed(scales: Sequence[str] = ("small", "paper"),
                   root: Path | None = None) -> pd.DataFrame:
    """One row per (paper, mechanism, scale, device) with recorded runs (``SPEED_COLUMNS``),
    in the book's paper order. Rows that ran nothing on data (dataset statistics, declared
    traits, closed forms) are left out.
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
                rows = store.frame()[["mechanism", "dataset", "device", "wall_time_s"]]
                ran = (rows["mechanism"] != "none") & ~rows["dataset"].isin(NO_DATA)
                frames.append(rows[ran].assign(paper=key, scale=scale))
    if not frames:
        return pd.DataFrame(columns=list(SPEED_COLUMNS))
    runs = pd.concat(frames, ignore_index=True)
    keys = ["paper", "mechanism", "scale", "device"]
    slowest = runs.loc[runs.groupby(keys)["wall_time_s"].idxmax(), [*keys, "dataset"]]
    table = (runs.groupby(keys)["wall_time_s"].agg(runs="size", median_s="median", max_s="max")
             .reset_index().merge(slowest.rename(columns={"dataset": "slowest_dataset"}),
                                  on=keys))
    order = {key: i for i, key in enumerate(papers)}
    table = table.sort_values(["paper", "mechanism", "scale", "device"],
                              key=lambda c: c.map(order) if c.name == "paper" else c)
    return table[list(SPEED_COLUMNS)].reset_index(drop=True)
