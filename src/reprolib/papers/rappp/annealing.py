"""Figures 1 and 6: temperature annealing against every fixed temperature (Algorithm 1 alone).

The paper's Figure 1 plots the *optimisation* error of the relaxed projection on 1,000 random
2-way mixed marginals: how well Algorithm 1 fits given answers, annealed or at a fixed sigma. It
does not say whether the answers were noisy; we project the exact answers (no privacy is
involved: the figure is about the optimiser). A 2-way mixed marginal here is a label value and a
threshold on one number, 1{x_a <= t, label = c} (Definition 3 with |C| + |R| = 2; the label is
the categorical part), with a, the label and t ~ U[0, 1] drawn at random; as a vector query over
the label's values it is the linear threshold with theta = e_a and tau = t, so Algorithm 1 fits
it with the same tempered sigmoids. Errors: the largest and the mean absolute error over the
queries' entries, with hard thresholds, on the relaxed rows the fit returns.
"""

from __future__ import annotations

import dataclasses
import itertools

import jax.numpy as jnp
import numpy as np

from reprolib.experiments._scales import Scale
from reprolib.experiments._store import Cell
from reprolib.mechanisms.relaxed._annealing import (
    FitSettings,
    RoundSchedule,
    as_measured,
    empty_slots,
    fit_round,
    project,
)
from reprolib.papers.rappp.data import load_task
from reprolib.queries import OneHotLayout, threshold_answers

ANNEALED = "annealed"
FIXED = "fixed sigma"


@dataclasses.dataclass(frozen=True, kw_only=True)
class AnnealingSettings:
    """Figures 1 and 6 at one scale.

    Attributes:
        datasets: task/state keys (Figure 1: one; Figure 6: five).
        queries: 2-way mixed marginals fitted (paper: 1,000).
        sigmas: the fixed temperatures compared (ours: the code's annealing levels 2 ... 2048,
            and 1).
        n_synthetic, max_steps, passes, learning_rate: Algorithm 1's rows, steps per pass,
            passes and first learning rate (the code's LT rounds: 1000, 2000, 4, 0.006).
        sigma_initial, max_doublings: the annealing (code: 2 and 10).
        trials: seeds (queries and initial rows).
    """

    datasets: tuple[str, ...]
    queries: int
    sigmas: tuple[float, ...]
    n_synthetic: int
    max_steps: int
    passes: int = 4
    learning_rate: float = 0.006
    sigma_initial: float = 2.0
    max_doublings: int = 10
    trials: int


_SIGMAS = tuple(float(2 ** k) for k in range(12))


def _small(datasets: tuple[str, ...]) -> AnnealingSettings:
    """The whole design with half the code's rows and a quarter of its steps per pass."""
    return AnnealingSettings(datasets=datasets, queries=1000, sigmas=_SIGMAS, n_synthetic=500,
                             max_steps=500, trials=4)


SETTINGS: dict[str, dict[Scale, AnnealingSettings]] = {
    "rappp-fig1": {
        "smoke": AnnealingSettings(datasets=("income/ma2018",), queries=100, sigmas=(2.0, 64.0),
                                   n_synthetic=100, max_steps=60, passes=2, trials=1),
        "small": _small(("income/national2018",)),
        "paper": AnnealingSettings(datasets=("income/NY",), queries=1000, sigmas=_SIGMAS,
                                   n_synthetic=1000, max_steps=2000, trials=4),
    },
    "rappp-fig6": {
        "smoke": AnnealingSettings(datasets=("hispanic/ma2018",), queries=100,
                                   sigmas=(2.0, 64.0), n_synthetic=100, max_steps=60, passes=2,
                                   trials=1),
        "small": _small(tuple(f"{t}/national2018" for t in (
            "income", "worked", "owner", "married", "hispanic"))),
        "paper": AnnealingSettings(datasets=tuple(f"income/{s}" for s in (
            "CA", "NY", "TX", "FL", "PA")), queries=1000, sigmas=_SIGMAS, n_synthetic=1000,
            max_steps=2000, trials=4),
    },
}


def annealing_cells(artifact: str):
    """The cells of Figure 1 or 6: the annealed fit and each fixed sigma, per dataset and seed."""
    def cells(scale: Scale, settings: AnnealingSettings) -> list[Cell]:
        del scale
        shared = {"queries": settings.queries, "n_synthetic": settings.n_synthetic,
                  "max_steps": settings.max_steps, "passes": settings.passes,
                  "learning_rate": settings.learning_rate}
        runs = [(ANNEALED, {"sigma_initial": settings.sigma_initial,
                            "max_doublings": settings.max_doublings})]
        runs += [(FIXED, {"sigma_initial": s, "max_doublings": 0}) for s in settings.sigmas]
        return [Cell(artifact=artifact, mechanism=name, dataset=d, epsilon=None, delta=None,
                     seed=t, params={**shared, **extra})
                for d, (name, extra), t in itertools.product(settings.datasets, runs,
                                                             range(settings.trials))]
    return cells


def two_way_marginals(layout: OneHotLayout, count: int, rng: np.random.Generator
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(label positions, theta = e_a, tau = t) of ``count`` random 2-way mixed marginals."""
    n_numerical = len(layout.domain.numerical)
    labels = rng.integers(0, len(layout.labels), count)
    theta = np.eye(n_numerical, dtype=np.float32)[rng.integers(0, n_numerical, count)]
    return labels.astype(np.int32), theta, rng.random(count).astype(np.float32)


def annealing_run(cell: Cell, device: str) -> dict[str, object]:
    """Fit the exact answers from random rows; the errors of the best rows."""
    del device
    task, state = cell.dataset.split("/")
    data = load_task(task, state).data
    layout = OneHotLayout(data.domain, data.targets)
    rng = np.random.default_rng(cell.seed)
    count = int(cell.params["queries"])
    labels, theta, tau = two_way_marginals(layout, count, rng)
    truth = np.asarray(threshold_answers(jnp.asarray(layout.encode(data)), layout,
                                         jnp.asarray(labels), jnp.asarray(theta),
                                         jnp.asarray(tau), "<="))
    sizes = np.asarray([data.domain.categorical.size(a) for a in layout.labels])[labels]
    weight = (np.arange(layout.label_width)[None] < sizes[:, None]).astype(np.float32)
    slots = empty_slots(1, 1, count, layout)
    slots.update(lt_labels=labels, lt_theta=theta, lt_tau=tau, lt_target=truth.astype(np.float32),
                 lt_weight=weight)
    settings = FitSettings(layout=layout, direction="<=", norm="squares", terms="lt",
                           move_on="plateau", gamma=1e-3, max_steps=int(cell.params["max_steps"]),
                           adam="optax")
    schedule = RoundSchedule(learning_rate=float(cell.params["learning_rate"]),
                             passes=int(cell.params["passes"]),
                             sigma_initial=float(cell.params["sigma_initial"]),
                             max_doublings=int(cell.params["max_doublings"]))
    start = project(jnp.asarray(rng.random((int(cell.params["n_synthetic"]), layout.width)),
                                jnp.float32), layout)
    fit = fit_round(start, as_measured(slots), settings, schedule)
    fitted = np.asarray(threshold_answers(fit.rows, layout, jnp.asarray(labels),
                                          jnp.asarray(theta), jnp.asarray(tau), "<="))
    errors = np.abs(fitted - truth)[weight > 0]
    return {"max_error": float(errors.max()), "mean_error": float(errors.mean()),
            "steps": fit.steps, "passes": fit.passes, "doublings": fit.doublings,
            "stand_in": state not in ("CA", "NY", "TX", "FL", "PA")}
