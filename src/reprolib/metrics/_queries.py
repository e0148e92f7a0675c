"""PrivPGD's random query workloads and their error (paper, Section 4.1, Eq. 9).

Two frozen query sets, each drawn once from the real (private training) data with a fixed seed and
then shared by every method and run, as the authors' evaluation does (it pickles them per dataset):

* :class:`CountingQueries`: J 3-sparse counting (range) queries, count_j(D) = (1/n) sum_i
  1[x_i in A_j], A_j a box in embedding space on k random attributes, kept only if
  ``min_fraction <= count_j(D) <= max_fraction`` (rejection sampling, 5 % and 95 % in the paper);
* :class:`ThresholdingQueries`: J 3-sparse linear thresholding queries,
  thrs_j(D) = (1/n) sum_i 1[<Emb(x_i)_S, theta_j> + b_j > 0].

Errors (Eq. 9): :func:`absolute_query_error` is the numerator (1/J) sum_j |q_j(D_DP) - q_j(D)|
(Figure 3 plots only this); :func:`relative_query_error` divides it by (1/J) sum_j q_j(D).
Answers are fractions of records, so both errors are unitless and independent of n and m.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any, Protocol

import numpy as np

from reprolib.data import Dataset, Domain
from reprolib.data._embedding import bin_centres, require_domain, require_records

N_QUERIES = 200
"""J, the number of queries of each kind (paper, Section 4.1)."""
SPARSITY = 3
"""Attributes per query (3-sparse queries; paper, Section 4.1)."""


class QuerySet(Protocol):
    """A fixed set of queries with answers in [0, 1] (fractions of records)."""

    @property
    def domain(self) -> Domain:
        """The domain the queries were drawn on."""
        ...

    def answer(self, data: Dataset) -> np.ndarray:
        """One answer per query, in query order."""
        ...


def _check_draw(data: Dataset, n_queries: int, k: int) -> None:
    require_records(data, "real")
    if n_queries < 1:
        raise ValueError(f"n_queries must be >= 1, got {n_queries}")
    if not 1 <= k <= len(data.domain):
        raise ValueError(
            f"k (attributes per query) must be in [1, {len(data.domain)}] for this domain of"
            f" {len(data.domain)} attributes, got {k}"
        )


def _check_attributes(domain: Domain, attributes: tuple[str, ...]) -> None:
    unknown = [a for a in attributes if a not in domain]
    if unknown or len(set(attributes)) != len(attributes):
        raise ValueError(
            f"query attributes {list(attributes)} must be distinct attributes of the domain"
            f" {list(domain.attributes)}"
        )


def _codes(data: Dataset, attributes: tuple[str, ...]) -> np.ndarray:
    return data.frame[list(attributes)].to_numpy(dtype=np.int64)


class _BoxFractions:
    """The fraction of a dataset's records inside boxes of embedding space, in O(2^k) per box.

    A box [lb, ub] on an attribute of size K holds the codes c with lb <= (2c + 1) / (2K) <= ub,
    a run of consecutive codes; the records inside a product of runs are a sum over the
    attributes' marginal, read off its summed-area table (built once per set of attributes).
    The counts are integers, so the fraction equals counting the records one by one.
    """

    def __init__(self, data: Dataset) -> None:
        self._data = data
        self._centres = [bin_centres(size) for size in data.domain.sizes]
        self._tables: dict[tuple[int, ...], np.ndarray] = {}

    def _table(self, columns: tuple[int, ...]) -> np.ndarray:
        """Counts of codes strictly below each corner: zero-padded cumulative sums."""
        if columns not in self._tables:
            names = tuple(self._data.domain.attributes[c] for c in columns)
            counts = self._data.marginal(names).astype(np.int64)
            for axis in range(counts.ndim):
                counts = np.cumsum(counts, axis=axis)
            self._tables[columns] = np.pad(counts, [(1, 0)] * counts.ndim)
        return self._tables[columns]

    def fraction(self, columns: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> float:
        """count(D) of the box ``[lower, upper]`` on the attribute indices ``columns``."""
        order = np.argsort(columns)
        first, stop = [], []  # per attribute, in index order: the codes inside are first..stop-1
        for i in order:
            centres = self._centres[columns[i]]
            first.append(int(np.searchsorted(centres, lower[i], side="left")))
            stop.append(int(np.searchsorted(centres, upper[i], side="right")))
            if stop[-1] <= first[-1]:
                return 0.0
        table = self._table(tuple(int(columns[i]) for i in order))
        inside = 0
        for corner in itertools.product((0, 1), repeat=len(first)):
            index = tuple(s if top else f for top, f, s in zip(corner, first, stop, strict=True))
            inside += (-1) ** (len(first) - sum(corner)) * int(table[index])
        return inside / self._data.records


@dataclasses.dataclass(frozen=True)
class CountingQueries:
    """Random k-sparse counting queries on boxes in embedding space (paper, Section 4.1, item 3).

    Query j keeps the records whose embedded values lie in ``[lower[j][l], upper[j][l]]``
    (inclusive) on each of its attributes ``attributes[j][l]``; all other attributes are free
    (the full range 1..k). As in the authors' code, the box is drawn in [0, 1]: lb ~ U(0, 1), then
    ub ~ U(lb, 1), per attribute, with k distinct attributes per query (the target included). A
    code c of an attribute of size K is inside iff lb <= (2c + 1) / (2K) <= ub.

    Attributes:
        domain: The domain the queries were drawn on; :meth:`answer` requires the same.
        attributes: For each query, its k attribute names.
        lower, upper: For each query, the k interval bounds in [0, 1] (embedding space).
        seed: The seed of :meth:`draw` (provenance).
    """

    domain: Domain
    attributes: tuple[tuple[str, ...], ...]
    lower: tuple[tuple[float, ...], ...]
    upper: tuple[tuple[float, ...], ...]
    seed: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "attributes", tuple(tuple(map(str, r)) for r in self.attributes))
        object.__setattr__(self, "lower", tuple(tuple(map(float, r)) for r in self.lower))
        object.__setattr__(self, "upper", tuple(tuple(map(float, r)) for r in self.upper))
        shapes = {tuple(map(len, rows)) for rows in (self.attributes, self.lower, self.upper)}
        if len(shapes) != 1 or not self.attributes:
            raise ValueError(
                "attributes, lower and upper must give the same number of bounds for every query"
                " (and at least one query)"
            )
        for names, lo, hi in zip(self.attributes, self.lower, self.upper, strict=True):
            _check_attributes(self.domain, names)
            if not all(0.0 <= a <= b <= 1.0 for a, b in zip(lo, hi, strict=True)):
                raise ValueError(f"bounds must satisfy 0 <= lower <= upper <= 1, got {lo}, {hi}")

    @classmethod
    def draw(
        cls,
        data: Dataset,
        n_queries: int = N_QUERIES,
        k: int = SPARSITY,
        *,
        seed: int = 0,
        min_fraction: float = 0.05,
        max_fraction: float = 0.95,
        max_attempts: int = 10_000_000,
    ) -> CountingQueries:
        """Draw ``n_queries`` boxes by rejection sampling on the real data ``data``.

        Each candidate draws k distinct attributes, then per attribute lb ~ U(0, 1) and
        ub ~ U(lb, 1) (authors' ``generate_counting_query_data``); it is kept if the fraction of
        ``data`` inside is in ``[min_fraction, max_fraction]``. Randomness:
        ``numpy.random.default_rng(seed)``; the authors' code used the unseeded global RNG and
        no cap on the candidates. On concentrated data few candidates pass (medical charges'
        stand-in: about 1 in 6,000), so a candidate's fraction is read off a summed-area table
        of its attributes' marginal (:class:`_BoxFractions`), exactly as counting its records.

        Raises:
            ValueError: On bad arguments, or if ``max_attempts`` candidates in all do not yield
                ``n_queries`` accepted queries (e.g. every attribute is constant).
        """
        _check_draw(data, n_queries, k)
        if not 0.0 <= min_fraction <= max_fraction <= 1.0:
            raise ValueError(
                "need 0 <= min_fraction <= max_fraction <= 1, got"
                f" min_fraction={min_fraction}, max_fraction={max_fraction}"
            )
        rng = np.random.default_rng(seed)
        names = data.domain.attributes
        boxes = _BoxFractions(data)
        accepted: list[tuple[tuple[str, ...], tuple[float, ...], tuple[float, ...]]] = []
        for _ in range(max_attempts):
            columns = rng.choice(len(names), size=k, replace=False)
            lower, upper = np.empty(k), np.empty(k)
            for i in range(k):
                lower[i] = rng.uniform(0.0, 1.0)
                upper[i] = rng.uniform(lower[i], 1.0)
            if min_fraction <= boxes.fraction(columns, lower, upper) <= max_fraction:
                accepted.append((tuple(names[c] for c in columns), tuple(lower), tuple(upper)))
                if len(accepted) == n_queries:
                    break
        else:
            raise ValueError(
                f"only {len(accepted)} of {n_queries} counting queries had a true answer in"
                f" [{min_fraction}, {max_fraction}] after {max_attempts} candidates; the data may"
                " be too concentrated: widen the fraction range or raise max_attempts"
            )
        attributes, lower_rows, upper_rows = zip(*accepted, strict=True)
        return cls(data.domain, attributes, lower_rows, upper_rows, seed)

    def answer(self, data: Dataset) -> np.ndarray:
        """count_j(data) for every query: the fraction of records inside box j (float64)."""
        require_domain(data, self.domain, "queried")
        require_records(data, "queried")
        centres = {a: bin_centres(self.domain.size(a)) for a in self.domain.attributes}
        columns = {a: data.frame[a].to_numpy() for a in self.domain.attributes}
        answers = np.empty(len(self.attributes))
        for j, (names, lower, upper) in enumerate(
            zip(self.attributes, self.lower, self.upper, strict=True)
        ):
            inside = np.ones(data.records, dtype=bool)
            for name, lo, hi in zip(names, lower, upper, strict=True):
                inside &= ((centres[name] >= lo) & (centres[name] <= hi))[columns[name]]
            answers[j] = inside.mean()
        return answers

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable form; :meth:`from_dict` inverts it exactly."""
        return {"domain": self.domain.as_dict(), "attributes": [list(a) for a in self.attributes],
                "lower": [list(r) for r in self.lower], "upper": [list(r) for r in self.upper],
                "seed": self.seed}

    @classmethod
    def from_dict(cls, state: dict[str, Any]) -> CountingQueries:
        """Rebuild the query set saved by :meth:`to_dict`."""
        return cls(Domain.from_dict(state["domain"]), state["attributes"], state["lower"],
                   state["upper"], int(state["seed"]))


@dataclasses.dataclass(frozen=True)
class ThresholdingQueries:
    """Random k-sparse linear thresholding queries (paper, Section 4.1, item 4), as coded.

    thrs_j(D) = (1/n) sum_i 1[<Emb(x_i)_S, theta_j> + b_j > 0] with theta_j a unit vector on the
    attributes S and b_j = min + U(0, 1) (max - min), min/max of <Emb(x)_S, theta_j> over the real
    data. This follows the authors' ``random_thresholding`` literally, including two features to
    be aware of:

    * one set S of k attributes is drawn once and **shared by all queries**; only theta_j and b_j
      vary (the paper's "theta is a random 3-sparse direction" reads as per query);
    * the sign is **"+ b_j"** (paper and code) while b_j is drawn from the range of <x, theta_j>,
      not of -<x, theta_j>: many queries are true for (almost) every record, e.g. whenever all
      theta_j >= 0, which makes the thresholding errors small.

    Attributes:
        domain: The domain the queries were drawn on; :meth:`answer` requires the same.
        attributes: The k attribute names S shared by every query.
        weights: For each query, theta_j restricted to S (k entries, unit norm).
        offsets: For each query, b_j.
        seed: The seed of :meth:`draw` (provenance).
    """

    domain: Domain
    attributes: tuple[str, ...]
    weights: tuple[tuple[float, ...], ...]
    offsets: tuple[float, ...]
    seed: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "attributes", tuple(self.attributes))
        object.__setattr__(self, "weights", tuple(tuple(map(float, w)) for w in self.weights))
        object.__setattr__(self, "offsets", tuple(map(float, self.offsets)))
        _check_attributes(self.domain, self.attributes)
        k = len(self.attributes)
        if not self.weights or len(self.offsets) != len(self.weights) or any(
            len(w) != k for w in self.weights
        ):
            raise ValueError(
                f"need at least one query, one offset per query and {k} weights (one per"
                f" attribute) per query; got {len(self.weights)} weight rows,"
                f" {len(self.offsets)} offsets"
            )

    @classmethod
    def draw(
        cls, data: Dataset, n_queries: int = N_QUERIES, k: int = SPARSITY, *, seed: int = 0
    ) -> ThresholdingQueries:
        """Draw the queries as the authors' ``generate_thresholding_data`` does, from ``seed``.

        In order: k distinct attributes, then ``n_queries`` Gaussian vectors (normalised to unit
        length), then ``n_queries`` U(0, 1) variates scaled to [min, max] of <Emb(x)_S, theta_j>
        over the real data ``data``. The authors' code used the unseeded global RNG.
        """
        _check_draw(data, n_queries, k)
        rng = np.random.default_rng(seed)
        columns = rng.choice(len(data.domain), size=k, replace=False)
        attributes = tuple(data.domain.attributes[c] for c in columns)
        theta = rng.standard_normal((n_queries, k))
        theta /= np.linalg.norm(theta, axis=1, keepdims=True)
        fraction = rng.uniform(size=n_queries)
        projections = _embedded(data, attributes) @ theta.T
        low, high = projections.min(axis=0), projections.max(axis=0)
        offsets = low + fraction * (high - low)
        return cls(data.domain, attributes, theta.tolist(), offsets.tolist(), seed)

    def answer(self, data: Dataset) -> np.ndarray:
        """thrs_j(data) for every query: fraction of records with <Emb(x)_S, theta_j> + b_j > 0."""
        require_domain(data, self.domain, "queried")
        require_records(data, "queried")
        projections = _embedded(data, self.attributes) @ np.asarray(self.weights).T
        return (projections + np.asarray(self.offsets) > 0).mean(axis=0)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable form; :meth:`from_dict` inverts it exactly."""
        return {"domain": self.domain.as_dict(), "attributes": list(self.attributes),
                "weights": [list(w) for w in self.weights], "offsets": list(self.offsets),
                "seed": self.seed}

    @classmethod
    def from_dict(cls, state: dict[str, Any]) -> ThresholdingQueries:
        """Rebuild the query set saved by :meth:`to_dict`."""
        return cls(Domain.from_dict(state["domain"]), state["attributes"], state["weights"],
                   state["offsets"], int(state["seed"]))


def _embedded(data: Dataset, attributes: tuple[str, ...]) -> np.ndarray:
    """``(n, len(attributes))`` embedded values of ``attributes``."""
    codes = _codes(data, attributes)
    return np.stack([bin_centres(data.domain.size(a))[codes[:, i]]
                     for i, a in enumerate(attributes)], axis=1)


def query_error_terms(
    queries: QuerySet, real: Dataset, synthetic: Dataset
) -> tuple[float, float]:
    """The numerator and denominator of Eq. 9: mean_j |q_j(D_DP) - q_j(D)| and mean_j q_j(D)."""
    truth = queries.answer(real)
    estimate = queries.answer(synthetic)
    return float(np.mean(np.abs(estimate - truth))), float(np.mean(truth))


def absolute_query_error(queries: QuerySet, real: Dataset, synthetic: Dataset) -> float:
    """Numerator of Eq. 9: (1/J) sum_j |q_j(D_DP) - q_j(D)| (fractions; Figure 3's error)."""
    return query_error_terms(queries, real, synthetic)[0]


def relative_query_error(queries: QuerySet, real: Dataset, synthetic: Dataset) -> float:
    """Eq. 9: (1/J) sum_j |q_j(D_DP) - q_j(D)| divided by (1/J) sum_j q_j(D)."""
    numerator, denominator = query_error_terms(queries, real, synthetic)
    return relative_error(numerator, denominator)


def relative_error(numerator: float, denominator: float) -> float:
    """Eq. 9's ratio; raises ``ValueError`` when every true answer is 0 (undefined)."""
    if denominator <= 0:
        raise ValueError(
            "every query's true answer is 0, so the relative error of Eq. 9 is undefined; use"
            " absolute_query_error or a query set drawn on this data"
        )
    return numerator / denominator
