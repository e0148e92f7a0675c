"""Private-PGM's mirror descent, compiling one JAX program per fit, or none.

mbi 2.0's ``MirrorDescent`` (Algorithm 1 of McKenna, Sheldon and Miklau, ICML 2019, with an Armijo
line search) compiles two programs for every new set of cliques: the marginal oracle (for the
initial and final marginals) and a scan of 50 steps that calls the oracle twice per step. AIM adds
a clique every round, so on a small model almost all of a round went into XLA. This module runs
the same iteration: the same loss, initial step size 2 / (L N), steps rounded up to mbi's blocks
of 50, the same sufficient-decrease test and step-size factors 1.01 and 0.5. It differs only in
bookkeeping: each trial point theta - alpha grad is evaluated once (marginals, loss and gradient
together), and an accepted trial becomes the next iterate without being evaluated again. It runs

- in NumPy (:mod:`reprolib.mechanisms.pgm._junction_tree`) when interpreting the model costs less than
  compiling it (:func:`prefers_numpy`), with nothing compiled, or
- as one jitted loop per clique structure, with mbi's own oracle and loss, otherwise, and always
  for queries other than the marginal itself.

Structural zeros (mbi ``Constraint``s) run in both: mbi's Shafer-Shenoy oracle in JAX, the same
message passing in NumPy.

Both agree with mbi's ``MirrorDescent`` to rounding (tests/mechanisms/test_mirror_descent.py).

Two step-size rules (``step_rule``):

- ``"mbi-2.0"``: the rule above. The step starts at 2 / (L N) in every fit and changes by x1.01 or
  x0.5 once per step; a rejected trial costs a step. L bounds the Euclidean Hessian of the loss
  block by block, |C| / |c| / sigma^2 for a marginal c inside a model clique C, so a round that
  adds a precise marginal (or a large clique over precise one-way marginals) makes the step tiny,
  and 100 steps grow it at most 2.7-fold.
- ``"backtracking-2022"``: the rule of the 2022 NumPy Private-PGM (``FactoredInference`` with
  mirror descent and line search), the engine the AIM paper ran. The first step tries 2 / N^2;
  every later step first tries twice the step the previous one took (the 2022 code's step
  function ``lambda t: 2.0 * alpha`` reads ``alpha`` when called, i.e. the last step size), then
  halves it until the sufficient-decrease test holds, at most 25 trials, the last taken
  regardless; exactly ``iters`` steps (no blocks of 50). The step can double every step, so it
  reaches the curvature of the newest, most precise measurement within a few dozen steps.

Both minimise the same loss, with the same total and the same warm start.

Two homes for the potentials (``potentials``):

- ``"measured-cliques"``: mbi 2.0's. The potentials live on the maximal measured cliques; a warm
  start adds each old potential to the smallest new clique holding it, and since the measured
  cliques only grow, the warm start always is the previous model.
- ``"junction-tree-2022"``: the 2022 ``FactoredInference``'s. The potentials live on the maximal
  cliques of the junction tree (fill-in included), in its order; a measurement's gradient goes
  to the smallest of them holding it (mbi's rule too), and a warm start adds each old potential
  whole to the first new maximal clique holding it and drops it when none does
  (``CliqueVector.combine`` of the 2022 library). A new measurement that changes the
  triangulation so drops the fill-in cliques' potentials, and with them part of what the model
  had learned. Mirror descent moves the log-density by the same function under either home
  (each step adds -alpha sum_m g_m on the measured sets), so the two agree step for step until the
  first drop. The tree is mbi 2.0's, built as the 2022 library builds it (same greedy
  elimination order, same maximal cliques); on a model in several disconnected parts the order of
  its cliques can differ from the 2022 library's, which changes only which of two cliques that
  both hold an old potential receives it. Replayed on an AIM run on fire, the fits equal the 2022
  library's to 1e-11 (``benchmarks/aim_fit_replay.py``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Literal

import jax
import jax.numpy as jnp
import mbi
import numpy as np
from mbi import CliqueVector, Factor, estimation, junction_tree, marginal_loss, marginal_oracles

from reprolib.mechanisms.pgm._float64 import in_float64
from reprolib.mechanisms.pgm._junction_tree import (
    NumpyModel,
    combine_potentials,
    expand_potentials,
)
from reprolib.queries import Clique

Engine = Literal["auto", "numpy", "jax"]
StepRule = Literal["backtracking-2022", "mbi-2.0"]
STEP_RULES: tuple[StepRule, ...] = ("backtracking-2022", "mbi-2.0")
Potentials = Literal["measured-cliques", "junction-tree-2022"]
POTENTIALS: tuple[Potentials, ...] = ("measured-cliques", "junction-tree-2022")
MAX_TRIALS = 25
"""Trials per step of the 2022 rule: the step halves at most 24 times, and the 25th is taken."""
STEPS_PER_BLOCK = estimation.CALLBACK_EVERY  # mbi runs whole blocks of this many steps
NUMPY_EXTRA_SECONDS = 2.5e-8
"""How much longer NumPy takes than compiled XLA per junction-tree cell and step (one CPU core;
``benchmarks/pgm_engines.py`` on adult models of 3e5 to 4e6 cells: 1.9e-8 to 2.7e-8)."""
COMPILE_SECONDS = 2.0
"""What compiling one descent costs, whatever the model (one CPU core; the same benchmark: 1.1 to
2.7 s on adult models of 11 to 13 cliques, 3.3 s on an nltcs model of few large cliques)."""


def prefers_numpy(cells: int, steps: int) -> bool:
    """Whether NumPy's slower steps on a model of ``cells`` cells cost less than compiling it."""
    return NUMPY_EXTRA_SECONDS * cells * steps <= COMPILE_SECONDS


