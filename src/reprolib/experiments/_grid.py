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
            release_compiled_code()
            bar.update(1)
    frame = store.frame()
    positions = pd.Index(frame["key"]).get_indexer([cell.key for cell in unique])
    return frame.iloc[positions].reset_index(drop=True)


MEMORY_MAPS_SOFT_LIMIT = 20_000
"""Memory maps of the process above which :func:`release_compiled_code` empties JAX's caches
(Linux refuses new maps past ``vm.max_map_count``, 65,530 by default)."""


def _memory_maps() -> int | None:
    """The number of memory maps of this process, or None where /proc does not tell."""
    try:
        with open("/proc/self/maps", "rb") as maps:
            return sum(1 for _ in maps)
    except OSError:
        return None


def release_compiled_code() -> None:
    """Empty JAX's compilation caches once the process holds many memory maps.

    Every compiled XLA function keeps a few maps, and the fits of AIM and Private-PGM compile one
    per model structure, which rarely repeats across cells: a grid of a few hundred cells in one
    process would otherwise run out of maps (an LLVM "Cannot allocate memory" error, then a
    crash). Below the limit the caches stay, so short grids keep reusing what they compiled.
    """
    jax = sys.modules.get("jax")
    maps = _memory_maps()
    if jax is not None and maps is not None and maps > MEMORY_MAPS_SOFT_LIMIT:
        jax.clear_caches()
