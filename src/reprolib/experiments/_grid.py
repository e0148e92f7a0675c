"""Run a grid of cells locally, computing only what the results store lacks."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Mapping, Sequence

import pandas as pd
from tqdm import tqdm

from reprolib.experiments._provenance import collect_provenance
from reprolib.experiments._store import Cell, ResultsStore


def run_grid(
    cells: Sequence[Cell],
    compute: Callable[[Cell], Mapping[str, object]],
    store: ResultsStore,
    *,
    scale: str,
    device: str = "cpu",
    progress: bool = True,
    description: str | None = None,
) -> pd.DataFrame:
    """Compute the cells the store lacks, one by one, and return the rows of all requested cells.

    Each finished cell is stored at once (atomically), so an interrupted grid resumes where it
    stopped. Cells are computed in the given order; a cell listed twice is computed and returned
    once.

    Args:
        cells: The runs wanted.
        compute: Runs one cell and returns its metrics (see `ResultsStore.append`).
        store: Where finished rows are looked up and written.
        scale: Scale profile the cells belong to (``"smoke"``, ``"small"`` or ``"paper"``).
        device: The device, in words, recorded with each computed row.
        progress: Whether to show a progress bar (on standard error) over the missing cells.
        description: Label of the progress bar; defaults to ``"<artifact> [<scale>]"``.

    Returns:
        `ResultsStore.frame` restricted to the requested cells, one row per distinct cell, in
        request order, with a fresh 0-based index.

    Raises:
        Exception: Whatever ``compute`` (or storing its result) raised, with a note naming the
            failing cell; the cells finished before it are already stored.
    """
    unique = list({cell.key: cell for cell in cells}.values())
    missing = [cell for cell in unique if not store.has(cell)]
    if description is None:
        description = f"{unique[0].artifact} [{scale}]" if unique else scale
    with tqdm(
        total=len(missing), desc=description, unit="cell", file=sys.stderr, disable=not progress
    ) as bar:
        for finished, cell in enumerate(missing):
            try:
                started = time.perf_counter()
                metrics = compute(cell)
                wall_time_s = time.perf_counter() - started
                store.append(
                    cell,
                    scale=scale,
                    metrics=metrics,
                    wall_time_s=wall_time_s,
                    provenance=collect_provenance(device),
                )
            except Exception as error:
                error.add_note(
                    f"while computing the cell {cell.describe()} (key {cell.key[:12]}); "
                    f"{finished} earlier cell(s) of this run are stored in {store.path}"
                )
                raise
            bar.update(1)
    frame = store.frame()
    positions = pd.Index(frame["key"]).get_indexer([cell.key for cell in unique])
    return frame.iloc[positions].reset_index(drop=True)
