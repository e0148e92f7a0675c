"""mbi's marginal oracle and L2 loss for Private-PGM in NumPy, planned once per clique structure.

For a model of a few thousand cells, a compiled JAX oracle runs in microseconds but takes a
second or more to compile; in NumPy a call costs a few microseconds per array operation and
nothing to prepare. :class:`JunctionTree` computes what mbi's ``message_passing_hugin`` computes:
HUGIN message passing in log space on mbi's junction tree, each clique's belief normalised to the
total. :class:`NumpyModel` adds the loss sum_i 0.5 ||mu_(c_i) - y_i||^2 / stddev_i^2 of
``marginal_loss.from_linear_measurements`` and its gradient in mu, each term read off the clique
mbi's ``CliqueVector.project`` reads it from, so that the potentials, not only the distribution,
move as mbi's do.
"""

from __future__ import annotations

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


class _Sum:
    """Sums a table with axes ``source`` down to ``target`` (a subset), in ``target``'s order."""

    def __init__(self, source: Clique, target: Clique) -> None:
        self.axes = tuple(i for i, a in enumerate(source) if a not in target)
        kept = [a for a in source if a in target]
        self.perm = tuple(kept.index(a) for a in target)

    def __call__(self, table: np.ndarray) -> np.ndarray:
        return np.transpose(table.sum(axis=self.axes) if self.axes else table, self.perm)


class _Contraction:
    """Sums a table with axes ``parent`` down to each of ``cliques`` (subsets of it, in their own
    axis order) in one sparse product: row block i of the matrix adds up, for every cell of
    clique i, the parent's cells that project to it.
    """

    def __init__(self, domain: mbi.Domain, parent: Clique, cliques: Sequence[Clique]) -> None:
        self.parent, self.cliques = parent, tuple(cliques)
        shape = domain.project(parent).shape
        cells = np.indices(shape).reshape(len(shape), -1)  # every parent cell's multi-index
        self.shapes = [domain.project(c).shape for c in self.cliques]
        rows, offset = [], 0
        for clique, target in zip(self.cliques, self.shapes, strict=True):
            index = cells[[parent.index(a) for a in clique]]
            rows.append(offset + np.ravel_multi_index(tuple(index), target))
            offset += int(np.prod(target))
        self.splits = np.cumsum([int(np.prod(t)) for t in self.shapes])[:-1]
        size = cells.shape[1]
        self.matrix = scipy.sparse.csr_matrix(
            (np.ones(size * len(rows)), (np.concatenate(rows), np.tile(np.arange(size),
                                                                      len(rows)))),
            shape=(offset, size))

    def __call__(self, table: np.ndarray) -> dict[Clique, np.ndarray]:
        flat = self.matrix @ table.ravel()
        return {clique: part.reshape(target) for clique, target, part in
                zip(self.cliques, self.shapes, np.split(flat, self.splits), strict=True)}


def _parent(clique: Clique, cliques: Sequence[Clique], domain: mbi.Domain) -> Clique:
    """The clique mbi's ``CliqueVector.project`` reads ``clique`` from: itself, or the smallest
    (first on ties) of ``cliques`` that contains it.
    """
    if clique in cliques:
        return clique
    return min((c for c in cliques if set(clique) <= set(c)), key=domain.size)


