"""Class-conditional queries on mixed-type data (RAP++, Vietri et al. 2022, Section 5.1), in JAX.

Records are read as rows of a one-hot layout (:class:`OneHotLayout`): one block of indicator
coordinates per categorical attribute, then one coordinate per numerical attribute in [0, 1]. On
real records a block is one-hot; on RAP++'s relaxed rows it is a point of the simplex. Every
query below is a *vector* query: its answer has one entry per value of a label attribute, the
fraction of records that satisfy the query's condition and carry that label value (padded with
zeros to the largest label size). The same functions give

* the exact answers (``sigma=None``): hard thresholds, on real records or relaxed rows, and
* the differentiable answers (``sigma`` > 0): each threshold 1{t >= 0} replaced by the tempered
  sigmoid 1 / (1 + exp(-sigma t)) (the paper's Definitions 11 and 12).

Three classes:

* :class:`ConditionalMarginals` (CM): the marginal tables of (feature a, feature b, label), each
  table one query; the product of the blocks' coordinates is the relaxed answer (Definition 10),
  with no sigmoid.
* :class:`LinearThresholds` (LT, Definition 4): 1{<theta, x_R> <= tau} x 1{label = c}, with
  theta ~ N(0, I / |R|), tau ~ N(0, 1) and a uniform label (Section 5.1; the paper divides by
  sqrt(d), the authors' code by sqrt(|R|), which keeps <theta, x> of unit scale: we follow the
  code). The authors' code counts the other side, <theta, x> > tau (``direction=">"``).
* :class:`MixedPrefixes` (MM, Definition 3 with two numerical attributes): 1{x_a <= t_a} x
  1{x_b <= t_b} x 1{label = c}, a, b distinct and t ~ U[0, 1]^2; the paper evaluates on them.

LT and MM queries are drawn from ``jax.random.fold_in(key, i)`` for query i, so any subset is
regenerated on demand and 200,000 queries are never stored; answers are computed in chunks.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from collections.abc import Sequence
from typing import Literal

import jax
import jax.numpy as jnp
import numpy as np

from reprolib.data import MixedDataset, MixedDomain

Direction = Literal["<=", ">"]
DIRECTIONS: tuple[Direction, ...] = ("<=", ">")
CHUNK = 4096
"""Queries per compiled evaluation (memory only: rows x CHUNK floats per label)."""


@dataclasses.dataclass(frozen=True)
class OneHotLayout:
    """Where each attribute lives in a row: categorical blocks, then the numerical coordinates.

    Attributes:
        domain: the mixed domain.
        labels: the label attributes (categorical); queries are conditional on one of them.
    """

    domain: MixedDomain
    labels: tuple[str, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "labels", tuple(self.labels))
        unknown = [a for a in self.labels if a not in self.domain.categorical]
        if unknown or not self.labels:
            raise ValueError(f"labels must be categorical attributes of the domain "
                             f"({list(self.domain.categorical.attributes)}); got {list(self.labels)}")

    @functools.cached_property
    def offsets(self) -> dict[str, int]:
        """The first coordinate of every attribute (a categorical block or a number)."""
        starts = itertools.accumulate(self.domain.categorical.sizes, initial=0)
        out = dict(zip(self.domain.categorical.attributes, starts, strict=False))
        first = sum(self.domain.categorical.sizes)
        out.update({a: first + j for j, a in enumerate(self.domain.numerical)})
        return out

    @property
    def categorical_width(self) -> int:
        """Coordinates taken by the categorical blocks."""
        return sum(self.domain.categorical.sizes)

    @property
    def width(self) -> int:
        """Coordinates per row."""
        return self.categorical_width + len(self.domain.numerical)

    @property
    def label_width(self) -> int:
        """The largest label size: the length of every answer vector."""
        return max(self.domain.categorical.size(a) for a in self.labels)

    @functools.cached_property
    def label_columns(self) -> np.ndarray:
        """(labels, label_width) coordinates of each label's values; -1 pads shorter labels."""
        out = np.full((len(self.labels), self.label_width), -1, dtype=np.int32)
        for i, label in enumerate(self.labels):
            size = self.domain.categorical.size(label)
            out[i, :size] = self.offsets[label] + np.arange(size)
        return out

    def blocks(self) -> tuple[tuple[int, int], ...]:
        """(start, stop) of every categorical block, in domain order."""
        return tuple((self.offsets[a], self.offsets[a] + s) for a, s in
                     zip(self.domain.categorical.attributes, self.domain.categorical.sizes,
                         strict=True))

    def encode(self, data: MixedDataset) -> np.ndarray:
        """Rows of ``data`` in this layout, float32 (records x width): one-hot blocks, numbers."""
        if data.domain != self.domain:
            raise ValueError(f"the data's domain {data.domain} is not the layout's {self.domain}")
        rows = np.zeros((data.records, self.width), dtype=np.float32)
        for attribute in self.domain.categorical.attributes:
            rows[np.arange(data.records), self.offsets[attribute] + data.column(attribute)] = 1.0
        rows[:, self.categorical_width:] = data.numerical
        return rows


