"""Euclidean projection of row blocks onto the probability simplex (sparsemax), in JAX."""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp


def sparsemax(z: jax.Array, offsets: tuple[int, ...]) -> jax.Array:
    """Euclidean projection of every block of every row onto the probability simplex.

    The projection of a block z is max(z - tau, 0) with tau solving sum_i max(z_i - tau, 0) = 1
    (Martins & Astudillo 2016's sparsemax). Michelot's iteration finds tau: start from
    tau = (sum z - 1) / n, a lower bound, and repeat tau = (sum of z_i > tau minus 1) / count;
    tau rises to the solution and the support shrinks to the exact one in at most n rounds. Taking
    the larger of the new and old tau keeps that true in floating point (a tau that rounds below
    its predecessor would readmit exact zeros and cycle). One loop updates all blocks until none
    of their supports changes.
    """
    blocks = [z[:, lo:hi] for lo, hi in itertools.pairwise(offsets)]

    def shrink(state):
        taus, counts, _ = state
        supports = [block > tau for block, tau in zip(blocks, taus, strict=True)]
        inside = [jnp.sum(s, axis=1, keepdims=True) for s in supports]
        taus = [jnp.maximum(tau, (jnp.sum(jnp.where(s, block, 0.0), axis=1, keepdims=True) - 1.0)
                            / n.astype(z.dtype))
                for block, tau, s, n in zip(blocks, taus, supports, inside, strict=True)]
        return taus, inside, counts

    def changing(state) -> jax.Array:
        return jnp.any(jnp.stack([jnp.any(new != old)
                                  for new, old in zip(state[1], state[2], strict=True)]))

    start = ([(jnp.sum(b, axis=1, keepdims=True) - 1.0) / b.shape[1] for b in blocks],
             [jnp.full((z.shape[0], 1), b.shape[1]) for b in blocks],
             [jnp.full((z.shape[0], 1), b.shape[1] + 1) for b in blocks])
    taus = jax.lax.while_loop(changing, shrink, start)[0]
    return jnp.concatenate([jnp.maximum(block - tau, 0.0)
                            for block, tau in zip(blocks, taus, strict=True)], axis=1)
