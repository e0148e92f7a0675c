"""Private-GSD (Liu, Tsai, Vietri, Wu; ICML 2023): a genetic search over discrete datasets.

Private-GSD fits a synthetic dataset to noisy statistics without relaxing the domain: it keeps a
dataset of m records, proposes small changes to it and keeps those that bring its statistics
closer to the noisy ones. The PrivPGD paper runs it as a baseline in its one-shot form on all
2-way marginals, with an elite of size 2 and early stopping (its Section 4.2, "Implementation of
query-based algorithms"), which is what this module implements:

1. release every 2-way marginal's counts once, in one Gaussian mechanism that spends the whole
   budget (:func:`reprolib.mechanisms._two_way.measure_pairs`: the same release as PrivPGD's);
   divided by the public N they are the target a, one entry per marginal cell;
2. search: m records with uniformly random codes at first. Each generation proposes
   ``mutations`` candidates, each the current dataset with one record's value of one attribute
   redrawn uniformly from the attribute's domain, and ``crossovers`` candidates, each with that
   value copied from another record instead; it scores every candidate by the fitness
   ||a - q(D')||_2^2, q the 2-way marginal frequencies, and keeps the best candidate if it
   improves on the current dataset. A candidate differs in one record, so its fitness follows
   from the current residuals at the cells that record leaves and enters, in O(C(d, 2));
3. stopping: after ``generations`` generations, or earlier when a block of ``stop_every``
   generations improved the fitness by less than ``stop_tolerance`` of its value.

Only step 1 reads the data; the search is post-processing of the release.

Where this differs from the authors' code (``giusevtr/private_gsd`` at f6150d78, its one-shot
entry ``GSDSynthesizer.fit``): each of their generations proposes 50 candidates from one operator
that a bandit picks (a mutation of one column in every candidate, a swap of one column's values
between two records, or a crossover of one or two columns), where ours proposes ``mutations``
mutations and ``crossovers`` crossovers every generation; every candidate of theirs, crossover
sources included, comes from the best dataset's own records, as ours; they clip the noisy targets
to [0, 1], we do not; their early stopping is ours (relative improvement below 1e-4 over a block of
2,000 generations). The PrivPGD paper tuned G in {200k, 500k}, P_mut = P_cross in {50, ..., 500}
and m in {2k, 100k} per dataset without accounting for the tuning; our defaults are one point of
that grid (G = 200,000, P_mut = P_cross = 50, m = 2,000) for every dataset, untuned, as for GEM.
Side by side on adult at the same rho (``benchmarks/private_gsd_reference.py``: all 2-way
marginals, seeds 0 and 1 of each, one CPU thread), the mean 2-way total variation distance was
0.0573 (theirs) and 0.0589 (ours) at rho = 0.005, 0.0282 and 0.0278 at 0.05, 0.0189 and 0.0173
at 0.5; theirs was cut off by a 9-minute limit at 42,000-60,000 generations, ours stopped early
at 80,000-104,000 in 12-20 s.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from typing import TYPE_CHECKING, ClassVar

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd

from reprolib.data import Dataset
from reprolib.mechanisms._base import (
    MechanismTraits,
    SynthesisResult,
    check_inputs,
    open_ledger,
    seed_from,
)
from reprolib.mechanisms._two_way import all_pairs, measure_pairs
from reprolib.privacy import NeighbourRelation, PrivacyBudget

if TYPE_CHECKING:
    from reprolib.queries import Workload


@dataclasses.dataclass(frozen=True, kw_only=True)
class PrivateGSDConfig:
    """Private-GSD's settings (defaults: one point of the PrivPGD paper's tuning grid).

    Attributes:
        records: m, the synthetic records (the PrivPGD paper: 2,000 or 100,000).
        generations: G, the most generations (the PrivPGD paper: 200,000 or 500,000).
        mutations: P_mut, mutation candidates per generation (the PrivPGD paper: 50 to 500).
        crossovers: P_cross, crossover candidates per generation (the paper: equal to P_mut).
        stop_every: generations between early-stopping checks; None: max(100, records), the
            authors' code's.
        stop_tolerance: stop when a block of ``stop_every`` generations lowered the fitness by
            less than this fraction of it (the authors' entry point's 1e-4; 0 never stops).
    """

    records: int = 2000
    generations: int = 200_000
    mutations: int = 50
    crossovers: int = 50
    stop_every: int | None = None
    stop_tolerance: float = 1e-4

    def __post_init__(self) -> None:
        for name in ("records", "generations", "mutations", "crossovers"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if self.stop_every is not None and (isinstance(self.stop_every, bool)
                                            or self.stop_every < 1):
            raise ValueError(f"stop_every must be a positive integer or None, "
                             f"got {self.stop_every!r}")
        if not self.stop_tolerance >= 0.0:
            raise ValueError(f"stop_tolerance must be at least 0, got {self.stop_tolerance}")


class PrivateGSD:
    """One-shot Private-GSD on all 2-way marginals; rho-zCDP under replace-one.

    Traits: it measures the same marginals whatever the workload, the data and the budget, and
    its model is m records, whose size does not grow with the marginals' domains (efficiency-
    aware).
    """

    name: ClassVar[str] = "Private-GSD"
    traits: ClassVar[MechanismTraits] = MechanismTraits(
        workload_aware=False, data_aware=False, budget_aware=False, efficiency_aware=True,
        relation=NeighbourRelation.REPLACE_ONE,
    )

    def __init__(self, config: PrivateGSDConfig | None = None) -> None:
        self.config = config or PrivateGSDConfig()

    def fit(self, data: Dataset, budget: PrivacyBudget, rng: np.random.Generator, *,
            workload: Workload | None = None) -> SynthesisResult:
        """Release ``data``'s 2-way marginals and search for ``records`` records matching them."""
        check_inputs(self, data, workload)
        if len(data.domain) < 2:
            raise ValueError("Private-GSD needs at least 2 attributes (it measures 2-way "
                             "marginals)")
        cfg = self.config
        ledger = open_ledger(self, budget)
        started = time.perf_counter()
        pairs = all_pairs(data)
        noisy, sigma = measure_pairs(data, pairs, rho=budget.rho, rng=rng, ledger=ledger)

        index = {name: i for i, name in enumerate(data.domain.attributes)}
        layout = _Layout(
            sizes=jnp.asarray(data.domain.sizes, jnp.int32),
            first=jnp.asarray([index[a] for a, _ in pairs], jnp.int32),
            second=jnp.asarray([index[b] for _, b in pairs], jnp.int32),
            offsets=jnp.asarray(np.cumsum([0, *(m.size for m in noisy)])[:-1], jnp.int32),
            cells=int(sum(m.size for m in noisy)))
        target = jnp.asarray(np.concatenate([m.ravel() for m in noisy]) / data.records,
                             jnp.float32)
        key = jax.random.PRNGKey(seed_from(rng))
        key, start = jax.random.split(key)
        codes = jax.random.randint(start, (cfg.records, len(data.domain)), 0, layout.sizes,
                                   dtype=jnp.int32)

        block = cfg.stop_every or max(100, cfg.records)
        residual = _frequencies(codes, layout) - target
        fitness = [float(jnp.sum(residual**2))]
        generations, stopped_early = 0, False
        while generations < cfg.generations and not stopped_early:
            steps = min(block, cfg.generations - generations)
            key, chunk = jax.random.split(key)
            codes = _search(codes, residual, chunk, layout=layout, steps=steps,
                            mutations=cfg.mutations, crossovers=cfg.crossovers)
            generations += steps
            residual = _frequencies(codes, layout) - target  # exact: no drift accumulates
            fitness.append(float(jnp.sum(residual**2)))
            stopped_early = (generations < cfg.generations
                             and fitness[-2] - fitness[-1] < cfg.stop_tolerance * fitness[-2])

        frame = pd.DataFrame(np.asarray(codes, np.int64), columns=list(data.domain.attributes))
        return SynthesisResult(
            synthetic=Dataset(frame, data.domain), ledger=ledger,
            diagnostics={
                "n_marginals": len(pairs), "sigma": sigma, "sigma_frequency": sigma / data.records,
                "rho_spent": ledger.spent_rho, "records": cfg.records,
                "generations": generations, "stopped_early": stopped_early,
                "fitness": fitness[-1], "fitness_history": fitness,
                "seconds": time.perf_counter() - started})


