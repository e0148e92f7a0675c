"""Algorithm 1 of RAP++ (Vietri et al. 2022): relaxed projection with sigmoid temperature annealing.

Given the noisy answers of the queries measured so far, move relaxed rows D' (n' rows in the
one-hot layout of :class:`reprolib.queries.OneHotLayout`) to fit them:

    L_sigma(D') = sum over measured queries i and answer entries c of (q_i^[sigma](D')_c - a_ic)^2

with Adam, after every step projecting each categorical block onto the simplex (sparsemax) and
clipping the numbers to [0, 1]. The threshold queries use tempered sigmoids of slope sigma; sigma
starts at sigma_1 and doubles each time the fit at the current slope has settled, at most
``max_doublings`` times (the paper: sigma_j = sigma_1 2^(j-1)). Categorical marginals have no
sigmoid.

When the fit "has settled" (the paper's test is the gradient norm falling below gamma, a value it
does not give; the authors' code waits for the exact loss to stop falling) is
``move_on``; the code's passes are kept as they are: a round runs up to ``passes`` passes,
pass e with learning rate lr / 2^e, sigma back at sigma_1, at most ``max_steps`` steps each,
and stops early when a pass improves the best exact loss by less than a relative 1e-4. The Adam
state lives for the round. The round returns the iterate with the lowest *exact* loss (hard
thresholds), the start included, so a round never makes the exact fit worse.

One pass is one compiled ``lax.while_loop``; shapes are fixed for a run (every measured-query
slot exists from the start, unmeasured ones weigh 0), so a run compiles each variant once.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Literal, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax

from reprolib.mechanisms.relaxed._adam import frozen_bias_adam
from reprolib.mechanisms.relaxed._simplex import sparsemax
from reprolib.queries import OneHotLayout, table_answers, threshold_answers

Norm = Literal["squares", "spectral"]
Terms = Literal["cm", "lt", "both"]
MoveOn = Literal["plateau", "gradient-norm"]
AdamKind = Literal["optax", "frozen-bias"]
PLATEAU_WINDOW = 5  # the code compares the exact loss with its value 5 steps earlier ...
PLATEAU_TOLERANCE = 1e-4  # ... and moves on below this relative decrease ...
PLATEAU_HISTORY = 10  # ... once more than this many steps were taken at the current sigma
PASS_TOLERANCE = 1e-4  # a round stops when a pass improves the best loss by less than this
_TINY = 1e-9  # the code's guard in relative changes


class Measured(NamedTuple):
    """Every measured-query slot of a run; a slot's weights are 0 until it is measured.

    cm_features (slots, 2, P), cm_labels (slots, W), cm_target and cm_weight (slots, P P W):
    categorical marginals on the padded grid of :class:`reprolib.queries.ConditionalMarginals`.
    lt_labels (slots,), lt_theta (slots, |R|), lt_tau (slots,), lt_target and lt_weight (slots,
    label_width): linear thresholds.
    """

    cm_features: jax.Array
    cm_labels: jax.Array
    cm_target: jax.Array
    cm_weight: jax.Array
    lt_labels: jax.Array
    lt_theta: jax.Array
    lt_tau: jax.Array
    lt_target: jax.Array
    lt_weight: jax.Array


@dataclasses.dataclass(frozen=True)
class FitSettings:
    """What a compiled pass is specialised to (hashable: a static argument).

    Attributes:
        layout: the row layout.
        direction: the threshold queries' side, "<=" or ">".
        norm: "squares" (Eq. 2 of the paper) or "spectral" (the code: the largest singular value
            of each class's error matrix, summed over the classes in the loss).
        terms: which classes are in the loss: "cm", "lt" or "both".
        move_on: "plateau" (the code's rule) or "gradient-norm" (the paper's, with ``gamma``).
        gamma: the gradient-norm threshold.
        max_steps: Adam steps per pass at most.
        adam: "optax" (Adam as published) or "frozen-bias" (the code's: the learning rate is
            passed where the step count belongs, so the bias corrections stay at count = lr).
    """

    layout: OneHotLayout
    direction: str
    norm: Norm
    terms: Terms
    move_on: MoveOn
    gamma: float
    max_steps: int
    adam: AdamKind


class PassResult(NamedTuple):
    """The state after one pass."""

    params: jax.Array
    opt_state: optax.OptState
    best: jax.Array
    best_loss: jax.Array
    steps: jax.Array
    doublings: jax.Array


def optimiser(kind: AdamKind) -> optax.GradientTransformation:
    """Adam whose learning rate is a hyper-parameter of its state (set per pass)."""
    adam = optax.adam if kind == "optax" else frozen_bias_adam
    return optax.inject_hyperparams(adam)(learning_rate=0.0)


def project(params: jax.Array, layout: OneHotLayout) -> jax.Array:
    """Sparsemax on every categorical block, then everything clipped to [0, 1]."""
    width = layout.categorical_width
    offsets = tuple(start for start, _ in layout.blocks()) + (width,)
    categorical = sparsemax(params[:, :width], offsets)
    return jnp.clip(jnp.concatenate([categorical, params[:, width:]], axis=1), 0.0, 1.0)


def errors(rows: jax.Array, measured: Measured, settings: FitSettings,
           sigma: jax.Array | None) -> list[jax.Array]:
    """The weighted error matrices of the classes in the loss (exact when ``sigma`` is None)."""
    out = []
    if settings.terms in ("cm", "both"):
        predicted = table_answers(rows, measured.cm_features, measured.cm_labels)
        out.append((predicted - measured.cm_target) * measured.cm_weight)
    if settings.terms in ("lt", "both"):
        predicted = threshold_answers(rows, settings.layout, measured.lt_labels, measured.lt_theta,
                                      measured.lt_tau, settings.direction, sigma)
        out.append((predicted - measured.lt_target) * measured.lt_weight)
    return out


def loss(rows: jax.Array, measured: Measured, settings: FitSettings,
         sigma: jax.Array | None) -> jax.Array:
    """Sum of squared errors, or the sum of the classes' spectral norms."""
    parts = errors(rows, measured, settings, sigma)
    if settings.norm == "squares":
        return jnp.sum(jnp.stack([jnp.sum(e ** 2) for e in parts]))
    return jnp.sum(jnp.stack([jnp.linalg.norm(e, ord=2) for e in parts]))


@functools.partial(jax.jit, static_argnames=("settings",))
def run_pass(params: jax.Array, opt_state: optax.OptState, best: jax.Array, best_loss: jax.Array,
             learning_rate: jax.Array, sigma_initial: jax.Array, max_doublings: jax.Array,
             measured: Measured, settings: FitSettings) -> PassResult:
    """One pass: Adam steps with projection until ``max_steps`` or more than ``max_doublings``
    doublings of sigma, keeping the iterate with the lowest exact loss.
    """
    opt = optimiser(settings.adam)
    opt_state.hyperparams["learning_rate"] = learning_rate
    value_and_grad = jax.value_and_grad(lambda p, s: loss(p, measured, settings, s))

    def body(carry):
        p, state, sigma, doublings, history, settled, step, best, best_loss = carry
        _, grad = value_and_grad(p, sigma)
        grad = jnp.where(jnp.isfinite(grad), grad, 0.0)  # a spectral norm at an exact fit
        updates, state = opt.update(grad, state, p)
        p = project(optax.apply_updates(p, updates), settings.layout)
        exact = loss(p, measured, settings, None)
        improved = exact < best_loss
        best, best_loss = jnp.where(improved, p, best), jnp.where(improved, exact, best_loss)
        history = jnp.roll(history, -1).at[-1].set(exact)
        settled = settled + 1
        if settings.move_on == "plateau":
            earlier = history[0]
            move = (settled > PLATEAU_HISTORY) & (
                (earlier - exact) / (earlier + _TINY) < PLATEAU_TOLERANCE)
        else:
            move = optax.tree.norm(grad) <= settings.gamma
        sigma = jnp.where(move, 2.0 * sigma, sigma)
        doublings = doublings + move.astype(jnp.int32)
        settled = jnp.where(move, 0, settled)
        return p, state, sigma, doublings, history, settled, step + 1, best, best_loss

    def running(carry):
        return (carry[6] < settings.max_steps) & (carry[3] <= max_doublings)

    start = (params, opt_state, jnp.asarray(sigma_initial, params.dtype), jnp.int32(0),
             jnp.full(PLATEAU_WINDOW + 1, jnp.inf, params.dtype), jnp.int32(0), jnp.int32(0),
             best, best_loss)
    p, state, _, doublings, _, _, steps, best, best_loss = jax.lax.while_loop(running, body, start)
    return PassResult(p, state, best, best_loss, steps, doublings)


@dataclasses.dataclass(frozen=True, kw_only=True)
class RoundSchedule:
    """How one round fits: the class's learning rate and passes, and the annealing.

    Attributes:
        learning_rate: of the first pass; pass e uses learning_rate / 2^e.
        passes: passes at most.
        sigma_initial: sigma_1.
        max_doublings: sigma doublings per pass at most (0: the pass ends at its first
            settling, as the code's categorical rounds).
    """

    learning_rate: float
    passes: int
    sigma_initial: float
    max_doublings: int


@dataclasses.dataclass(frozen=True)
class RoundFit:
    """The result of one round: the best rows and how the fit went."""

    rows: jax.Array
    exact_loss: float
    steps: int
    passes: int
    doublings: int


def fit_round(rows: jax.Array, measured: Measured, settings: FitSettings,
              schedule: RoundSchedule) -> RoundFit:
    """Algorithm 1 from ``rows`` (warm start) with the code's passes; see the module docstring."""
    opt_state = optimiser(settings.adam).init(rows)
    best, best_loss = rows, loss(rows, measured, settings, None)
    steps = doublings = passes = 0
    previous = float(best_loss)
    for e in range(schedule.passes):
        result = run_pass(rows, opt_state, best, best_loss,
                          jnp.asarray(schedule.learning_rate / 2 ** e, rows.dtype),
                          jnp.asarray(schedule.sigma_initial, rows.dtype),
                          jnp.int32(schedule.max_doublings), measured, settings)
        rows, opt_state, best, best_loss = result[:4]
        steps, doublings, passes = steps + int(result.steps), doublings + int(result.doublings), e + 1
        current = float(best_loss)
        if abs(previous - current) / (previous + _TINY) < PASS_TOLERANCE:
            break
        previous = current
    return RoundFit(best, float(best_loss), steps, passes, doublings)


def empty_slots(cm_slots: int, feature_width: int, lt_slots: int, layout: OneHotLayout
                ) -> dict[str, np.ndarray]:
    """The fields of :class:`Measured` for ``cm_slots`` tables on a grid of feature width P =
    ``feature_width`` and ``lt_slots`` linear thresholds, none measured (weights 0, padding
    coordinates -1), in NumPy.
    """
    width, n_numerical = layout.label_width, len(layout.domain.numerical)
    cells = feature_width ** 2 * width
    return {"cm_features": np.full((cm_slots, 2, feature_width), -1, np.int32),
            "cm_labels": np.full((cm_slots, width), -1, np.int32),
            "cm_target": np.zeros((cm_slots, cells), np.float32),
            "cm_weight": np.zeros((cm_slots, cells), np.float32),
            "lt_labels": np.zeros(lt_slots, np.int32),
            "lt_theta": np.zeros((lt_slots, n_numerical), np.float32),
            "lt_tau": np.zeros(lt_slots, np.float32),
            "lt_target": np.zeros((lt_slots, width), np.float32),
            "lt_weight": np.zeros((lt_slots, width), np.float32)}


def as_measured(slots: dict[str, np.ndarray]) -> Measured:
    """The slots as device arrays."""
    return Measured(**{name: jnp.asarray(value) for name, value in slots.items()})
