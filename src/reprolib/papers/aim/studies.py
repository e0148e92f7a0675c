"""The experiments behind AIM Figures 4-7: capacity, uncertainty, subsampling, runtime, MWEM variants.

Figures 4 (a-c) study AIM on one dataset (the paper: fire, all-3way); Figures 5 and 6 are read off
the runs of Figures 1-3 (AIM's errors and wall times), so they cost no new runs; Figure 7 compares
MWEM+PGM with MWEM+relaxed projection over a grid of round counts T. The paper does not print its
epsilons for Figure 4 nor its grid of T for Figure 7 (stripped from the text); the values below are
ours and the pages say so.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

import numpy as np
import pandas as pd

from reprolib.experiments._experiment import Experiment, NoSettings, no_settings, run_experiment
from reprolib.experiments._scales import Scale
from reprolib.experiments._store import Cell
from reprolib.papers.aim.setup import (
    DELTA,
    PROFILES,
    LossWeighting,
    StepRule,
    build_mechanism,
    build_workload,
    error_metrics,
    from_profile,
    load_cell_data,
    pending_datasets,
    pending_runs_in_words,
    run_mechanism,
    run_params,
)


@dataclasses.dataclass(frozen=True, kw_only=True)
class StudySettings:
    """Settings of Figures 4 and 7 at one scale (the rest comes from the scale's ``Profile``).

    Attributes:
        dataset: the dataset of Figure 4 (the paper: fire).
        capacity_epsilons: the two epsilons of Figure 4 (a-b).
        capacities_mb: the model capacities of Figure 4 (a-b) (the paper: 1.25 MB to 1.28 GB).
        bounds_epsilon: the epsilon of Figure 4 (c).
        mwem_rounds: the round counts T over which Figure 7 takes the best average error.
        mwem_datasets, mwem_epsilons, mwem_trials: Figure 7's datasets, epsilons and trials
            where they are cut below the profile's (None: the profile's).
    """

    dataset: str
    capacity_epsilons: tuple[float, ...]
    capacities_mb: tuple[float, ...]
    bounds_epsilon: float
    mwem_rounds: tuple[int, ...]
    mwem_datasets: tuple[str, ...] | None = None
    mwem_epsilons: tuple[float, ...] | None = None
    mwem_trials: int | None = None


STUDIES: dict[Scale, StudySettings] = {
    # titanic's five small attributes hold 486 cells (3.8 kB): capacities in kilobytes
    "smoke": StudySettings(dataset="titanic", capacity_epsilons=(1.0,),
                           capacities_mb=(0.0005, 0.002, 0.01), bounds_epsilon=1.0,
                           mwem_rounds=(2, 4)),
    # Figure 4 on the paper's dataset and epsilons, the lower seven of the paper's eleven
    # capacities (1.25 MB to its default 80 MB) at the profile's 100 Private-PGM iterations: an
    # AIM run on fire takes from 15 seconds (1.25 MB) to about six minutes (80 MB) on a CPU core;
    # Figure 4 (c) runs at fire's 10 MB of Figures 1-3
    # Figure 7 runs the profile's nine epsilons and three trials on titanic and nltcs:
    # MWEM+RP's relaxed projection takes 1,000 Adam steps a round on 1,000 rows, about a minute
    # a T = 20 run on titanic or nltcs on one CPU core; one T = 20 run on adult had not finished
    # after 17 minutes (adult and salary are GPU work)
    "small": StudySettings(dataset="fire", capacity_epsilons=(1.0, 10.0),
                           capacities_mb=tuple(1.25 * 2**k for k in range(7)), bounds_epsilon=1.0,
                           mwem_rounds=(5, 10, 20), mwem_datasets=("titanic", "nltcs")),
    "paper": StudySettings(dataset="fire", capacity_epsilons=(1.0, 10.0),
                           capacities_mb=tuple(1.25 * 2**k for k in range(11)),
                           bounds_epsilon=1.0, mwem_rounds=(5, 10, 20, 40)),
}


def _base_params(scale: Scale, **changed: Any) -> dict[str, object]:
    """The run parameters of the scale's profile, with ``changed`` ones, on all 3-way marginals."""
    profile = dataclasses.replace(PROFILES[scale], **changed)
    return {**run_params(pgm_iters=profile.pgm_iters, max_model_size_mb=profile.max_model_size_mb,
                         loss_weighting=profile.loss_weighting, step_rule=profile.step_rule,
                         attributes=profile.attributes,
                         final_pgm_iters=profile.final_pgm_iters),
            "workload": "all-3way"}