@in_float64
def mirror_descent(domain: mbi.Domain, measurements: list[mbi.LinearMeasurement], *,
                   known_total: float, iters: int,
                   warm_start: mbi.MarkovRandomField | None = None,
                   constraints: Sequence[mbi.Constraint] = (),
                   engine: Engine = "auto",
                   step_rule: StepRule = "backtracking-2022",
                   potentials: Potentials = "measured-cliques") -> mbi.MarkovRandomField:
    """Private-PGM's fit: mirror descent on the measurements' loss under ``step_rule``.

    Under "mbi-2.0" this is mbi's ``MirrorDescent().estimate`` up to rounding; under
    "backtracking-2022" the 2022 ``FactoredInference`` (see the module docstring).

    Args:
        domain: the mbi domain.
        measurements: loss terms 0.5 ||Q mu_c - y||^2 / stddev^2 (NumPy: identity queries Q only).
        known_total: the model's total N (records).
        iters: mirror-descent steps; under "mbi-2.0", like mbi, rounded up to a multiple of 50.
        warm_start: a model whose potentials start the descent (expanded to the new cliques).
        constraints: structural zeros, folded into every oracle call (Shafer-Shenoy messages).
        engine: "numpy", "jax", or "auto" (:func:`prefers_numpy` decides); queries other than
            the identity always run in JAX.
        step_rule: "mbi-2.0" (mbi 2.0's ``MirrorDescent``) or "backtracking-2022" (the 2022
            ``FactoredInference``); see the module docstring.
        potentials: where the potentials live and what a warm start keeps: "measured-cliques"
            (mbi 2.0) or "junction-tree-2022" (the 2022 ``FactoredInference``); see the module
            docstring.

    Runs in float64, whatever JAX's configuration outside.
    """
    if step_rule not in STEP_RULES:
        raise ValueError(f"step_rule must be one of {STEP_RULES}, got {step_rule!r}")
    if potentials not in POTENTIALS:
        raise ValueError(f"potentials must be one of {POTENTIALS}, got {potentials!r}")
    constraints = tuple(constraints)
    loss_fn = marginal_loss.from_linear_measurements(measurements, domain)
    if not loss_fn.cliques:
        return estimation.MirrorDescent().estimate(domain, loss_fn, known_total,
                                                   constraints=constraints, iters=iters)
    cliques = tuple(loss_fn.cliques)
    old = {} if warm_start is None else {
        tuple(c): np.asarray(warm_start.potentials[c].values) for c in warm_start.potentials.cliques}
    if potentials == "junction-tree-2022":
        tree, _ = junction_tree.make_junction_tree(
            domain, [*cliques, *(c.clique for c in constraints)])
        cliques = tuple(junction_tree.maximal_cliques(tree))
        theta = combine_potentials(domain, old, cliques)
    else:
        theta = expand_potentials(domain, old, cliques)
    if step_rule == "mbi-2.0":
        steps = math.ceil(iters / STEPS_PER_BLOCK) * STEPS_PER_BLOCK
        alpha = 2.0 / (loss_fn.lipschitz * known_total)  # mbi: Eq 75 of Zhang's Bregman notes
    else:  # 2022: the first trial is 2 / N^2, later ones twice the previous step
        steps, alpha = iters, 2.0 / known_total**2
    backtrack = step_rule == "backtracking-2022"
    identity = all(isinstance(m.query, marginal_loss.DatavectorQuery) for m in measurements)
    if engine != "jax" and identity:
        model = NumpyModel(domain, cliques, measurements, known_total, constraints)
        if engine == "numpy" or prefers_numpy(model.tree.cells, steps):
            descent = _numpy_backtracking if backtrack else _numpy_descent
            flat_theta, flat_mu = descent(model, model.flatten(theta), alpha, steps)
            return mbi.MarkovRandomField(potentials=_vector(domain, model.tables(flat_theta)),
                                         marginals=_vector(domain, model.tables(flat_mu)),
                                         total=known_total, constraints=constraints)
    oracle = marginal_oracles.default_oracle(cliques, domain, has_constraints=bool(constraints))
    descent = _jax_backtracking if backtrack else _jax_descent
    potentials, mu = jax.block_until_ready(descent(_vector(domain, theta), alpha, steps, loss_fn,
                                                   known_total, constraints, oracle=oracle))
    # AIM and MWEM add a clique every round, so a program is never run twice; kept, the
    # compiled programs would pile up (gigabytes over a long grid worker's life)
    descent.clear_cache()  # type: ignore[attr-defined]  # (missing from JAX's stubs)
    return mbi.MarkovRandomField(potentials=potentials, marginals=mu, total=known_total,
                                 constraints=constraints)