def _label_blocks(rows: jax.Array, label_columns: jax.Array) -> jax.Array:
    """(labels, rows, label_width): each label's block, zero where the label is shorter."""
    gathered = rows[:, jnp.maximum(label_columns, 0)]  # rows x labels x width
    return jnp.where(label_columns[None] >= 0, gathered, 0.0).transpose(1, 0, 2)


def _conditional_answers(condition: jax.Array, labels: jax.Array, blocks: jax.Array) -> jax.Array:
    """(queries, label_width): mean over rows of condition[row, q] x blocks[labels[q], row, :]."""
    per_label = jnp.einsum("nq,lnc->lqc", condition, blocks) / condition.shape[0]
    return jnp.take_along_axis(per_label, labels[None, :, None], axis=0)[0]


def _chunked(function, count: int, chunk: int = CHUNK) -> np.ndarray:
    """``function(indices)`` over 0..count-1 in chunks of ``chunk`` (the last padded), stacked."""
    pieces = []
    for start in range(0, count, chunk):
        indices = np.arange(start, start + chunk) % max(count, 1)
        pieces.append(np.asarray(function(jnp.asarray(indices, dtype=jnp.int32)))
                      [:min(chunk, count - start)])
    return np.concatenate(pieces) if pieces else np.zeros((0,))


def threshold_answers(rows: jax.Array, layout: OneHotLayout, labels: jax.Array, theta: jax.Array,
                      tau: jax.Array, direction: Direction, sigma: float | jax.Array | None = None
                      ) -> jax.Array:
    """(queries, label_width) answers of the linear thresholds (labels, theta, tau) on ``rows``:
    the mean of 1{<theta, x_R> <= tau} (``direction="<="``; ``">"``: > tau) times the label
    block, or with the indicator replaced by the tempered sigmoid of slope ``sigma``.
    """
    margin = rows[:, layout.categorical_width:] @ theta.T - tau[None]
    if sigma is None:
        condition = (margin <= 0 if direction == "<=" else margin > 0).astype(rows.dtype)
    else:
        condition = jax.nn.sigmoid(sigma * (-margin if direction == "<=" else margin))
    return _conditional_answers(condition, labels,
                                _label_blocks(rows, jnp.asarray(layout.label_columns)))


