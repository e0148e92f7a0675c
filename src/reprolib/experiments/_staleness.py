"""Stored rows that a later change of code no longer reproduces.

A change that moves what a mechanism computes, even at the level of float rounding, leaves the
rows recorded before it standing until they are re-run: they reproduce at the revision they
record, not at the current one. Each such change is registered once in :data:`OUTPUT_CHANGES`;
:func:`rows_to_rerun` finds the rows whose recorded git revision predates a change of their
mechanism, so the pages can say how much of a figure is still to re-run.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from reprolib._paths import repo_root

_GIT_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class OutputChange:
    """A commit from which a mechanism's runs differ from the rows recorded before it.

    Attributes:
        commit: the commit's full hash.
        mechanisms: the mechanisms (as the stores name them) whose runs it moves.
        what: the change, in a few words.
    """

    commit: str
    mechanisms: tuple[str, ...]
    what: str

    @property
    def short(self) -> str:
        """The commit's first 7 characters, as the pages show revisions."""
        return self.commit[:7]


#: Every change that moved stored runs, oldest first; add one with each such commit.
OUTPUT_CHANGES: tuple[OutputChange, ...] = (
    OutputChange("2e01ef3c231cf45e4fc010db54ed72e49d4d6973", ("GEM",),
                 "GEM's step differentiates through the kept cells only: same loss and "
                 "gradient, other float sums"),
    OutputChange("406a8f084041b553c98a555c1a8e66d5927afffe", ("RAP", "RAP++"),
                 "RAP and RAP++ read the data's answers as exact float64 counts over N"),
)

#: :func:`rows_to_rerun`'s mark for a row whose revision git cannot place
UNPLACED = "revision not in this checkout"


def rows_to_rerun(results: pd.DataFrame, changes: Sequence[OutputChange] = OUTPUT_CHANGES,
                  repository: Path | None = None) -> pd.Series:
    """For each stored row, the short hash of the last change of its mechanism that its
    ``git_revision`` predates, :data:`UNPLACED` where git cannot tell (a revision recorded
    outside a checkout, or one this checkout lacks), else "" (the current code reproduces it).

    A ``-dirty`` revision is judged by the commit it was on. ``repository`` (default: this
    checkout) is where git looks the commits up.
    """
    marks = pd.Series("", index=results.index, dtype=object)
    if results.empty or not {"mechanism", "git_revision"} <= set(results.columns):
        return marks
    where = repository or repo_root()
    verdicts: dict[tuple[str, str], bool | None] = {}
    for change in changes:
        affected = results["mechanism"].isin(change.mechanisms)
        for revision in results.loc[affected, "git_revision"].astype(str).unique():
            key = (change.commit, revision)
            if key not in verdicts:
                verdicts[key] = _descends_from(revision, change.commit, where)
            hit = affected & (results["git_revision"].astype(str) == revision)
            if verdicts[key] is None:
                marks[hit] = UNPLACED
            elif not verdicts[key]:
                marks[hit] = change.short
    return marks


def _descends_from(revision: str, commit: str, repository: Path) -> bool | None:
    """Whether ``revision`` contains ``commit`` (None: git cannot tell)."""
    base = revision.removesuffix("-dirty")
    if base == "unknown":
        return None
    try:
        completed = subprocess.run(["git", "merge-base", "--is-ancestor", commit, base],
                                   cwd=repository, capture_output=True,
                                   timeout=_GIT_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return {0: True, 1: False}.get(completed.returncode)


def rerun_summary(results: pd.DataFrame, changes: Sequence[OutputChange] = OUTPUT_CHANGES,
                  repository: Path | None = None) -> str:
    """Which rows of ``results`` the current code may not reproduce, as a clause to follow a
    sentence (empty where there are none).
    """
    marks = rows_to_rerun(results, changes, repository)
    parts = []
    for change in changes:
        hit = marks == change.short
        if hit.any():
            parts.append(f"{int(hit.sum())} of them ({_names(results, hit)}) predate "
                         f"{change.short} ({change.what}), which can move such runs, so they "
                         f"are due to be re-run")
    unplaced = marks == UNPLACED
    if unplaced.any():
        parts.append(f"{int(unplaced.sum())} ({_names(results, unplaced)}) were recorded at "
                     f"revisions this checkout cannot place, so whether they predate such a "
                     f"change is unknown")
    return "".join(f"; {part}" for part in parts)


def _names(results: pd.DataFrame, rows: pd.Series) -> str:
    return ", ".join(sorted(set(results.loc[rows, "mechanism"])))