def _numpy_descent(model: NumpyModel, theta: np.ndarray, alpha: float, steps: int
                   ) -> tuple[np.ndarray, np.ndarray]:
    """``steps`` steps from ``theta`` (flat): the final potentials and their marginals."""
    mu = model.marginals(theta)
    loss, grad = model.loss_and_gradient(mu)
    for _ in range(steps):
        theta2 = theta - alpha * grad
        mu2 = model.marginals(theta2)
        loss2, grad2 = model.loss_and_gradient(mu2)
        if loss - loss2 >= 0.5 * alpha * float(grad @ (mu - mu2)):  # Armijo sufficient decrease
            theta, mu, loss, grad, alpha = theta2, mu2, loss2, grad2, 1.01 * alpha
        else:
            alpha = 0.5 * alpha
    return theta, mu


def _numpy_backtracking(model: NumpyModel, theta: np.ndarray, alpha: float, steps: int
                        ) -> tuple[np.ndarray, np.ndarray]:
    """``steps`` steps of the 2022 rule from ``theta`` (flat); the first trial step is ``alpha``.

    A trial theta - a grad is accepted when loss - loss' >= a/2 <grad, mu - mu'>; otherwise a
    halves. After ``MAX_TRIALS`` trials the last one is taken anyway, and the next step starts
    from the last trial (twice its half); after an acceptance, from twice the accepted a. A
    step whose marginals equal the current ones exactly (the loss is flat along the gradient,
    e.g. every measured clique has one cell) moves nothing and is not taken, and the step size
    stays, where the 2022 rule would double it every step until it overflows to inf and the
    potentials become NaN.
    """
    mu = model.marginals(theta)
    loss, grad = model.loss_and_gradient(mu)
    step = 0.5 * alpha
    for _ in range(steps):
        step = 2.0 * step
        for _trial in range(MAX_TRIALS):
            theta2 = theta - step * grad
            mu2 = model.marginals(theta2)
            loss2, grad2 = model.loss_and_gradient(mu2)
            if loss - loss2 >= 0.5 * step * float(grad @ (mu - mu2)):
                break
            step = 0.5 * step
        if np.array_equal(mu2, mu):  # stalled: keep the point, do not grow the step
            step = 0.5 * step
            continue
        theta, mu, loss, grad = theta2, mu2, loss2, grad2
    return theta, mu


