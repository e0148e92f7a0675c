"""Table 2 of the slicing paper: the five tasks' records and columns, counted from the data.

One cell per task and source: ``"stand-in"`` at smoke and small scale (offline), ``"paper"``
(folktables CA 2018) at paper scale. The outcome column is not counted, as in the paper.
"""

from __future__ import annotations

import dataclasses

from reprolib.experiments._experiment import Experiment
from reprolib.experiments._scales import Scale
from reprolib.experiments._store import Cell
from reprolib.papers.slicing.data import TASKS, Source, load_table

ARTIFACT = "slicing-tab2"


@dataclasses.dataclass(frozen=True, kw_only=True)
class DatasetSettings:
    """The tasks counted and where their records come from."""

    tasks: tuple[str, ...] = tuple(TASKS)
    source: Source = "stand-in"


SETTINGS: dict[Scale, DatasetSettings] = {
    "smoke": DatasetSettings(),
    "small": DatasetSettings(),
    "paper": DatasetSettings(source="paper"),
}


def _cells(scale: Scale, settings: DatasetSettings) -> list[Cell]:
    del scale
    return [Cell(artifact=ARTIFACT, mechanism="none", dataset=task, epsilon=None, delta=None,
                 seed=0, params={"source": settings.source}) for task in settings.tasks]


def _count(cell: Cell, device: str) -> dict[str, object]:
    del device
    table = load_table(cell.dataset, cell.params["source"])
    domain = table.data.domain
    return {"records": table.data.records,
            "columns": len(domain.categorical.attributes) - 1 + len(domain.numerical),
            "categorical": len(domain.categorical.attributes) - 1,
            "numerical": len(domain.numerical),
            "encoded_columns": sum(domain.categorical.sizes) + len(domain.numerical),
            "positive_share": float(table.data.column("label").mean()),
            "stand_in": table.source == "stand-in",
            "description": table.description}


DATASETS = Experiment(artifact=ARTIFACT, settings=DatasetSettings,
                      defaults=SETTINGS.__getitem__, cells=_cells, compute=_count)
