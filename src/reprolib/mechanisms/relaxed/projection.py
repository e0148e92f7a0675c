"""The relaxed projection of RAP (Aydore et al., ICML 2021): fit relaxed one-hot rows to marginals.

Synthetic data D' is ``n_synthetic`` rows in the relaxed one-hot space [0, 1]^(sum_i n_i), one
block of n_i coordinates per attribute. The answer of D' to a marginal on attributes (a, b, ...)
is the average over rows of the outer product of the rows' blocks a, b, ... (RAP's product
queries, which equal the marginal on one-hot rows). The projection minimises

    L(D') = sum_i w_i ||M_{r_i}(D') - y_i||_2^2

over D' with Adam, projecting the rows back onto the constraint set after every step, in one
jitted ``lax.scan``. Targets y_i are normalised marginals (cells sum to about 1).

Where the paper is silent the authors' code decides (``amazon-science/relaxed-adaptive-projection``,
the ICML 2021 tree ``relaxed_adaptive_projection/rap.py`` and ``main.py``):

* constraint set: with ``--categorical-consistency`` each block is replaced by its sparsemax (the
  Euclidean projection onto the probability simplex) after every Adam step; with ``--project 0 1``
  the rows are clipped to [0, 1]. Only the first gives blocks that are distributions, which the
  rounding needs, so ``"sparsemax"`` is the default; ``"clip"`` is the alternative. ``"softmax"``
  (rows are per-block softmaxes of free logits, no projection) is not in RAP; it is offered as the
  common unconstrained relaxation.
* loss: the code minimises the unsquared L2 norm; the minimisers are the same. Adam's state is
  fresh at each call (the code rebuilds its optimiser every epoch), the rows are warm-started.
* optimiser: the code steps Adam with its step counter frozen at 0, so its bias corrections stay
  at the first step's and its steady-state steps are about 0.32 x lr m/sqrt(v)
  (``adam="frozen-bias"``, shared with :mod:`reprolib.mechanisms.relaxed.rap_queries`), and never
  projects Adam's own iterate: each step's gradient is taken at the iterate's projection, and the
  fit returns the projection of the last iterate (``iterate="lazy"``; for ``"softmax"``, where
  nothing is projected, the two iterates are one). Our defaults are the paper's projected Adam
  (``adam="optax"``, ``iterate="projected"``): inside MWEM (the AIM paper's Figure 7, all 3-way
  marginals, seed 0; ``benchmarks/projection_switches.py``, rows in
  ``results/aim/benchmarks/projection-switches.csv``) the code's two choices, alone or together,
  moved the workload error by at most 11 % either way (nltcs, T = 20, epsilon 1: 0.0281 ours,
  0.0285 with both, 0.0280 with the frozen bias alone, 0.0270 with the lazy iterate alone;
  epsilon 10: 0.0285, 0.0279, 0.0255, 0.0276; titanic, T = 10, epsilon 1: 1.031, 1.059, 1.065,
  1.030; epsilon 10: 0.446, 0.429, 0.433, 0.446), where RAP on counting queries needs them (its
  module says why).
* the code stops early once the loss decreases by less than 1e-7 in a step; we always run
  ``iterations`` steps, which keeps one compiled loop.
* the code starts from i.i.d. uniform rows and projects them at the first step; we project them at
  once, so every row we return lies in the constraint set.

Compilation: the compiled loop is specialised to a fixed set of cliques (``cliques``, default the
targets' own), one ``lax.switch`` branch per clique computing that clique's loss and gradient, and
takes the targets, their weights and the list of cliques with a target as data. Each step loops
over the cliques with a target only, so a larger set costs compile time but no run time. A caller
whose targets change from call to call (MWEM rounds) passes the same set every call, and JAX's
cache reuses one compiled program for every call with the same domain, set and config.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from collections.abc import Sequence
from typing import Literal

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pandas as pd

from reprolib.data import Dataset, Domain
from reprolib.mechanisms.relaxed._adam import Iterate, RapAdam, check_rap_optimiser, rap_adam
from reprolib.mechanisms.relaxed._simplex import sparsemax
from reprolib.queries import Clique

Parametrisation = Literal["sparsemax", "clip", "softmax"]
PARAMETRISATIONS: tuple[Parametrisation, ...] = ("sparsemax", "clip", "softmax")
_AXES = "abcdefghijklmopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"  # einsum letters; "n" is the row axis


@dataclasses.dataclass(frozen=True, kw_only=True)
class RelaxedProjectionConfig:
    """Settings of the relaxed projection; defaults from RAP's public code (``main.py``).

    Attributes:
        n_synthetic: relaxed rows n' (``--num-generated-points``, default 1000).
        iterations: Adam steps per projection (``--iterations``, default 1000).
        learning_rate: Adam's learning rate (``--learning-rate``, default 1e-3).
        parametrisation: the constraint set: ``"sparsemax"`` (each block projected onto the
            simplex after every step; the code's ``--categorical-consistency``), ``"clip"``
            (rows clipped to [0, 1]; ``--project 0 1``) or ``"softmax"`` (blocks are softmaxes
            of free logits; not in RAP).
        adam: ``"optax"`` (Adam as published, the paper's) or ``"frozen-bias"`` (the code's: bias
            corrections of the first step at every step).
        iterate: ``"projected"`` (each step's result projected and stepped from, the paper's) or
            ``"lazy"`` (the code's: Adam's iterate is never projected, the rows are its
            projection).
    """

    n_synthetic: int = 1000
    iterations: int = 1000
    learning_rate: float = 1e-3
    parametrisation: Parametrisation = "sparsemax"
    adam: RapAdam = "optax"
    iterate: Iterate = "projected"

    def __post_init__(self) -> None:
        if self.n_synthetic < 1:
            raise ValueError(f"n_synthetic must be positive, got {self.n_synthetic}")
        if self.iterations < 1:
            raise ValueError(f"iterations must be positive, got {self.iterations}")
        if not self.learning_rate > 0:
            raise ValueError(f"learning_rate must be positive, got {self.learning_rate}")
        if self.parametrisation not in PARAMETRISATIONS:
            raise ValueError(
                f"parametrisation must be one of {PARAMETRISATIONS}, got {self.parametrisation!r}")
        check_rap_optimiser(self.adam, self.iterate)


@dataclasses.dataclass(frozen=True, eq=False)
class RelaxedData:
    """Relaxed synthetic rows: ``params`` and, derived from them, ``rows`` in [0, 1]^(sum n_i).

    Attributes:
        domain: the attributes; block i of a row has ``domain.sizes[i]`` coordinates.
        params: what Adam optimised, shape (n', sum n_i): the rows themselves, or the logits
            of the rows for ``"softmax"``.
        parametrisation: how ``params`` map to rows (see :class:`RelaxedProjectionConfig`).
        losses: the objective before each Adam step of the fit that produced the rows.
    """

    domain: Domain
    params: np.ndarray
    parametrisation: Parametrisation
    losses: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0))

    @functools.cached_property
    def rows(self) -> np.ndarray:
        """The relaxed rows, shape (n', sum n_i), float64."""
        params = np.asarray(self.params, dtype=np.float64)
        if self.parametrisation != "softmax":
            return params
        blocks = []
        for block in np.split(params, _offsets(self.domain)[1:-1], axis=1):
            shifted = np.exp(block - block.max(axis=1, keepdims=True))
            blocks.append(shifted / shifted.sum(axis=1, keepdims=True))
        return np.concatenate(blocks, axis=1)

    def blocks(self) -> dict[str, np.ndarray]:
        """Each attribute's block of the rows, shape (n', n_i)."""
        pieces = np.split(self.rows, _offsets(self.domain)[1:-1], axis=1)
        return dict(zip(self.domain.attributes, pieces, strict=True))

    def marginal(self, clique: Sequence[str]) -> np.ndarray:
        """The product-query answers on ``clique``: mean over rows of the blocks' outer product.

        Shaped like ``Dataset.marginal(clique)``; the cells sum to 1 when every block lies on the
        simplex ("sparsemax", "softmax"), and need not for "clip". The smaller blocks' outer
        product is built row by row and meets the largest block in one matrix product, the
        order of least memory (einsum's own order can build rows x the two largest blocks: on
        salary's 3-way marginals twelve times slower).
        """
        blocks = self.blocks()
        operands = [blocks[a] for a in clique]
        order = sorted(range(len(operands)), key=lambda j: operands[j].shape[1])
        rows = len(self.params)
        outer = np.ones((rows, 1), dtype=operands[0].dtype)
        for j in order[:-1]:
            outer = (outer[:, :, None] * operands[j][:, None, :]).reshape(rows, -1)
        product = outer.T @ operands[order[-1]]
        product = product.reshape([operands[j].shape[1] for j in order])
        return np.transpose(product, np.argsort(order)) / rows

    def to_dataset(self, rng: np.random.Generator, rows: int | None = None) -> Dataset:
        """Integer records by RAP's randomized rounding (``utils_data.randomized_rounding``).

        Each record copies one relaxed row and draws every attribute independently from that
        row's block, normalised to sum 1 (a block that sums to 0, possible under "clip", is
        read as uniform). ``rows`` defaults to n', one record per relaxed row; otherwise each
        relaxed row yields floor(rows / n') records and rows mod n' relaxed rows, drawn without
        replacement, one more (RAP's oversampling when n' divides ``rows``).
        """
        n_relaxed = len(self.params)
        n_records = n_relaxed if rows is None else int(rows)
        if n_records < 0:
            raise ValueError(f"rows must be non-negative, got {n_records}")
        source = np.repeat(np.arange(n_relaxed), n_records // n_relaxed)
        extra = rng.choice(n_relaxed, size=n_records % n_relaxed, replace=False)
        source = np.sort(np.concatenate([source, extra]))
        columns = {}
        for attribute, block in self.blocks().items():
            weights = np.clip(block[source], 0.0, None)
            sums = weights.sum(axis=1, keepdims=True)
            probabilities = np.where(sums > 0, weights / np.where(sums > 0, sums, 1.0),
                                     1.0 / block.shape[1])
            cdf = np.cumsum(probabilities, axis=1)
            draws = (rng.random((len(source), 1)) * cdf[:, -1:] >= cdf).sum(axis=1)
            columns[attribute] = np.minimum(draws, block.shape[1] - 1).astype(np.int64)
        frame = pd.DataFrame({a: columns[a] for a in self.domain.attributes})
        return Dataset(frame, self.domain, source="synthetic")


def relaxed_projection(
    domain: Domain,
    targets: Sequence[tuple[Sequence[str], np.ndarray]],
    config: RelaxedProjectionConfig,
    rng: np.random.Generator,
    *,
    weights: Sequence[float] | None = None,
    init: RelaxedData | None = None,
    cliques: Sequence[Sequence[str]] | None = None,
) -> RelaxedData:
    """Relaxed rows whose marginals fit ``targets`` in weighted squared L2 norm (RAP's projection).

    Args:
        domain: the attributes and their sizes.
        targets: (clique, y) pairs, y a normalised marginal shaped like
            ``Dataset.marginal(clique)``. A clique may repeat: its terms add up.
        config: rows, steps, learning rate and constraint set.
        rng: draws the initial params when ``init`` is None: i.i.d. Uniform[0, 1] (RAP's
            initialisation), projected onto the constraint set (logits for "softmax").
        weights: w_i >= 0 per target (default all 1).
        init: rows to start from (warm start); must match the domain and the config.
        cliques: the cliques the compiled loop supports, a superset of the targets' (default:
            theirs). Pass the same set on every call to compile once.

    Returns:
        The rows after ``config.iterations`` Adam steps, with the loss trace.
    """
    weights = [1.0] * len(targets) if weights is None else [float(w) for w in weights]
    if len(weights) != len(targets):
        raise ValueError(f"{len(targets)} targets but {len(weights)} weights")
    if any(not w >= 0 for w in weights):
        raise ValueError("weights must be non-negative")
    universe = tuple(dict.fromkeys(tuple(c) for c in (
        cliques if cliques is not None else [c for c, _ in targets])))
    if not universe:
        raise ValueError("give at least one target or clique")
    index = {a: i for i, a in enumerate(domain.attributes)}
    for clique in universe:
        unknown = [a for a in clique if a not in index]
        if unknown or not clique or len(set(clique)) != len(clique):
            raise ValueError(f"clique {clique} must name distinct attributes of the domain")
    dtype = jnp.result_type(float)
    stacked, total_weight = _combine(domain, universe, targets, weights)
    params = _initial_params(domain, config, rng, init)
    active = np.flatnonzero(total_weight > 0)
    fitted, losses = _fit(
        jnp.asarray(params, dtype=dtype),
        tuple(jnp.asarray(t, dtype=dtype) for t in stacked),
        jnp.asarray(total_weight, dtype=dtype),
        jnp.asarray(np.pad(active, (0, len(universe) - active.size)), dtype=jnp.int32),
        jnp.asarray(active.size, dtype=jnp.int32),
        offsets=tuple(int(o) for o in _offsets(domain)),
        cliques=tuple(tuple(index[a] for a in c) for c in universe),
        iterations=config.iterations,
        learning_rate=float(config.learning_rate),
        parametrisation=config.parametrisation,
        adam=config.adam,
        iterate=config.iterate,
    )
    return RelaxedData(domain, np.asarray(fitted), config.parametrisation,
                       losses=np.asarray(losses, dtype=np.float64))


def _combine(domain: Domain, universe: tuple[Clique, ...],
             targets: Sequence[tuple[Sequence[str], np.ndarray]],
             weights: Sequence[float]) -> tuple[list[np.ndarray], np.ndarray]:
    """Per clique of ``universe``: total weight W and the weighted mean target.

    sum_j w_j ||m - y_j||^2 = W ||m - sum_j w_j y_j / W||^2 + a constant, so the objective and
    its gradient are unchanged when repeats of a clique are merged this way.
    """
    position = {c: k for k, c in enumerate(universe)}
    sums = [np.zeros(domain.project(c).sizes) for c in universe]
    total = np.zeros(len(universe))
    for (clique, values), weight in zip(targets, weights, strict=True):
        clique = tuple(clique)
        if clique not in position:
            raise ValueError(f"target clique {clique} is not among the compiled cliques")
        values = np.asarray(values, dtype=np.float64)
        if values.shape != sums[position[clique]].shape:
            raise ValueError(f"target on {clique} has shape {values.shape}, expected "
                             f"{sums[position[clique]].shape}")
        sums[position[clique]] += weight * values
        total[position[clique]] += weight
    means = [s / w if w > 0 else s for s, w in zip(sums, total, strict=True)]
    return means, total


def _initial_params(domain: Domain, config: RelaxedProjectionConfig, rng: np.random.Generator,
                    init: RelaxedData | None) -> np.ndarray:
    width = sum(domain.sizes)
    if init is None:
        uniform = jnp.asarray(rng.random((config.n_synthetic, width)))
        offsets = tuple(int(o) for o in _offsets(domain))
        return np.asarray(_project(uniform, offsets, config.parametrisation))
    if init.domain != domain or init.parametrisation != config.parametrisation:
        raise ValueError("init must come from a projection on the same domain and parametrisation")
    if np.shape(init.params) != (config.n_synthetic, width):
        raise ValueError(f"init has shape {np.shape(init.params)}, expected "
                         f"{(config.n_synthetic, width)}")
    return np.asarray(init.params)


def _offsets(domain: Domain) -> np.ndarray:
    return np.concatenate([[0], np.cumsum(domain.sizes)])


def _einsum_spec(k: int) -> str:
    """'na,nb,...->ab...': sum over rows n of the outer product of k blocks."""
    letters = _AXES[:k]
    return ",".join(f"n{a}" for a in letters) + "->" + letters


def _project(params: jax.Array, offsets: tuple[int, ...],
             parametrisation: Parametrisation) -> jax.Array:
    if parametrisation == "clip":
        return jnp.clip(params, 0.0, 1.0)
    if parametrisation == "sparsemax":
        return sparsemax(params, offsets)
    return params


def _rows(params: jax.Array, offsets: tuple[int, ...],
          parametrisation: Parametrisation) -> jax.Array:
    if parametrisation != "softmax":
        return params
    return jnp.concatenate([jax.nn.softmax(params[:, lo:hi], axis=1)
                            for lo, hi in itertools.pairwise(offsets)], axis=1)


def _clique_marginal(rows: jax.Array, offsets: tuple[int, ...], clique: tuple[int, ...]) -> jax.Array:
    blocks = [rows[:, offsets[i]:offsets[i + 1]] for i in clique]
    return jnp.einsum(_einsum_spec(len(clique)), *blocks) / rows.shape[0]


def _clique_term(rows: jax.Array, targets: tuple[jax.Array, ...], weights: jax.Array, *,
                 offsets: tuple[int, ...], clique: tuple[int, ...],
                 k: int) -> tuple[jax.Array, jax.Array]:
    """w_k ||M_k(rows) - y_k||^2 and its gradient in the rows (one switch branch)."""

    def loss(current: jax.Array) -> jax.Array:
        residual = _clique_marginal(current, offsets, clique) - targets[k]
        return weights[k] * jnp.sum(residual**2)

    return jax.value_and_grad(loss)(rows)


@functools.partial(jax.jit, static_argnames=("offsets", "cliques", "iterations", "learning_rate",
                                             "parametrisation", "adam", "iterate"))
def _fit(params: jax.Array, targets: tuple[jax.Array, ...], weights: jax.Array,
         active: jax.Array, n_active: jax.Array, *, offsets: tuple[int, ...],
         cliques: tuple[tuple[int, ...], ...], iterations: int, learning_rate: float,
         parametrisation: Parametrisation, adam: RapAdam,
         iterate: Iterate) -> tuple[jax.Array, jax.Array]:
    """``iterations`` Adam steps; ``active[:n_active]`` index the cliques with a target (see
    :class:`RelaxedProjectionConfig` for ``adam`` and ``iterate``). Returns projected params.
    """
    optimiser = rap_adam(adam, learning_rate)
    branches = [functools.partial(_clique_term, offsets=offsets, clique=c, k=k)
                for k, c in enumerate(cliques)]
    lazy = iterate == "lazy"

    def loss_and_grad(current: jax.Array) -> tuple[jax.Array, jax.Array]:
        rows, pullback = jax.vjp(lambda p: _rows(p, offsets, parametrisation), current)

        def add(i, total):
            value, grad = jax.lax.switch(active[i], branches, rows, targets, weights)
            return total[0] + value, total[1] + grad

        loss, grad_rows = jax.lax.fori_loop(0, n_active, add,
                                            (jnp.zeros((), rows.dtype), jnp.zeros_like(rows)))
        return loss, pullback(grad_rows)[0]

    def step(carry, _):
        point, state = carry
        loss, grads = loss_and_grad(_project(point, offsets, parametrisation) if lazy else point)
        updates, state = optimiser.update(grads, state, point)
        point = optax.apply_updates(point, updates)
        return (point if lazy else _project(point, offsets, parametrisation), state), loss

    (point, _), losses = jax.lax.scan(step, (params, optimiser.init(params)), length=iterations)
    return (_project(point, offsets, parametrisation) if lazy else point), losses
