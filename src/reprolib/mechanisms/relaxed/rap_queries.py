"""RAP (Aydore, Brown, Kearns, Kenthapadi, Melis, Roth, Siva; ICML 2021) on a workload's counting queries.

Relaxed Adaptive Projection as the AIM and PrivPGD papers ran it, with the defaults of its public
code (``amazon-science/relaxed-adaptive-projection``, the ICML 2021 tree ``main.py``,
``relaxed_adaptive_projection/rap.py``, ``privacy_budget_tracking/zcdp_tracker.py``). The queries
are the cells of the workload's marginals, one counting query each. Synthetic data D' is
``n_synthetic`` relaxed one-hot rows, each attribute's block on the probability simplex; a
cell's answer on D' is the mean over rows of the product of the cell's coordinates (RAP's
product queries, exact on one-hot rows). Each of T = ``rounds`` rounds, with N public:

1. scores every query not yet answered by its error |c(D) - N q(D')| in counts and selects the
   ``top_q`` largest by one-shot Gumbel top-K (the code peels K report-noisy-max draws, which
   has the same distribution);
2. answers them with the Gaussian mechanism (counts, divided by N);
3. fits D' to every answer so far: ``iterations`` Adam steps on the squared error of the answered
   queries at the simplex projection of every block (the code's ``--categorical-consistency``),
   warm-started from the last round's rows with a fresh Adam. As in the code, Adam's own iterate
   is never projected: each step's gradient is taken at the projection of the iterate, and the
   round's rows are the projection of its last iterate (``iterate="lazy"``). The code's Adam is
   stepped with its step count at 0, which freezes its bias corrections
   (``adam="frozen-bias"``: steps grow to about 2 lr in the first steps, then settle near 0.32 lr).

Records are drawn from D' by RAP's randomized rounding, N of them.

Privacy, under replace-one neighbours: a cell count moves by at most 1. Each round gets rho / T,
half to select and half to measure (the code's split). Selecting K queries costs
K eps_0^2 / 8 (K peeled eps_0-bounded-range exponential mechanisms, score sensitivity 1), so
eps_0 = sqrt(8 rho_select / K); the code's Gumbel scale Delta / sqrt(2 rho_select / K) is the same
mechanism, charged the same. The K answers have L2 sensitivity sqrt(K) in counts; the last
release spends what the ledger has left, so the run spends exactly rho.

Differences from the code (none changes the privacy): its loss is the unsquared L2 norm (same
minimiser); it stops a round early once the loss improves by less than 1e-7 while we always run
``iterations`` steps; and it answers every query's error on the full query matrix, which needed
64 GB in the AIM paper, where we compute the errors marginal by marginal. The two switches matter:
on nltcs at epsilon 1 (all 3-way marginals, seeds 0 and 1; ``benchmarks/rap_reference.py``, rows in
``results/aim/benchmarks/rap-reference.csv``) Adam as published with every iterate projected
(``adam="optax"``, ``iterate="projected"``, engine ``ours-optax-projected``) ended rounds with its
loss rising and oscillating, and its workload errors were 0.114 and 0.039; with the code's two
choices (engine ``ours``) 0.046 and 0.031; the code itself, at the same rho, 0.077 and 0.072.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time
from fractions import Fraction
from typing import ClassVar

import jax
import jax.numpy as jnp
import numpy as np
import optax

from reprolib.data import Dataset, Domain
from reprolib.mechanisms._base import (
    MechanismTraits,
    SynthesisResult,
    check_inputs,
    open_ledger,
    require_workload,
)
from reprolib.mechanisms.relaxed._adam import Iterate, RapAdam, check_rap_optimiser, rap_adam
from reprolib.mechanisms.relaxed._simplex import sparsemax
from reprolib.mechanisms.relaxed.projection import RelaxedData
from reprolib.privacy import (
    NeighbourRelation,
    PrivacyBudget,
    exponential_mechanism_epsilon,
    gaussian_mechanism,
    gaussian_sigma,
    gumbel_top_k,
    split_budget,
)
from reprolib.privacy._exact import sqrt_up
from reprolib.queries import Workload

COUNT_SENSITIVITY = 1.0  # replacing a record moves any cell count by at most one


@dataclasses.dataclass(frozen=True, kw_only=True)
class RAPQueriesConfig:
    """RAP's settings; the defaults are its public code's (``main.py``).

    Attributes:
        rounds: T, adaptive rounds (``--epochs``, 10).
        top_q: K, queries selected and answered a round (``--top-q``, 50).
        n_synthetic: relaxed rows n' (``--num-generated-points``, 1000).
        iterations: Adam steps a round (``--iterations``, 1000).
        learning_rate: Adam's learning rate (``--learning-rate``, 1e-3).
        adam: ``"frozen-bias"`` (the code's: bias corrections of the first step at every step)
            or ``"optax"`` (Adam as published).
        iterate: ``"lazy"`` (the code's: Adam's iterate is never projected, the rows are its
            projection) or ``"projected"`` (each step's result projected and stepped from).
    """

    rounds: int = 10
    top_q: int = 50
    n_synthetic: int = 1000
    iterations: int = 1000
    learning_rate: float = 1e-3
    adam: RapAdam = "frozen-bias"
    iterate: Iterate = "lazy"

    def __post_init__(self) -> None:
        for name in ("rounds", "top_q", "n_synthetic", "iterations"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if not self.learning_rate > 0:
            raise ValueError(f"learning_rate must be positive, got {self.learning_rate}")
        check_rap_optimiser(self.adam, self.iterate)


class RAPQueries:
    """RAP on the workload's counting queries; rho-zCDP under replace-one neighbours."""

    name: ClassVar[str] = "RAP-queries"
    traits: ClassVar[MechanismTraits] = MechanismTraits(
        workload_aware=True, data_aware=True, budget_aware=False, efficiency_aware=True,
        relation=NeighbourRelation.REPLACE_ONE)

    def __init__(self, config: RAPQueriesConfig | None = None) -> None:
        self.config = config or RAPQueriesConfig()

    def fit(self, data: Dataset, budget: PrivacyBudget, rng: np.random.Generator, *,
            workload: Workload | None = None) -> SynthesisResult:
        """T rounds of select, measure, project; then N rounded records."""
        check_inputs(self, data, workload)
        workload = require_workload(self, workload)
        started = time.perf_counter()
        cfg, ledger, domain = self.config, open_ledger(self, budget), data.domain
        queries = _Queries(domain, workload.cliques)
        truth = queries.answers(data.marginal)
        k = min(cfg.top_q, len(truth) // cfg.rounds)
        if k < 1:
            raise ValueError(f"the workload has {len(truth)} cells, fewer than the {cfg.rounds} "
                             "rounds; lower rounds")
        n = data.records
        offsets = tuple(int(o) for o in np.concatenate([[0], np.cumsum(domain.sizes)]))
        params = sparsemax(jnp.asarray(rng.random((cfg.n_synthetic, offsets[-1]))), offsets)
        answered = np.zeros(len(truth), dtype=bool)
        columns = np.full((cfg.rounds * k, queries.width), offsets[-1], dtype=np.int32)
        targets, weights = np.zeros(cfg.rounds * k), np.zeros(cfg.rounds * k)
        round_rho = split_budget(budget.rho, [1.0] * cfg.rounds)
        for t, rho in enumerate(round_rho):
            relaxed = RelaxedData(domain, np.asarray(params), "sparsemax")
            errors = np.abs(truth - n * queries.answers(relaxed.marginal))
            open_ = np.flatnonzero(~answered)
            select_rho, measure_rho = split_budget(rho, (1.0, 1.0))
            chosen = open_[gumbel_top_k(
                errors[open_], k, epsilon=exponential_mechanism_epsilon(select_rho / k),
                sensitivity=COUNT_SENSITIVITY, rng=rng, ledger=ledger,
                label=f"round {t + 1}: select {k} queries")]
            l2 = sqrt_up(Fraction(COUNT_SENSITIVITY) ** 2 * k)
            sigma = gaussian_sigma(ledger.remaining_rho if t == cfg.rounds - 1 else measure_rho, l2)
            noisy = gaussian_mechanism(truth[chosen], sigma=sigma, sensitivity=l2, rng=rng,
                                       ledger=ledger, label=f"round {t + 1}: answer {k} queries")
            answered[chosen] = True
            slots = slice(t * k, (t + 1) * k)
            columns[slots] = queries.columns(chosen, offsets)
            targets[slots], weights[slots] = noisy / n, 1.0
            params, losses = _fit(params, jnp.asarray(columns), jnp.asarray(targets),
                                  jnp.asarray(weights), offsets=offsets,
                                  iterations=cfg.iterations, learning_rate=cfg.learning_rate,
                                  adam=cfg.adam, iterate=cfg.iterate)
        relaxed = RelaxedData(domain, np.asarray(params), "sparsemax")
        return SynthesisResult(
            synthetic=relaxed.to_dataset(rng, rows=n), ledger=ledger,
            diagnostics={"rounds": cfg.rounds, "queries": len(truth), "per_round": k,
                         "answered": np.flatnonzero(answered).tolist(),
                         "final_loss": float(losses[-1]),
                         "seconds": time.perf_counter() - started})


class _Queries:
    """The workload's cells as one vector of counting queries, marginal after marginal."""

    def __init__(self, domain: Domain, cliques: tuple[tuple[str, ...], ...]) -> None:
        self.domain, self.cliques = domain, cliques
        self.shapes = [domain.project(c).sizes for c in cliques]
        self.starts = np.cumsum([0] + [math.prod(s) for s in self.shapes])
        self.width = max(len(c) for c in cliques)

    def answers(self, marginal) -> np.ndarray:
        """Every query's answer, from ``marginal(clique)`` (a Dataset's counts or D''s fractions)."""
        return np.concatenate([np.ravel(marginal(c)) for c in self.cliques])

    def columns(self, queries: np.ndarray, offsets: tuple[int, ...]) -> np.ndarray:
        """Each query's one-hot columns, padded with the index of a column of ones."""
        index = {a: i for i, a in enumerate(self.domain.attributes)}
        out = np.full((len(queries), self.width), offsets[-1], dtype=np.int32)
        for row, query in enumerate(queries):
            m = int(np.searchsorted(self.starts, query, side="right")) - 1
            values = np.unravel_index(int(query - self.starts[m]), self.shapes[m])
            for j, (attribute, value) in enumerate(zip(self.cliques[m], values, strict=True)):
                out[row, j] = offsets[index[attribute]] + int(value)
        return out


@functools.partial(jax.jit, static_argnames=("offsets", "iterations", "learning_rate", "adam",
                                             "iterate"))
def _fit(params: jax.Array, columns: jax.Array, targets: jax.Array, weights: jax.Array, *,
         offsets: tuple[int, ...], iterations: int, learning_rate: float, adam: RapAdam,
         iterate: Iterate) -> tuple[jax.Array, jax.Array]:
    """``iterations`` Adam steps on sum_j w_j (q_j(D') - y_j)^2 at the rows' projection onto the
    simplices (see :class:`RAPQueriesConfig` for ``adam`` and ``iterate``); the projected rows.
    """
    optimiser = rap_adam(adam, learning_rate)

    def loss(current: jax.Array) -> jax.Array:
        # a row per one-hot column (and one of ones): the gathers, and the scatter-adds of their
        # gradient, move whole rows of n values, about three times faster than columns on a CPU
        by_column = jnp.concatenate([current, jnp.ones((current.shape[0], 1), current.dtype)],
                                    axis=1).T
        answers = jnp.prod(by_column[columns], axis=1).mean(axis=1)
        return jnp.sum(weights * (answers - targets) ** 2)

    def step(carry, _):
        point, state = carry
        rows = sparsemax(point, offsets) if iterate == "lazy" else point
        value, grads = jax.value_and_grad(loss)(rows)
        updates, state = optimiser.update(grads, state, point)
        point = optax.apply_updates(point, updates)
        return (point if iterate == "lazy" else sparsemax(point, offsets), state), value

    (point, _), losses = jax.lax.scan(step, (params, optimiser.init(params)), length=iterations)
    return (sparsemax(point, offsets) if iterate == "lazy" else point), losses
