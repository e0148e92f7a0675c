"""The comparison grid behind Figures 2, 4, 7 and 8: RAP++, RAP and PGM against epsilon.

Every run synthesises the 80 % training split of one single-task dataset at one epsilon, with
delta = 1/n^2 (n the training records) and the paper's conversion eps = rho + 2 sqrt(rho log
1/delta) (``bound="cks"`` is our tighter alternative), replace-one neighbours for all three, and
is scored three ways against the data:

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
from reprolib.mechanisms import build
from reprolib.metrics import logistic_macro_f1
from reprolib.papers.rappp.data import PAPER_STATES, load_task, split
from reprolib.papers.rappp.setup import EPSILONS
from reprolib.privacy import NeighbourRelation, PrivacyBudget
from reprolib.queries import ConditionalMarginals, MixedPrefixes, OneHotLayout, Workload

Mechanism = Literal["RAP++", "RAP", "PGM"]
ORIGINAL = "original"
MM_SEED = 123  # the authors' evaluation seed


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
    """

    datasets: tuple[str, ...]
    epsilons: tuple[float, ...] = EPSILONS
    trials: int
    mechanisms: tuple[Mechanism, ...] = ("RAP++", "RAP", "PGM")
    n_synthetic: int
    max_steps: int
    lt_queries: int
    bins: int = 30
    pgm_iters: int
    mm_queries: int
    bound: Literal["bun-steinke", "cks"] = "bun-steinke"


COMPARISON: dict[Scale, ComparisonSettings] = {
    "smoke": ComparisonSettings(datasets=("income/ma2018",), epsilons=(1.0,), trials=1,
                                n_synthetic=100, max_steps=30, lt_queries=500, bins=5,
                                pgm_iters=20, mm_queries=500),
    # the whole design grows dataset by dataset; compute knobs cut as for Figure 1
    "small": ComparisonSettings(datasets=("income/national2018",), trials=4, n_synthetic=500,
                                max_steps=500, lt_queries=20_000, pgm_iters=100,
                                mm_queries=20_000),
    "paper": ComparisonSettings(datasets=tuple(f"{t}/{s}" for t in ("income", "employment",
                                                                    "coverage", "travel",
                                                                    "mobility")
                                               for s in PAPER_STATES),
                                trials=4, n_synthetic=1000, max_steps=2000, lt_queries=200_000,
                                pgm_iters=1000, mm_queries=200_000),
}


def comparison_cells(artifact: str):
    """Every (dataset, mechanism, epsilon, seed), and one original-data row per dataset and seed."""
    def cells(scale: Scale, settings: ComparisonSettings) -> list[Cell]:
        del scale
        params = {"n_synthetic": settings.n_synthetic, "max_steps": settings.max_steps,
                  "lt_queries": settings.lt_queries, "bins": settings.bins,
                  "pgm_iters": settings.pgm_iters, "mm_queries": settings.mm_queries,
                  "bound": settings.bound}
        private = [Cell(artifact=artifact, mechanism=m, dataset=d, epsilon=e, delta=None,
                        seed=t, params=params)
                   for d, m, e, t in itertools.product(settings.datasets, settings.mechanisms,
                                                       settings.epsilons,
                                                       range(settings.trials))]
        original = [Cell(artifact=artifact, mechanism=ORIGINAL, dataset=d, epsilon=None,
                         delta=None, seed=t, params={"mm_queries": settings.mm_queries})
                    for d, t in itertools.product(settings.datasets, range(settings.trials))]
        return private + original
    return cells


def synthesise(mechanism: str, train: MixedDataset, epsilon: float, seed: int,
               params: dict) -> MixedDataset:
    """The mechanism's synthetic records of ``train`` at (epsilon, 1/n^2)."""
    budget = PrivacyBudget.from_epsilon_delta(
        epsilon, 1.0 / train.records ** 2, relation=NeighbourRelation.REPLACE_ONE,
        bound=params["bound"])
    rng = np.random.default_rng(seed)
    if mechanism == "RAP++":
        config = {k: params[k] for k in ("n_synthetic", "max_steps", "lt_queries")}
        synthetic = build("RAP++", config).fit(train, budget, rng).synthetic
    elif mechanism == "RAP":
        config = {k: params[k] for k in ("n_synthetic", "max_steps", "bins")}
        synthetic = build("RAP", config).fit(train, budget, rng).synthetic
    else:
        synthetic = _pgm(train, budget, rng, params)
    assert isinstance(synthetic, MixedDataset)
    return synthetic


def _pgm(train: MixedDataset, budget: PrivacyBudget, rng: np.random.Generator,
         params: dict) -> MixedDataset:
    """MWEM+PGM on the binned data, tables (a, b, label) over all features, d - 1 rounds."""
    bins = int(params["bins"])
    binned = train.binned(bins)
    features = [a for a in binned.domain.attributes if a not in train.targets]
    cliques = [(a, b, label) for a, b in itertools.combinations(features, 2)
               for label in train.targets]
    mechanism = build("MWEM+PGM", {"rounds": len(binned.domain) - 1,
                                   "pgm_iters": int(params["pgm_iters"]),
                                   "relation": NeighbourRelation.REPLACE_ONE})
    result = mechanism.fit(binned, budget, rng,
                           workload=Workload("class-conditional 3-way", cliques,
                                             [1.0] * len(cliques)))
    return MixedDataset.from_binned(result.synthetic, train.domain.numerical, bins,
                                    train.targets)


def query_errors(real: MixedDataset, synthetic: MixedDataset, mm_queries: int
                 ) -> dict[str, float]:
    """Mean and largest absolute errors on the categorical marginals and the mixed marginals."""
    layout = OneHotLayout(real.domain, real.targets)
    rows_real, rows_synthetic = layout.encode(real), layout.encode(synthetic)
    out = {}
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


def comparison_run(cell: Cell, device: str) -> dict[str, object]:
    """Synthesise (or take the real training split for ``original``) and score."""
    del device
    task, state = cell.dataset.split("/")
    data = load_task(task, state).data
    train, test = split(data, cell.seed)
    started = time.perf_counter()
    if cell.mechanism == ORIGINAL:
        synthetic = train
    else:
        assert cell.epsilon is not None
        synthetic = synthesise(cell.mechanism, train, cell.epsilon, cell.seed, dict(cell.params))
    seconds = time.perf_counter() - started
    metrics: dict[str, object] = {
        "seconds": seconds, "train_records": train.records,
        "stand_in": state not in PAPER_STATES,
        **query_errors(train, synthetic, int(cell.params["mm_queries"]))}
    for target in data.targets:
        metrics[f"f1.{target}"] = logistic_macro_f1(synthetic, test, target)
    return metrics
