"""The slicing paper's tables (Section 4.1, Appendix C): five folktables ACS tasks of California
2018, 1-Year person records; offline, their SDNist stand-ins.

``load_table(task, "paper")`` reads the paper's records through folktables (the person file must
be on disk or downloaded with ``download=True``). Its numbers are coded into [0, 1] between the
public ranges :data:`reprolib.data.ACS_BOUNDS`; its categories are the codes seen in the file,
which are a subset of the codes the ACS data dictionary publishes. ``load_table(task,
"stand-in")`` reads the SDNist stand-in of the task (:func:`reprolib.data.acs_stand_in`, whose
description says which features and which label stand in), coded from the excerpts' published
schemas alone. Either way the binary outcome is the last categorical column, ``"label"``, the
target of the LogitRegression score.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Literal, get_args

from reprolib.data import (
    ACS_BOUNDS,
    LABEL,
    MixedCoding,
    MixedDataset,
    acs_stand_in,
    acs_stand_in_coding,
    acs_stand_in_text,
    data_dir,
    load_acs_task,
)

#: The paper's tasks (Table 1's order) -> (folktables task of ``reprolib.data``, ACS stand-in).
TASKS = {
    "income": ("income", "income"),
    "coverage": ("public_coverage", "publiccoverage"),
    "mobility": ("mobility", "mobility"),
    "employment": ("employment", "employment"),
    "traveltime": ("travel_time", "traveltime"),
}
PAPER_STATE, PAPER_YEAR = "CA", 2018
Source = Literal["paper", "stand-in"]


@dataclasses.dataclass(frozen=True, eq=False)
class SlicingTable:
    """One task's records, coded for the mechanisms, and what they are.

    Attributes:
        task: the paper's task name (a key of :data:`TASKS`).
        source: ``"paper"`` (folktables CA 2018) or ``"stand-in"`` (SDNist excerpts).
        data: the records; numbers in [0, 1], the label a categorical target.
        coding: how the raw table was coded (decode synthetic records with it).
        description: what was loaded, in words, for the pages.
    """

    task: str
    source: Source
    data: MixedDataset
    coding: MixedCoding
    description: str


def load_table(task: str, source: Source = "stand-in", root: Path | None = None, *,
               download: bool = False) -> SlicingTable:
    """Task ``task`` from ``source``; ``download`` lets folktables fetch the paper's person file
    (network needed). Raises DataError, saying how to get it, when the paper's file is missing.
    """
    if task not in TASKS:
        raise ValueError(f"unknown task {task!r}; the slicing paper's tasks are {list(TASKS)}")
    if source not in get_args(Source):
        raise ValueError(f"source must be one of {get_args(Source)}, got {source!r}")
    root = Path(root) if root is not None else data_dir()
    folktables_task, stand_in = TASKS[task]
    if source == "stand-in":
        table = acs_stand_in(stand_in, root)
        coding = acs_stand_in_coding(stand_in, root)
        description = ("SDNist ACS excerpts national2018+ma2018+tx2018 (real 2018 ACS persons), "
                       f"{acs_stand_in_text(stand_in)}")
    else:
        table = load_acs_task(folktables_task, PAPER_STATE, PAPER_YEAR,
                              root_dir=root / "folktables", download=download)
        coding = MixedCoding.fit(table, {c: ACS_BOUNDS[c] for c in table.numerical},
                                 categories={LABEL: (0, 1)}, clip=True)
        description = (f"folktables {folktables_task}, ACS PUMS {PAPER_STATE} {PAPER_YEAR} "
                       "1-Year persons (the paper's data)")
    return SlicingTable(task, source, coding.encode(table), coding, description)
