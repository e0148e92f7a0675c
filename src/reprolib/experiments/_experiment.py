"""Experiments: the grid of runs behind an artifact, and running it against the results store.

An :class:`Experiment` says which cells (runs) an artifact needs at a scale and how to compute one
cell. Notebooks call :func:`run_experiment`; the scorecard's regression checks call it too, with a
scratch store, to recompute the smoke grid. No algorithm lives in a notebook.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from reprolib._device import describe_device, one_cpu_thread, placed, resolve_device
from reprolib._paths import results_dir
from reprolib.experiments._catalogue import Catalogue, catalogue
from reprolib.experiments._grid import run_grid
from reprolib.experiments._scales import Scale, check_scale
from reprolib.experiments._staleness import OUTPUT_CHANGES, UNPLACED, OutputChange, rows_to_rerun
from reprolib.experiments._store import Cell, ResultsStore


@dataclasses.dataclass(frozen=True)
class NoSettings:
    """The settings of an experiment that users cannot change (any override is refused)."""


def no_settings(scale: Scale) -> NoSettings:
    """The ``defaults`` of an experiment with :class:`NoSettings`, at every scale."""
    del scale
    return NoSettings()


@dataclasses.dataclass(frozen=True, kw_only=True)
class Experiment:
    """The runs behind one artifact.

    Attributes:
        artifact: the artifact id.
        settings: the frozen dataclass of what users may override (``run_experiment``'s
            ``overrides``, a notebook's ``-p overrides``); its fields are all they may name.
        defaults: ``defaults(scale)`` -> the ``settings`` instance of a scale, before overrides.
        cells: ``cells(scale, settings)`` -> the cells of the grid at that scale.
        compute: ``compute(cell, device)`` -> the metrics of one cell.
    """

    artifact: str
    settings: type
    defaults: Callable[[Scale], Any]
    cells: Callable[[Scale, Any], list[Cell]]
    compute: Callable[[Cell, str], Mapping[str, object]]

    def __post_init__(self) -> None:
        if not (isinstance(self.settings, type) and dataclasses.is_dataclass(self.settings)
                and self.settings.__dataclass_params__.frozen):  # type: ignore[attr-defined]
            raise TypeError(f"{self.artifact}: settings must be a frozen dataclass type, "
                            f"got {self.settings!r}")

    def compute_on(self, cell: Cell, device: str) -> Mapping[str, object]:
        """``compute(cell, device)`` with JAX placed on the resolved ``device`` too, and on the
        CPU with one torch thread, so that a run's numbers do not depend on the machine's cores.
        """
        with placed(device), one_cpu_thread(device):
            return self.compute(cell, device)

    def cell_keys(self, scale: Scale) -> set[str]:
        """The keys of the scale's cells, listed without computing anything (see
        :func:`stored_only`: grids read off other runs raise :class:`CellsNotStored`).
        """
        with stored_only():
            return {cell.key for cell in self.cells(scale, self.settings_at(scale))}

    def settings_at(self, scale: Scale, overrides: Mapping[str, object] | None = None) -> Any:
        """The scale's settings with ``overrides`` applied, validated.

        Raises:
            TypeError: an override names no field (the message lists the valid ones) or has the
                wrong type (the message names the field and the type expected); ints are taken for
                floats and lists for tuples.
        """
        from reprolib.mechanisms import make_config

        if not isinstance(overrides, Mapping | None):
            raise TypeError(f"overrides of {self.artifact} must be a dict of setting name -> "
                            f"value, got {overrides!r}")
        return make_config(self.settings, dict(overrides or {}), base=self.defaults(scale),
                           owner=self.artifact)


class CellsNotStored(LookupError):
    """A read-only run met cells that are not in the store (see :func:`stored_only`)."""


_STORED_ONLY = contextvars.ContextVar("stored_only", default=False)


@contextlib.contextmanager
def stored_only() -> Iterator[None]:
    """Within this block :func:`run_experiment` computes nothing: it returns stored grids and
    raises :class:`CellsNotStored` for a grid with missing cells. Experiments whose cells are read
    off other artifacts' runs (AIM Figures 5-6) would otherwise compute those runs.
    """
    token = _STORED_ONLY.set(True)
    try:
        yield
    finally:
        _STORED_ONLY.reset(token)


def get_experiment(artifact_id: str) -> Experiment:
    """The experiment of an artifact (of the one it reads its runs from, see
    ``Artifact.results_of``); artifacts without one raise a KeyError saying so.
    """
    return catalogue().experiment(artifact_id)


def store_path(artifact_id: str, scale: str, root: Path | None = None, *,
               within: Catalogue | None = None) -> Path:
    """``<results>/<paper>/<artifact>/<scale>.parquet`` (the store of ``results_of`` if set), for
    an artifact of ``within`` (default: the installed papers' catalogue).
    """
    papers = within or catalogue()
    artifact = papers.artifact(artifact_id)
    artifact = papers.artifact(artifact.results_of) if artifact.results_of else artifact
    return (root or results_dir()) / artifact.paper / artifact.id / f"{check_scale(scale)}.parquet"


def open_store(artifact_id: str, scale: str, root: Path | None = None) -> ResultsStore:
    """The results store of one artifact at one scale."""
    return ResultsStore(store_path(artifact_id, scale, root))


def run_experiment(
    artifact_id: str,
    *,
    scale: str,
    device: str = "auto",
    progress: bool = True,
    results_root: Path | None = None,
    overrides: Mapping[str, object] | None = None,
) -> pd.DataFrame:
    """Run (or load) an artifact's grid at ``scale`` and return one row per cell.

    Cells already in the store are not recomputed, so a re-run is free and an interrupted run
    resumes. ``results_root`` redirects the store (default: :func:`reprolib._paths.results_dir`).
    ``overrides`` change the experiment's settings (see :meth:`Experiment.settings_at`: unknown
    names and wrong types raise a TypeError listing the valid fields).
    """
    scale = check_scale(scale)
    experiment = get_experiment(artifact_id)
    settings = experiment.settings_at(scale, overrides)
    resolved = resolve_device(device)
    cells = experiment.cells(scale, settings)
    store = open_store(artifact_id, scale, results_root)
    if _STORED_ONLY.get():
        missing = sum(not store.has(cell) for cell in cells)
        if missing:
            raise CellsNotStored(f"{missing} of {len(cells)} cells of {artifact_id} at scale "
                                 f"{scale} are not in {store.path}")
    return run_grid(
        cells,
        lambda cell: experiment.compute_on(cell, resolved),
        store,
        scale=scale,
        device=describe_device(resolved),
        progress=progress,
    )


def prune_stores(scale: str, root: Path | None = None) -> tuple[dict[Path, int], list[str]]:
    """Drop, from every store at ``scale``, the rows of cells no experiment asks for any more.

    A cell's key covers its hyper-parameters, so a changed default (or a new parameter) leaves
    the old runs behind, where checks and figures reading a whole store would mix them in. The
    wanted keys of a store are those of every artifact writing to it. Nothing is computed: an
    experiment whose cells are read off other artifacts' runs (AIM Figures 5-6) that are not all
    stored is skipped, and so is its store. Returns the number of rows dropped per store file
    and the artifacts skipped.
    """
    scale = check_scale(scale)
    wanted: dict[Path, set[str]] = {}
    skipped: list[str] = []
    for spec in catalogue().papers.values():
        for artifact_id in spec.experiments:
            experiment = get_experiment(artifact_id)
            try:
                keys = experiment.cell_keys(scale)
            except CellsNotStored:
                skipped.append(artifact_id)
                continue
            wanted.setdefault(store_path(artifact_id, scale, root), set()).update(keys)
    for artifact_id in skipped:
        wanted.pop(store_path(artifact_id, scale, root), None)
    dropped = {path: ResultsStore(path).retain(keys)
               for path, keys in wanted.items() if path.is_file()}
    return dropped, skipped


def outdated_rows(artifact_id: str, scale: str, results_root: Path | None = None,
                  changes: Sequence[OutputChange] = OUTPUT_CHANGES, *,
                  unplaced: bool = False) -> pd.DataFrame:
    """The stored rows of an artifact that predate a change of code that can move them (with
    ``unplaced``, also those that cannot be placed against one), with the mark of
    :func:`~reprolib.experiments._staleness.rows_to_rerun` in a ``change`` column.
    """
    rows = open_store(artifact_id, check_scale(scale), results_root).frame()
    marks = rows_to_rerun(rows, changes)
    kept = (marks != "") & (unplaced | (marks != UNPLACED))
    return rows[kept].assign(change=marks[kept])


def rerun_outdated(artifact_id: str, *, scale: str, device: str = "auto", progress: bool = True,
                   results_root: Path | None = None, limit: int | None = None,
                   changes: Sequence[OutputChange] = OUTPUT_CHANGES,
                   overrides: Mapping[str, object] | None = None) -> int:
    """Re-run the cells of an artifact's grid whose rows :func:`outdated_rows` lists and put the
    new rows in their place; return how many were re-run (a stored row stamped later than its
    re-run, e.g. by a clock ahead, stays and is not counted).

    Cells run in the grid's order, at most ``limit`` of them, each in a scratch store that
    replaces its stored row as soon as it finishes, so an interrupted re-run keeps what it did.
    Only the cells of the default grid are re-run (rows of overridden settings are left alone),
    or with ``overrides`` only those of the grid they make (a regression check's spots).
    ``changes``: the registered changes of code (default: all of them).
    """
    scale = check_scale(scale)
    experiment = get_experiment(artifact_id)
    store = open_store(artifact_id, scale, results_root)
    outdated = set(outdated_rows(artifact_id, scale, results_root, changes)["key"])
    cells = [cell for cell in experiment.cells(scale, experiment.settings_at(scale, overrides))
             if cell.key in outdated][:limit]
    resolved = resolve_device(device)
    replaced = 0
    for cell in cells:
        with tempfile.TemporaryDirectory() as scratch:
            fresh = ResultsStore(Path(scratch) / store.path.name)
            run_grid([cell], lambda job: experiment.compute_on(job, resolved), fresh,
                     scale=scale, device=describe_device(resolved), progress=progress)
            replaced += store.merge(fresh, replace=True)
    return replaced


def artifact_status(paper: str | None = None, root: Path | None = None) -> pd.DataFrame:
    """One row per artifact: id, paper, title, notebook, and ``results_<scale>`` flags."""
    from reprolib.experiments._scales import SCALES

    return pd.DataFrame([
        {"id": a.id, "paper": a.paper, "title": a.title,
         "notebook": a.notebook or "(not yet written)",
         **{f"results_{scale}": store_path(a.id, scale, root).is_file() for scale in SCALES}}
        for a in catalogue().artifacts_of(paper)
    ])
