"""GEM (Liu, Vietri, Wu; NeurIPS 2021): a generator network fitted adaptively to measured marginals.

GEM is the paper's Adaptive Measurements framework (select, measure, update, repeated) over the
distribution family the paper introduces: a network G maps K fixed Gaussian codes z_1..z_K to K
product distributions over the attributes, one softmax per attribute, and the synthetic
distribution is their uniform mixture. A k-way marginal of it is the mean over the K rows of the
outer product of the rows' blocks, so it is differentiable in the network's weights.

The AIM paper runs the variant that selects a whole workload marginal a round (its footnote 8),
which the authors' code calls ``IterAlgoGEM`` (``terranceliu/dp-query-release``,
``src/algo/gem.py``). Each of T rounds, under replace-one neighbours and with N public:

1. select an unselected workload marginal r by the exponential mechanism on its largest cell
   error in counts, max_c |M_r(D)_c - N M_r(G)_c| (sensitivity 1: a replaced record moves two
   cells by one each);
2. measure it with the Gaussian mechanism (L2 sensitivity sqrt(2) in counts), divide by N and
   clip to [0, 1];
3. update G: at most ``iterations`` Adam steps (a fresh Adam, learning rate cosine-annealed to
   1e-8), each on the ``max_queries`` measured cells of largest error among those whose error is
   at least ``error_threshold`` times an exponential moving average of the largest measured
   error; the loss is ||a_S - q_S(G)||_p / |S|; the round ends early once no cell is above the
   threshold.

Privacy: each round gets rho / T, split as the code does: selection alpha^2 / (alpha^2 +
(1 - alpha)^2) of it, measurement the rest. The exponential mechanism costs eps^2 / 8 (Cesar &
Rogers' bounded range), the Gaussian mechanism 2 / (2 sigma^2) = 1 / sigma^2; the code's
``get_per_round_budget_zCDP`` gives the same costs. The last measurement spends exactly what is
left. Everything after a measurement reads only released values.

The AIM paper ran every baseline at "default values available in their open source
implementations". Our defaults are the authors' example script for adult as of July 2022
(``examples/scripts/gen_nn/run_adult.sh``): T = 50 (capped at the number of workload marginals),
alpha = 0.5, K = 1000, code and hidden widths 256, p = 2, learning rate 1e-4, 100 iterations and
10,000 cells per round, no averaging of the weights; the rest is the code's defaults. The
release public when the AIM paper appeared (November 2021) ran its adult script at T = 75, one
hidden block of 512, a threshold of 0.25 times the average error and the weights averaged over
the last T/2 rounds (beta = 0.5), with the same accounting: ``AUTHORS_SCRIPTS["2021-11"]``. It
fits far better at large epsilon (``benchmarks/gem_2021_reference.py``). (Its
command line alone would give T = 10, code width 16, p = 1 and 100 cells.) The network is the code's: residual blocks
(linear, batch normalisation on the K rows, ReLU, the input concatenated to the output), then a
linear layer to the one-hot width, with PyTorch's default initialisation. Records are drawn from
the mixture as the code's ``get_syndata`` does, N of them (the code draws 100,000; the AIM
experiments score unnormalised marginals, so the release has the data's size).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import time
from fractions import Fraction
from typing import Any, Literal

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
from reprolib.mechanisms.marginal.mwem_pgm import measurement_sigma
from reprolib.mechanisms.pgm import measure_marginal
from reprolib.mechanisms.relaxed.projection import RelaxedData
from reprolib.privacy import (
    NeighbourRelation,
    PrivacyBudget,
    exponential_mechanism,
    exponential_mechanism_epsilon,
    gaussian_sigma,
    marginal_l2_sensitivity,
)
from reprolib.privacy._exact import round_down
from reprolib.queries import Workload

_FINAL_LEARNING_RATE = 1e-8  # the code's cosine schedule within a round ends here


@dataclasses.dataclass(frozen=True, kw_only=True)
class GEMConfig:
    """GEM's settings; defaults from the authors' example script and code (see the module).

    Attributes:
        rounds: T, capped at the number of workload marginals (each is selected at most once).
        alpha: the selection's weight in each round's split (selection alpha^2 / (alpha^2 +
            (1 - alpha)^2) of rho / T).
        rows: K, the number of codes and product distributions.
        code_dim: the width of the Gaussian codes z.
        hidden: the output widths of the residual blocks.
        loss_p: the norm of the loss, 1 or 2.
        learning_rate: Adam's learning rate at the start of every round.
        iterations: the most Adam steps per round.
        max_queries: the most measured cells in one step's loss.
        error_threshold: a cell enters the loss if its error is at least this times the moving
            average of the largest measured error.
        error_average: the weight of the past in that moving average.
        average_weights: release the exponential moving average of the weights after the last
            T/2 rounds (rounded, at least one; the code's ``--ema_weights``, off in its script).
        weights_average: the weight of the past in that average.
        records: records released; None means N, the data's size (public under replace-one).
    """

    rounds: int = 50
    alpha: float = 0.5
    rows: int = 1000
    code_dim: int = 256
    hidden: tuple[int, ...] = (256, 256)
    loss_p: int = 2
    learning_rate: float = 1e-4
    iterations: int = 100
    max_queries: int = 10_000
    error_threshold: float = 0.5
    error_average: float = 0.5
    average_weights: bool = False
    weights_average: float = 0.9
    records: int | None = None

    def __post_init__(self) -> None:
        for name in ("rounds", "rows", "code_dim", "iterations", "max_queries"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        object.__setattr__(self, "hidden", tuple(int(h) for h in self.hidden))
        if any(h < 1 for h in self.hidden):
            raise ValueError(f"hidden widths must be positive, got {self.hidden}")
        if not 0.0 < self.alpha < 1.0:
            raise ValueError(f"alpha must lie in (0, 1), got {self.alpha}")
        if self.loss_p not in (1, 2):
            raise ValueError(f"loss_p must be 1 or 2, got {self.loss_p!r}")
        if not self.learning_rate > _FINAL_LEARNING_RATE:
            raise ValueError(f"learning_rate must exceed {_FINAL_LEARNING_RATE}, "
                             f"got {self.learning_rate}")
        for name in ("error_threshold", "error_average", "weights_average"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ValueError(f"{name} must lie in [0, 1], got {getattr(self, name)}")
        if self.records is not None and self.records < 1:
            raise ValueError(f"records must be positive or None (= N), got {self.records}")


AuthorsScript = Literal["2022-07", "2021-11"]
AUTHORS_SCRIPTS: dict[AuthorsScript, dict[str, Any]] = {
    "2022-07": {},
    "2021-11": {"rounds": 75, "hidden": (512,), "error_threshold": 0.25,
                "average_weights": True, "weights_average": 0.5},
}
"""The settings of the authors' adult scripts, as changes to :class:`GEMConfig`'s defaults (which
are the July 2022 script's): ``"2021-11"`` is the first public release (``dp-query-release``
commit 0737aea, ``examples/scripts/run_gem_adult.sh`` through ``examples/run_gem.py``), the only
one public before the AIM paper (arXiv, January 2022). Use as ``GEMConfig(**AUTHORS_SCRIPTS[...])``.
"""


class GEM:
    """GEM with whole-marginal selection (the AIM paper's variant); rho-zCDP under replace-one."""

    name = "GEM"
    traits = MechanismTraits(workload_aware=True, data_aware=True, budget_aware=False,
                             efficiency_aware=True, relation=NeighbourRelation.REPLACE_ONE)

    def __init__(self, config: GEMConfig | None = None) -> None:
        self.config = config or GEMConfig()

    def fit(self, data: Dataset, budget: PrivacyBudget, rng: np.random.Generator, *,
            workload: Workload | None = None) -> SynthesisResult:
        """Run T select-measure-update rounds and release records drawn from the generator."""
        check_inputs(self, data, workload)
        workload = require_workload(self, workload)
        ledger = open_ledger(self, budget)
        started = time.perf_counter()
        config, domain, n = self.config, data.domain, data.records
        rounds = min(config.rounds, len(workload))
        share = Fraction(budget.rho) / rounds
        alpha = Fraction(config.alpha)
        select_part = alpha**2 / (alpha**2 + (1 - alpha) ** 2)
        epsilon = exponential_mechanism_epsilon(round_down(share * select_part))
        sigma = gaussian_sigma(round_down(share * (1 - select_part)),
                               marginal_l2_sensitivity(ledger.relation, 1))

        cliques = workload.cliques
        truth = [data.marginal(c).ravel() / n for c in cliques]
        offsets = tuple(int(o) for o in np.cumsum([0, *domain.sizes]))
        index = {a: i for i, a in enumerate(domain.attributes)}
        static = _Static(offsets=offsets, cliques=tuple(tuple(index[a] for a in c) for c in cliques),
                         cells=max(len(t) for t in truth), slots=rounds)
        params = _initial_params(config, offsets[-1], rng)
        codes = jnp.asarray(rng.standard_normal((config.rows, config.code_dim)), jnp.float32)
        slots = _Slots.empty(static)

        average_error: float | None = None
        history, log = [], []
        for t in range(1, rounds + 1):
            round_started = time.perf_counter()
            answers = np.asarray(_all_marginals(params, codes, static=static), np.float64)
            candidates = [i for i in range(len(cliques)) if i not in slots.selected]
            scores = np.array([np.abs(truth[i] - answers[i, :len(truth[i])]).max() * n
                               for i in candidates])
            choice = candidates[exponential_mechanism(
                scores, epsilon=epsilon, sensitivity=1.0, rng=rng, ledger=ledger,
                label=f"round {t} selection")]
            noisy = measure_marginal(data, cliques[choice],
                                     sigma=measurement_sigma(sigma, t == rounds, ledger),
                                     rng=rng, ledger=ledger, label=f"round {t} {cliques[choice]}")
            slots.add(choice, np.clip(noisy.values.ravel() / n, 0.0, 1.0))
            largest = max(np.abs(slots.measured(k) - answers[i, :len(truth[i])]).max()
                          for k, i in enumerate(slots.selected))
            average_error = largest if average_error is None else average_error
            average_error = config.error_average * average_error + (
                1 - config.error_average) * largest
            params, steps, loss = _update(
                params, codes, *slots.arrays(), jnp.float32(config.error_threshold * average_error),
                static=static, iterations=config.iterations, learning_rate=config.learning_rate,
                top=min(config.max_queries, static.capacity), loss_p=config.loss_p)
            if config.average_weights:
                history.append(params)
            log.append({"round": t, "selected": list(cliques[choice]), "steps": int(steps),
                        "loss": float(loss), "largest_measured_error": float(largest),
                        "seconds": time.perf_counter() - round_started})

        if config.average_weights:
            params = _averaged(history[-max(1, round(rounds * 0.5)):], config.weights_average)
        synthetic = _mixture(params, codes, domain, offsets).to_dataset(rng, config.records or n)
        return SynthesisResult(synthetic=synthetic, ledger=ledger, diagnostics={
            "rounds": rounds, "epsilon": epsilon, "sigma": sigma,
            "selected": [list(cliques[i]) for i in slots.selected],
            "seconds": time.perf_counter() - started, "log": log})


# ----------------------------------------------------------------------------- the network

Params = dict[str, Any]


def _initial_params(config: GEMConfig, width: int, rng: np.random.Generator) -> Params:
    """PyTorch's default initialisation: weights and biases U(-1/sqrt(fan_in), 1/sqrt(fan_in)),
    batch normalisation's scale 1 and shift 0.
    """

    def linear(fan_in: int, fan_out: int) -> dict[str, jax.Array]:
        bound = 1.0 / math.sqrt(fan_in)
        return {"w": jnp.asarray(rng.uniform(-bound, bound, (fan_in, fan_out)), jnp.float32),
                "b": jnp.asarray(rng.uniform(-bound, bound, fan_out), jnp.float32)}

    blocks, fan_in = [], config.code_dim
    for out in config.hidden:
        blocks.append({**linear(fan_in, out), "scale": jnp.ones(out, jnp.float32),
                       "shift": jnp.zeros(out, jnp.float32)})
        fan_in += out
    return {"blocks": blocks, "out": linear(fan_in, width)}


def _forward(params: Params, codes: jax.Array, offsets: tuple[int, ...]) -> jax.Array:
    """Codes z (K, code_dim) -> K product distributions (K, width), one softmax per attribute
    (``offsets`` bound the blocks).
    """
    hidden = codes
    for block in params["blocks"]:
        out = hidden @ block["w"] + block["b"]
        mean, var = out.mean(axis=0), out.var(axis=0)  # batch statistics, as in training mode
        out = (out - mean) / jnp.sqrt(var + 1e-5) * block["scale"] + block["shift"]
        hidden = jnp.concatenate([jax.nn.relu(out), hidden], axis=1)
    logits = hidden @ params["out"]["w"] + params["out"]["b"]
    return jnp.concatenate([jax.nn.softmax(logits[:, lo:hi], axis=1)
                            for lo, hi in itertools.pairwise(offsets)], axis=1)


def _mixture(params: Params, codes: jax.Array, domain: Domain,
             offsets: tuple[int, ...]) -> RelaxedData:
    """The generator's K product distributions as relaxed rows (marginals and record draws;
    the rows are distributions already, so RelaxedData uses them as they are).
    """
    rows = np.asarray(_forward_jit(params, codes, offsets), dtype=np.float64)
    return RelaxedData(domain, rows, "sparsemax")


_forward_jit = jax.jit(_forward, static_argnums=2)


@dataclasses.dataclass(frozen=True)
class _Static:
    """What the compiled functions are specialised to: the blocks' column offsets, the workload's
    cliques (attribute indices), the most cells of one of them, and the number of measurement
    slots (T). Cliques of one shape (their attributes' sizes) share one compiled marginal, fed
    their first columns as data, so a workload of 560 binary triples compiles one einsum.
    """

    offsets: tuple[int, ...]
    cliques: tuple[tuple[int, ...], ...]
    cells: int
    slots: int

    @functools.cached_property
    def shapes(self) -> tuple[tuple[int, ...], ...]:
        """The distinct clique shapes, in first-seen order."""
        return tuple(dict.fromkeys(self._shape(c) for c in self.cliques))

    @functools.cached_property
    def kinds(self) -> np.ndarray:
        """Each clique's index in ``shapes``."""
        return np.array([self.shapes.index(self._shape(c)) for c in self.cliques], np.int32)

    @functools.cached_property
    def starts(self) -> np.ndarray:
        """Each clique's first one-hot column per attribute (cliques x k); a clique of fewer
        than k attributes is padded with ``offsets[-1]``, one past the last column, which the
        cell-wise loss fills with ones.
        """
        return self._padded([[self.offsets[i] for i in c] for c in self.cliques],
                            self.offsets[-1])

    @functools.cached_property
    def sizes(self) -> np.ndarray:
        """Each clique's attribute sizes (cliques x k), padded with 1."""
        return self._padded([self._shape(c) for c in self.cliques], 1)

    @functools.cached_property
    def capacity(self) -> int:
        """The measurement buffer's length: the ``slots`` largest marginals end to end, and
        room for one more marginal's ``cells`` after them (a slot's residual is written
        ``cells`` long; the next slot overwrites what spills).
        """
        counts = sorted((math.prod(self._shape(c)) for c in self.cliques), reverse=True)
        return sum(counts[:self.slots]) + self.cells

    def _padded(self, lists: list, fill: int) -> np.ndarray:
        width = max(len(c) for c in self.cliques)
        return np.array([[*values, *[fill] * (width - len(values))] for values in lists],
                        np.int32)

    def _shape(self, clique: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(self.offsets[i + 1] - self.offsets[i] for i in clique)


@dataclasses.dataclass
class _Slots:
    """The measurements so far, end to end in one flat buffer: the k-th selected marginal's
    clipped noisy answers start at ``begin[k]``, and the first ``filled`` entries are taken.
    """

    slots: int
    values: np.ndarray
    selected: list[int] = dataclasses.field(default_factory=list)
    begin: list[int] = dataclasses.field(default_factory=list)
    filled: int = 0

    @classmethod
    def empty(cls, static: _Static) -> _Slots:
        return cls(static.slots, np.zeros(static.capacity, np.float32))

    def add(self, clique: int, values: np.ndarray) -> None:
        self.selected.append(clique)
        self.begin.append(self.filled)
        self.values[self.filled:self.filled + len(values)] = values
        self.filled += len(values)

    def measured(self, k: int) -> np.ndarray:
        """The k-th selected marginal's answers."""
        end = self.begin[k + 1] if k + 1 < len(self.begin) else self.filled
        return self.values[self.begin[k]:end]

    def arrays(self) -> tuple[jax.Array, ...]:
        """(each slot's clique and start, the buffer, the slots used, the entries filled), of
        one shape in every round; an unused slot has clique 0 and starts at ``filled``.
        """
        which, begin = np.zeros(self.slots, np.int32), np.full(self.slots, self.filled, np.int32)
        which[:len(self.selected)], begin[:len(self.begin)] = self.selected, self.begin
        return (jnp.asarray(which), jnp.asarray(begin), jnp.asarray(self.values),
                jnp.int32(len(self.selected)), jnp.int32(self.filled))


def _marginal(rows: jax.Array, starts: jax.Array, *, shape: tuple[int, ...],
              cells: int) -> jax.Array:
    """The mixture's marginal on the attributes whose blocks start at ``starts`` and have sizes
    ``shape``, flattened in C order and padded to ``cells``.
    """
    blocks = [jax.lax.dynamic_slice_in_dim(rows, starts[j], size, axis=1)
              for j, size in enumerate(shape)]
    letters = "abcdefghijklmopqrstuvwxyz"[:len(shape)]
    spec = ",".join(f"n{a}" for a in letters) + "->" + letters
    flat = jnp.einsum(spec, *blocks).reshape(-1) / rows.shape[0]
    return jnp.pad(flat, (0, cells - flat.size))


def _loss_and_grad(params: Params, codes: jax.Array, which: jax.Array, begin: jax.Array,
                   values: jax.Array, used: jax.Array, filled: jax.Array, threshold: jax.Array, *,
                   static: _Static, top: int, loss_p: int) -> tuple[jax.Array, jax.Array, Params]:
    """(no cell above the threshold, loss, its gradient in the weights) of one step.

    Answers the used slots' marginals (one ``lax.switch`` branch per clique shape) to find the
    errors, keeps the ``top`` cells of largest error among those at or above ``threshold`` (the
    set S, chosen on values that are not differentiated, as the code does), and differentiates
    ||a_S - q_S||_p / |S| with q_S computed cell by cell: a cell of a k-way marginal is the mean
    over the K rows of the product of k columns, so the loss reads at most ``top`` x k columns
    and its gradient costs K x top x k products, where a pull-back through whole marginals
    would cost K x (every measured cell).
    """
    answers = [functools.partial(_marginal, shape=shape, cells=static.cells)
               for shape in static.shapes]
    kinds, starts = jnp.asarray(static.kinds), jnp.asarray(static.starts)
    rows, pullback = jax.vjp(lambda p: _forward(p, codes, static.offsets), params)

    def residual(k: jax.Array, out: jax.Array) -> jax.Array:
        clique, at = which[k], begin[k]
        answer = jax.lax.switch(kinds[clique], answers, rows, starts[clique])  # cells long
        measured = jax.lax.dynamic_slice_in_dim(values, at, static.cells)
        return jax.lax.dynamic_update_slice_in_dim(out, measured - answer, at, axis=0)

    errors = jnp.abs(jax.lax.fori_loop(0, used, residual, jnp.zeros_like(values)))
    above = (jnp.arange(values.size) < filled) & (errors >= threshold)
    ranked, picked = jax.lax.top_k(jnp.where(above, errors, -1.0), top)
    kept = ranked >= 0
    slot = jnp.searchsorted(begin, picked, side="right") - 1
    columns = _cell_columns(static, which[slot], picked - begin[slot])
    targets = values[picked]

    def power(current: jax.Array) -> jax.Array:
        """The sum over S of |a - q|^p, q from the kept cells' columns of the rows."""
        ones = jnp.ones((1, current.shape[0]), current.dtype)  # the column of padded positions
        columns_first = jnp.concatenate([current.T, ones])
        cells = jnp.prod(columns_first[columns], axis=1).mean(axis=-1)  # (top, k, K) -> (top,)
        return jnp.sum(jnp.where(kept, jnp.abs(targets - cells) ** loss_p, 0.0))

    power_sum, grad_rows = jax.value_and_grad(power)(rows)
    count = jnp.maximum(kept.sum(), 1)
    safe = jnp.maximum(power_sum, jnp.finfo(power_sum.dtype).tiny)
    scale = safe ** (1.0 / loss_p - 1.0) / loss_p / count  # d(sum^(1/p) / |S|) / d sum
    return ~above.any(), safe ** (1.0 / loss_p) / count, pullback(grad_rows * scale)[0]


def _cell_columns(static: _Static, cliques: jax.Array, cells: jax.Array) -> jax.Array:
    """The one-hot columns (cells x k) of cells given as (clique, flat C-order index)."""
    sizes = jnp.asarray(static.sizes)[cliques]
    digits = []
    for j in reversed(range(sizes.shape[1])):  # C order: the last attribute varies fastest
        digits.append(cells % sizes[:, j])
        cells = cells // sizes[:, j]
    return jnp.asarray(static.starts)[cliques] + jnp.stack(digits[::-1], axis=1)


@functools.partial(jax.jit, static_argnames=("static", "iterations", "learning_rate", "top",
                                             "loss_p"))
def _update(params: Params, codes: jax.Array, which: jax.Array, begin: jax.Array,
            values: jax.Array, used: jax.Array, filled: jax.Array, threshold: jax.Array, *,
            static: _Static, iterations: int, learning_rate: float, top: int,
            loss_p: int) -> tuple[Params, jax.Array, jax.Array]:
    """One round's update: the weights, the steps taken and the last loss (the code's
    ``_optimize_past_queries``): at most ``iterations`` Adam steps, a fresh Adam with the
    learning rate cosine-annealed to 1e-8, stopping once no cell is above the threshold.
    """
    optimiser = optax.adam(optax.cosine_decay_schedule(
        learning_rate, iterations, alpha=_FINAL_LEARNING_RATE / learning_rate))

    def step(carry):
        current, state, _, steps, last = carry
        done, loss, grads = _loss_and_grad(current, codes, which, begin, values, used, filled,
                                           threshold, static=static, top=top, loss_p=loss_p)
        updates, moved = optimiser.update(grads, state, current)
        current, state = jax.tree.map(lambda old, new: jnp.where(done, old, new),
                                      (current, state),
                                      (optax.apply_updates(current, updates), moved))
        return current, state, done, steps + ~done, jnp.where(done, last, loss)

    start = (params, optimiser.init(params), jnp.bool_(False), jnp.int32(0), jnp.float32(0))
    params, _, _, steps, last = jax.lax.while_loop(
        lambda carry: ~carry[2] & (carry[3] < iterations), step, start)
    return params, steps, last


@functools.partial(jax.jit, static_argnames="static")
def _all_marginals(params: Params, codes: jax.Array, *, static: _Static) -> jax.Array:
    """Every workload marginal of the mixture, one padded row per clique (cliques x cells)."""
    rows = _forward(params, codes, static.offsets)
    out = jnp.zeros((len(static.cliques), static.cells), rows.dtype)
    for kind, shape in enumerate(static.shapes):  # one batched einsum per shape
        members = np.flatnonzero(static.kinds == kind)
        answer = functools.partial(_marginal, rows, shape=shape, cells=static.cells)
        out = out.at[members].set(jax.vmap(answer)(jnp.asarray(static.starts[members])))
    return out


def _averaged(history: list[Params], beta: float) -> Params:
    """The code's ``_ema_weights``: from the oldest kept round on, w <- beta w + (1 - beta) w_t."""
    average = history[0]
    for params in history[1:]:
        average = jax.tree.map(lambda a, p: beta * a + (1 - beta) * p, average, params)
    return average
