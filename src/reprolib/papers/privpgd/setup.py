"""What every PrivPGD experiment shares: scale profiles, data, mechanisms, one evaluated run.

The paper's grid (Section 4.1, Appendix C): nine datasets, epsilon in {2.5, 1.0, 0.2},
delta = 1e-5, five runs, PrivPGD with 100k particles and 1000 epochs against baselines tuned per
dataset. ``small`` and ``smoke`` keep the design and cut datasets, runs, particles, epochs and the
projection; every cut is a field below and is recorded in each run's parameters.
"""

from __future__ import annotations

import dataclasses
import functools
import textwrap
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, cast, get_args

import numpy as np
import pandas as pd

from reprolib.data import Dataset
from reprolib.experiments._provenance import compute_summary
from reprolib.experiments._scales import Scale
from reprolib.papers.privpgd.data import (
    PRIVPGD_DATASETS,
    SubstituteMode,
    Task,
    load_privpgd_dataset,
)

if TYPE_CHECKING:
    from reprolib.mechanisms import SynthesisResult
    from reprolib.metrics import CountingQueries, ThresholdingQueries

DELTA = 1e-5
FIGURE_EPSILONS = {"privpgd-fig1": 2.5, "privpgd-fig4": 1.0, "privpgd-fig5": 0.2}
RerunMechanism = Literal["PrivPGD", "PGM+AIM", "PGM+MST", "GEM", "RAP", "Private GSD"]
RERUN: tuple[RerunMechanism, ...] = get_args(RerunMechanism)
# RAP's defaults take 10,000 Adam steps, 30-50 s a run on one CPU core on the stand-ins' 2-way
# workloads: beyond smoke's seconds, within small's CPU hours
SLOW_FOR_SMOKE: tuple[RerunMechanism, ...] = ("RAP",)
SPLIT_SEED = 0  # the 80/20 split; the authors used scikit-learn's with seed 42
QUERY_SEED = 0  # the 200 counting and 200 thresholding queries, drawn once per dataset


@dataclasses.dataclass(frozen=True, kw_only=True)
class Profile:
    """One scale of the PrivPGD experiments.

    Attributes:
        datasets: the paper's dataset names (see ``reprolib.data.PRIVPGD_DATASETS``).
        substitute: ``load_privpgd_dataset``'s mode: ``"only"`` runs the named offline stand-ins,
            ``"auto"`` the paper's data where it can be downloaded.
        attributes: per dataset, keep only these attributes (the target always stays); smoke only.
        max_records: keep the first ``max_records`` rows of the train and test splits (None: all).
        trials: runs per setting (paper: 5).
        privpgd: PrivPGD settings that differ from the paper's defaults (``PrivPGDConfig`` fields
            other than ``calibration``, ``constraint`` and ``device``).
        gsd: Private GSD settings that differ from its defaults (``PrivateGSDConfig`` fields).
        pgm_iters: Private-PGM iterations of the baselines (PrivPGD paper: 3000).
        max_model_size_mb: PGM+AIM's model capacity (PrivPGD paper: 80 MB).
        step_rule: the baselines' Private-PGM line search (default: the pre-2.0 library's, which
            the paper ran; ``reprolib.mechanisms.pgm._mirror_descent``).
        mechanisms: the mechanisms of Figures 1, 4 and 5 that run at this scale (of ``RERUN``).
    """

    datasets: tuple[str, ...]
    substitute: SubstituteMode
    attributes: Mapping[str, tuple[str, ...]] | None
    max_records: int | None
    trials: int
    privpgd: Mapping[str, int | float]
    pgm_iters: int
    max_model_size_mb: float
    step_rule: str = "backtracking-2022"
    mechanisms: tuple[RerunMechanism, ...] = RERUN
    gsd: Mapping[str, int | float] = dataclasses.field(default_factory=dict)


def _shortened(epochs: int, projection_iterations: int, **rest: int) -> dict[str, int]:
    """PrivPGD settings with both learning-rate schedules shrunk in proportion: the paper decays
    every 50 of 1000 epochs and every 100 of 1750 projection steps; fewer steps keep the same
    number of decays.
    """
    return {"epochs": epochs, "lr_step": max(1, round(50 * epochs / 1000)),
            "projection_iterations": projection_iterations,
            "projection_lr_step": max(1, round(100 * projection_iterations / 1750)), **rest}


