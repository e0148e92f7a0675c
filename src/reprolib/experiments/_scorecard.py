"""The artifact-centric scorecard: one row per figure or table of each paper.

For every artifact it says how far it is reproduced (DESIGN.md, "Scales, results and the
scorecard"), which data it ran on, how many of its checks pass, which claims are documented
deviations, and where its page is. Everything is read from the catalogue, the evaluated checks
and the results store; nothing is typed by hand.

Status, from the lowest: **not re-run** (no notebook, or no results recorded) -> **re-run** (a
notebook and smoke or small results) -> **whole design** (small results, and the paper's spec
declares that its small profile covers the paper's whole design, for the whole paper or artifact
by artifact) -> **paper scale** (paper-scale results, or a small grid that is, cell for cell, the
paper's: an artifact whose scales cut nothing, such as a taxonomy or dataset statistics).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from reprolib.experiments._artifacts import Artifact
from reprolib.experiments._catalogue import COMPANION, SCORECARD, Catalogue, PaperSpec, catalogue
from reprolib.experiments._checks import Check, Outcome, evaluate_checks
from reprolib.experiments._experiment import CellsNotStored, store_path
from reprolib.experiments._scales import SCALES
from reprolib.experiments._store import ResultsStore

NOT_RERUN, RERUN, WHOLE_DESIGN, PAPER_SCALE = "not re-run", "re-run", "whole design", "paper scale"
#: The statuses, from the lowest.
STATUSES = (NOT_RERUN, RERUN, WHOLE_DESIGN, PAPER_SCALE)
#: A check's status in words, as the scorecard pages show it.
STATUS_WORDS = {"pass": "passes", "fail": "fails", "missing": "results missing",
                "not-applicable": "not applicable", "deviation": "documented deviation"}
COLUMNS = ["paper", "artifact", "title", "status", "note", "data", "checks", "deviations", "page"]
STAND_IN_MARK = "†"


def reproduction_status(catalogue: Catalogue, artifact: Artifact,
                        root: Path | None = None) -> tuple[str, str]:
    """The artifact's status (``not re-run`` ... ``paper scale``) and a note on what it lacks.

    Artifacts with ``results_of`` have the status of the artifact whose runs they show.
    """
    if artifact.notebook is None:
        return NOT_RERUN, "no notebook yet"
    recorded = _recorded_scales(catalogue, artifact, root)
    spec = catalogue.paper(artifact.paper)
    spot = "paper" in recorded  # spot runs, until the paper declares its paper grid complete
    if spot and spec.paper_covers_design:
        return PAPER_SCALE, ""
    if "small" in recorded and _small_grid_is_the_papers(catalogue, artifact, root):
        return PAPER_SCALE, "the small grid is the paper's: nothing is cut"
    if "small" in recorded and spec.small_covers(artifact.id):
        status, note = WHOLE_DESIGN, "paper-scale grid not committed"
    elif "small" in recorded:
        gap = spec.small_gap(artifact.id)
        status, note = RERUN, "small results cover part of the design" + (
            f" (still to run: {gap})" if gap else "")
    elif "smoke" in recorded:
        status, note = RERUN, "smoke results only"
    elif spot:
        return RERUN, "spot runs at the paper's settings only"
    else:
        return NOT_RERUN, "notebook written; no results committed"
    return status, note + ("; spot runs at the paper's settings" if spot else "")


def artifact_scorecard(catalogue: Catalogue, evaluated: Sequence[tuple[Check, Outcome]],
                       root: Path | None = None, paper: str | None = None) -> pd.DataFrame:
    """One row per artifact of ``paper`` (None: of every paper), in book order.

    Args:
        catalogue: the papers and their artifacts.
        evaluated: checks and their outcomes (those of other artifacts are ignored).
        root: the results store's root (None: the default results folder).
        paper: one paper's key, or None for all papers.

    Returns:
        Columns ``paper`` (key), ``artifact`` (id), ``title``, ``status``, ``note`` (what the
        status lacks, or which artifact's runs it shows), ``data`` (in words), ``checks``
        (``k of n pass`` and what the others are), ``deviations`` (``check id: note``, one per
        line) and ``page`` (the artifact's page relative to the scorecard pages' folder; empty
        without a notebook).
    """
    scorecards = posixpath.dirname(catalogue.artifact(SCORECARD).generated_name)
    outcomes: dict[str, list[tuple[Check, Outcome]]] = {}
    for check, outcome in evaluated:
        outcomes.setdefault(check.artifact, []).append((check, outcome))
    rows = []
    for artifact in catalogue.artifacts_of(paper):
        if artifact.paper == COMPANION:
            continue
        status, note = reproduction_status(catalogue, artifact, root)
        if artifact.results_of:
            source = catalogue.artifact(artifact.results_of)
            note = "; ".join(filter(None, [f"shows the runs of {source.toc_title or source.id}",
                                           note]))
        mine = outcomes.get(artifact.id, [])
        rows.append({
            "paper": artifact.paper, "artifact": artifact.id,
            "title": artifact.toc_title or artifact.title, "status": status, "note": note,
            "data": _data_words(catalogue, artifact, root) if status != NOT_RERUN else "",
            "checks": _check_counts([outcome for _, outcome in mine]),
            "deviations": "\n".join(f"{check.id}: {_first_clause(outcome.note)}"
                                    for check, outcome in mine if outcome.status == "deviation"),
            "page": (posixpath.relpath(f"{artifact.generated_name}.html", scorecards)
                     if artifact.notebook else ""),
        })
    return pd.DataFrame(rows, columns=COLUMNS)


def _small_grid_is_the_papers(catalogue: Catalogue, artifact: Artifact,
                              root: Path | None = None) -> bool:
    """Whether the artifact's small cells are its paper cells, key for key, all of them stored.

    Grids read off other artifacts' runs (AIM Figures 5-6) count only when those runs are stored
    at both scales; nothing is computed.
    """
    try:
        experiment = catalogue.experiment(artifact.id)
    except KeyError:  # no experiment (a made-up catalogue's artifact)
        return False
    try:
        small, paper = experiment.cell_keys("small"), experiment.cell_keys("paper")
    except CellsNotStored:
        return False
    stored = ResultsStore(store_path(artifact.id, "small", root, within=catalogue)).keys()
    return small == paper and small <= stored


def _recorded_scales(catalogue: Catalogue, artifact: Artifact,
                    root: Path | None = None) -> list[str]:
    """The scales, smallest first, at which the artifact's runs (or its ``results_of``'s) are
    recorded.
    """
    return [scale for scale in SCALES
            if store_path(artifact.id, scale, root, within=catalogue).is_file()]


def _data_words(catalogue: Catalogue, artifact: Artifact, root: Path | None) -> str:
    """``the paper's data: ...``, ``stand-in: ...`` or both, read from the largest recorded
    scale's runs; or the spec's words for an artifact that reads no data.
    """
    spec = catalogue.paper(artifact.paper)
    if artifact.id in spec.no_data:
        return spec.no_data[artifact.id]
    recorded = _recorded_scales(catalogue, artifact, root)
    frame = ResultsStore(store_path(artifact.id, recorded[-1], root, within=catalogue)).frame()
    stand_ins = _stand_ins(spec, frame)
    own = sorted(set(frame["dataset"]) - set(stand_ins))
    parts = [f"the paper's data: {', '.join(own)}"] if own else []
    by_table: dict[str, list[str]] = {}
    for dataset, table in sorted(stand_ins.items()):
        by_table.setdefault(table, []).append(f"{dataset}{STAND_IN_MARK}")
    if by_table:
        parts.append(f"stand-in{'s' if len(by_table) > 1 else ''}: " + "; ".join(
            f"{table} for {', '.join(datasets)}" for table, datasets in by_table.items()))
    return "; ".join(parts)


def _stand_ins(spec: PaperSpec, frame: pd.DataFrame) -> dict[str, str]:
    """Recorded dataset -> the stand-in it ran on, for rows the spec's column marks."""
    if spec.stand_in_column is None:
        return {}
    if spec.stand_in_column not in frame:
        raise ValueError(f"paper {spec.key!r} marks stand-in runs by {spec.stand_in_column!r}, "
                         "which the recorded results lack; re-run the artifact")
    marked = frame.loc[frame[spec.stand_in_column].astype(bool), "dataset"]
    return {dataset: spec.stand_ins.get(dataset, "an unnamed stand-in") for dataset in set(marked)}


