"""Adam with its bias corrections frozen at one step count: the quirk of RAP's two public codes;
and the choice between it and Adam as published, shared by RAP's two relaxed fits.
"""

from __future__ import annotations

from typing import Literal

import jax.numpy as jnp
import optax

RapAdam = Literal["frozen-bias", "optax"]
RAP_ADAMS: tuple[RapAdam, ...] = ("frozen-bias", "optax")
Iterate = Literal["lazy", "projected"]
ITERATES: tuple[Iterate, ...] = ("lazy", "projected")


def frozen_bias_adam(learning_rate: float, count: float | None = None, b1: float = 0.9,
                     b2: float = 0.999, eps: float = 1e-8) -> optax.GradientTransformation:
    """Adam whose bias corrections are those of step ``count + 1`` at every step.

    ``jax.example_libraries.optimizers.adam`` divides the moments by 1 - b^(i + 1), i the step
    count its caller passes. RAP's ICML 2021 code passes 0 at every step (``count=0``): the
    divisors stay 0.1 and 0.001, so with a steady gradient the steps grow to about 2 lr over the
    first few steps, then settle near sqrt(0.001) / 0.1 = 0.32 lr. RAP++'s code passes the
    learning rate (``count=None``): the divisors stay at count = lr, with the same steady state
    for a small lr.
    """

    def init(params):
        return (jnp.zeros_like(params), jnp.zeros_like(params))

    def update(grads, state, params=None):
        del params
        step = learning_rate if count is None else count
        m = b1 * state[0] + (1 - b1) * grads
        v = b2 * state[1] + (1 - b2) * grads ** 2
        m_hat = m / (1 - b1 ** (step + 1))
        v_hat = v / (1 - b2 ** (step + 1))
        return -learning_rate * m_hat / (jnp.sqrt(v_hat) + eps), (m, v)

    return optax.GradientTransformation(init, update)


def rap_adam(kind: RapAdam, learning_rate: float) -> optax.GradientTransformation:
    """RAP's ICML 2021 code's Adam (``"frozen-bias"``, step count 0) or optax's (``"optax"``)."""
    return optax.adam(learning_rate) if kind == "optax" else frozen_bias_adam(learning_rate, count=0)


def check_rap_optimiser(adam: str, iterate: str) -> None:
    """Refuse an unknown ``adam`` or ``iterate`` setting (see :data:`RAP_ADAMS`, :data:`ITERATES`)."""
    if adam not in RAP_ADAMS:
        raise ValueError(f"adam must be one of {RAP_ADAMS}, got {adam!r}")
    if iterate not in ITERATES:
        raise ValueError(f"iterate must be one of {ITERATES}, got {iterate!r}")
