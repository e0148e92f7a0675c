"""Grids on a Dask cluster: workers compute cells and return their rows; the driver alone writes.

``compute_on_cluster`` submits every cell that the experiments of the given artifacts ask for and
their stores lack, one Dask task per cell. A worker rebuilds the cell, computes it with the
experiment's own function on its device (``device="auto"``: the worker's GPU when it has one)
and returns the metrics, the wall time and its provenance; the driver appends each row to its
store as it arrives, so the store has one writer, every write is atomic, and a batch interrupted
at any point resumes from what is stored. A cell that fails is reported by name and the others go
on; a worker that dies has its tasks rescheduled by Dask.

Experiments whose cells are read off other artifacts' runs (AIM Figures 5 and 6) are listed once
those runs are stored, in a later wave.
"""

from __future__ import annotations

import sys
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from tqdm import tqdm

from reprolib._device import describe_device, resolve_device
from reprolib.experiments._experiment import (
    CellsNotStored,
    get_experiment,
    open_store,
    outdated_rows,
    stored_only,
)
from reprolib.experiments._grid import release_compiled_code
from reprolib.experiments._provenance import collect_provenance
from reprolib.experiments._scales import Scale, check_scale
from reprolib.experiments._staleness import OutputChange
from reprolib.experiments._store import Cell

Remote = Callable[[Mapping[str, Any], str], tuple[dict[str, object], float, dict[str, object]]]


def cell_fields(cell: Cell) -> dict[str, Any]:
    """The cell's fields as plain data (a Cell's read-only params do not pickle)."""
    return {"artifact": cell.artifact, "mechanism": cell.mechanism, "dataset": cell.dataset,
            "epsilon": cell.epsilon, "delta": cell.delta, "seed": cell.seed,
            "params": dict(cell.params)}


def compute_cell(fields: Mapping[str, Any], device: str
                 ) -> tuple[dict[str, object], float, dict[str, object]]:
    """Run on a worker: the metrics of the cell, its wall time and the worker's provenance."""
    cell = Cell(**fields)
    resolved = resolve_device(device)
    started = time.perf_counter()
    metrics = dict(get_experiment(cell.artifact).compute_on(cell, resolved))
    seconds = time.perf_counter() - started
    release_compiled_code()
    return metrics, seconds, collect_provenance(describe_device(resolved))


def compute_on_cluster(client: Any, artifacts: Sequence[str], scale: str, *,
                       device: str = "auto", progress: bool = True,
                       results_root: Path | None = None, remote: Remote = compute_cell,
                       outdated: Sequence[OutputChange] = ()) -> list[str]:
    """Compute on ``client``'s cluster every stored-missing cell of the artifacts' experiments at
    ``scale``, writing each row as it arrives. Returns one line per failed cell (empty: all ran).

    With ``outdated`` (changes of code, e.g. :data:`~reprolib.experiments._staleness.OUTPUT_CHANGES`)
    it re-runs instead the stored cells whose rows predate one of them
    (:func:`~reprolib.experiments._staleness.rows_to_rerun`), each new row taking the old one's
    place.
    """
    from distributed import as_completed

    scale = check_scale(scale)
    failures: list[str] = []
    waiting = list(dict.fromkeys(artifacts))
    with tqdm(total=0, unit="cell", desc=f"cells [{scale}]", file=sys.stderr,
              disable=not progress) as bar:
        while waiting:
            ready, later = _list_cells(waiting, scale)
            if not ready:  # their sources are stored and still they cannot list their cells
                failures += [f"{a}: its cells depend on runs that are not stored" for a in later]
                break
            futures: dict[Any, Cell] = {}
            submitted: set[str] = set()
            for artifact, cells in ready.items():
                store = open_store(artifact, scale, results_root)
                wanted = (set(outdated_rows(artifact, scale, results_root, outdated)["key"])
                          if outdated else None)
                for cell in cells:
                    due = not store.has(cell) if wanted is None else cell.key in wanted
                    if due and cell.key not in submitted:
                        submitted.add(cell.key)
                        # a fresh key per submission: a resubmitted cell must not meet the
                        # scheduler's record of its earlier, failed task
                        key = f"{artifact}-{cell.key[:12]}-{uuid.uuid4().hex[:8]}"
                        futures[client.submit(remote, cell_fields(cell), device, pure=False,
                                              key=key)] = cell
            bar.total += len(futures)
            bar.refresh()
            for future in as_completed(futures):
                cell = futures.pop(future)
                try:
                    metrics, seconds, provenance = future.result()
                    open_store(cell.artifact, scale, results_root).append(
                        cell, scale=scale, metrics=metrics, wall_time_s=seconds,
                        provenance=provenance)
                except Exception as error:  # noqa: BLE001  (a failed cell must not stop the others)
                    failures.append(f"{cell.describe()}: {type(error).__name__}: {error}")
                bar.update(1)
            waiting = later
    return failures


def _list_cells(artifacts: Sequence[str], scale: Scale) -> tuple[dict[str, list[Cell]], list[str]]:
    """The cells of each artifact that can list them now, and the artifacts that cannot yet."""
    ready: dict[str, list[Cell]] = {}
    later: list[str] = []
    for artifact in artifacts:
        experiment = get_experiment(artifact)
        try:
            with stored_only():
                ready[artifact] = experiment.cells(scale, experiment.settings_at(scale))
        except CellsNotStored:
            later.append(artifact)
    return ready, later
