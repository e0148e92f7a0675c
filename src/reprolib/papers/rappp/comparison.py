"""The comparison grids: RAP++, RAP, PGM, DP-MERF and DP-CTGAN against epsilon (Figures 2, 4, 7
and 8 on the single-task datasets; all but DP-MERF on the multitask ones, Figures 5 and 9),
and Figure 3's sweep of PGM's bins and RAP++'s threshold rounds.

Every run synthesises the 80 % training split of one single-task dataset at one epsilon, with
delta = 1/n^2 (n the training records) and the paper's conversion eps = rho + 2 sqrt(rho log
1/delta) (``bound="cks"`` is our tighter alternative) for the zCDP mechanisms, replace-one
neighbours for all, and is scored three ways against the data:

* categorical-marginal (CM) error: mean and largest absolute error over the cells of every
  (feature, feature, label) table of the categorical features, synthetic against training data
  (the paper's Definition 5);
* mixed-marginal (MM) error: the same over ``mm_queries`` random class-conditional prefix
  queries on two numbers (the paper: 200,000; its code evaluates 20,000), which no mechanism
  trains on;
* macro-F1 on the real test split of the linear model trained on the synthetic records; the
  ``original`` rows train it on the real training split (the figures' dotted line).

PGM is MWEM+PGM (our Private-PGM engine) on the data with every number cut into ``bins``
equal-width bins, on the tables (a, b, label) over all features, d - 1 rounds; it releases each
number as its bin's centre, as RAP does.

DP-MERF (:mod:`reprolib.mechanisms.deep.dp_merf`) runs its authors' tabular settings
(:data:`~reprolib.mechanisms.deep.dp_merf.TABULAR`; the paper says only that it tuned them),
conditioned on the task's label. It accounts in Rényi DP against the same (epsilon, 1/n^2): the
authors' own accounting, tighter than the zCDP conversion the others are held to, as in the
paper's comparison. Its cells record only the evaluation's settings (``mm_queries``, ``bound``),
so changing RAP++'s or PGM's knobs does not recompute it. It is not run on the multitask data:
it conditions on one label, and the paper does not say how it ran DP-MERF on five (its text
discusses only PGM against RAP++ there; the figures themselves are not in our copy).

DP-CTGAN (:mod:`reprolib.mechanisms.deep.dp_ctgan`) runs SmartNoise's defaults for ``gan_epochs``
epochs with the noise multiplier calibrated to them (the paper tuned the noise scale and does not
say to what), in Rényi DP like DP-MERF. The paper gave it an extra epsilon = 5 for SmartNoise's
preprocessing and did not count it, "the reported budget ... solely used for private gradient
optimization"; ours reads the coding's declared bounds, and its one release besides the steps
is the category frequencies. ``gan_free_epsilon`` reproduces the paper's convention: the steps
get the whole reported epsilon and the frequencies a separate, uncounted ledger of
gan_free_epsilon (0, the default, counts everything in one budget).

Figure 3 runs the same cells at epsilon 0.15 and 1 with PGM's ``bins`` in {10, 20, 50, 100} and
RAP++'s threshold rounds T_LT in {10, 30, 50, 70} (the cell parameter ``lt_rounds``, recorded only
there), and plots F1 against each run's wall time.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from typing import Literal

import jax.numpy as jnp
import numpy as np

from reprolib.data import MixedDataset
from reprolib.experiments._scales import Scale
from reprolib.experiments._store import Cell
from reprolib.mechanisms import SynthesisResult, build
from reprolib.metrics import logistic_macro_f1
from reprolib.papers.rappp.data import (
    PAPER_STATES,
    PAPER_TASKS,
    STAND_IN_TASKS,
    STAND_INS,
    load_task,
    split,
)
from reprolib.papers.rappp.setup import EPSILONS
from reprolib.privacy import Ledger, NeighbourRelation, PrivacyBudget, RdpLedger
from reprolib.queries import ConditionalMarginals, MixedPrefixes, OneHotLayout, Workload

Mechanism = Literal["RAP++", "RAP", "PGM", "DP-MERF", "DP-CTGAN"]
MULTITASK_MECHANISMS: tuple[Mechanism, ...] = ("RAP++", "RAP", "PGM", "DP-CTGAN")
ORIGINAL = "original"
MM_SEED = 123  # the authors' evaluation seed


def design(scale: Scale, *, multitask: bool = False) -> tuple[str, ...]:
    """The task/state keys of the paper's design at ``scale``: its five tasks (or its multitask
    set) on its five states at ``paper``; the stand-in tasks on the stand-in states otherwise.
    Each grid grows towards this, dataset by dataset.
    """
    paper = scale == "paper"
    tasks = [t for t in (PAPER_TASKS if paper else STAND_IN_TASKS) if t != "multitask"]
    return tuple(f"{task}/{state}" for task in (["multitask"] if multitask else tasks)
                 for state in (PAPER_STATES if paper else STAND_INS))


def focus_state(scale: Scale) -> str:
    """The state of Figures 3, 4 and 5 (the paper: New York; offline: Massachusetts' excerpt)."""
    return "NY" if scale == "paper" else "ma2018"


@dataclasses.dataclass(frozen=True, kw_only=True)
class ComparisonSettings:
    """One scale of the comparison grid.

    Attributes:
        datasets: task/state keys.
        epsilons: the epsilon grid.
        trials: seeds (split, mechanism randomness).
        mechanisms: the mechanisms run.
        n_synthetic, max_steps, lt_queries: RAP++'s relaxed rows, steps per pass and candidate
            thresholds (RAP shares the first two); the paper's code: 1000, 2000, 200,000.
        bins: equal-width bins of every number for RAP and PGM (paper: 30).
        pgm_iters: Private-PGM iterations per MWEM round (the private-pgm default: 1000).
        mm_queries: mixed-marginal evaluation queries.
        bound: the zCDP conversion: "bun-steinke" (the paper's) or "cks".
        gan_epochs: DP-CTGAN's epochs (SmartNoise: 300).
        gan_free_epsilon: DP-CTGAN's uncounted preprocessing epsilon, which funds its
            category frequencies (the paper's convention: 5; ours: 0, everything counted).
    """

    datasets: tuple[str, ...]
    epsilons: tuple[float, ...] = EPSILONS
    trials: int
    mechanisms: tuple[Mechanism, ...] = ("RAP++", "RAP", "PGM", "DP-MERF", "DP-CTGAN")
    n_synthetic: int
    max_steps: int
    lt_queries: int
    bins: int = 30
    pgm_iters: int
    mm_queries: int
    bound: Literal["bun-steinke", "cks"] = "bun-steinke"
    gan_epochs: int = 300
    gan_free_epsilon: float = 0.0


COMPARISON: dict[Scale, ComparisonSettings] = {
    "smoke": ComparisonSettings(datasets=("income/ma2018",), epsilons=(1.0,), trials=1,
                                n_synthetic=100, max_steps=30, lt_queries=500, bins=5,
                                pgm_iters=20, mm_queries=500, gan_epochs=5),
    # the whole design; compute knobs cut as for Figure 1; DP-CTGAN's epochs to a tenth, as
    # Private-PGM's iterations (30 epochs: about 45 s a run on a 9,000-record stand-in on one core)
    "small": ComparisonSettings(datasets=design("small"), trials=4,
                                n_synthetic=500, max_steps=500, lt_queries=20_000,
                                pgm_iters=100, mm_queries=20_000, gan_epochs=30),
    "paper": ComparisonSettings(datasets=design("paper"), trials=4, n_synthetic=1000,
                                max_steps=2000, lt_queries=200_000, pgm_iters=1000,
                                mm_queries=200_000),
}

MULTITASK: dict[Scale, ComparisonSettings] = {
    "smoke": dataclasses.replace(COMPARISON["smoke"], datasets=("multitask/ma2018",),
                                 mechanisms=MULTITASK_MECHANISMS),
    "small": dataclasses.replace(COMPARISON["small"], datasets=design("small", multitask=True),
                                 mechanisms=MULTITASK_MECHANISMS),
    "paper": dataclasses.replace(COMPARISON["paper"], datasets=design("paper", multitask=True),
                                 mechanisms=MULTITASK_MECHANISMS),
}


@dataclasses.dataclass(frozen=True, kw_only=True)
class SensitivitySettings:
    """One scale of Figure 3's sweep.

    Attributes:
        datasets: task/state keys (the paper: three single-task datasets it does not name).
        epsilons: the paper's 0.15 and 1.
        trials: seeds.
        bins: PGM's bins per number (the paper: 10, 20, 50, 100).
        lt_rounds: RAP++'s T_LT (the paper: 10, 30, 50, 70).
        n_synthetic, max_steps, lt_queries, pgm_iters, mm_queries, bound: as
            :class:`ComparisonSettings`.
    """

    datasets: tuple[str, ...]
    epsilons: tuple[float, ...] = (0.15, 1.0)
    trials: int
    bins: tuple[int, ...] = (10, 20, 50, 100)
    lt_rounds: tuple[int, ...] = (10, 30, 50, 70)
    n_synthetic: int
    max_steps: int
    lt_queries: int
    pgm_iters: int
    mm_queries: int
    bound: Literal["bun-steinke", "cks"] = "bun-steinke"


def _swept(settings: ComparisonSettings, datasets: tuple[str, ...], **changes
           ) -> SensitivitySettings:
    knobs = ("trials", "n_synthetic", "max_steps", "lt_queries", "pgm_iters", "mm_queries")
    return SensitivitySettings(datasets=datasets, **{k: getattr(settings, k) for k in knobs},
                               **changes)


# three tasks of Figure 4's state: numbers matter most for income, least for hispanic
SENSITIVITY_DESIGN = ("income/ma2018", "owner/ma2018", "hispanic/ma2018")
SENSITIVITY: dict[Scale, SensitivitySettings] = {
    "smoke": _swept(COMPARISON["smoke"], ("income/ma2018",), epsilons=(1.0,), bins=(3, 5),
                    lt_rounds=(2, 5)),
    "small": _swept(COMPARISON["small"], SENSITIVITY_DESIGN),
    "paper": _swept(COMPARISON["paper"], ("income/NY", "employment/NY", "coverage/NY")),
}


def pending_mechanisms(artifact: str, scale: Scale) -> tuple[str, ...]:
    """The re-implemented mechanisms of the paper's comparison that ``artifact``'s grid does
    not run yet at ``scale`` (none for the sensitivity grid, by design).
    """
    if artifact in ("rappp-fig2", "rappp-fig4", "rappp-fig7", "rappp-fig8"):
        grids = COMPARISON
    elif artifact in ("rappp-fig5", "rappp-fig9"):
        grids = MULTITASK
    else:
        return ()
    return tuple(m for m in grids["paper"].mechanisms if m not in grids[scale].mechanisms)


def small_design_gaps(artifact: str) -> str:
    """What the ``small`` grid of ``artifact`` lacks of the paper's design, in words ("" if
    nothing: every task and the multitask set on the three stand-in states, every epsilon and
    seed).
    """
    pending = pending_mechanisms(artifact, "small")
    data = "the multitask data" if artifact in ("rappp-fig5", "rappp-fig9") else "the tasks"
    return f"{', '.join(pending)} on {data}" if pending else ""


def pending_datasets(artifact: str, scale: Scale) -> tuple[str, ...]:
    """The datasets of the paper's design that ``artifact``'s grid does not run yet at ``scale``
    (``small`` grows dataset by dataset; ``smoke`` runs one by design and lists none).
    """
    if scale == "smoke":
        return ()
    if artifact == "rappp-fig3":
        wanted = SENSITIVITY["paper"].datasets if scale == "paper" else SENSITIVITY_DESIGN
        settings: ComparisonSettings | SensitivitySettings = SENSITIVITY[scale]
    else:
        multitask = artifact in ("rappp-fig5", "rappp-fig9")
        wanted = design(scale, multitask=multitask)
        settings = (MULTITASK if multitask else COMPARISON)[scale]
    return tuple(d for d in wanted if d not in settings.datasets)


def _params(settings: ComparisonSettings | SensitivitySettings, bins: int) -> dict:
    return {"n_synthetic": settings.n_synthetic, "max_steps": settings.max_steps,
            "lt_queries": settings.lt_queries, "bins": bins, "pgm_iters": settings.pgm_iters,
            "mm_queries": settings.mm_queries, "bound": settings.bound}


def comparison_cells(artifact: str):
    """Every (dataset, mechanism, epsilon, seed), and one original-data row per dataset and seed."""
    def cells(scale: Scale, settings: ComparisonSettings) -> list[Cell]:
        del scale
        params = _params(settings, settings.bins)
        evaluation: dict[str, object] = {"mm_queries": settings.mm_queries, "bound": settings.bound}
        own = {"DP-MERF": evaluation,
               "DP-CTGAN": {**evaluation, "gan_epochs": settings.gan_epochs,
                            "gan_free_epsilon": settings.gan_free_epsilon}}
        private = [Cell(artifact=artifact, mechanism=m, dataset=d, epsilon=e, delta=None,
                        seed=t, params=own.get(m, params))
                   for d, m, e, t in itertools.product(settings.datasets, settings.mechanisms,
                                                       settings.epsilons,
                                                       range(settings.trials))]
        original = [Cell(artifact=artifact, mechanism=ORIGINAL, dataset=d, epsilon=None,
                         delta=None, seed=t, params={"mm_queries": settings.mm_queries})
                    for d, t in itertools.product(settings.datasets, range(settings.trials))]
        return private + original
    return cells


def sensitivity_cells(scale: Scale, settings: SensitivitySettings) -> list[Cell]:
    """Figure 3: PGM at every bin count and RAP++ at every T_LT, per dataset, epsilon and seed;
    the original-data rows give the F1 of the real training split.
    """
    del scale
    grid = itertools.product(settings.datasets, settings.epsilons, range(settings.trials))
    private = [cell for d, e, t in grid for cell in (
        *(Cell(artifact="rappp-fig3", mechanism="PGM", dataset=d, epsilon=e, delta=None, seed=t,
               params=_params(settings, b)) for b in settings.bins),
        *(Cell(artifact="rappp-fig3", mechanism="RAP++", dataset=d, epsilon=e, delta=None,
               seed=t, params={**_params(settings, 30), "lt_rounds": r})
          for r in settings.lt_rounds))]
    original = [Cell(artifact="rappp-fig3", mechanism=ORIGINAL, dataset=d, epsilon=None,
                     delta=None, seed=t, params={"mm_queries": settings.mm_queries})
                for d, t in itertools.product(settings.datasets, range(settings.trials))]
    return private + original


def mechanism_config(mechanism: str, params: dict) -> dict[str, object]:
    """The settings a cell's parameters give RAP++, RAP or PGM (MWEM+PGM's rounds aside);
    DP-MERF's are its authors' tabular ones whatever the cell records; DP-CTGAN's its epochs,
    with the noise multiplier calibrated to them.
    """
    if mechanism == "DP-MERF":
        from reprolib.mechanisms.deep.dp_merf import TABULAR

        return dict(TABULAR)
    if mechanism == "DP-CTGAN":
        return {"epochs": int(params["gan_epochs"]), "noise_multiplier": None,
                "uncounted_preprocessing_epsilon": float(params.get("gan_free_epsilon", 0.0))}
    names = {"RAP++": ("n_synthetic", "max_steps", "lt_queries", "lt_rounds"),
             "RAP": ("n_synthetic", "max_steps", "bins"), "PGM": ("pgm_iters",)}[mechanism]
    return {k: params[k] for k in names if k in params}


def synthesise(mechanism: str, train: MixedDataset, epsilon: float, seed: int,
               params: dict, device: str = "cpu") -> SynthesisResult:
    """The mechanism's run on ``train`` at (epsilon, 1/n^2) (DP-CTGAN's frequencies, with
    ``gan_free_epsilon``, on a separate ledger); its records are mixed-type. ``device`` is where
    the torch mechanisms train (the JAX mechanisms follow JAX's default device).
    """
    budget = PrivacyBudget.from_epsilon_delta(
        epsilon, 1.0 / train.records ** 2, relation=NeighbourRelation.REPLACE_ONE,
        bound=params["bound"])
    rng = np.random.default_rng(seed)
    if mechanism == "PGM":
        return _pgm(train, budget, rng, params)
    config = mechanism_config(mechanism, params)
    if mechanism in ("DP-MERF", "DP-CTGAN"):
        config["device"] = device
    return build(mechanism, config).fit(train, budget, rng)


def _pgm(train: MixedDataset, budget: PrivacyBudget, rng: np.random.Generator,
         params: dict) -> SynthesisResult:
    """MWEM+PGM on the binned data, tables (a, b, label) over all features, d - 1 rounds."""
    bins = int(params["bins"])
    binned = train.binned(bins)
    features = [a for a in binned.domain.attributes if a not in train.targets]
    cliques = tuple((a, b, label) for a, b in itertools.combinations(features, 2)
                    for label in train.targets)
    mechanism = build("MWEM+PGM", {"rounds": len(binned.domain) - 1,
                                   **mechanism_config("PGM", params),
                                   "relation": NeighbourRelation.REPLACE_ONE})
    result = mechanism.fit(binned, budget, rng,
                           workload=Workload("class-conditional 3-way", cliques,
                                             (1.0,) * len(cliques)))
    return dataclasses.replace(result, synthetic=MixedDataset.from_binned(
        result.synthetic, train.domain.numerical, bins, train.targets))


def query_errors(real: MixedDataset, synthetic: MixedDataset, mm_queries: int
                 ) -> dict[str, float]:
    """Mean and largest absolute errors on the categorical marginals and the mixed marginals."""
    layout = OneHotLayout(real.domain, real.targets)
    rows_real, rows_synthetic = layout.encode(real), layout.encode(synthetic)
    out: dict[str, float] = {}
    features = [a for a in real.domain.categorical.attributes if a not in real.targets]
    cm = ConditionalMarginals.all_pairs(layout, features)
    errors = np.abs(cm.all_answers(rows_real) - cm.all_answers(rows_synthetic))[cm.valid]
    out.update(cm_mean_error=float(errors.mean()), cm_max_error=float(errors.max()))
    if len(real.domain.numerical) >= 2:
        mm = MixedPrefixes(layout, mm_queries, MM_SEED)
        sizes = np.asarray([real.domain.categorical.size(a) for a in layout.labels])
        labels = np.asarray(mm.parameters(jnp.arange(mm_queries))[0])
        valid = np.arange(layout.label_width)[None] < sizes[labels][:, None]
        errors = np.abs(mm.all_answers(rows_real) - mm.all_answers(rows_synthetic))[valid]
        out.update(mm_mean_error=float(errors.mean()), mm_max_error=float(errors.max()))
    return out


def ledger_metrics(ledger: Ledger | RdpLedger) -> dict[str, object]:
    """What a run's ledger records: its budget and spend in its own currency (rho for zCDP,
    epsilon at the budget's delta for Rényi DP), its delta and its neighbouring relation.
    """
    if isinstance(ledger, RdpLedger):
        spend: dict[str, object] = {"spent_epsilon": ledger.spent_epsilon(),
                                    "budget_epsilon": ledger.budget.epsilon}
    else:
        spend = {"spent_rho": ledger.spent_rho, "budget_rho": ledger.budget.rho}
    return {**spend, "delta": ledger.budget.delta, "relation": ledger.relation.value}


def comparison_run(cell: Cell, device: str) -> dict[str, object]:
    """Synthesise (or take the real training split for ``original``) and score."""
    task, state = cell.dataset.split("/")
    data = load_task(task, state).data
    train, test = split(data, cell.seed)
    started = time.perf_counter()
    ledger: dict[str, object] = {}
    if cell.mechanism == ORIGINAL:
        synthetic = train
    else:
        assert cell.epsilon is not None
        result = synthesise(cell.mechanism, train, cell.epsilon, cell.seed, dict(cell.params),
                            device)
        assert isinstance(result.synthetic, MixedDataset)
        synthetic = result.synthetic
        ledger = {**ledger_metrics(result.ledger),
                  **{k: result.diagnostics[k] for k in ("rounds", "unspent_rho")
                     if k in result.diagnostics}}
    seconds = time.perf_counter() - started
    metrics: dict[str, object] = {
        "seconds": seconds, "train_records": train.records,
        "stand_in": state not in PAPER_STATES, **ledger,
        **query_errors(train, synthetic, int(cell.params["mm_queries"]))}
    for target in data.targets:
        metrics[f"f1.{target}"] = logistic_macro_f1(synthetic, test, target)
    return metrics