PROFILES: dict[Scale, Profile] = {
    "smoke": Profile(datasets=("income",), substitute="only",
                     attributes={"income": ("AGEP", "EDU", "SEX")}, max_records=3000, trials=1,
                     privpgd=_shortened(10, 20, n_particles=500, projection_directions=20),
                     pgm_iters=30, max_model_size_mb=1.0,
                     gsd={"records": 200, "generations": 2000},
                     mechanisms=tuple(m for m in RERUN if m not in SLOW_FOR_SMOKE)),
    # the whole design: PrivPGD at reduced compute, the baselines at the paper's settings; the
    # datasets and mechanisms join as their grids are completed, the rest are listed by
    # ``pending_datasets`` and ``pending_mechanisms``
    "small": Profile(datasets=("income", "employment", "traveltime", "publiccoverage",
                               "mobility", "medical", "taxi", "blackfriday", "diabetes"),
                     substitute="only",
                     attributes=None, max_records=None, trials=3,
                     privpgd=_shortened(100, 200, n_particles=10_000, projection_directions=50),
                     pgm_iters=3000, max_model_size_mb=80.0,
                     mechanisms=RERUN),
    "paper": Profile(datasets=tuple(PRIVPGD_DATASETS), substitute="auto", attributes=None,
                     max_records=None, trials=5, privpgd={}, pgm_iters=3000,
                     max_model_size_mb=80.0),
}


def pending_datasets(scale: Scale) -> tuple[str, ...]:
    """The paper's datasets whose grids are not in the scale's profile yet (``small`` grows
    dataset by dataset as its grids are completed; ``smoke`` cuts them on purpose).
    """
    return tuple(d for d in PRIVPGD_DATASETS if d not in PROFILES[scale].datasets)


def pending_mechanisms(scale: Scale) -> tuple[RerunMechanism, ...]:
    """The re-implemented mechanisms whose grids are not in the scale's profile yet."""
    return tuple(m for m in RERUN if m not in PROFILES[scale].mechanisms)


@dataclasses.dataclass(frozen=True, kw_only=True)
class ComparisonSettings(Profile):
    """What users may change in Figures 1, 4 and 5: the scale's profile and these.

    Attributes:
        epsilon: the figure's epsilon (``FIGURE_EPSILONS``).
        calibration: PrivPGD's noise calibration (``PrivPGDConfig.calibration``).
    """

    epsilon: float
    calibration: str = "paper"


def comparison_settings(scale: Scale, epsilon: float) -> ComparisonSettings:
    """The settings of a comparison figure at ``epsilon``: the scale's profile."""
    profile = PROFILES[scale]
    return ComparisonSettings(**{f.name: getattr(profile, f.name)
                                 for f in dataclasses.fields(profile)}, epsilon=epsilon)


_SET_ELSEWHERE = ("calibration", "constraint", "device")  # a setting of its own, or the run's


def check_privpgd_settings(privpgd: Mapping[str, int | float], calibration: str,
                           owner: str) -> None:
    """Refuse, before any run, PrivPGD settings that its config would refuse when built.

    Raises:
        TypeError: a name that is not a ``PrivPGDConfig`` field one may set here, or a value of
            the wrong type (see ``reprolib.mechanisms.make_config``).
    """
    from reprolib.mechanisms import config_class, make_config

    elsewhere = sorted(set(privpgd) & set(_SET_ELSEWHERE))
    if elsewhere:
        raise TypeError(f"{owner}.privpgd cannot set {elsewhere}: calibration is a setting of its "
                        "own, the constraint and the device are set by the run")
    config = config_class("PrivPGD")
    assert config is not None  # PrivPGD takes a config, PrivPGDConfig
    make_config(config, {**privpgd, "calibration": calibration}, owner=f"{owner}.privpgd")


def data_params(substitute: str, max_records: int | None) -> dict[str, object]:
    """The data parameters every cell records (its key in the results store depends on them)."""
    return {"substitute": str(substitute), "max_records": max_records}


def privpgd_params(privpgd: Mapping[str, int | float], calibration: str) -> dict[str, object]:
    """The parameters a PrivPGD cell records besides the data's."""
    return {"privpgd": dict(privpgd), "calibration": str(calibration)}