def _check_counts(outcomes: list[Outcome]) -> str:
    """``k of n pass`` (n: every check but the not-applicable), then what the others are."""
    if not outcomes:
        return "no checks"
    statuses = [outcome.status for outcome in outcomes]
    counted = [s for s in statuses if s != "not-applicable"]
    words = f"{counted.count('pass')} of {len(counted)} pass" if counted else "none applies"
    others = [f"{statuses.count(s)} {STATUS_WORDS[s]}" for s in ("fail", "missing", "deviation")
              if s in statuses]
    if others:
        words += f" ({', '.join(others)})"
    if "not-applicable" in statuses:
        words += f"; {statuses.count('not-applicable')} not applicable"
    return words


def _first_clause(text: str) -> str:
    """The text up to its first colon, semicolon or full stop (a deviation note's gist)."""
    return re.split(r"[:;.]\s", text, maxsplit=1)[0]


def artifact_findings(artifact_id: str, kinds: Sequence[str] = ("claim",),
                      results_root: Path | None = None) -> str:
    """The checks of one artifact (of ``kinds``; regression checks recompute runs and are left
    to the scorecard), evaluated on the stored runs, as Markdown for its page: one item per
    check with its status, what was observed and, for a documented deviation, our finding.
    """
    paper = catalogue().artifact(artifact_id).paper
    checks = [c for c in catalogue().checks_of(paper)
              if c.artifact == artifact_id and c.kind in kinds]
    items = []
    for check, outcome in evaluate_checks(checks, results_root):
        item = (f"- **{_escaped(check.description)}** ({check.kind}, {check.scale}): "
                f"{STATUS_WORDS[outcome.status]}. Observed: {_escaped(outcome.observed)}.")
        if outcome.note:
            item += f" *Our finding:* {_escaped(outcome.note)}"
        items.append(item)
    return "\n".join(items) or f"No {' or '.join(kinds)} check reads this artifact's runs."


def _escaped(text: str) -> str:
    """``text`` with the characters Markdown would read as markup escaped."""
    return re.sub(r"([\\`*_<\[\]])", r"\\\1", text)
