"""Stored rows that a later change of code no longer reproduces.

A change that moves what a mechanism computes or how its runs are scored, even at the level of
float rounding, leaves the rows recorded before it standing until they are re-run: they
reproduce at the revision they record, not at the current one. Each such change is registered
once in :data:`OUTPUT_CHANGES`; :func:`rows_to_rerun` finds the rows that predate a change that
moves them, so the pages can say how much of a figure is still to re-run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from reprolib._git import git
from reprolib._paths import repo_root


@dataclass(frozen=True)
class OutputChange:
    """A commit from which a mechanism's runs differ from the rows recorded before it.

    Attributes:
        commit: the commit's full hash.
        committed: its commit time (ISO 8601): a row recorded before it cannot contain it.
        mechanisms: the mechanisms (as the stores name them) whose runs it moves; empty: every
            mechanism of ``artifacts``' stores (a change of how runs are scored).
        what: the change, in a few words.
        artifacts: the stores (by the artifact id their rows record) whose runs it moves;
            empty: every store's.
    """

    commit: str
    committed: str
    mechanisms: tuple[str, ...]
    what: str
    artifacts: tuple[str, ...] = ()

    def moves(self, results: pd.DataFrame) -> pd.Series:
        """Which rows of ``results`` are of runs this change moves (whether or not they
        predate it).
        """
        hit = pd.Series(True, index=results.index)
        if self.mechanisms:
            hit &= results["mechanism"].isin(self.mechanisms)
        if self.artifacts:
            stores = results["artifact"] if "artifact" in results else pd.Series("", hit.index)
            hit &= stores.isin(self.artifacts)
        return hit

    @property
    def short(self) -> str:
        """The commit's first 7 characters, as the pages show revisions."""
        return self.commit[:7]


#: Every change that moved stored runs, oldest first; add one with each such commit.
OUTPUT_CHANGES: tuple[OutputChange, ...] = (
    OutputChange("abc8b5156921b7fa3c06e569fdd4d0b3a80b9a7b", "2026-11-24T21:28:34+00:00", (),
                 "the F1 scores' linear model seeds liblinear's coordinate order, which it "
                 "drew from NumPy's global state: the F1 of a model stopped before converging "
                 "moves by a few thousandths",
                 ("rappp-fig3", "rappp-fig8", "rappp-fig9")),
    OutputChange("2e01ef3c231cf45e4fc010db54ed72e49d4d6973", "2026-12-06T01:31:19+00:00", ("GEM",),
                 "GEM's step differentiates through the kept cells only: same loss and "
                 "gradient, other float sums"),
    OutputChange("406a8f084041b553c98a555c1a8e66d5927afffe", "2026-12-06T05:52:56+00:00",
                 ("RAP", "RAP++"),
                 "RAP and RAP++ read the data's answers as exact float64 counts over N"),
    OutputChange("4d39c06c13cafde5e7d1b31dd73d9010336c00a4", "2026-12-07T05:48:08+00:00",
                 ("Slicing", "SliceWass"), "the Poisson sample is released in uniformly random order",
                 ("slicing-tab1", "slicing-tab3")),
    OutputChange("533bd837d9297a2cc88dbfa14a641125792d1bbd", "2026-12-07T13:57:33+00:00",
                 ("Slicing", "SliceWass"), "the base budget of Poisson sampling is found against "
                 "an upper bound on the amplified pair (a few ulps lower)",
                 ("slicing-tab1", "slicing-tab3")),
    OutputChange("10ca1121e02b42791510b70553e0df54bbd09a16", "2026-12-07T20:04:04+00:00",
                 ("PrivMRF", "RAP", "RAP++", "PrivPGD", "DP-MERF", "DP-CTGAN", "Slicing",
                  "SliceWass"),
                 "sensitivities such as sqrt(k) and 1/N are rounded up, and slicing rows are "
                 "clipped a few ulps inside their norm bound: the noise scale moves by an ulp"),
)

#: :func:`rows_to_rerun`'s mark for a row that git cannot place before or after a change and
#: that was recorded after the change was committed
UNPLACED = "not placed"


def rows_to_rerun(results: pd.DataFrame, changes: Sequence[OutputChange] = OUTPUT_CHANGES,
                  repository: Path | None = None) -> pd.Series:
    """For each stored row, the short hash of the last change that moves it and that it predates,
    :data:`UNPLACED` where that cannot be told, else "" (the current code reproduces it).

    A row predates a change when git says its ``git_revision`` does not contain the change's
    commit. Where git cannot say (a revision recorded outside a checkout, ``unknown``; commits
    this checkout lacks; a shallow clone, whose cut history can make a descendant look
    unrelated), a row recorded (``created_at``) before the change was committed predates it, and
    a later one is :data:`UNPLACED`. A ``-dirty`` revision is judged by the commit it was on.
    ``repository`` (default: this checkout) is where git looks the commits up.
    """
    marks = pd.Series("", index=results.index, dtype=object)
    if results.empty or not {"mechanism", "git_revision"} <= set(results.columns):
        return marks
    where = repository or repo_root()
    shallow = git(["rev-parse", "--is-shallow-repository"], cwd=where)
    usable = shallow is not None and shallow.strip() == "false"
    revisions = results["git_revision"].astype(str)
    created = (pd.to_datetime(results["created_at"], utc=True, format="ISO8601")
               if "created_at" in results else pd.Series(pd.NaT, index=results.index))
    for change in changes:
        affected = change.moves(results)
        for revision in revisions[affected].unique():
            hit = affected & (revisions == revision)
            contains = _descends_from(revision, change.commit, where) if usable else None
            if contains is None:
                before = hit & (created < pd.Timestamp(change.committed))
                marks[before] = change.short
                marks[hit & ~before & (marks == "")] = UNPLACED
            elif not contains:
                marks[hit] = change.short
    return marks


def _descends_from(revision: str, commit: str, repository: Path) -> bool | None:
    """Whether ``revision`` contains ``commit`` (None: git cannot tell)."""
    base = revision.removesuffix("-dirty")
    if base == "unknown":
        return None
    merge_base = git(["merge-base", commit, base], cwd=repository)
    return None if merge_base is None else merge_base.strip() == commit


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
        parts.append(f"{int(unplaced.sum())} ({_names(results, unplaced)}), recorded at "
                     f"revisions this checkout cannot place, after such a change was committed, "
                     f"may predate it")
    return "".join(f"; {part}" for part in parts)


def _names(results: pd.DataFrame, rows: pd.Series) -> str:
    return ", ".join(sorted(set(results.loc[rows, "mechanism"])))