def _logsumexp(table: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """Log sum exp over ``axes``, kept as unit axes (finite tables: no structural zeros here).

    Not scipy's ``logsumexp``: on these small tables, called once per message per step, its
    checks cost about ten times the arithmetic (58 us against 6 us per call on a 2x2x2 table).
    """
    peak = table.max(axis=axes, keepdims=True)
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


class JunctionTree:
    """mbi's junction tree of ``cliques``, with HUGIN message passing on it planned in NumPy.

    Attributes:
        graph: the tree (networkx), whose nodes are the maximal cliques, in domain order.
        elimination_order: the variable elimination order the tree was built from.
        maximal: the maximal cliques.
        cells: their total number of cells (the size of one oracle call).
    """

    def __init__(self, domain: mbi.Domain, cliques: Sequence[Clique]) -> None:
        self.cliques = tuple(cliques)
        self.graph, self.elimination_order = junction_tree.make_junction_tree(domain, self.cliques)
        self.maximal = junction_tree.maximal_cliques(self.graph)
        self.cells = sum(domain.size(c) for c in self.maximal)
        homes = reverse_clique_mapping(self.maximal, self.cliques, domain=domain)
        self._gather = [(m, domain.project(m).shape, [(p, _Frame(domain, p, m)) for p in homes[m]])
                        for m in self.maximal]
        self._messages = []
        for sender, receiver in junction_tree.message_passing_order(self.graph):
            separator = tuple(a for a in sender if a in receiver)
            eliminated = tuple(i for i, a in enumerate(sender) if a not in receiver)
            self._messages.append((sender, receiver, eliminated, domain.project(separator).shape,
                                   _Frame(domain, separator, receiver)))
        children: dict[Clique, list[Clique]] = {m: [] for m in self.maximal}
        for clique in self.cliques:
            children[_parent(clique, self.maximal, domain)].append(clique)
        self._contract = [_Contraction(domain, m, cs) for m, cs in children.items() if cs]

    def calibrate(self, theta: dict[Clique, np.ndarray], total: float
                  ) -> dict[Clique, np.ndarray]:
        """The model's marginal (counts summing to ``total``) on every maximal clique, from the
        log-potentials ``theta`` on ``cliques``.
        """
        beliefs = {}
        for clique, shape, parts in self._gather:
            belief = np.zeros(shape)
            for part, frame in parts:
                belief = belief + frame(theta[part])
            beliefs[clique] = belief
        sent: dict[tuple[Clique, Clique], np.ndarray] = {}
        for sender, receiver, eliminated, separator_shape, frame in self._messages:
            tau = beliefs[sender]
            if (receiver, sender) in sent:  # HUGIN: divide out what the receiver sent before
                tau = tau - sent[(receiver, sender)]
            message = frame(_logsumexp(tau, eliminated).reshape(separator_shape))
            sent[(sender, receiver)] = message
            beliefs[receiver] = beliefs[receiver] + message
        log_total = np.log(total)
        return {clique: np.exp(belief + log_total - _logsumexp(belief, tuple(range(belief.ndim))))
                for clique, belief in beliefs.items()}

    def marginals(self, theta: dict[Clique, np.ndarray], total: float
                  ) -> dict[Clique, np.ndarray]:
        """Mu = M(theta): the marginals on ``cliques`` (mbi's oracle output)."""
        tables = self.calibrate(theta, total)
        out = {}
        for contraction in self._contract:
            out.update(contraction(tables[contraction.parent]))
        return {clique: out[clique] for clique in self.cliques}


class NumpyModel:
    """Marginals, loss and gradient of a Private-PGM fit at any potentials, in NumPy.

    Attributes:
        tree: the junction tree of the potentials' cliques.
    """

    def __init__(self, domain: mbi.Domain, cliques: Sequence[Clique],
                 measurements: Sequence[mbi.LinearMeasurement], total: float) -> None:
        self.tree, self.total = JunctionTree(domain, cliques), float(total)
        self._terms = []
        for m in measurements:
            parent = _parent(m.clique, self.tree.cliques, domain)
            self._terms.append((parent, _Sum(parent, m.clique), _Frame(domain, m.clique, parent),
                                np.ravel(np.asarray(m.noisy_measurement, dtype=np.float64)),
                                max(float(m.stddev), 1e-12), domain.project(m.clique).shape))

    def marginals(self, theta: dict[Clique, np.ndarray]) -> dict[Clique, np.ndarray]:
        """Mu = M(theta) on the potentials' cliques, each summing to the total."""
        return self.tree.marginals(theta, self.total)

    def loss_and_gradient(self, mu: dict[Clique, np.ndarray]
                          ) -> tuple[float, dict[Clique, np.ndarray]]:
        """sum_i 0.5 ||mu_(c_i) - y_i||^2 / stddev_i^2 and its gradient in mu."""
        loss = 0.0
        grad = {clique: np.zeros(table.shape) for clique, table in mu.items()}
        for parent, project, frame, observed, stddev, shape in self._terms:
            diff = (np.ravel(project(mu[parent])) - observed) / stddev
            loss += 0.5 * float(np.dot(diff, diff))
            grad[parent] += frame((diff / stddev).reshape(shape))
        return loss, grad