# -- Figure 4 (a-b): runtime and error against model capacity ------------------------------------

@dataclasses.dataclass(frozen=True, kw_only=True)
class CapacitySettings:
    """What users may change in Figure 4 (a-b) (the dataset follows the scale, ``STUDIES``).

    Attributes:
        capacity_epsilons: the epsilons, one panel each.
        capacities_mb: the model capacities (AIM's ``max_model_size_mb``), in MB.
        trials: seeds per setting.
        pgm_iters: Private-PGM iterations per round and for the final fit.
        loss_weighting: Private-PGM's loss.
        step_rule: Private-PGM's line search.
    """

    capacity_epsilons: tuple[float, ...]
    capacities_mb: tuple[float, ...]
    trials: int
    pgm_iters: int
    loss_weighting: LossWeighting
    step_rule: StepRule


def capacity_settings(scale: Scale) -> CapacitySettings:
    """Figure 4 (a-b)'s settings at a scale: ``STUDIES`` and the scale's profile."""
    study = STUDIES[scale]
    return from_profile(CapacitySettings, scale, capacity_epsilons=study.capacity_epsilons,
                        capacities_mb=study.capacities_mb)


def _capacity_cells(scale: Scale, settings: CapacitySettings) -> list[Cell]:
    base = _base_params(scale, pgm_iters=settings.pgm_iters,
                        loss_weighting=settings.loss_weighting, step_rule=settings.step_rule)
    return [Cell(artifact="aim-fig4ab", mechanism="AIM", dataset=STUDIES[scale].dataset,
                 epsilon=e, delta=DELTA, seed=t, params={**base, "max_model_size_mb": c})
            for c, e, t in itertools.product(settings.capacities_mb, settings.capacity_epsilons,
                                             range(settings.trials))]


def _capacity_run(cell: Cell, device: str) -> dict[str, object]:
    assert cell.epsilon is not None  # every cell of the studies is private
    data = load_cell_data(cell)
    workload = build_workload("all-3way", data, cell.dataset)
    result, seconds = run_mechanism(build_mechanism("AIM", cell.params), data, workload,
                                    cell.epsilon, cell.seed)
    metrics = error_metrics(data, workload, result, seconds)
    metrics["model_size_mb"] = float(result.diagnostics["model_size_mb"])
    return metrics


# -- Figure 4 (c): true error against the Section 5 bound, per marginal --------------------------

@dataclasses.dataclass(frozen=True, kw_only=True)
class BoundsSettings:
    """What users may change in Figure 4 (c) (the dataset follows the scale, ``STUDIES``).

    Attributes:
        bounds_epsilon: the epsilon of the runs.
        trials: seeds.
        pgm_iters: Private-PGM iterations per round and for the final fit.
        max_model_size_mb: AIM's model capacity in MB.
        loss_weighting: Private-PGM's loss.
        step_rule: Private-PGM's line search.
    """

    bounds_epsilon: float
    trials: int
    pgm_iters: int
    max_model_size_mb: float
    loss_weighting: LossWeighting
    step_rule: StepRule


def bounds_settings(scale: Scale) -> BoundsSettings:
    """Figure 4 (c)'s settings at a scale: ``STUDIES`` and the scale's profile (its capacity on
    the study's dataset).
    """
    study = STUDIES[scale]
    return from_profile(BoundsSettings, scale, bounds_epsilon=study.bounds_epsilon,
                        max_model_size_mb=PROFILES[scale].capacities(study.dataset)[0])


def _bounds_cells(scale: Scale, settings: BoundsSettings) -> list[Cell]:
    params = _base_params(scale, pgm_iters=settings.pgm_iters,
                          max_model_size_mb=settings.max_model_size_mb,
                          loss_weighting=settings.loss_weighting, step_rule=settings.step_rule)
    return [Cell(artifact="aim-fig4c", mechanism="AIM", dataset=STUDIES[scale].dataset,
                 epsilon=settings.bounds_epsilon, delta=DELTA, seed=t, params=params)
            for t in range(settings.trials)]


