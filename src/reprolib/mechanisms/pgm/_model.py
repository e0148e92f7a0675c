"""Private-PGM (mbi 2.0) for the select-measure-generate mechanisms.

Measuring a marginal (the only place these mechanisms touch the data with noise), fitting the
graphical model to the noisy marginals, reading many marginals of a fitted model at once, and
seeded generation of records. The fit (``_mirror_descent``), the marginals (``_pgm_numpy``) and
the generation (``_pgm_sampling``) follow mbi's algorithms but run in NumPy where compiling a JAX
program for every new clique structure would cost more than it saves. (JT-SIZE, for capacity
rules, lives in ``_jtsize``.) Fitting, reading marginals and generating run in float64
(``_float64``).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import mbi
import networkx as nx
import numpy as np
import pandas as pd
from mbi import estimation

from reprolib.data import Dataset, Domain
from reprolib.mechanisms.pgm._float64 import in_float64
from reprolib.mechanisms.pgm._junction_tree import JunctionTree
from reprolib.mechanisms.pgm._mirror_descent import Potentials, StepRule, mirror_descent
from reprolib.mechanisms.pgm._sampling import rounded_records
from reprolib.privacy import Ledger, gaussian_mechanism, marginal_l2_sensitivity
from reprolib.queries import Clique
from reprolib.queries._tables import broadcast_to, sum_to

LossWeighting = Literal["inverse-std", "inverse-variance"]
LOSS_WEIGHTINGS: tuple[LossWeighting, ...] = ("inverse-std", "inverse-variance")


@dataclasses.dataclass(frozen=True)
class NoisyMarginal:
    """A marginal released by the Gaussian mechanism.

    Attributes:
        clique: the attributes, in domain order.
        values: noisy counts, shaped like ``Dataset.marginal(clique)``.
        sigma: standard deviation of the noise added to every cell (in counts).
    """

    clique: Clique
    values: np.ndarray
    sigma: float


def measure_marginal(data: Dataset, clique: Clique, *, sigma: float, rng: np.random.Generator,
                     ledger: Ledger, label: str) -> NoisyMarginal:
    """Release the marginal on ``clique`` plus N(0, sigma**2) per cell, charging the ledger.

    The marginal's L2 sensitivity comes from the ledger's neighbouring relation (1 under
    add/remove, sqrt(2) under replace-one), so the charge is sensitivity**2 / (2 sigma**2).
    """
    clique = tuple(clique)
    noisy = gaussian_mechanism(data.marginal(clique), sigma=sigma,
                               sensitivity=marginal_l2_sensitivity(ledger.relation, 1),
                               rng=rng, ledger=ledger, label=label)
    return NoisyMarginal(clique, noisy, float(sigma))


def fit_model(
    domain: Domain,
    measurements: Sequence[NoisyMarginal],
    *,
    iters: int,
    weighting: LossWeighting = "inverse-variance",
    warm_start: mbi.MarkovRandomField | None = None,
    constraints: Sequence[mbi.Constraint] = (),
    step_rule: StepRule = "backtracking-2022",
    potentials: Potentials = "measured-cliques",
) -> mbi.MarkovRandomField:
    """Private-PGM: the graphical model that best explains ``measurements`` (mirror descent).

    ``weighting`` picks the loss. ``"inverse-variance"`` (default) is the Gaussian
    log-likelihood sum_i ||M_i(p) - y_i||^2 / sigma_i^2, which every Private-PGM version implements
    (the 2022 library scales each residual by 1/sigma before squaring; mbi 2.0 likewise);
    ``"inverse-std"`` is sum_i ||M_i(p) - y_i||^2 / sigma_i, the AIM paper's displayed objective as
    usually transcribed. The two agree when all sigmas are equal. The total is the minimum-variance unbiased
    combination of the measurements' sums (mbi's estimator) under either loss. The descent is
    mbi's ``MirrorDescent`` (same steps and line search) without its two compiles per new clique
    structure: see :mod:`reprolib.mechanisms.pgm._mirror_descent`. ``step_rule`` picks the
    line search: the 2022 library's ``"backtracking-2022"`` (default: the AIM and PrivPGD papers
    ran it) or mbi 2.0's ``"mbi-2.0"``; ``potentials`` where the potentials live and so what a
    warm start keeps: on the measured cliques, everything (mbi 2.0, default), or on the junction
    tree's cliques, dropping those a new triangulation no longer holds (the 2022 library).
    """
    return mirror_descent(domain.to_mbi(), loss_measurements(measurements, weighting),
                          known_total=estimated_total(measurements), iters=iters,
                          warm_start=warm_start, constraints=constraints, step_rule=step_rule,
                          potentials=potentials)


def loss_measurements(measurements: Sequence[NoisyMarginal],
                      weighting: LossWeighting) -> list[mbi.LinearMeasurement]:
    """Mbi measurements whose loss has the weights of ``weighting`` (see :func:`fit_model`).

    mbi weights a measurement by 1/stddev^2, so "inverse-std" passes sqrt(sigma) as stddev.
    """
    if weighting not in LOSS_WEIGHTINGS:
        raise ValueError(f"weighting must be one of {LOSS_WEIGHTINGS}, got {weighting!r}")
    spread = np.sqrt if weighting == "inverse-std" else float
    return [mbi.LinearMeasurement(np.ravel(m.values), m.clique, stddev=float(spread(m.sigma)))
            for m in measurements]


def estimated_total(measurements: Sequence[NoisyMarginal]) -> float:
    """Private estimate of the number of records from released marginals (no extra budget).

    The inverse-variance weighted mean of the measurements' sums (sum(y) estimates N with
    variance sigma^2 n_r), at least 1, and 1 with no measurement: mbi's minimum-variance unbiased
    total.
    """
    return float(estimation.minimum_variance_unbiased_total(
        loss_measurements(measurements, "inverse-variance")))


@in_float64
def model_marginals(model: mbi.MarkovRandomField,
                    cliques: Iterable[Clique]) -> dict[Clique, np.ndarray]:
    """The model's marginals (counts) on many attribute sets at once, in numpy.

    The model is calibrated once on its junction tree; a set inside a maximal clique is a sum of
    that clique's table, and any other set is read off the smallest subtree that covers it, as the
    root clique's table times the conditional tables mu_C / mu_(C ∩ parent) of the others, summed
    out with one ``einsum``. This gives exact marginals without compiling a JAX program per set
    (calling ``model.project`` per candidate does, and stalls AIM for minutes).
    """
    tree = _CalibratedTree(model)
    return {tuple(c): tree.marginal(tuple(c)) for c in cliques}


class _CalibratedTree:
    def __init__(self, model: mbi.MarkovRandomField) -> None:
        potentials = model.potentials
        tree = JunctionTree(potentials.domain, potentials.cliques, model.constraints)
        self.tree, self.elimination_order = tree.graph, tree.elimination_order
        self.axes = {c: tuple(c) for c in tree.maximal}
        self.tables = tree.calibrate(  # in NumPy, as the fit itself: no JAX program to compile
            {c: np.asarray(potentials[c].values, dtype=np.float64) for c in potentials.cliques},
            float(model.total))
        self.by_size = sorted(tree.maximal, key=lambda c: self.tables[c].size)
        self.labels = {a: i for i, a in enumerate(potentials.domain.attributes)}

    def marginal(self, clique: Clique) -> np.ndarray:
        for node in self.by_size:
            if set(clique) <= set(self.axes[node]):
                return sum_to(self.tables[node], self.axes[node], clique)
        return self._from_subtree(clique)

    def _from_subtree(self, clique: Clique) -> np.ndarray:
        """Exact marginal of a set no maximal clique holds (the tree may be a forest)."""
        parts = []
        for component in nx.connected_components(self.tree):
            inside = tuple(a for a in clique if any(a in self.axes[n] for n in component))
            if inside:
                parts.append(self._within_component(inside))
        # attributes in different components are independent: product of the parts / total^(k-1)
        total = float(next(iter(self.tables.values())).sum())
        joint: np.ndarray = np.array(total)
        axes: Clique = ()
        for part, inside in parts:
            joint, axes = np.multiply.outer(joint, part) / total, axes + inside
        return np.transpose(joint, [axes.index(a) for a in clique])

    def _within_component(self, clique: Clique) -> tuple[np.ndarray, Clique]:
        root = next(n for n in self.by_size if clique[0] in self.axes[n])
        if set(clique) <= set(self.axes[root]):
            return sum_to(self.tables[root], self.axes[root], clique), clique
        distance = nx.single_source_shortest_path_length(self.tree, root)
        paths = nx.single_source_shortest_path(self.tree, root)
        nodes = {root}
        for attribute in clique[1:]:
            holders = [n for n in distance if attribute in self.axes[n]]
            nodes.update(paths[min(holders, key=distance.__getitem__)])
        operands: list[Any] = [self.tables[root], [self.labels[a] for a in self.axes[root]]]
        for node in sorted(nodes - {root}):  # sorted: same summation order in every process
            parent = paths[node][-2]
            separator = _separator(self.axes[parent], self.axes[node])
            table, axes = self.tables[node], self.axes[node]
            below = broadcast_to(sum_to(table, axes, separator), separator, axes)
            conditional = np.divide(table, below, out=np.zeros_like(table), where=below > 0)
            operands += [conditional, [self.labels[a] for a in axes]]
        labels = [self.labels[a] for a in clique]
        return np.einsum(*operands, labels, optimize="greedy"), clique


def _separator(sender: Clique, receiver: Clique) -> Clique:
    """The attributes two cliques share, in ``receiver``'s order."""
    return tuple(a for a in receiver if a in sender)


