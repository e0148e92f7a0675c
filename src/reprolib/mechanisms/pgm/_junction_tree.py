"""mbi's marginal oracle and L2 loss for Private-PGM in NumPy, planned once per clique structure.

For a model of a few thousand cells, a compiled JAX oracle runs in microseconds but takes a
second or more to compile; in NumPy a call costs a few microseconds per array operation and
nothing to prepare. :class:`JunctionTree` computes what mbi's ``message_passing_hugin`` computes:
HUGIN message passing in log space on mbi's junction tree, each clique's belief normalised to the
total; under structural zeros (mbi ``Constraint``s, folded in as 0 / -inf factors) what its
``message_passing_shafer_shenoy`` computes, since HUGIN's division would take -inf from -inf.
:class:`NumpyModel` adds the loss sum_i 0.5 ||mu_(c_i) - y_i||^2 / stddev_i^2 of
``marginal_loss.from_linear_measurements`` and its gradient in mu, each term read off the clique
mbi's ``CliqueVector.project`` reads it from, so that the potentials, not only the distribution,
move as mbi's do. Potentials, marginals and gradients are flat vectors: gathering the potentials
into the maximal cliques, summing the marginals out of them and reading every measurement's
cells are one sparse 0/1 product each, so a step costs a handful of array operations per
message of the tree and none per clique or measurement.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import mbi
import numpy as np
import scipy.sparse
from mbi import junction_tree
from mbi.clique_utils import reverse_clique_mapping

from reprolib.queries import Clique


class _Frame:
    """Moves a table whose axes are ``source`` into the axes of ``target`` (a superset of
    ``source``): transposed to ``target``'s order, with unit axes to broadcast.
    """

    def __init__(self, domain: mbi.Domain, source: Clique, target: Clique) -> None:
        self.perm = tuple(source.index(a) for a in target if a in source)
        self.shape = tuple(domain[a] if a in source else 1 for a in target)

    def __call__(self, table: np.ndarray) -> np.ndarray:
        return np.transpose(table, self.perm).reshape(self.shape)


class _Layout:
    """Tables on ``cliques`` laid end to end in one flat vector (each raveled in C order)."""

    def __init__(self, domain: mbi.Domain, cliques: Sequence[Clique]) -> None:
        self.cliques = tuple(cliques)
        self.shapes = [domain.project(c).shape for c in self.cliques]
        sizes = [int(np.prod(shape)) for shape in self.shapes]
        self.offsets = dict(zip(self.cliques, np.cumsum([0, *sizes[:-1]]).tolist(), strict=True))
        self.size = sum(sizes)
        self._splits = np.cumsum(sizes)[:-1]

    def flatten(self, tables: dict[Clique, np.ndarray]) -> np.ndarray:
        """One vector of the tables, in ``cliques`` order."""
        return np.concatenate([np.ravel(tables[c]) for c in self.cliques]) if self.cliques \
            else np.zeros(0)

    def tables(self, flat: np.ndarray) -> dict[Clique, np.ndarray]:
        """The tables of a flat vector (views)."""
        return {c: part.reshape(shape) for c, shape, part in
                zip(self.cliques, self.shapes, np.split(flat, self._splits), strict=True)}


def _projection(domain: mbi.Domain, blocks: Sequence[tuple[int, Clique, int, Clique]],
                shape: tuple[int, int]) -> scipy.sparse.csr_matrix:
    """The 0/1 matrix that sums tables down: each block (row offset, target, column offset,
    source) adds every cell of the table ``source`` (at the column offset) into the cell of its
    subset ``target`` (at the row offset, in the target's own axis order) that it projects to.
    Transposed, it spreads each target back over its source's cells.
    """
    rows, columns = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.int64)]
    for row_offset, target, column_offset, source in blocks:
        source_shape, target_shape = domain.project(source).shape, domain.project(target).shape
        # each source cell's target cell: the target's cell numbers broadcast over the source
        numbers = np.arange(int(np.prod(target_shape))).reshape(target_shape)
        spread = np.broadcast_to(_Frame(domain, target, source)(numbers), source_shape)
        rows.append(row_offset + spread.ravel())
        columns.append(column_offset + np.arange(spread.size))
    row, column = np.concatenate(rows), np.concatenate(columns)
    return scipy.sparse.csr_matrix((np.ones(len(row)), (row, column)), shape=shape)


def _parent(clique: Clique, cliques: Sequence[Clique], domain: mbi.Domain) -> Clique:
    """The clique mbi's ``CliqueVector.project`` reads ``clique`` from: itself, or the smallest
    (first on ties) of ``cliques`` that contains it.
    """
    if clique in cliques:
        return clique
    return min((c for c in cliques if set(clique) <= set(c)), key=domain.size)


def _logsumexp(table: np.ndarray, axes: tuple[int, ...], *, zeros: bool = False) -> np.ndarray:
    """Log sum exp over ``axes``, kept as unit axes; -inf where every summed entry is -inf, which
    only structural zeros (``zeros=True``) produce.

    Not scipy's ``logsumexp``: on these small tables, called once per message per step, its
    checks cost about ten times the arithmetic (58 us against 6 us per call on a 2x2x2 table).
    """
    peak = table.max(axis=axes, keepdims=True)
    if not zeros:
        return np.log(np.exp(table - peak).sum(axis=axes, keepdims=True)) + peak
    peak = np.where(np.isneginf(peak), 0.0, peak)
    with np.errstate(divide="ignore"):  # log 0 = -inf: a cell no record can take
        return np.log(np.exp(table - peak).sum(axis=axes, keepdims=True)) + peak


def expand_potentials(domain: mbi.Domain, potentials: dict[Clique, np.ndarray],
                      cliques: Sequence[Clique]) -> dict[Clique, np.ndarray]:
    """Mbi's ``CliqueVector.expand``: each old potential added to the smallest new clique that
    contains it (the distribution is unchanged when every old clique has one), zeros elsewhere.
    """
    mapping = reverse_clique_mapping(cliques, list(potentials), domain=domain)
    expanded = {}
    for clique in cliques:
        table = np.zeros(domain.project(clique).shape)
        for old in mapping[clique]:
            table = table + _Frame(domain, old, clique)(potentials[old])
        expanded[clique] = table
    return expanded


def combine_potentials(domain: mbi.Domain, potentials: dict[Clique, np.ndarray],
                       cliques: Sequence[Clique]) -> dict[Clique, np.ndarray]:
    """The 2022 library's ``CliqueVector.combine``: each old potential added whole to the first
    new clique that contains it, and dropped when none does; zeros elsewhere.
    """
    combined = {clique: np.zeros(domain.project(clique).shape) for clique in cliques}
    for old, table in potentials.items():
        home = next((c for c in cliques if set(old) <= set(c)), None)
        if home is not None:
            combined[home] = combined[home] + _Frame(domain, old, home)(table)
    return combined


class JunctionTree:
    """mbi's junction tree of ``cliques`` and the ``constraints``' sets, with message passing on it
    planned in NumPy: HUGIN's, or Shafer-Shenoy's under constraints (as mbi's CPU oracles).

    Potentials and marginals on ``cliques`` travel as flat vectors (``layout``); the maximal
    cliques' tables are gathered from the potentials, and the marginals summed out of them, by
    one sparse product each. Each constraint's 0 / -inf factor is added, fixed, to the smallest
    maximal clique holding its set, as mbi's oracles fold it in.

    Attributes:
        graph: the tree (networkx), whose nodes are the maximal cliques, in domain order.
        elimination_order: the variable elimination order the tree was built from.
        maximal: the maximal cliques.
        cells: their total number of cells (the size of one oracle call).
        layout: how tables on ``cliques`` lie in a flat vector.
    """

    def __init__(self, domain: mbi.Domain, cliques: Sequence[Clique],
                 constraints: Sequence[mbi.Constraint] = ()) -> None:
        self.cliques, self._domain = tuple(cliques), domain
        zero_sets = [domain.canonical(c.clique) for c in constraints]
        self.graph, self.elimination_order = junction_tree.make_junction_tree(
            domain, [*self.cliques, *(z for z in zero_sets if z not in self.cliques)])
        self.maximal = junction_tree.maximal_cliques(self.graph)
        self.layout = _Layout(domain, self.cliques)
        self._maximal = _Layout(domain, self.maximal)
        self.cells = self._maximal.size
        homes = reverse_clique_mapping(self.maximal, self.cliques, domain=domain)
        shape = (self.layout.size, self._maximal.size)
        self._gather = _projection(domain, [
            (self.layout.offsets[c], c, self._maximal.offsets[m], m)
            for m in self.maximal for c in homes[m]], shape).T.tocsr()
        self._messages = []
        for sender, receiver in junction_tree.message_passing_order(self.graph):
            separator = tuple(a for a in sender if a in receiver)
            eliminated = tuple(i for i, a in enumerate(sender) if a not in receiver)
            self._messages.append((sender, receiver, eliminated, domain.project(separator).shape,
                                   _Frame(domain, separator, receiver)))
        self._zeros = self._fold(constraints) if constraints else None

    def _fold(self, constraints: Sequence[mbi.Constraint]) -> np.ndarray:
        """The constraints' log factors (0 allowed, -inf forbidden) on the maximal cliques, flat."""
        folded = {m: np.zeros(self._domain.project(m).shape) for m in self.maximal}
        for constraint in constraints:
            factor = constraint.potential
            home = _parent(self._domain.canonical(constraint.clique), self.maximal, self._domain)
            folded[home] = folded[home] + _Frame(self._domain, tuple(factor.domain.attributes),
                                                 home)(np.asarray(factor.values))
        return self._maximal.flatten(folded)

    def calibrate(self, theta: dict[Clique, np.ndarray], total: float
                  ) -> dict[Clique, np.ndarray]:
        """The model's marginal (counts summing to ``total``) on every maximal clique, from the
        log-potentials ``theta`` on ``cliques``.
        """
        return self._maximal.tables(self._calibrated(self.layout.flatten(theta), total))

    def marginals(self, theta: np.ndarray, total: float) -> np.ndarray:
        """Mu = M(theta): the marginals on ``cliques`` (mbi's oracle output), both flat."""
        return self._contract @ self._calibrated(theta, total)

    @functools.cached_property
    def _contract(self) -> scipy.sparse.csr_matrix:
        """Sums each maximal clique's table down to the cliques read from it."""
        return _projection(self._domain, [
            (self.layout.offsets[c], c, self._maximal.offsets[m], m)
            for c in self.cliques for m in [_parent(c, self.maximal, self._domain)]],
            (self.layout.size, self._maximal.size))

    def _calibrated(self, theta: np.ndarray, total: float) -> np.ndarray:
        """The calibrated maximal tables, flat, from flat log-potentials."""
        zeros = self._zeros is not None
        initial = self._maximal.tables(self._gather @ theta + self._zeros if zeros
                                       else self._gather @ theta)
        beliefs = self._shafer_shenoy(initial) if zeros else self._hugin(initial)
        log_total = np.log(total)
        return self._maximal.flatten({
            clique: np.exp(belief + log_total
                           - _logsumexp(belief, tuple(range(belief.ndim)), zeros=zeros))
            for clique, belief in beliefs.items()})

    def _hugin(self, beliefs: dict[Clique, np.ndarray]) -> dict[Clique, np.ndarray]:
        """HUGIN: each message is added to the receiver's belief, and divided out (subtracted in
        log space) of what the receiver later sends back. Finite tables only.
        """
        sent: dict[tuple[Clique, Clique], np.ndarray] = {}
        for sender, receiver, eliminated, separator_shape, frame in self._messages:
            tau = beliefs[sender]
            if (receiver, sender) in sent:
                tau = tau - sent[(receiver, sender)]
            message = frame(_logsumexp(tau, eliminated).reshape(separator_shape))
            sent[(sender, receiver)] = message
            beliefs[receiver] = beliefs[receiver] + message
        return beliefs

    def _shafer_shenoy(self, initial: dict[Clique, np.ndarray]) -> dict[Clique, np.ndarray]:
        """Shafer-Shenoy: a message sums the sender's initial table and what every other
        neighbour sent it; nothing is divided out, so -inf tables are safe. The collect-then-
        distribute order sends every message a sender needs before it is needed.
        """
        received: dict[Clique, list[tuple[Clique, np.ndarray]]] = {c: [] for c in initial}
        for sender, receiver, eliminated, separator_shape, frame in self._messages:
            tau = initial[sender]
            for neighbour, message in received[sender]:
                if neighbour != receiver:
                    tau = tau + message
            message = _logsumexp(tau, eliminated, zeros=True).reshape(separator_shape)
            received[receiver].append((sender, frame(message)))
        beliefs = {}
        for clique, table in initial.items():
            for _, message in received[clique]:
                table = table + message
            beliefs[clique] = table
        return beliefs


class NumpyModel:
    """Marginals, loss and gradient of a Private-PGM fit at any potentials, in NumPy, on flat
    vectors laid out by ``tree.layout``.

    Attributes:
        tree: the junction tree of the potentials' cliques.
    """

    def __init__(self, domain: mbi.Domain, cliques: Sequence[Clique],
                 measurements: Sequence[mbi.LinearMeasurement], total: float,
                 constraints: Sequence[mbi.Constraint] = ()) -> None:
        self.tree, self.total = JunctionTree(domain, cliques, constraints), float(total)
        blocks, offset, observed, precision = [], 0, [], []
        for m in measurements:
            size = domain.size(m.clique)
            parent = _parent(m.clique, self.tree.cliques, domain)
            blocks.append((offset, m.clique, self.tree.layout.offsets[parent], parent))
            observed.append(np.ravel(np.asarray(m.noisy_measurement, dtype=np.float64)))
            precision.append(np.full(size, max(float(m.stddev), 1e-12) ** -1.0))
            offset += size
        self._read = _projection(domain, blocks, (offset, self.tree.layout.size))
        self._observed = np.concatenate(observed) if observed else np.zeros(0)
        self._weight = np.concatenate(precision) if precision else np.zeros(0)

    def flatten(self, tables: dict[Clique, np.ndarray]) -> np.ndarray:
        """Tables on the potentials' cliques as one flat vector."""
        return self.tree.layout.flatten(tables)

    def tables(self, flat: np.ndarray) -> dict[Clique, np.ndarray]:
        """A flat vector as tables on the potentials' cliques."""
        return self.tree.layout.tables(flat)

    def marginals(self, theta: np.ndarray) -> np.ndarray:
        """Mu = M(theta) on the potentials' cliques, each summing to the total (flat)."""
        return self.tree.marginals(theta, self.total)

    def loss_and_gradient(self, mu: np.ndarray) -> tuple[float, np.ndarray]:
        """sum_i 0.5 ||mu_(c_i) - y_i||^2 / stddev_i^2 and its gradient in mu (flat)."""
        residual = (self._read @ mu - self._observed) * self._weight
        return 0.5 * float(residual @ residual), self._read.T @ (residual * self._weight)