def cell_params(settings: ComparisonSettings, mechanism: str) -> dict[str, object]:
    """The run parameters a cell of ``mechanism`` records: the data's, and the mechanism's own
    settings only, so changing PrivPGD's settings re-runs PrivPGD and not the baselines.
    """
    params = data_params(settings.substitute, settings.max_records)
    if mechanism == "PrivPGD":
        return {**params, **privpgd_params(settings.privpgd, settings.calibration)}
    if mechanism in ("GEM", "RAP"):  # their public code's settings (reprolib.mechanisms.relaxed)
        return params
    if mechanism == "Private GSD":
        return {**params, "gsd": dict(settings.gsd)}
    params["pgm_iters"] = int(settings.pgm_iters)
    params["step_rule"] = str(settings.step_rule)
    if mechanism == "PGM+AIM":
        params["max_model_size_mb"] = float(settings.max_model_size_mb)
    return params


def dataset_attributes(attributes: Mapping[str, tuple[str, ...]] | None,
                       dataset: str) -> list[str] | None:
    """The attributes kept of ``dataset`` (the target added later), or None for all."""
    kept = (attributes or {}).get(dataset)
    return list(kept) if kept else None


@dataclasses.dataclass(frozen=True)
class EvaluationData:
    """A dataset as one experiment cell sees it, with the query sets all methods share."""

    train: Dataset
    test: Dataset
    target: str
    task: Task
    substituted: bool
    source_label: str
    counting: CountingQueries
    thresholding: ThresholdingQueries
    downstream_error_real: float


@functools.lru_cache(maxsize=8)
def _evaluation_data(dataset: str, substitute: SubstituteMode, attributes: tuple[str, ...] | None,
                     max_records: int | None) -> EvaluationData:
    from reprolib.metrics import CountingQueries, ThresholdingQueries, downstream_error

    data = load_privpgd_dataset(dataset, substitute=substitute, seed=SPLIT_SEED)
    train, test = data.train, data.test
    if attributes:
        kept = [a for a in train.domain.attributes if a in attributes or a == data.target]
        train, test = train.project(kept), test.project(kept)
    if max_records:  # the split is a seeded permutation, so its first rows are a random sample
        train, test = (Dataset(part.frame.head(max_records).reset_index(drop=True), part.domain,
                               part.source) for part in (train, test))
    return EvaluationData(
        train=train, test=test, target=data.target, task=data.task,
        substituted=data.substitute is not None, source_label=data.source_label,
        counting=CountingQueries.draw(train, seed=QUERY_SEED),
        thresholding=ThresholdingQueries.draw(train, seed=QUERY_SEED),
        downstream_error_real=downstream_error(train, test, data.target, data.task,
                                               seed=QUERY_SEED))


def evaluation_data(cell) -> EvaluationData:
    """The data of an experiment cell (cached per process: loading and the queries cost seconds)."""
    attributes = cell.params.get("attributes")
    return _evaluation_data(cell.dataset, cast(SubstituteMode, str(cell.params["substitute"])),
                            tuple(attributes) if attributes else None,
                            cell.params.get("max_records"))


# mechanism -> (its registered name, {config field: the cell parameter that sets it}); PrivPGD also
# takes the recorded ``privpgd`` settings
CONFIG_FROM_PARAMS: dict[str, tuple[str, dict[str, str]]] = {
    "PrivPGD": ("PrivPGD", {"calibration": "calibration"}),
    "PGM+AIM": ("AIM", {"pgm_iters": "pgm_iters", "final_pgm_iters": "pgm_iters",
                        "max_model_size_mb": "max_model_size_mb", "step_rule": "step_rule"}),
    "PGM+MST": ("MST", {"pgm_iters": "pgm_iters", "selection_pgm_iters": "pgm_iters",
                        "step_rule": "step_rule"}),
    "GEM": ("GEM", {}),
    "RAP": ("RAP-queries", {}),  # RAP as the paper ran it: the workload's cells as queries
    "Private GSD": ("Private-GSD", {}),
}


def build_mechanism(name: str, params: Mapping[str, Any], *, device: str = "auto",
                    constraint=None):
    """PrivPGD or a baseline, built from its typed config with a cell's parameters (see
    ``CONFIG_FROM_PARAMS``; the PGM baselines set to the PrivPGD paper's replace-one relation:
    sensitivity sqrt(2) per Gaussian, 2 per selection; GEM, RAP and Private GSD always account under
    it).
    """
    from reprolib.mechanisms import build
    from reprolib.privacy import NeighbourRelation

    if name not in CONFIG_FROM_PARAMS:
        raise ValueError(f"unknown mechanism {name!r}; the PrivPGD experiments re-run {RERUN}")
    registered, fields = CONFIG_FROM_PARAMS[name]
    overrides = {field: params[key] for field, key in fields.items()}
    if name == "PrivPGD":
        return build(registered, {**params["privpgd"], **overrides}, constraint=constraint,
                     device=device)
    if name in ("GEM", "RAP"):
        return build(registered, overrides)
    if name == "Private GSD":
        return build(registered, dict(params["gsd"]))
    return build(registered, overrides, relation=NeighbourRelation.REPLACE_ONE)