def _bounds_run(cell: Cell, device: str) -> dict[str, object]:
    from reprolib.mechanisms.pgm import downward_closure
    from reprolib.papers.aim.uncertainty import aim_error_bounds

    assert cell.epsilon is not None  # every cell of the studies is private
    data = load_cell_data(cell)
    workload = build_workload("all-3way", data, cell.dataset)
    result, seconds = run_mechanism(build_mechanism("AIM", cell.params), data, workload,
                                    cell.epsilon, cell.seed)
    bounds = aim_error_bounds(result.log, result.synthetic.marginal,
                              downward_closure(workload.cliques))
    workload_cliques = set(workload.cliques)
    return {
        **error_metrics(data, workload, result, seconds),
        "cliques": ["|".join(b.clique) for b in bounds],
        "in_workload": [b.clique in workload_cliques for b in bounds],
        "supported": [b.supported for b in bounds],
        "bound": [b.bound for b in bounds],
        "error": [float(np.abs(data.marginal(b.clique)
                               - result.synthetic.marginal(b.clique)).sum()) for b in bounds],
    }


# -- Figures 5 and 6: read off AIM's runs of Figures 1-3 -----------------------------------------

SOURCE_ARTIFACTS = {"all-3way": "aim-fig1", "target": "aim-fig2", "skewed": "aim-fig3"}


def _aim_runs(source: str, scale: str) -> pd.DataFrame:
    runs = run_experiment(source, scale=scale, progress=False)
    return runs[runs["mechanism"] == "AIM"]


def _matching_cells(scale: Scale, settings: NoSettings) -> list[Cell]:
    del settings  # the runs of Figures 1-3 at the scale's settings decide the grid
    cells = []
    for workload, source in SOURCE_ARTIFACTS.items():
        runs = _aim_runs(source, scale)
        for dataset, epsilon in sorted(set(zip(runs["dataset"], runs["epsilon"], strict=True))):
            cells.append(Cell(artifact="aim-fig5", mechanism="AIM", dataset=dataset,
                              epsilon=float(epsilon), delta=DELTA, seed=0,
                              params={**_base_params(scale), "workload": workload,
                                      "source": source, "scale": scale}))
    return cells


def _matching_run(cell: Cell, device: str) -> dict[str, object]:
    from reprolib.papers.aim.subsampling import matching_fraction

    assert cell.epsilon is not None  # every cell of the studies is private
    runs = _aim_runs(str(cell.params["source"]), str(cell.params["scale"]))
    runs = runs[(runs["dataset"] == cell.dataset) & np.isclose(runs["epsilon"], cell.epsilon)]
    error = float(runs["metric.workload_error"].mean())
    data = load_cell_data(cell)
    workload = build_workload(str(cell.params["workload"]), data, cell.dataset)
    return {"aim_workload_error": error, "trials": len(runs), "records": data.records,
            "matching_fraction": matching_fraction(data, workload, error)}


def _runtime_cells(scale: Scale, settings: NoSettings) -> list[Cell]:
    del settings  # the runs of Figure 1 at the scale's settings decide the grid
    runs = _aim_runs("aim-fig1", scale)
    return [Cell(artifact="aim-fig6", mechanism="AIM", dataset=d, epsilon=float(e), delta=DELTA,
                 seed=int(s), params={"source": "aim-fig1", "scale": scale})
            for d, e, s in sorted(zip(runs["dataset"], runs["epsilon"], runs["seed"],
                                      strict=True))]


def _runtime_run(cell: Cell, device: str) -> dict[str, object]:
    assert cell.epsilon is not None  # every cell of the studies is private
    runs = _aim_runs("aim-fig1", str(cell.params["scale"]))
    run = runs[(runs["dataset"] == cell.dataset) & np.isclose(runs["epsilon"], cell.epsilon)
               & (runs["seed"] == cell.seed)].iloc[0]
    return {"seconds": float(run["metric.seconds"]), "rounds": int(run["metric.rounds"]),
            "pgm_iters": int(run["param.pgm_iters"]),
            "max_model_size_mb": float(run["param.max_model_size_mb"]),
            "recorded_on": str(run["device"]), "git_revision": str(run["git_revision"])}


# -- Figure 7: MWEM with Private-PGM against MWEM with relaxed projection ------------------------

MWEM_VARIANTS = ("MWEM+PGM", "MWEM+RP")


@dataclasses.dataclass(frozen=True, kw_only=True)
class MWEMSettings:
    """What users may change in Figure 7.

    Attributes:
        datasets: AIM benchmark datasets.
        epsilons: the epsilon grid.
        mwem_rounds: the round counts T.
        trials: seeds per setting.
        pgm_iters: Private-PGM iterations per round of MWEM+PGM.
    """

    datasets: tuple[str, ...]
    epsilons: tuple[float, ...]
    mwem_rounds: tuple[int, ...]
    trials: int
    pgm_iters: int


