"""The experiment engine: artifacts, the catalogue of papers, grids of runs, the results store,
scale profiles, provenance and the reproduction checks. Nothing here belongs to one paper.
"""

from reprolib.experiments._artifacts import Artifact
from reprolib.experiments._audit import audit_grid, replacement_moves
from reprolib.experiments._catalogue import COMPANION, Catalogue, Chapter, PaperSpec, catalogue
from reprolib.experiments._checks import (
    FAILING,
    Check,
    CheckContext,
    MissingResults,
    Outcome,
    evaluate_checks,
    listed_in_words,
    most,
    regression_check,
    scorecard_frame,
    tally_in_words,
)
from reprolib.experiments._cost import BASES, plan_batch, summarise_plan
from reprolib.experiments._distributed import compute_cell, compute_on_cluster
from reprolib.experiments._experiment import (
    CellsNotStored,
    Experiment,
    artifact_status,
    get_experiment,
    open_store,
    outdated_rows,
    prune_stores,
    rerun_outdated,
    run_experiment,
    store_path,
    stored_only,
)
from reprolib.experiments._grid import run_grid
from reprolib.experiments._jobqueue import jobqueue_cluster
from reprolib.experiments._provenance import (
    UNNAMED_CPU,
    benchmark_rows,
    collect_provenance,
    compute_summary,
    short_revisions,
)
from reprolib.experiments._reference import beside_reference
from reprolib.experiments._scales import SCALE_MEANING, SCALES, Scale, check_scale
from reprolib.experiments._scorecard import (
    STATUS_WORDS,
    STATUSES,
    artifact_findings,
    artifact_scorecard,
    reproduction_status,
)
from reprolib.experiments._speed import (
    PAPER_SETTING_COLUMNS,
    SPEED_COLUMNS,
    paper_setting_runs,
    recorded_speed,
    without_paper_setting_time,
)
from reprolib.experiments._staleness import OUTPUT_CHANGES, OutputChange
from reprolib.experiments._store import Cell, ResultsStore, StoreError


def get_artifact(artifact_id: str) -> Artifact:
    """The artifact with this id; an unknown id raises a KeyError that suggests close ids."""
    return catalogue().artifact(artifact_id)


def artifacts_of(paper: str | None = None) -> list[Artifact]:
    """All artifacts, or those of one paper (an unknown paper raises a ValueError)."""
    return catalogue().artifacts_of(paper)


def checks_of(paper: str | None = None) -> list[Check]:
    """All reproduction checks, or those of one paper."""
    return catalogue().checks_of(paper)


__all__ = [
    "BASES",
    "COMPANION",
    "FAILING",
    "OUTPUT_CHANGES",
    "PAPER_SETTING_COLUMNS",
    "SCALES",
    "SCALE_MEANING",
    "SPEED_COLUMNS",
    "STATUSES",
    "STATUS_WORDS",
    "UNNAMED_CPU",
    "Artifact",
    "Catalogue",
    "Cell",
    "CellsNotStored",
    "Chapter",
    "Check",
    "CheckContext",
    "Experiment",
    "MissingResults",
    "Outcome",
    "OutputChange",
    "PaperSpec",
    "ResultsStore",
    "Scale",
    "StoreError",
    "artifact_findings",
    "artifact_scorecard",
    "artifact_status",
    "artifacts_of",
    "audit_grid",
    "benchmark_rows",
    "beside_reference",
    "catalogue",
    "check_scale",
    "checks_of",
    "collect_provenance",
    "compute_cell",
    "compute_on_cluster",
    "compute_summary",
    "evaluate_checks",
    "get_artifact",
    "get_experiment",
    "jobqueue_cluster",
    "listed_in_words",
    "most",
    "open_store",
    "outdated_rows",
    "paper_setting_runs",
    "plan_batch",
    "prune_stores",
    "recorded_speed",
    "regression_check",
    "replacement_moves",
    "reproduction_status",
    "rerun_outdated",
    "run_experiment",
    "run_grid",
    "scorecard_frame",
    "short_revisions",
    "store_path",
    "stored_only",
    "summarise_plan",
    "tally_in_words",
    "without_paper_setting_time",
]