def run_and_evaluate(mechanism, data: EvaluationData, epsilon: float,
                     seed: int) -> tuple[SynthesisResult, dict[str, object]]:
    """Fit ``mechanism`` at (epsilon, DELTA) on the train split; the paper's metrics and spend.

    The workload-aware baselines (PGM+AIM, GEM) get the paper's workload, all 2-way marginals.
    """
    from reprolib.papers.privpgd.metrics import privpgd_metrics
    from reprolib.privacy import PrivacyBudget
    from reprolib.queries import all_kway

    budget = PrivacyBudget.from_epsilon_delta(epsilon, DELTA, relation=mechanism.traits.relation)
    started = time.perf_counter()
    result = mechanism.fit(data.train, budget, np.random.default_rng(seed),
                           workload=all_kway(data.train.domain, 2))
    seconds = time.perf_counter() - started
    metrics: dict[str, object] = dict(privpgd_metrics(
        data.train, result.synthetic, data.test, target=data.target, task=data.task,
        counting=data.counting, thresholding=data.thresholding,
        real_downstream_error=data.downstream_error_real, seed=QUERY_SEED))
    metrics.update(
        seconds=seconds, spent_rho=result.ledger.spent_rho, budget_rho=budget.rho,
        relation=budget.relation.value, substituted=data.substituted,
        source_label=data.source_label, records=data.train.records,
        attributes=len(data.train.domain),
        **{k: result.diagnostics[k] for k in _DIAGNOSTICS if k in result.diagnostics})
    return result, metrics


# recorded when a mechanism reports them: PrivPGD's calibration, noise (counts) and phase times,
# AIM's round count, Private GSD's generations and whether it stopped early
_DIAGNOSTICS = ("calibration", "sigma", "seconds_projection", "seconds_descent", "rounds",
                "generations", "stopped_early")


def data_sources(results: pd.DataFrame) -> pd.DataFrame:
    """Per dataset of ``results``: whether a stand-in ran, and what it is (for visible labels)."""
    rows = results.drop_duplicates("dataset")
    return pd.DataFrame({"dataset": rows["dataset"],
                         "substituted": rows["metric.substituted"].astype(bool),
                         "data": rows["metric.source_label"]}).reset_index(drop=True)


def describe_scale(results: pd.DataFrame, scale: Scale) -> str:
    """One paragraph on what was run: datasets, runs, mechanisms, the settings cut and the
    compute, wrapped at 72 columns for the pages' output cells.
    """
    mechanisms = list(dict.fromkeys(results["mechanism"]))
    first = results.drop_duplicates("mechanism").set_index("mechanism")
    runs = results["seed"].nunique()
    parts = [(f"Scale {scale}: {len(results)} runs on {results['dataset'].nunique()} dataset(s), "
              f"{runs} run(s) per setting, mechanisms {', '.join(mechanisms)}.")]
    if "PrivPGD" in first.index:
        settings = ", ".join(f"{k} {v}" for k, v in first.at["PrivPGD", "param.privpgd"].items())
        parts.append(f"PrivPGD settings: {settings or 'the defaults'} (calibration "
                     f"{first.at['PrivPGD', 'param.calibration']}).")
    baselines = [m for m in mechanisms if m.startswith("PGM+")]
    if baselines:
        parts.append(f"Private-PGM iterations {first.at[baselines[0], 'param.pgm_iters']:.0f}.")
    if "PGM+AIM" in first.index:
        parts.append(f"PGM+AIM capacity {first.at['PGM+AIM', 'param.max_model_size_mb']:g} MB.")
    if scale == "small" and pending_datasets(scale):
        parts.append("The whole design is being computed dataset by dataset; still to run at "
                     f"this scale: {', '.join(pending_datasets(scale))}.")
    if pending_mechanisms(scale):
        parts.append("Re-implemented, not yet run at this scale: "
                     f"{', '.join(pending_mechanisms(scale))}.")
    parts.append(f"Compute: {compute_summary(results)}.")
    return textwrap.fill(" ".join(parts), 72)