@in_float64
def synthetic_dataset(model: mbi.MarkovRandomField, domain: Domain, rng: np.random.Generator,
                      rows: int | None = None) -> Dataset:
    """Records drawn from ``model`` by mbi's randomized rounding, seeded from ``rng``.

    The records mbi's ``synthetic_data`` draws after ``np.random.seed(rng.integers(2**32))``,
    from a private generator (no global state in or out) and NumPy marginals (nothing compiled).
    Structural zeros are respected: their sets are cliques of the junction tree sampled from.
    ``rows`` defaults to the model's total.
    """
    tree = _CalibratedTree(model)
    random = np.random.RandomState(int(rng.integers(2**32)))
    records = rounded_records(tree.marginal, list(tree.tree.nodes), tree.elimination_order,
                              dict(zip(model.domain.attributes, model.domain.shape, strict=True)),
                              max(1, int(rows or model.total)), random)
    frame = pd.DataFrame({a: np.asarray(records[a], dtype=np.int64) for a in domain.attributes})
    return Dataset(frame, domain, source="synthetic")


def downward_closure(cliques: Iterable[Clique]) -> list[Clique]:
    """Every non-empty subset of every clique, attributes in the clique's order, smallest first."""
    closed = {sub for c in cliques for k in range(1, len(c) + 1)
              for sub in itertools.combinations(c, k)}
    return sorted(closed, key=lambda c: (len(c), c))