@dataclasses.dataclass(frozen=True)
class LinearThresholds:
    """Class-conditional linear threshold queries (LT), drawn from a key.

    Attributes:
        layout: the row layout; the queries read its numerical coordinates and labels.
        count: number of queries (the paper: 200,000).
        seed: the key's seed; query i uses ``fold_in(key(seed), i)``.
        direction: ``"<="`` counts <theta, x> <= tau (Definition 4), ``">"`` the other side
            (the authors' code).
    """

    layout: OneHotLayout
    count: int
    seed: int
    direction: Direction = "<="

    def __post_init__(self) -> None:
        _check_queries(self.layout, self.count, self.direction, minimum_numerical=1)

    def parameters(self, indices: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
        """(label position, theta (k x |R|), tau) of queries ``indices``."""
        n_numerical = len(self.layout.domain.numerical)
        root = jax.random.key(self.seed)

        def draw(i):
            k_label, k_theta, k_tau = jax.random.split(jax.random.fold_in(root, i), 3)
            return (jax.random.randint(k_label, (), 0, len(self.layout.labels)),
                    jax.random.normal(k_theta, (n_numerical,)) / math.sqrt(n_numerical),
                    jax.random.normal(k_tau, ()))
        return jax.vmap(draw)(indices)

    def answers(self, rows: jax.Array, indices: jax.Array, sigma: float | jax.Array | None = None
                ) -> jax.Array:
        """(len(indices), label_width) answers on ``rows`` (exact when ``sigma`` is None)."""
        labels, theta, tau = self.parameters(indices)
        return threshold_answers(rows, self.layout, labels, theta, tau, self.direction, sigma)

    def all_answers(self, rows: np.ndarray | jax.Array) -> np.ndarray:
        """Exact answers of every query on ``rows``, (count, label_width), computed in chunks."""
        rows = jnp.asarray(rows)
        return _chunked(functools.partial(_compiled_answers, self, rows), self.count)

    def label_sizes(self, indices: jax.Array) -> jax.Array:
        """Answer entries that are real (not padding), per query."""
        sizes = jnp.asarray([self.layout.domain.categorical.size(a) for a in self.layout.labels])
        return sizes[self.parameters(indices)[0]]


@dataclasses.dataclass(frozen=True)
class MixedPrefixes:
    """Class-conditional 3-way mixed marginals with two numerical attributes (MM), from a key.

    Attributes:
        layout: the row layout (at least two numerical attributes).
        count: number of queries (the paper: 200,000; the authors' evaluation: 20,000).
        seed: query i uses ``fold_in(key(seed), i)``.
        direction: ``"<="`` counts x_a <= t_a and x_b <= t_b (Definition 3); ``">"`` both
            upper tails (the authors' code).
    """

    layout: OneHotLayout
    count: int
    seed: int
    direction: Direction = "<="

    def __post_init__(self) -> None:
        _check_queries(self.layout, self.count, self.direction, minimum_numerical=2)

    def parameters(self, indices: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
        """(label position, the two numerical positions (k x 2), thresholds (k x 2))."""
        n_numerical = len(self.layout.domain.numerical)
        root = jax.random.key(self.seed)

        def draw(i):
            k_label, k_columns, k_tau = jax.random.split(jax.random.fold_in(root, i), 3)
            return (jax.random.randint(k_label, (), 0, len(self.layout.labels)),
                    jax.random.choice(k_columns, n_numerical, (2,), replace=False),
                    jax.random.uniform(k_tau, (2,)))
        return jax.vmap(draw)(indices)

    def answers(self, rows: jax.Array, indices: jax.Array) -> jax.Array:
        """Exact (len(indices), label_width) answers on ``rows``."""
        labels, columns, tau = self.parameters(indices)
        values = rows[:, self.layout.categorical_width:][:, columns]  # rows x k x 2
        inside = values <= tau[None] if self.direction == "<=" else values > tau[None]
        condition = jnp.all(inside, axis=2).astype(rows.dtype)
        return _conditional_answers(condition, labels,
                                    _label_blocks(rows, jnp.asarray(self.layout.label_columns)))

    def all_answers(self, rows: np.ndarray | jax.Array) -> np.ndarray:
        """Exact answers of every query on ``rows``, (count, label_width), in chunks."""
        rows = jnp.asarray(rows)
        return _chunked(functools.partial(_compiled_answers, self, rows), self.count)


@dataclasses.dataclass(frozen=True)
class ConditionalMarginals:
    """Class-conditional categorical marginals (CM): the tables (a, b, label), each one query.

    Every table is laid out on one padded grid, (P, P, W) with P the largest feature size and W
    the largest label size, and flattened: entry (i, j, c) of table (a, b, label) is the
    fraction of records with a = i, b = j and label = c, and padding entries are 0
    (:meth:`valid` marks the real ones). So a set of tables is one array, and the relaxed
    answer is one batched outer product of gathered blocks (dense, fast to differentiate).

    Attributes:
        layout: the row layout.
        tables: (a, b, label) triples, a and b categorical and not labels.
    """

    layout: OneHotLayout
    tables: tuple[tuple[str, str, str], ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "tables", tuple(tuple(t) for t in self.tables))
        categorical = self.layout.domain.categorical
        for a, b, label in self.tables:
            if label not in self.layout.labels or a not in categorical or b not in categorical:
                raise ValueError(f"table {(a, b, label)} must name two categorical attributes "
                                 f"and a label ({list(self.layout.labels)})")
        if not self.tables:
            raise ValueError("at least one table is needed")

    @classmethod
    def all_pairs(cls, layout: OneHotLayout, features: Sequence[str] | None = None
                  ) -> ConditionalMarginals:
        """Every pair of non-label categorical ``features`` (default: all) with every label."""
        if features is None:
            features = [a for a in layout.domain.categorical.attributes if a not in layout.labels]
        return cls(layout, tuple((a, b, label) for a, b in itertools.combinations(features, 2)
                                 for label in layout.labels))

    @property
    def count(self) -> int:
        """Number of tables."""
        return len(self.tables)

    @functools.cached_property
    def feature_width(self) -> int:
        """P: the largest size of a table's first two attributes."""
        size = self.layout.domain.categorical.size
        return max(max(size(a), size(b)) for a, b, _ in self.tables)

    @property
    def width(self) -> int:
        """Entries of a flattened table: P * P * W."""
        return self.feature_width ** 2 * self.layout.label_width

    @functools.cached_property
    def feature_columns(self) -> np.ndarray:
        """(tables, 2, P) int32 row coordinates of the blocks of a and b; -1 pads."""
        out = np.full((self.count, 2, self.feature_width), -1, np.int32)
        for i, table in enumerate(self.tables):
            for j, attribute in enumerate(table[:2]):
                size = self.layout.domain.categorical.size(attribute)
                out[i, j, :size] = self.layout.offsets[attribute] + np.arange(size)
        return out

    @functools.cached_property
    def label_columns(self) -> np.ndarray:
        """(tables, W) int32 row coordinates of the label's block; -1 pads."""
        rows = {label: i for i, label in enumerate(self.layout.labels)}
        return self.layout.label_columns[[rows[label] for _, _, label in self.tables]]

    @functools.cached_property
    def valid(self) -> np.ndarray:
        """(tables, P * P * W) True on the real entries of each flattened table."""
        a, b, c = (self.feature_columns[:, 0] >= 0, self.feature_columns[:, 1] >= 0,
                   self.label_columns >= 0)
        return (a[:, :, None, None] & b[:, None, :, None] & c[:, None, None, :]).reshape(
            self.count, -1)

    def table_sizes(self) -> np.ndarray:
        """Number of real cells of each table."""
        return self.valid.sum(axis=1)

    def answers(self, rows: jax.Array, indices: jax.Array) -> jax.Array:
        """(len(indices), P * P * W) answers on ``rows``: the mean over rows of the outer
        product of the three blocks (the marginal on one-hot rows), 0 on padding.
        """
        return table_answers(rows, jnp.asarray(self.feature_columns)[indices],
                             jnp.asarray(self.label_columns)[indices])

    def all_answers(self, rows: np.ndarray | jax.Array) -> np.ndarray:
        """Answers of every table on ``rows``, (tables, P * P * W), in chunks of tables."""
        rows = jnp.asarray(rows)
        chunk = max(1, CHUNK * 64 // self.width)
        return _chunked(functools.partial(_compiled_answers, self, rows), self.count, chunk)


@functools.partial(jax.jit, static_argnums=0)
def _compiled_answers(queries: LinearThresholds | MixedPrefixes | ConditionalMarginals,
                      rows: jax.Array, indices: jax.Array) -> jax.Array:
    """``queries.answers(rows, indices)``, compiled once per query set and shape."""
    return queries.answers(rows, indices)


def table_answers(rows: jax.Array, feature_columns: jax.Array, label_columns: jax.Array
                  ) -> jax.Array:
    """(tables, P * P * W) mean over rows of the outer product of each table's three blocks,
    given their row coordinates (``feature_columns`` (tables, 2, P), ``label_columns`` (tables,
    W), -1 on padding, which contributes 0).
    """
    def block(columns):
        return jnp.where(columns[None] >= 0, rows[:, jnp.maximum(columns, 0)], 0.0)
    product = jnp.einsum("nka,nkb,nkc->kabc", block(feature_columns[:, 0]),
                         block(feature_columns[:, 1]), block(label_columns))
    return product.reshape(len(label_columns), -1) / rows.shape[0]


def _check_queries(layout: OneHotLayout, count: int, direction: str, *,
                   minimum_numerical: int) -> None:
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
        raise ValueError(f"count must be a positive integer, got {count!r}")
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
    if len(layout.domain.numerical) < minimum_numerical:
        raise ValueError(f"these queries need at least {minimum_numerical} numerical "
                         f"attribute(s); the domain has {list(layout.domain.numerical)}")