def mwem_settings(scale: Scale) -> MWEMSettings:
    """Figure 7's settings at a scale: the scale's profile and ``STUDIES``."""
    study = STUDIES[scale]
    cuts = {"datasets": study.mwem_datasets, "epsilons": study.mwem_epsilons,
            "trials": study.mwem_trials}
    return from_profile(MWEMSettings, scale, mwem_rounds=study.mwem_rounds,
                        **{name: value for name, value in cuts.items() if value is not None})


def _mwem_cells(scale: Scale, settings: MWEMSettings) -> list[Cell]:
    base = _base_params(scale, pgm_iters=settings.pgm_iters)
    return [Cell(artifact="aim-fig7", mechanism=m, dataset=d, epsilon=e, delta=DELTA, seed=t,
                 params={**base, "rounds": rounds})
            for d, m, e, rounds, t in itertools.product(settings.datasets, MWEM_VARIANTS,
                                                         settings.epsilons, settings.mwem_rounds,
                                                         range(settings.trials))]


def _mwem_run(cell: Cell, device: str) -> dict[str, object]:
    assert cell.epsilon is not None  # every cell of the studies is private
    data = load_cell_data(cell)
    workload = build_workload("all-3way", data, cell.dataset)
    result, seconds = run_mechanism(build_mechanism(cell.mechanism, cell.params), data, workload,
                                    cell.epsilon, cell.seed)
    return error_metrics(data, workload, result, seconds)


CAPACITY = Experiment(artifact="aim-fig4ab", settings=CapacitySettings,
                      defaults=capacity_settings, cells=_capacity_cells, compute=_capacity_run)
BOUNDS = Experiment(artifact="aim-fig4c", settings=BoundsSettings, defaults=bounds_settings,
                    cells=_bounds_cells, compute=_bounds_run)
MATCHING = Experiment(artifact="aim-fig5", settings=NoSettings, defaults=no_settings,
                      cells=_matching_cells, compute=_matching_run)
RUNTIME = Experiment(artifact="aim-fig6", settings=NoSettings, defaults=no_settings,
                     cells=_runtime_cells, compute=_runtime_run)
MWEM_GENERATORS = Experiment(artifact="aim-fig7", settings=MWEMSettings, defaults=mwem_settings,
                             cells=_mwem_cells, compute=_mwem_run)


# -- what the small grids lack of the paper's design ---------------------------------------------

def _missing(paper: tuple, small: tuple) -> list:
    return [value for value in paper if value not in small]


def small_design_gaps(artifact: str) -> str:
    """What the ``small`` grid of ``artifact`` lacks of the paper's design, in words.

    "" when it covers all of it (the scorecard then says "whole design"). Read off the profiles
    and the ``paper`` settings, so that a gap closes when the small grid grows:

    - Figures 1-3: the datasets not run yet, and the mechanisms' runs still pending;
    - Figures 5 and 6, read off AIM's runs of Figures 1-3 (of Figure 1 for 6): those datasets;
    - Figure 4 (a-b): the paper's capacities above the small sweep's;
    - Figure 7: the datasets, epsilons and round counts T of the paper grid not run;
    - Tables 1-3 and Figure 4 (c): nothing (every mechanism, dataset and epsilon, at least 3
      trials; only compute knobs are cut).
    """
    pending = ", ".join(pending_datasets("small"))
    if artifact in ("aim-fig1", "aim-fig2", "aim-fig3"):
        gaps = [f"{pending} (every mechanism)" if pending else "", pending_runs_in_words("small")]
    elif artifact in ("aim-fig5", "aim-fig6"):
        gaps = [f"AIM on {pending}" if pending else ""]
    elif artifact == "aim-fig4ab":
        above = _missing(capacity_settings("paper").capacities_mb,
                         capacity_settings("small").capacities_mb)
        gaps = [f"capacities {', '.join(f'{c:,g}' for c in above)} MB" if above else ""]
    elif artifact == "aim-fig7":
        small, paper = mwem_settings("small"), mwem_settings("paper")
        datasets = _missing(paper.datasets, small.datasets)
        epsilons = _missing(paper.epsilons, small.epsilons)
        rounds = _missing(paper.mwem_rounds, small.mwem_rounds)
        gaps = [", ".join(datasets), f"ε = {', '.join(f'{e:g}' for e in epsilons)}" if epsilons
                else "", f"T = {', '.join(map(str, rounds))}" if rounds else ""]
    else:
        gaps = []
    return "; ".join(gap for gap in gaps if gap)
