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
  under structural-zero constraints or queries other than the marginal itself.

Both agree with mbi's ``MirrorDescent`` to rounding (tests/mechanisms/test_mirror_descent.py).
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
from mbi import CliqueVector, Factor, estimation, marginal_loss, marginal_oracles

from reprolib.mechanisms.pgm._float64 import in_float64
from reprolib.mechanisms.pgm._junction_tree import NumpyModel, expand_potentials
from reprolib.queries import Clique

Engine = Literal["auto", "numpy", "jax"]
STEPS_PER_BLOCK = estimation.CALLBACK_EVERY  # mbi runs whole blocks of this many steps
NUMPY_EXTRA_SECONDS = 5e-8
"""How much longer NumPy takes than compiled XLA per junction-tree cell and step (one CPU core;
measured on adult models of 1e5 to 1e6 cells)."""
COMPILE_SECONDS = 0.1
"""What compiling the descent costs per maximal clique of the junction tree (one CPU core;
measured on nltcs models of 10 to 35 cliques)."""


def prefers_numpy(cells: int, cliques: int, steps: int) -> bool:
    """Whether NumPy's slower steps on ``cells`` cost less than compiling ``cliques`` cliques."""
    return NUMPY_EXTRA_SECONDS * cells * steps <= COMPILE_SECONDS * cliques


@in_float64
def mirror_descent(domain: mbi.Domain, measurements: list[mbi.LinearMeasurement], *,
                   known_total: float, iters: int,
                   warm_start: mbi.MarkovRandomField | None = None,
                   constraints: Sequence[mbi.Constraint] = (),
                   engine: Engine = "auto") -> mbi.MarkovRandomField:
    """The model mbi's ``MirrorDescent().estimate`` fits, up to rounding (see module docstring).

    Args:
        domain: the mbi domain.
        measurements: loss terms 0.5 ||Q mu_c - y||^2 / stddev^2 (NumPy: identity queries Q only).
        known_total: the model's total N (records).
        iters: mirror-descent steps; like mbi, rounded up to a multiple of 50.
        warm_start: a model whose potentials start the descent (expanded to the new cliques).
        constraints: structural zeros, handled by mbi's constrained oracle (JAX only).
        engine: "numpy", "jax", or "auto" (:func:`prefers_numpy` decides); constraints or other
            queries than the identity always run in JAX.

    Runs in float64, whatever JAX's configuration outside.
    """
    constraints = tuple(constraints)
    loss_fn = marginal_loss.from_linear_measurements(measurements, domain)
    if not loss_fn.cliques:
        return estimation.MirrorDescent().estimate(domain, loss_fn, known_total,
                                                   constraints=constraints, iters=iters)
    cliques = tuple(loss_fn.cliques)
    old = {} if warm_start is None else {
        tuple(c): np.asarray(warm_start.potentials[c].values) for c in warm_start.potentials.cliques}
    theta = expand_potentials(domain, old, cliques)
    steps = math.ceil(iters / STEPS_PER_BLOCK) * STEPS_PER_BLOCK
    alpha = 2.0 / (loss_fn.lipschitz * known_total)  # mbi: Eq 75 of Zhang's Bregman notes
    identity = all(isinstance(m.query, marginal_loss.DatavectorQuery) for m in measurements)
    if engine != "jax" and identity and not constraints:
        model = NumpyModel(domain, cliques, measurements, known_total)
        if engine == "numpy" or prefers_numpy(model.tree.cells, len(model.tree.maximal), steps):
            theta, mu = _numpy_descent(model, theta, alpha, steps)
            return mbi.MarkovRandomField(potentials=_vector(domain, theta),
                                         marginals=_vector(domain, mu), total=known_total)
    oracle = marginal_oracles.default_oracle(cliques, domain, has_constraints=bool(constraints))
    potentials, mu = _jax_descent(_vector(domain, theta), alpha, steps, loss_fn, known_total,
                                  constraints, oracle=oracle)
    return mbi.MarkovRandomField(potentials=potentials, marginals=mu, total=known_total,
                                 constraints=constraints)


def _numpy_descent(model: NumpyModel, theta: dict[Clique, np.ndarray], alpha: float,
                   steps: int) -> tuple[dict[Clique, np.ndarray], dict[Clique, np.ndarray]]:
    """``steps`` steps from ``theta``: the final potentials and their marginals."""
    mu = model.marginals(theta)
    loss, grad = model.loss_and_gradient(mu)
    for _ in range(steps):
        theta2 = {c: t - alpha * grad[c] for c, t in theta.items()}
        mu2 = model.marginals(theta2)
        loss2, grad2 = model.loss_and_gradient(mu2)
        slope = sum(float(np.vdot(g, mu[c] - mu2[c])) for c, g in grad.items())
        if loss - loss2 >= 0.5 * alpha * slope:  # Armijo sufficient decrease
            theta, mu, loss, grad, alpha = theta2, mu2, loss2, grad2, 1.01 * alpha
        else:
            alpha = 0.5 * alpha
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
