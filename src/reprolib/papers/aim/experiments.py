"""The experiments behind every AIM artifact (tables 1-3, figures 1-7).

Each ``Experiment`` lists the cells of its grid at a scale and computes one cell. Settings live in
:mod:`reprolib.papers.aim.setup`; the algorithms live in ``reprolib.mechanisms``.
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np

from reprolib.experiments._experiment import Experiment, NoSettings, no_settings
from reprolib.experiments._scales import Scale
from reprolib.experiments._store import Cell
from reprolib.mechanisms.marginal.privmrf import PrivMRFConfig
from reprolib.papers.aim.setup import (
    AIM_DATASETS,
    DELTA,
    PAPER_EPSILONS,
    PROFILES,
    SINGLE_FIT,
    LossWeighting,
    Potentials,
    Profile,
    StepRule,
    build_mechanism,
    build_workload,
    error_metrics,
    from_profile,
    load_aim_dataset,
    load_cell_data,
    run_mechanism,
    run_params,
    unread_params,
)

FIGURE_WORKLOADS = {"aim-fig1": "all-3way", "aim-fig2": "target", "aim-fig3": "skewed"}
TAXONOMY_MECHANISMS = ("Independent", "Gaussian", "PrivBayes+PGM", "MWEM+PGM", "MST", "GEM",
                       "PrivMRF", "AIM")

# Appendix D: impossible combinations in fire. The paper used 9 attribute pairs with 2,696 zeros
# but does not list them; we take the 9 pairs where one attribute is a coarser grouping of the
# other (geography and call-type group) and treat their empty cells as known structural zeros.
FIRE_ZERO_PAIRS = (
    ("Battalion", "Station Area"),
    ("City", "Zipcode of Incident"),
    ("City", "Neighborhooods - Analysis Boundaries"),
    ("City", "Station Area"),
    ("Neighborhooods - Analysis Boundaries", "Supervisor District"),
    ("Supervisor District", "Zipcode of Incident"),
    ("Fire Prevention District", "Zipcode of Incident"),
    ("Battalion", "Fire Prevention District"),
    ("Call Type", "Call Type Group"),
)
# on titanic (smoke and small scale) two pairs of small attributes with empty cells stand in
TITANIC_ZERO_PAIRS = (("Pclass", "SibSp"), ("SibSp", "Embarked"))


def _profile_params(profile: Profile, dataset: str) -> dict[str, object]:
    return run_params(pgm_iters=profile.iterations(dataset),
                      max_model_size_mb=profile.capacities(dataset)[0],
                      loss_weighting=profile.loss_weighting, step_rule=profile.step_rule,
                      attributes=profile.attributes, final_pgm_iters=profile.final_pgm_iters)


# -- Table 1: the taxonomy, read from each mechanism's declared traits ----------------------------

def _taxonomy_cells(scale: Scale, settings: NoSettings) -> list[Cell]:
    del scale, settings
    return [Cell(artifact="aim-tab1", mechanism=m, dataset="none", epsilon=None, delta=None,
                 seed=0, params={"pgm_iters": 1}) for m in TAXONOMY_MECHANISMS]


def _taxonomy(cell: Cell, device: str) -> dict[str, object]:
    traits = build_mechanism(cell.mechanism, {"pgm_iters": 1, "max_model_size_mb": 1.0}).traits
    return {"workload_aware": traits.workload_aware, "data_aware": traits.data_aware,
            "budget_aware": traits.budget_aware, "efficiency_aware": traits.efficiency_aware,
            "relation": traits.relation.value}


# -- Table 2: dataset statistics -----------------------------------------------------------------

@dataclasses.dataclass(frozen=True, kw_only=True)
class DatasetSettings:
    """What users may change in Table 2: the datasets described (every scale: all six)."""

    datasets: tuple[str, ...] = AIM_DATASETS


def _dataset_cells(scale: Scale, settings: DatasetSettings) -> list[Cell]:
    del scale
    return [Cell(artifact="aim-tab2", mechanism="none", dataset=d, epsilon=None, delta=None,
                 seed=0, params={}) for d in settings.datasets]


def _dataset_statistics(cell: Cell, device: str) -> dict[str, object]:
    data = load_aim_dataset(cell.dataset)
    sizes = data.domain.sizes
    return {"records": data.records, "attributes": len(sizes), "min_domain": min(sizes),
            "max_domain": max(sizes), "total_domain_log10": float(np.sum(np.log10(sizes)))}


# -- Figures 1-3: workload error against epsilon -------------------------------------------------

def _figure_cells(artifact: str):
    def params(profile: Profile, dataset: str, mechanism: str) -> dict[str, object]:
        # a cell records only the settings its mechanism reads: MWEM+PGM's cap, and no reduced
        # iterations for the mechanisms that keep their reference ones
        params = {**_profile_params(profile, dataset), "workload": FIGURE_WORKLOADS[artifact]}
        if "pgm_iters" in unread_params(mechanism):
            # RAP, GEM and Gaussian record the profile's general count, unread, as their stored
            # runs always did: a dataset's own count (msnbc's) must not change their keys
            params["pgm_iters"] = profile.pgm_iters
        if mechanism == "MWEM+PGM":
            return {**params, "mwem_max_model_size_mb": float(profile.capacities(dataset)[1])}
        if mechanism == "PrivMRF":  # its early stopping, recorded so that a new default reruns
            return {**params, "stop_ratio": PrivMRFConfig.stop_ratio}
        if mechanism == "GEM" and profile.gem_script != "2022-07":  # ("2022-07": keys as stored)
            return {**params, "gem_script": profile.gem_script}
        if mechanism in SINGLE_FIT:
            return {k: v for k, v in params.items() if k not in ("pgm_iters", "final_pgm_iters")}
        return params

    def cells(scale: Scale, profile: Profile) -> list[Cell]:
        grid = [Cell(artifact=artifact, mechanism=m, dataset=d, epsilon=e, delta=DELTA, seed=t,
                     params=params(profile, d, m))
                for d in profile.datasets
                for m, e, t in itertools.product(profile.mechanisms_on(d), profile.epsilons,
                                                 range(profile.trials))]
        # with datasets, mechanisms, epsilons and trials all given, only pending pairs empty it
        if not grid and all((profile.datasets, profile.mechanisms, profile.epsilons,
                             profile.trials)):
            raise ValueError(
                f"{artifact} at {scale}: {', '.join(profile.mechanisms)} on "
                f"{', '.join(profile.datasets)} is still pending in the {scale} profile, so no "
                "cell is left to run; add the override pending={} to run them")
        return grid
    return cells


def _workload_error_run(cell: Cell, device: str) -> dict[str, object]:
    assert cell.epsilon is not None  # every cell of Figures 1-3 is private
    data = load_cell_data(cell)
    workload = build_workload(str(cell.params["workload"]), data, cell.dataset)
    result, seconds = run_mechanism(build_mechanism(cell.mechanism, cell.params), data,
                                    workload, cell.epsilon, cell.seed)
    return error_metrics(data, workload, result, seconds)


# -- Table 3: AIM with and without structural zeros on fire --------------------------------------

@dataclasses.dataclass(frozen=True, kw_only=True)
class ZerosSettings:
    """What users may change in Table 3 (the dataset and its attributes follow the scale,
    ``zeros_dataset``).

    Attributes:
        epsilons: the epsilon grid.
        trials: seeds per setting.
        pgm_iters: Private-PGM iterations per round and for the final fit.
        max_model_size_mb: AIM's model capacity in MB (default: the profile's on the dataset).
        loss_weighting: Private-PGM's loss.
        step_rule: Private-PGM's line search.
        potentials: where Private-PGM's potentials live (``AIMConfig.potentials``):
            "measured-cliques" (default) or "junction-tree-2022", the 2022 library's.
        home_2022_epsilons: the epsilons at which the grid runs a second time with
            potentials="junction-tree-2022", the home of the engine the paper ran, to compare
            (none when ``potentials`` is that home already).
    """

    epsilons: tuple[float, ...]
    trials: int
    pgm_iters: int
    max_model_size_mb: float
    loss_weighting: LossWeighting
    step_rule: StepRule
    potentials: Potentials
    home_2022_epsilons: tuple[float, ...]


HOME_2022_EPSILONS: dict[Scale, tuple[float, ...]] = {
    "smoke": PROFILES["smoke"].epsilons,
    # above 10 the 2022 capacity filter admits selections whose fits need hundreds of MB at the
    # small scale's 10 MB (benchmarks/aim_capacity_2022.py): hours and gigabytes per AIM+SZ run
    "small": tuple(e for e in PAPER_EPSILONS if e <= 10.0),
    "paper": (),  # hours per run at 80 MB and 1000 iterations under either home
}
"""Where Table 3 also runs under the 2022 home of the potentials, by scale."""


def zeros_dataset(scale: Scale) -> str:
    """Table 3's dataset: fire, the paper's (an AIM+SZ run there takes one to six minutes on a CPU
    core at the small profile's settings, hours at the paper's); titanic at smoke scale.
    """
    return "titanic" if scale == "smoke" else "fire"


def zeros_settings(scale: Scale) -> ZerosSettings:
    """Table 3's settings at a scale: the scale's profile, its capacity on the dataset."""
    return from_profile(ZerosSettings, scale,
                        max_model_size_mb=PROFILES[scale].capacities(zeros_dataset(scale))[0],
                        home_2022_epsilons=HOME_2022_EPSILONS[scale])


def _zeros_cells(scale: Scale, settings: ZerosSettings) -> list[Cell]:
    """AIM and AIM+SZ over the grid, then under the 2022 home at ``home_2022_epsilons``."""
    dataset = zeros_dataset(scale)

    def cells(potentials: str, epsilons: tuple[float, ...]) -> list[Cell]:
        params = {**run_params(pgm_iters=settings.pgm_iters,
                               max_model_size_mb=settings.max_model_size_mb,
                               loss_weighting=settings.loss_weighting,
                               step_rule=settings.step_rule,
                               attributes=PROFILES[scale].attributes,
                               final_pgm_iters=PROFILES[scale].final_pgm_iters,
                               potentials=potentials),
                  "workload": "all-3way"}
        return [Cell(artifact="aim-tab3", mechanism=m, dataset=dataset, epsilon=e, delta=DELTA,
                     seed=t, params=params)
                for m, e, t in itertools.product(("AIM", "AIM+SZ"), epsilons,
                                                 range(settings.trials))]

    grid = cells(settings.potentials, settings.epsilons)
    if settings.potentials != "junction-tree-2022":
        grid += cells("junction-tree-2022", settings.home_2022_epsilons)
    return grid


def structural_zeros(data, pairs):
    """Empty cells of the 2-way marginals on ``pairs``, as AIM structural-zero constraints.

    Not private: read off ``data``, the list stands in for a domain expert's (the paper does not
    publish its own), and a run that imposes it is not differentially private; the ledger
    charges only what AIM spends, as for a public list.
    """
    from reprolib.mechanisms.marginal.aim import StructuralZeros

    ordered = [tuple(a for a in data.domain.attributes if a in pair) for pair in pairs]
    return tuple(StructuralZeros(p, np.argwhere(data.marginal(p) == 0)) for p in ordered)


def _zeros_run(cell: Cell, device: str) -> dict[str, object]:
    assert cell.epsilon is not None  # every cell of Table 3 is private
    data = load_cell_data(cell)
    workload = build_workload("all-3way", data, cell.dataset)
    pairs = FIRE_ZERO_PAIRS if cell.dataset == "fire" else TITANIC_ZERO_PAIRS
    zeros = structural_zeros(data, pairs) if cell.mechanism == "AIM+SZ" else ()
    aim = build_mechanism("AIM", cell.params, structural_zeros=zeros)
    result, seconds = run_mechanism(aim, data, workload, cell.epsilon, cell.seed)
    metrics = error_metrics(data, workload, result, seconds)
    metrics["structural_zeros"] = int(sum(len(z.cells) for z in zeros))
    return metrics


def _dataset_settings(scale: Scale) -> DatasetSettings:
    del scale
    return DatasetSettings()


TAXONOMY = Experiment(artifact="aim-tab1", settings=NoSettings, defaults=no_settings,
                      cells=_taxonomy_cells, compute=_taxonomy)
DATASETS = Experiment(artifact="aim-tab2", settings=DatasetSettings, defaults=_dataset_settings,
                      cells=_dataset_cells, compute=_dataset_statistics)
ZEROS = Experiment(artifact="aim-tab3", settings=ZerosSettings, defaults=zeros_settings,
                   cells=_zeros_cells, compute=_zeros_run)
ALL_3WAY, TARGET, SKEWED = (
    Experiment(artifact=a, settings=Profile, defaults=PROFILES.__getitem__,
               cells=_figure_cells(a), compute=_workload_error_run)
    for a in ("aim-fig1", "aim-fig2", "aim-fig3"))
