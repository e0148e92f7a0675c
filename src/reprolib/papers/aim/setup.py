"""What every AIM experiment shares: scale profiles, datasets, workloads, mechanisms, one run.

The paper's grid (Section 6.1): six datasets, three workloads, nine epsilons from 0.01 to 100,
delta = 1e-9, five trials, 80 MB model capacity. ``small`` and ``smoke`` keep the design and cut
datasets, epsilons, trials, Private-PGM iterations and capacity; every cut is a field below.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal, TypeVar, cast

import numpy as np

from reprolib.data import Dataset, load_dataset
from reprolib.experiments._checks import listed_in_words
from reprolib.experiments._scales import Scale
from reprolib.mechanisms.pgm import LossWeighting, Potentials, StepRule
from reprolib.mechanisms.relaxed.gem import AUTHORS_SCRIPTS, AuthorsScript
from reprolib.queries import Workload, all_kway, random_target, skewed_workload, target_workload

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

T = TypeVar("T", bound="DataclassInstance")
PAPER_EPSILONS = tuple(round(10.0 ** (k / 2), 12) for k in range(-4, 5))
DELTA = 1e-9
AIM_DATASETS = ("adult", "salary", "msnbc", "fire", "nltcs", "titanic")
NATURAL_TARGETS = {"adult": "income>50K", "titanic": "Survived"}
WORKLOAD_SEED = 0  # one seed for every random workload, so all mechanisms see the same queries
WORKLOADS = ("all-3way", "target", "skewed")
# the workload-aware mechanisms the paper compares (Section 6.1; Gaussian, which answers the
# workload but releases no data, is one of its "baseline mechanisms"), and Figure 7's ablation
WORKLOAD_AWARE = ("AIM", "MWEM+PGM", "GEM", "RAP", "MWEM+RP")
# the workload-aware mechanisms the paper ranks "prior to AIM" (Section 6.2, observation 3)
PRIOR_WORKLOAD_AWARE = ("MWEM+PGM", "GEM", "RAP")
# the mechanisms that fit Private-PGM once; they keep their configs' iterations at every scale:
# fewer leave the one model under-fitted and save little time (benchmarks/aim_single_fit.py; its
# rows, results/aim/benchmarks/single-fit.csv, are tabled on the AIM runtime page)
SINGLE_FIT = ("MST", "PrivBayes+PGM", "Independent")
# the mechanisms the AIM experiments can build (``CONFIG_FROM_PARAMS``)
Mechanism = Literal["AIM", "MWEM+PGM", "MWEM+RP", "GEM", "RAP", "PrivMRF", "MST", "PrivBayes+PGM",
                    "Independent", "Gaussian"]
# Private-PGM's maximum-likelihood loss, as the reference code
LOSS_WEIGHTING: LossWeighting = "inverse-variance"


@dataclasses.dataclass(frozen=True, kw_only=True)
class Profile:
    """One scale of the AIM experiments.

    Attributes:
        datasets: AIM benchmark datasets (names without the ``aim/`` prefix).
        attributes: keep only these attributes (None: all); used to make smoke runs fast.
        epsilons: the epsilon grid.
        trials: seeds per setting (the paper: 5, reporting mean and min-max).
        pgm_iters: Private-PGM iterations per round of AIM and MWEM+PGM and per fit of PrivMRF
            (paper code: 1000). The mechanisms that fit one model (``SINGLE_FIT``) run their
            configs' iterations at every scale: a single fit is cheap beside one per round.
        final_pgm_iters: iterations of AIM's and PrivMRF's final fit (paper code: 2500); None:
            ``pgm_iters``.
        max_model_size_mb: AIM's model capacity (paper: 80 MB), and PrivMRF's largest clique.
        mwem_max_model_size_mb: MWEM+PGM's model cap in Figures 1-3, reached in the last round
            (``MWEMPGMConfig.max_model_size_mb``). The paper ran the baselines at their open-source
            defaults, and the reference MWEM+PGM caps its model at 25 MB; reduced scales cut it
            in proportion to AIM's capacity (25/80 of it), so both keep the paper's ratio.
        capacity_by_dataset: Figures 1-3's datasets whose capacity differs from
            ``max_model_size_mb`` (MWEM+PGM's cap follows in the same 25/80 ratio).
        pgm_iters_by_dataset: Figures 1-3's datasets whose ``pgm_iters`` differ (for AIM,
            MWEM+PGM and PrivMRF alike, so that the comparison stays even).
        mechanisms: the mechanisms of Figures 1-3 that run at this scale.
        pending: datasets of ``datasets`` on which a mechanism of ``mechanisms`` does not run
            yet (its grid there is still being computed; ``pending_runs``).
        loss_weighting: Private-PGM's loss (AIM's and MST's ``loss_weighting``).
        step_rule: Private-PGM's line search for every mechanism (the 2022 library's, which the
            paper ran, or mbi 2.0's; ``reprolib.mechanisms.pgm._mirror_descent``).
        potentials: where AIM's and MWEM+PGM's Private-PGM potentials live, which decides what
            a round's warm start keeps: "measured-cliques" (mbi 2.0's, the default) or
            "junction-tree-2022" (the 2022 library's; ``AIMConfig.potentials``).
        gem_script: the authors' GEM script whose settings GEM runs in Figures 1-3
            (``AUTHORS_SCRIPTS``): "2022-07" (our GEM's defaults, the stored grids') or "2021-11"
            (the release public before the AIM paper), which GEM's cells record, so that its
            runs are cells of their own.
    """

    datasets: tuple[str, ...]
    attributes: tuple[str, ...] | None
    epsilons: tuple[float, ...]
    trials: int
    pgm_iters: int
    max_model_size_mb: float
    mwem_max_model_size_mb: float
    mechanisms: tuple[Mechanism, ...]
    loss_weighting: LossWeighting = LOSS_WEIGHTING
    step_rule: StepRule = "backtracking-2022"
    potentials: Potentials = "measured-cliques"
    gem_script: AuthorsScript = "2022-07"
    final_pgm_iters: int | None = None
    capacity_by_dataset: Mapping[str, float] = dataclasses.field(default_factory=dict)
    pgm_iters_by_dataset: Mapping[str, int] = dataclasses.field(default_factory=dict)
    pending: Mapping[Mechanism, tuple[str, ...]] = dataclasses.field(default_factory=dict)

    def capacities(self, dataset: str) -> tuple[float, float]:
        """AIM's capacity and MWEM+PGM's cap in MB on ``dataset``."""
        if dataset in self.capacity_by_dataset:
            capacity = float(self.capacity_by_dataset[dataset])
            return capacity, capacity * MWEM_CAPACITY_SHARE
        return self.max_model_size_mb, self.mwem_max_model_size_mb

    def iterations(self, dataset: str) -> int:
        """Private-PGM iterations a round (or a fit) on ``dataset``."""
        return int(self.pgm_iters_by_dataset.get(dataset, self.pgm_iters))

    def mechanisms_on(self, dataset: str) -> tuple[Mechanism, ...]:
        """The mechanisms of ``mechanisms`` that run on ``dataset`` at this scale."""
        return tuple(m for m in self.mechanisms if dataset not in self.pending.get(m, ()))


FIGURE_MECHANISMS: tuple[Mechanism, ...] = ("AIM", "MWEM+PGM", "GEM", "RAP", "PrivMRF", "MST",
                                             "PrivBayes+PGM", "Independent", "Gaussian")
# grids still being computed at ``small``, in results/pending: GEM on salary, whose 3-way
# marginals reach 33 x 76 x 501 cells (a step at the 50 largest: 0.86 s on a CPU core,
# results/aim/benchmarks/gem-step.csv; a run is up to 50 rounds of 100 steps; 20 s to 4 minutes
# a run on the other datasets), and on msnbc (a million records); PrivMRF on msnbc
PENDING_AT_SMALL: Mapping[Mechanism, tuple[str, ...]] = {
    "GEM": ("salary", "msnbc"), "PrivMRF": ("msnbc",)}
# the reference code's MWEM+PGM cap (25 MB) over AIM's capacity (80 MB)
MWEM_CAPACITY_SHARE = 25.0 / 80.0

PROFILES: dict[Scale, Profile] = {
    "smoke": Profile(datasets=("titanic",),
                     attributes=("Survived", "Pclass", "Sex", "SibSp", "Embarked"),
                     epsilons=(1.0,), trials=1, pgm_iters=50, max_model_size_mb=1.0,
                     mwem_max_model_size_mb=1.0 * MWEM_CAPACITY_SHARE,
                     mechanisms=FIGURE_MECHANISMS),
    # the whole design at reduced compute; datasets and mechanisms join as their grids are
    # completed, the rest are listed by ``pending_datasets`` and ``pending_runs``
    "small": Profile(datasets=("titanic", "nltcs", "adult", "salary", "msnbc"), attributes=None,
                     epsilons=PAPER_EPSILONS,
                     trials=3, pgm_iters=100, max_model_size_mb=1.0,
                     mwem_max_model_size_mb=1.0 * MWEM_CAPACITY_SHARE,
                     # the large domains need more: at 1 MB AIM holds too few of fire's marginals
                     # (all-3way error 0.135 at epsilon 100, 0.068 at 10 MB; the paper: 0.025 at
                     # 80 MB) and no 3-way marginal of msnbc fits MWEM+PGM's first round. 10 MB
                     # keeps a run within minutes on one core; spot cells show the paper's 80 MB
                     capacity_by_dataset={"fire": 10.0, "msnbc": 10.0},
                     # msnbc (a million records), fire (305,119) and salary (135,727) need the
                     # paper's 1000 iterations a round: at 100 AIM's under-fitted model barely
                     # moves after a measurement, so AIM anneals too early and its error rises
                     # with epsilon (msnbc all-3way, epsilon 3.16: 17 rounds and error 0.113
                     # against 0.077 at epsilon 1; at 1000, 42 rounds and 0.040; fire all-3way
                     # 0.056 at epsilon 31.6 and 0.068 at 100, the authors' 2022 code rising
                     # alike; at 1000, 49 rounds and 0.045 at 100; salary all-3way 0.147 at
                     # epsilon 10 and 0.158 at 31.6, at 1000 0.130 and 0.128);
                     # benchmarks/aim_more_trials.py --pgm-iters 100 reruns the cut cells
                     pgm_iters_by_dataset={"msnbc": 1000, "fire": 1000, "salary": 1000},
                     mechanisms=FIGURE_MECHANISMS, pending=PENDING_AT_SMALL),
    "paper": Profile(datasets=AIM_DATASETS, attributes=None, epsilons=PAPER_EPSILONS, trials=5,
                     pgm_iters=1000, final_pgm_iters=2500, max_model_size_mb=80.0,
                     mwem_max_model_size_mb=80.0 * MWEM_CAPACITY_SHARE, mechanisms=FIGURE_MECHANISMS),
}


def pending_datasets(scale: Scale) -> tuple[str, ...]:
    """The paper's datasets whose grids are not in the scale's profile yet (``small`` grows
    dataset by dataset as its grids are completed; ``smoke`` cuts them on purpose).
    """
    return tuple(d for d in AIM_DATASETS if d not in PROFILES[scale].datasets)


def pending_runs(scale: Scale) -> dict[Mechanism, tuple[str, ...]]:
    """The re-implemented mechanisms of Figures 1-3 that do not run yet on some of the scale's
    datasets, with those datasets (every one where the profile leaves the mechanism out).
    """
    profile = PROFILES[scale]
    missing = {m: tuple(d for d in profile.datasets if m not in profile.mechanisms_on(d))
               for m in FIGURE_MECHANISMS}
    return {m: datasets for m, datasets in missing.items() if datasets}


def pending_runs_in_words(scale: Scale) -> str:
    """:func:`pending_runs` as the pages print it ("GEM on salary and msnbc"; "" when none)."""
    return "; ".join(f"{m} on {listed_in_words(datasets)}" for m, datasets in pending_runs(scale).items())


def from_profile(settings: type[T], scale: Scale, **extra: object) -> T:
    """``settings`` at ``scale``: ``extra`` where given, else the scale's Profile field of that name."""
    profile = PROFILES[scale]
    return settings(**{f.name: getattr(profile, f.name) for f in dataclasses.fields(settings)
                       if f.name not in extra}, **extra)


def load_aim_dataset(name: str, attributes: tuple[str, ...] | None = None) -> Dataset:
    """An AIM benchmark dataset, optionally restricted to ``attributes`` (kept in domain order)."""
    data = cast(Dataset, load_dataset(f"aim/{name}"))
    if attributes is None:
        return data
    return data.project([a for a in data.domain.attributes if a in attributes])


def run_params(*, pgm_iters: int, max_model_size_mb: float, loss_weighting: str, step_rule: str,
               attributes: tuple[str, ...] | None, final_pgm_iters: int | None = None,
               potentials: str = "measured-cliques") -> dict[str, object]:
    """The run parameters every AIM experiment cell records (their keys, values and types are part
    of the cell's key in the results store: change them and every stored run is recomputed).
    ``final_pgm_iters`` is recorded only when set (AIM's final fit; else it runs ``pgm_iters``),
    ``potentials`` only when it is not the default "measured-cliques" (the runs stored before the
    switch existed ran that default).
    """
    params: dict[str, object] = {
        "pgm_iters": int(pgm_iters), "loss_weighting": str(loss_weighting),
        "step_rule": str(step_rule), "max_model_size_mb": float(max_model_size_mb),
        "attributes": list(attributes) if attributes else None}
    if final_pgm_iters is not None:
        params["final_pgm_iters"] = int(final_pgm_iters)
    if potentials != "measured-cliques":
        params["potentials"] = str(potentials)
    return params


def load_cell_data(cell) -> Dataset:
    """The dataset of an experiment cell, restricted to its ``attributes`` parameter if set."""
    attributes = cell.params.get("attributes")
    return load_aim_dataset(cell.dataset, tuple(attributes) if attributes else None)


def build_workload(kind: str, data: Dataset, dataset: str) -> Workload:
    """The paper's workload ``kind`` on ``data`` (targets: natural ones, else a seeded draw)."""
    if kind == "all-3way":
        return all_kway(data.domain, 3)
    if kind == "target":
        target = NATURAL_TARGETS.get(dataset) or random_target(data.domain, WORKLOAD_SEED)
        return target_workload(data.domain, target, 3)
    if kind == "skewed":
        return skewed_workload(data.domain, seed=WORKLOAD_SEED, n_queries=256, k=3)
    raise ValueError(f"unknown workload {kind!r}; choose one of {WORKLOADS}")


# the figures' names that differ from the registry's (the AIM paper ran RAP on the workload's cells)
REGISTERED = {"RAP": "RAP-queries"}
# mechanism -> {config field: the cell parameters that set it, the first recorded one wins}; a
# field none of whose parameters a cell records keeps the config's default (MWEM's rounds outside
# Figure 7: None, that is d)
CONFIG_FROM_PARAMS: dict[Mechanism, dict[str, str | tuple[str, ...]]] = {
    "AIM": {"pgm_iters": "pgm_iters", "final_pgm_iters": ("final_pgm_iters", "pgm_iters"),
            "max_model_size_mb": "max_model_size_mb", "loss_weighting": "loss_weighting",
            "step_rule": "step_rule", "potentials": "potentials"},
    "MWEM+PGM": {"rounds": "rounds", "pgm_iters": "pgm_iters", "step_rule": "step_rule",
                 "max_model_size_mb": "mwem_max_model_size_mb", "potentials": "potentials"},
    "MWEM+RP": {"rounds": "rounds"},
    "GEM": {},  # the authors' example settings at every scale (see reprolib.mechanisms.relaxed.gem)
    "RAP": {},  # its public code's defaults at every scale (reprolib.mechanisms.relaxed.rap_queries)
    # PrivMRF caps its largest clique where AIM caps its model (the paper's footnote 9: 80 MB is
    # PrivMRF's 1e7 cells), and refits like AIM each round
    "PrivMRF": {"pgm_iters": "pgm_iters", "final_pgm_iters": ("final_pgm_iters", "pgm_iters"),
                "max_clique_mb": "max_model_size_mb", "step_rule": "step_rule",
                "stop_ratio": "stop_ratio"},
    "MST": {"loss_weighting": "loss_weighting", "step_rule": "step_rule"},
    "PrivBayes+PGM": {"step_rule": "step_rule"},
    "Independent": {"step_rule": "step_rule"},
    "Gaussian": {},
}


def unread_params(mechanism: str) -> frozenset[str]:
    """The run parameters (of ``run_params`` and Figure 7's ``rounds``) that ``mechanism``'s
    config does not read (``CONFIG_FROM_PARAMS``); the data's parameters are always read.
    """
    knobs = {"pgm_iters", "final_pgm_iters", "max_model_size_mb", "mwem_max_model_size_mb",
             "loss_weighting", "step_rule", "rounds", "stop_ratio", "potentials"}
    read = CONFIG_FROM_PARAMS[cast(Mechanism, mechanism)].values()
    return frozenset(knobs.difference(*((k,) if isinstance(k, str) else k for k in read)))


def build_mechanism(name: str, params: Mapping[str, object], **fixed: object):
    """A mechanism of the AIM experiments, built from its typed config with a cell's parameters
    (see ``CONFIG_FROM_PARAMS``); ``fixed`` are config values set by code (structural zeros).
    """
    from reprolib.mechanisms import build

    if name not in CONFIG_FROM_PARAMS:
        raise ValueError(f"unknown mechanism {name!r}; the AIM experiments run "
                         f"{sorted(CONFIG_FROM_PARAMS)}")
    values = {}
    for field, keys in CONFIG_FROM_PARAMS[name].items():
        recorded = [key for key in ((keys,) if isinstance(keys, str) else keys) if key in params]
        if recorded:
            values[field] = params[recorded[0]]
    if name == "GEM" and "gem_script" in params:  # the settings of that script of the authors'
        values.update(AUTHORS_SCRIPTS[cast(AuthorsScript, params["gem_script"])])
    return build(REGISTERED.get(name, name), values, **fixed)


def run_mechanism(mechanism, data: Dataset, workload: Workload, epsilon: float, seed: int):
    """Run ``mechanism`` at (epsilon, DELTA); return its result and the wall time in seconds."""
    from reprolib.privacy import PrivacyBudget

    budget = PrivacyBudget.from_epsilon_delta(epsilon, DELTA, relation=mechanism.traits.relation)
    started = time.perf_counter()
    result = mechanism.fit(data, budget, np.random.default_rng(seed), workload=workload)
    return result, time.perf_counter() - started


def error_metrics(data: Dataset, workload: Workload, result, seconds: float) -> dict[str, object]:
    """Definition 2's workload error, the reference script's TV variant, spend and timings."""
    from reprolib.metrics import workload_error, workload_errors

    # the TV variant normalises each marginal by its own total, which noisy answers (Gaussian)
    # need not have: it is recorded for synthetic data only, in the same pass as Definition 2
    if result.synthetic is None:
        l1, tv = workload_error(data, result.marginal, workload), None
    else:
        l1, tv = workload_errors(data, result.marginal, workload)
    return {
        "workload_error": l1,
        "workload_error_tv": tv,
        "seconds": seconds,
        "spent_rho": result.ledger.spent_rho,
        "budget_rho": result.ledger.budget.rho,
        "rounds": int(result.diagnostics.get("rounds", 0)),
    }