@dataclasses.dataclass(frozen=True, eq=False)
class _Layout:
    """Where each record's cell of each 2-way marginal sits in the concatenated statistics."""

    sizes: jax.Array  # (d,) domain sizes
    first: jax.Array  # (P,) the first attribute of each pair
    second: jax.Array  # (P,) the second
    offsets: jax.Array  # (P,) the pair's first cell
    cells: int  # K, all pairs' cells

    def cells_of(self, rows: jax.Array) -> jax.Array:
        """(..., d) records -> (..., P) their cell in each pair (row-major, like marginals)."""
        return (self.offsets + rows[..., self.first] * self.sizes[self.second]
                + rows[..., self.second])


def _frequencies(codes: jax.Array, layout: _Layout) -> jax.Array:
    """The 2-way marginal frequencies q(D) of ``codes``, concatenated (length K)."""
    counts = jnp.zeros(layout.cells, jnp.float32).at[layout.cells_of(codes).ravel()].add(1.0)
    return counts / codes.shape[0]


@functools.partial(jax.jit, static_argnames=("layout", "steps", "mutations", "crossovers"))
def _search(codes: jax.Array, residual: jax.Array, key: jax.Array, *, layout: _Layout,
            steps: int, mutations: int, crossovers: int) -> jax.Array:
    """``steps`` generations from ``codes``, whose residual q(D) - a is ``residual``."""
    m, d = codes.shape
    proposals = mutations + crossovers
    unit = 1.0 / m

    def generation(_, state):
        codes, residual, key = state
        key, k_rows, k_cols, k_values, k_sources = jax.random.split(key, 5)
        rows = jax.random.randint(k_rows, (proposals,), 0, m)
        cols = jax.random.randint(k_cols, (proposals,), 0, d)
        drawn = jax.random.randint(k_values, (mutations,), 0, layout.sizes[cols[:mutations]])
        copied = codes[jax.random.randint(k_sources, (crossovers,), 0, m), cols[mutations:]]
        values = jnp.concatenate([drawn, copied]).astype(codes.dtype)
        old = codes[rows]
        new = old.at[jnp.arange(proposals), cols].set(values)
        leave, enter = layout.cells_of(old), layout.cells_of(new)
        # moving one record's share 1/m from cell o to cell n changes the squared distance by
        # (r_o - 1/m)^2 - r_o^2 + (r_n + 1/m)^2 - r_n^2 = 2 (r_n - r_o) / m + 2 / m^2
        change = jnp.where(leave != enter,
                           2.0 * unit * (residual[enter] - residual[leave]) + 2.0 * unit**2, 0.0)
        gain = change.sum(axis=1)
        best = jnp.argmin(gain)
        keep = gain[best] < 0.0
        row, col = rows[best], cols[best]
        codes = codes.at[row, col].set(jnp.where(keep, values[best], codes[row, col]))
        shift = jnp.where(keep, unit, 0.0)
        residual = residual.at[leave[best]].add(-shift).at[enter[best]].add(shift)
        return codes, residual, key

    codes, _, _ = jax.lax.fori_loop(0, steps, generation, (codes, residual, key))
    return codes
