"""Experiments: artifacts, scale profiles, grids of runs and the results store."""

from reprolib.experiments._artifacts import ARTIFACTS, PAPERS, Artifact, artifacts_of, get_artifact
from reprolib.experiments._experiment import (
    Experiment,
    artifact_status,
    get_experiment,
    open_store,
    run_experiment,
    store_path,
)
from reprolib.experiments._grid import run_grid
from reprolib.experiments._provenance import collect_provenance
from reprolib.experiments._scales import SCALE_MEANING, SCALES, Scale, check_scale
from reprolib.experiments._store import Cell, ResultsStore, StoreError

__all__ = [
    "ARTIFACTS",
    "PAPERS",
    "SCALES",
    "SCALE_MEANING",
    "Artifact",
    "Cell",
    "Experiment",
    "ResultsStore",
    "Scale",
    "StoreError",
    "artifact_status",
    "artifacts_of",
    "check_scale",
    "collect_provenance",
    "get_artifact",
    "get_experiment",
    "open_store",
    "run_experiment",
    "run_grid",
    "store_path",
]