@functools.partial(jax.jit, static_argnames=("oracle",))
def _jax_backtracking(theta, alpha, steps, loss_fn, total, constraints, *, oracle):
    """As :func:`_numpy_backtracking` (stalled steps included), in one XLA loop (a bounded while
    loop per step).
    """

    def evaluate(theta):
        mu = jax.lax.optimization_barrier(oracle(theta, total, constraints=constraints))
        loss, grad = jax.value_and_grad(loss_fn)(mu)
        return mu, loss, grad

    def step(_, point):
        theta, mu, loss, grad, step_size = point

        def trial(state):
            k, step_size, *_ = state
            theta2 = theta - step_size * grad
            mu2, loss2, grad2 = evaluate(theta2)
            accept = loss - loss2 >= 0.5 * step_size * grad.dot(mu - mu2)
            return (k + 1, jnp.where(accept, step_size, 0.5 * step_size), accept,
                    theta2, mu2, loss2, grad2)

        start = (jnp.asarray(0), 2.0 * step_size, jnp.asarray(False), theta, mu, loss, grad)
        _, trial_size, _, *kept = jax.lax.while_loop(
            lambda s: ~s[2] & (s[0] < MAX_TRIALS), trial, start)
        stalled = jax.tree.reduce(jnp.logical_and, jax.tree.map(
            lambda a, b: jnp.all(a == b), kept[1], mu))
        kept = jax.lax.cond(stalled, lambda: (theta, mu, loss, grad), lambda: tuple(kept))
        return (*kept, jnp.where(stalled, step_size, trial_size))

    mu, loss, grad = evaluate(theta)
    start = (theta, mu, loss, grad, jnp.asarray(0.5 * alpha, dtype=float))
    theta, mu, *_ = jax.lax.fori_loop(0, steps, step, start)
    return theta, mu


@functools.partial(jax.jit, static_argnames=("oracle",))
def _jax_descent(theta, alpha, steps, loss_fn, total, constraints, *, oracle):
    """As :func:`_numpy_descent`, in one XLA loop whose pass 0 evaluates the starting point."""

    def step(index, point):
        theta, mu, loss, grad, alpha = point
        theta2 = theta - alpha * grad
        # the barrier keeps XLA from recomputing the marginals inside each loss term
        mu2 = jax.lax.optimization_barrier(oracle(theta2, total, constraints=constraints))
        loss2, grad2 = jax.value_and_grad(loss_fn)(mu2)
        start = index == 0
        accept = start | (loss - loss2 >= 0.5 * alpha * grad.dot(mu - mu2))
        alpha = jnp.where(start, alpha, jnp.where(accept, 1.01 * alpha, 0.5 * alpha))
        kept = jax.lax.cond(accept, lambda: (theta2, mu2, loss2, grad2),
                            lambda: (theta, mu, loss, grad))
        return (*kept, alpha)

    zeros = jax.tree.map(jnp.zeros_like, theta)  # mu and grad live on theta's cliques
    start = (theta, zeros, jnp.asarray(jnp.inf), zeros, jnp.asarray(alpha, dtype=float))
    theta, mu, *_ = jax.lax.fori_loop(0, steps + 1, step, start)
    return theta, mu


def _vector(domain: mbi.Domain, tables: dict[Clique, np.ndarray]) -> CliqueVector:
    """Mbi's CliqueVector of ``tables`` (as JAX arrays), in the dict's clique order."""
    return CliqueVector(domain, list(tables), {
        c: Factor(domain.project(c), jnp.asarray(t)) for c, t in tables.items()})
