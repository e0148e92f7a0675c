"""Reproduction checks and their evaluation (the scorecard's logic).

Four kinds (DESIGN.md, "Scales, results and the scorecard"):

* ``exact``: facts that must match exactly (dataset statistics, closed-form privacy numbers);
* ``band``: a reproduced number within a stated tolerance of the paper's number;
* ``claim``: a qualitative claim of a paper tested on what was run;
* ``regression``: smoke-scale numbers recomputed now equal the recorded ones (bit for bit on the
  CPU kind that recorded them; within a stated tolerance on another).

A check reads recorded results through a :class:`CheckContext`. When the results it needs are not
recorded, its status is ``missing`` and it counts as failed: a check is never skipped in silence.
A check whose premise did not hold in what was run (a band check against the paper's table when
only a stand-in dataset ran) reports ``not-applicable`` with the reason; it is shown on the
scorecard and counted apart, neither passed nor failed. A claim that our runs contradict, and
that we document as a finding (``Check.deviation`` says what and why), reports ``deviation``
while it keeps failing, and ``fail`` if it starts to pass, so the note cannot go stale. The
numbers a note quotes from the recorded runs are its outcome's ``figures``, filled into the
note's ``{fields}`` when it is evaluated, so that a re-run moves them with it.
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from reprolib._device import describe_device
from reprolib.experiments._catalogue import catalogue
from reprolib.experiments._experiment import open_store, run_experiment
from reprolib.experiments._staleness import OUTPUT_CHANGES, UNPLACED, OutputChange, rows_to_rerun

Kind = Literal["exact", "band", "claim", "regression"]
Status = Literal["pass", "fail", "missing", "not-applicable", "deviation"]
FAILING: tuple[Status, ...] = ("fail", "missing")

#: The cross-CPU tolerance of a regression check whose smoke grid trains or fits a model (see
#: :func:`regression_check`), measured across three CPU kinds (book/reproducing.md); checks
#: whose grids moved by more there state their own.
TRAINED_ACROSS_CPUS = 1e-2
#: The same for the grids that run GEM, whose smoke runs moved by up to 1.5e-2.
GEM_ACROSS_CPUS = 5 * TRAINED_ACROSS_CPUS


@dataclasses.dataclass(frozen=True)
class Outcome:
    """The result of evaluating a check: status, what was observed and what was expected.

    ``figures`` are the named numbers (or words) of the recorded runs that a documented
    deviation's text quotes; ``note`` is that text with them filled in (set by
    :meth:`Check.run`).
    """

    status: Status
    observed: str
    expected: str
    figures: Mapping[str, object] = dataclasses.field(default_factory=dict)
    note: str = ""


def most(count: float, total: float = 1.0) -> bool:
    """Whether ``count`` of ``total`` is "most" of it, as a claim of most settings or most
    datasets is checked: strictly more than half (a tie is not most; nothing is not most).
    ``count`` may be a share of 1.
    """
    return total > 0 and 2 * count > total


def tally_in_words(labels: pd.Series | pd.Index, template: str = "{label} at {count}", *,
                   of: int | None = None) -> str:
    """How often each label of ``labels`` occurs, in words: the most frequent first, ties in
    alphabetical order, "none" when there is none ("married at 6, owner at 4").

    ``template`` words one label; its fields are ``label``, ``count``, ``share`` (``count`` over
    ``of``, by default the number of labels), ``members`` (the sorted index entries carrying the
    label, comma-separated, for a series) and ``s`` ("s" when ``count`` is above one).
    """
    labels = pd.Series(labels) if isinstance(labels, pd.Index) else labels
    total = len(labels) if of is None else of
    groups = labels.groupby(labels, sort=True).groups
    ranked = sorted(groups.items(), key=lambda item: -len(item[1]))  # stable: ties alphabetical
    return ", ".join(template.format(label=label, count=len(members), share=len(members) / total,
                                     members=", ".join(sorted(map(str, members))),
                                     s="s" * (len(members) > 1))
                     for label, members in ranked) or "none"


def listed_in_words(items: Sequence[str]) -> str:
    """``items`` as a list in words ("titanic, nltcs and adult"; "none" when empty)."""
    if not items:
        return "none"
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


class MissingResults(LookupError):
    """The recorded results a check needs do not exist; the message says how to produce them."""


class CheckContext:
    """Gives checks the recorded results (cached), from ``results_root`` or the default store."""

    def __init__(self, results_root: Path | None = None) -> None:
        self.results_root = results_root
        self._frames: dict[tuple[str, str], pd.DataFrame] = {}

    def results(self, artifact_id: str, scale: str) -> pd.DataFrame:
        """Recorded rows of an artifact at a scale; raises MissingResults if there are none."""
        key = (artifact_id, scale)
        if key not in self._frames:
            store = open_store(artifact_id, scale, self.results_root)
            if len(store) == 0:
                raise MissingResults(
                    f"no {scale} results recorded; run `reprolib run {artifact_id} --scale {scale}`"
                )
            self._frames[key] = store.frame()
        return self._frames[key]


@dataclasses.dataclass(frozen=True, kw_only=True)
class Check:
    """One reproduction check of one artifact.

    Attributes:
        id: unique id, prefixed by the artifact's paper.
        artifact: the artifact whose results it reads.
        kind: exact, band, claim or regression.
        scale: the scale whose recorded results it reads.
        data: the data it ran on, in words (name the substitute where the paper's data is missing).
        description: what is checked, with the source of the expected value.
        evaluate: the function that computes the outcome.
        deviation: for a paper's claim that our runs contradict, what we found and why we
            believe it, shown on the scorecard; None for every check we expect to pass. Numbers
            read off the recorded runs are not written into it by hand: it names them as
            ``str.format`` fields (``{gap:.3f}``) of its outcome's ``figures``.
        small_spots: for a regression check, the overrides of the few ``small`` cells it
            recomputes beside the smoke grid (None: it recomputes none).
    """

    id: str
    artifact: str
    kind: Kind
    scale: str
    data: str
    description: str
    evaluate: Callable[[CheckContext], Outcome]
    deviation: str | None = None
    small_spots: Mapping[str, object] | None = None

    @property
    def paper(self) -> str:
        """The paper of the check's artifact."""
        return catalogue().artifact(self.artifact).paper

    def run(self, context: CheckContext) -> Outcome:
        """Evaluate, turning missing results into a ``missing`` outcome and a documented
        deviation's failure into ``deviation`` with its note filled in (its pass into
        ``fail``: the note is stale; so is a note naming a figure the outcome lacks).
        """
        try:
            outcome = self.evaluate(context)
        except MissingResults as missing:
            return Outcome("missing", str(missing), "recorded results")
        if self.deviation is None or outcome.status not in ("pass", "fail"):
            return outcome
        try:
            note = self.deviation.format_map(outcome.figures)
        except (KeyError, IndexError, ValueError) as error:
            return dataclasses.replace(outcome, status="fail", observed=(
                f"{outcome.observed}; the documented deviation quotes a figure its evaluation "
                f"does not give ({error!r}): revise it"))
        if outcome.status == "fail":
            return dataclasses.replace(outcome, status="deviation", note=note)
        return dataclasses.replace(outcome, status="fail", note=note, observed=(
            f"{outcome.observed}; the documented deviation is no longer observed: revise it"))


def _relative_difference(old: np.ndarray, new: np.ndarray) -> np.ndarray:
    """|new - old| / |old| per cell: 0 where both are equal or both NaN (a metric a cell does not
    define), infinite where only one of them is NaN, so that a metric that turns NaN fails.
    """
    equal = (old == new) | (np.isnan(old) & np.isnan(new))
    with np.errstate(invalid="ignore"):
        relative = np.abs(new - old) / np.maximum(np.abs(old), np.finfo(float).tiny)
    return np.where(equal, 0.0, np.where(np.isnan(relative), np.inf, relative))


def regression_check(artifact_id: str, metrics: Sequence[str], *, rtol: float = 1e-6,
                     cross_cpu_rtol: float | None = None, data: str,
                     small_spots: Mapping[str, object] | None = None,
                     changes: Sequence[OutputChange] = OUTPUT_CHANGES) -> Check:
    """Recompute the smoke grid in a scratch store on the CPU and compare ``metrics`` with the
    recorded rows; with ``small_spots`` (the overrides of a few cheap cells of the ``small``
    grid, e.g. one dataset, mechanism, trial and two epsilons) recompute those cells too and
    compare them with the recorded small rows, so that a change of code that moves the small
    grid without moving the smoke grid is noticed.

    The float sums of torch's and JAX's CPU kernels follow the CPU's vector instructions, so a
    grid that trains is bit-for-bit reproducible only on the kind of CPU that recorded it
    (:func:`~reprolib._device.describe_cpu`). Where every recorded row names this CPU the
    comparison is at ``rtol``; otherwise (another CPU, or rows from before CPUs were named) at
    ``cross_cpu_rtol``, whose value each check justifies (``None``: ``rtol``, for closed forms).

    A compared row that predates one of ``changes`` of its mechanism fails the check on every
    CPU (:func:`~reprolib.experiments._staleness.rows_to_rerun`, by its revision or, where git
    cannot tell, by when it was recorded; a row placed by neither does not): such a change is
    registered because it moves runs, and on another kind of CPU the tolerance might hide it.
    """
    tolerance_elsewhere = rtol if cross_cpu_rtol is None else cross_cpu_rtol

    def evaluate(context: CheckContext) -> Outcome:
        here = describe_device("cpu")
        grids = [("smoke", None)] + ([("small", small_spots)] if small_spots else [])
        compared, unmatched, elsewhere, recorded_here = 0, 0, set(), False
        outdated: dict[str, int] = {}  # by scale: compared rows that predate a change
        worst = {True: 0.0, False: 0.0}  # by whether this kind of CPU recorded the row
        for scale, overrides in grids:
            recorded = context.results(artifact_id, scale)
            with tempfile.TemporaryDirectory() as scratch:
                fresh = run_experiment(artifact_id, scale=scale, device="cpu", progress=False,
                                       results_root=Path(scratch), overrides=overrides)
            # the smoke grid is recomputed whole; the spots are a few of the small grid's cells
            merged = recorded.merge(fresh, on="key", how="outer" if overrides is None else "right",
                                    suffixes=("_rec", "_new"), indicator=True)
            both = merged[merged["_merge"] == "both"]
            marks = rows_to_rerun(recorded[recorded["key"].isin(both["key"])], changes)
            if due := int((~marks.isin(["", UNPLACED])).sum()):
                outdated[scale] = due
            compared += len(fresh)
            unmatched += len(merged) - len(both)
            same_cpu = (both["device_rec"] == here).to_numpy()
            elsewhere |= set(both.loc[~same_cpu, "device_rec"])
            recorded_here |= bool(same_cpu.any())
            for metric in metrics:
                relative = _relative_difference(both[f"metric.{metric}_rec"].to_numpy(float),
                                                both[f"metric.{metric}_new"].to_numpy(float))
                for mine in (True, False):
                    if (same_cpu == mine).any():
                        worst[mine] = max(worst[mine], float(relative[same_cpu == mine].max()))
        ok = (unmatched == 0 and not outdated and worst[True] <= rtol
              and worst[False] <= tolerance_elsewhere)
        counted = f"{compared} cells recomputed, {unmatched} unmatched"
        for scale, count in outdated.items():
            spots = " --spots" if scale == "small" else ""  # the small grid is compared at spots
            counted += (f", {count} {scale} rows recorded before a registered change of their "
                        f"mechanism (reprolib rerun {artifact_id} --scale {scale}{spots})")
        others = f"recorded on {', '.join(sorted(elsewhere))}, recomputed on {here}"
        if not elsewhere:
            observed = f"{counted}, max rel. diff {worst[True]:.2e} (on the recording CPU)"
            expected = f"same cells, rel. diff <= {rtol:g}"
        elif not recorded_here:
            observed = f"{counted}, max rel. diff {worst[False]:.2e} ({others})"
            expected = f"same cells, rel. diff <= {tolerance_elsewhere:g} (across CPUs)"
        else:
            observed = (f"{counted}, max rel. diff {worst[True]:.2e} on the rows this CPU "
                        f"recorded, {worst[False]:.2e} on the rows {others}")
            expected = (f"same cells, rel. diff <= {rtol:g} (this CPU's rows), "
                        f"<= {tolerance_elsewhere:g} (across CPUs)")
        return Outcome("pass" if ok else "fail", observed, expected)

    spots = "; ".join(f"{name} {', '.join(map(str, v)) if isinstance(v, tuple | list) else v}"
                      for name, v in (small_spots or {}).items())
    return Check(id=f"{artifact_id}-regression", artifact=artifact_id, kind="regression",
                 scale="smoke", data=data,
                 description=f"smoke grid{f' and small spot cells ({spots})' if spots else ''} "
                             "recomputed now equals the recorded rows "
                             f"({', '.join(metrics)})",
                 evaluate=evaluate, small_spots=small_spots)


def evaluate_checks(checks: Sequence[Check], results_root: Path | None = None,
                    ) -> list[tuple[Check, Outcome]]:
    """Evaluate every check against the recorded results."""
    context = CheckContext(results_root)
    return [(check, check.run(context)) for check in checks]


def scorecard_frame(evaluated: Sequence[tuple[Check, Outcome]]) -> pd.DataFrame:
    """One row per check: paper, id, kind, scale, data, status, observed, expected, description
    and note (a documented deviation's explanation, else empty).
    """
    return pd.DataFrame(
        [{"paper": c.paper, "check": c.id, "kind": c.kind, "scale": c.scale, "data": c.data,
          "status": o.status, "observed": o.observed, "expected": o.expected,
          "description": c.description, "note": o.note} for c, o in evaluated],
        columns=["paper", "check", "kind", "scale", "data", "status", "observed", "expected",
                 "description", "note"],
    )
