"""The slicing mechanism's privacy (Greenewald, Yu, Wang, Xu; NeurIPS 2024): its Rényi curves,
the noise for an (epsilon, delta) target, Poisson amplification, and the release itself.

The k-slicing mechanism (Definition 5) releases (U, XU + V): U (d x m') has N(0, 1/d) entries and
is published, V (n x m') has N(0, sigma^2) entries, m' = m k projections in all. Two neighbouring
datasets differ in one row, by an L2 distance of at most ``C`` (the paper's Definition 1 takes
C = 1). The output is a zero-mean Gaussian whose covariance depends on X only through X X^T, and
the Rényi divergence of order alpha between the outputs on neighbours is exactly

    m' / (2 (alpha - 1)) * log(d sigma^2 / (d sigma^2 - (alpha^2 - alpha) c^2)),  c = ||x - x'||

while (alpha^2 - alpha) c^2 < d sigma^2 (the paper's proof of Lemma 2, its Step 5), largest at
c = C. ``"exact"`` is that curve. ``"lemma-2"`` is the paper's bound, from log(1 + t) >= t/(1+t):

    m' alpha C^2 / (2 (d sigma^2 - (alpha^2 - alpha) C^2)),

which with C = 1 is m' alpha / (2 sigma^2 (d - gamma)), gamma = (alpha^2 - alpha) / sigma^2
(Lemma 2). Past the order where d sigma^2 = (alpha^2 - alpha) C^2 both are infinite. Theorem 1
converts with Proposition 2 (Mironov's classic conversion) at the best order; we take the best
order of :data:`reprolib.privacy._rdp_ledger.ORDERS`, which can only over-state epsilon.

For comparison, Proposition 3: with U fixed and each block of k columns orthonormal, and U not
random, XU + V is (alpha, alpha m C^2 / (2 sigma^2))-RDP (m = m' / k blocks).

Neighbours: n, the number of rows, is part of the output, so the guarantee is about datasets of
the same size that differ in one row (``REPLACE_ONE``); with rows of L2 norm at most ``r`` two
such rows are at most C = 2r apart. The paper's remark that Definition 1 covers add/remove
neighbours with rows of norm at most 1 treats a removed record as a zero row, which would release
a row of pure noise in its place; :func:`adjacency_distance` gives that reading's C = r (the
calibration page computes the paper's numbers with it), but the releases here output one row per
record, so they refuse an ``ADD_REMOVE`` ledger (n and n - 1 rows would tell the neighbours apart).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Literal

import mpmath as mp
import numpy as np
from scipy.stats import binom

from reprolib.privacy import _validate
from reprolib.privacy._exact import UNIT_ROUNDOFF, inflate, round_down
from reprolib.privacy._ledger import BudgetExceededError
from reprolib.privacy._neighbours import NeighbourRelation
from reprolib.privacy._rdp import RdpConversion, rdp_to_eps, smallest_sigma
from reprolib.privacy._rdp_ledger import ORDERS, RdpLedger
from reprolib.privacy._subsampled import without_replacement_rdp

SlicingCurve = Literal["lemma-2", "exact"]


def adjacency_distance(row_norm: float, relation: NeighbourRelation) -> float:
    """C, the largest L2 distance between the differing rows of neighbours whose rows have norm
    at most ``row_norm``: 2 row_norm under replace-one, row_norm for a row against a zero row.
    """
    row_norm = _validate.positive("row_norm", row_norm)
    return 2.0 * row_norm if relation is NeighbourRelation.REPLACE_ONE else row_norm


def slicing_rdp(alpha: float | np.ndarray, sigma: float, *, dim: int, projections: int,
                distance: float = 1.0, curve: SlicingCurve = "lemma-2") -> np.ndarray:
    """The RDP of (U, XU + V) at order(s) ``alpha`` (inf where the bound does not hold).

    Args:
        alpha: Rényi orders > 1.
        sigma: the noise's standard deviation.
        dim: d, the data's columns.
        projections: m' = m k, the columns of U.
        distance: C, the largest L2 distance between neighbours' differing rows.
        curve: ``"lemma-2"`` (the paper's bound) or ``"exact"`` (the exact divergence).
    """
    orders = np.atleast_1d(np.asarray(alpha, dtype=float))
    if np.any(orders <= 1):
        raise ValueError("Rényi orders must be > 1")
    sigma = _validate.positive("sigma", sigma)
    distance = _validate.positive("distance", distance)
    _positive_int("dim", dim)
    _positive_int("projections", projections)
    # alpha - 1 is exact, so alpha (alpha - 1) is good to an ulp even next to alpha = 1, where
    # alpha^2 - alpha would cancel
    scale, load = dim * sigma**2, (orders - 1.0) * orders * distance**2
    # d sigma^2 - (alpha^2 - alpha) C^2 cancels near the pole; its relative error, in units of
    # roundoff, is at most (2 d sigma^2 + 4 load + |gap|) / gap. Where that exceeds 2^33 (a
    # relative error of 2^-20), a first-order bound is no longer safe: the order counts as past
    # the pole (infinite), which only over-states epsilon.
    gap = scale - load
    with np.errstate(divide="ignore", invalid="ignore"):
        gap_units = (2.0 * scale + 4.0 * load + np.abs(gap)) / gap
    valid = (gap > 0) & (gap_units < 2.0**33)
    out = np.full(orders.shape, np.inf)
    if curve == "lemma-2":
        out[valid] = projections * orders[valid] * distance**2 / (2.0 * gap[valid])
        units = gap_units[valid] + 5.0
    elif curve == "exact":  # log(d sigma^2 / gap) = log1p(load / gap), well conditioned
        out[valid] = (projections / (2.0 * (orders[valid] - 1.0))
                      * np.log1p(load[valid] / gap[valid]))
        units = gap_units[valid] + 11.0
    else:
        raise ValueError(f"curve must be 'lemma-2' or 'exact', got {curve!r}")
    out[valid] = inflate(out[valid], units)
    return out


def projection_rdp(alpha: float | np.ndarray, sigma: float, *, blocks: int,
                   distance: float = 1.0) -> np.ndarray:
    """Proposition 3: RDP alpha m C^2 / (2 sigma^2) of XU + V with a fixed U of ``blocks`` = m
    orthonormal k-column blocks (U not released: an adversary may have chosen it).
    """
    orders = np.atleast_1d(np.asarray(alpha, dtype=float))
    sigma = _validate.positive("sigma", sigma)
    _positive_int("blocks", blocks)
    return inflate(orders * blocks * distance**2 / (2.0 * sigma**2), 6.0)


def slicing_epsilon(sigma: float, delta: float, *, dim: int, projections: int,
                    distance: float = 1.0, curve: SlicingCurve = "lemma-2",
                    conversion: RdpConversion = "classic") -> tuple[float, float]:
    """(epsilon, the order attaining it): Theorem 1 (``"lemma-2"``, ``"classic"``) optimised over
    the ledger's orders; ``curve="exact"`` uses the exact divergence instead of Lemma 2.
    """
    values = slicing_rdp(ORDERS, sigma, dim=dim, projections=projections, distance=distance,
                         curve=curve)
    finite = np.isfinite(values)
    return rdp_to_eps(ORDERS[finite], values[finite], delta, conversion=conversion)


def slicing_sigma(epsilon: float, delta: float, *, dim: int, projections: int,
                  distance: float = 1.0, curve: SlicingCurve = "lemma-2",
                  conversion: RdpConversion = "classic") -> float:
    """The smallest sigma, to a relative 1e-10 and from above, at which the mechanism is
    (epsilon, delta)-DP by :func:`slicing_epsilon` (which decreases in sigma).
    """
    return smallest_sigma(
        lambda sigma: slicing_epsilon(sigma, delta, dim=dim, projections=projections,
                                      distance=distance, curve=curve, conversion=conversion)[0],
        epsilon, start=math.sqrt(projections / (dim * epsilon)) * distance)


def remaining_sigma(ledger: RdpLedger, *, dim: int, projections: int, row_norm: float,
                    curve: SlicingCurve = "lemma-2", touched: int = 1) -> float:
    """The smallest sigma, to a relative 1e-10 and from above, at which a release of ``dim``
    columns and ``projections`` projections (rows of norm at most ``row_norm``) still fits the
    ledger's budget after what it has already charged: the release that spends the rest.
    ``touched``: how many such releases one record can change (2 for
    :func:`per_class_slicing_release`); their curves add.
    """
    distance = adjacency_distance(row_norm, ledger.relation)
    _positive_int("touched", touched)
    if ledger.spent_epsilon() >= ledger.budget.epsilon:
        raise BudgetExceededError(
            f"the ledger has spent its whole budget (epsilon={ledger.budget.epsilon:g}) before "
            "the slicing release; leave it some budget")
    return smallest_sigma(
        lambda sigma: ledger.epsilon_after(touched * slicing_rdp(ORDERS, sigma, dim=dim,
                                                                 projections=projections,
                                                                 distance=distance,
                                                                 curve=curve)),
        ledger.budget.epsilon, start=math.sqrt(projections / (dim * ledger.budget.epsilon))
        * distance)


def projection_epsilon(sigma: float, delta: float, *, blocks: int, distance: float = 1.0,
                       conversion: RdpConversion = "classic") -> tuple[float, float]:
    """(epsilon, the order attaining it) of Proposition 3's curve over the ledger's orders."""
    return rdp_to_eps(ORDERS, projection_rdp(ORDERS, sigma, blocks=blocks, distance=distance),
                      delta, conversion=conversion)


def projection_sigma(epsilon: float, delta: float, *, blocks: int, distance: float = 1.0,
                     conversion: RdpConversion = "classic") -> float:
    """The smallest sigma, from above, at which Proposition 3's mechanism is (epsilon, delta)-DP."""
    return smallest_sigma(
        lambda sigma: projection_epsilon(sigma, delta, blocks=blocks, distance=distance,
                                         conversion=conversion)[0],
        epsilon, start=math.sqrt(blocks / epsilon) * distance)


def poisson_amplified(epsilon: float, delta: float, rate: float) -> tuple[float, float]:
    """(epsilon', delta') of an (epsilon, delta)-DP mechanism run on a Poisson sample of rate
    ``rate`` (the paper's Lemma 1; Balle, Barthe, Gaboardi 2018, for add/remove neighbours):
    epsilon' = log(1 + rate (e^epsilon - 1)), delta' = rate delta, each bounded from above (four
    and one roundings).
    """
    rate = _validate.probability("rate", rate)
    epsilon = _validate.non_negative("epsilon", epsilon)
    delta = _validate.unit_interval("delta", delta)
    return (float(inflate(math.log1p(rate * math.expm1(epsilon)), 4.0)),
            math.nextafter(rate * delta, math.inf) if delta else 0.0)


def poisson_base(epsilon: float, delta: float, rate: float) -> tuple[float, float]:
    """The (epsilon, delta) before amplification that :func:`poisson_amplified` turns into at
    most the given pair: epsilon_0 = log(1 + (e^epsilon - 1) / rate), delta_0 = delta / rate,
    each then stepped down until it does (delta_0 at most 1).
    """
    rate = _validate.probability("rate", rate)
    epsilon = _validate.non_negative("epsilon", epsilon)
    delta = _validate.unit_interval("delta", delta)
    base_epsilon, base_delta = _base_epsilon(epsilon, rate), min(delta / rate, 1.0)
    while poisson_amplified(base_epsilon, base_delta, rate)[0] > epsilon:
        base_epsilon = math.nextafter(base_epsilon, 0.0)
    while poisson_amplified(base_epsilon, base_delta, rate)[1] > delta:
        base_delta = math.nextafter(base_delta, 0.0)
    return base_epsilon, base_delta


def _base_epsilon(epsilon: float, gamma: float) -> float:
    """log(1 + (e^epsilon - 1) / gamma), the epsilon that amplifies by ``gamma`` to ``epsilon``;
    an error where it is too large for the amplified value to be evaluated in floats.
    """
    base = math.log1p(math.expm1(min(epsilon, 700.0)) / gamma)
    if not (epsilon <= 700.0 and base <= 700.0):
        raise ValueError(f"epsilon={epsilon!r} amplified by a sample of {gamma!r} of the data "
                         "needs a base epsilon above 700 (e^700 is near the float limit): "
                         "sample at a higher rate or ask for a smaller epsilon")
    return base


TAIL_SHARE = 0.1
"""Of a target delta, the share :func:`poisson_same_size_base` leaves to a Poisson sample larger
than its typical size (ours)."""


def typical_sample_size(records: int, rate: float, tail: float) -> int:
    """s*: the smallest s with P[Binomial(records, rate) > s] <= ``tail``."""
    _positive_int("records", records)
    rate = _validate.probability("rate", rate)
    tail = _validate.probability("tail", tail)
    size = int(binom.isf(tail, records, rate))
    while size < records and binom.sf(size, records, rate) > tail:
        size += 1
    while size > 0 and binom.sf(size - 1, records, rate) <= tail:
        size -= 1
    return size


def poisson_same_size_amplified(epsilon: float, delta: float, *, rate: float, records: int,
                                size: int) -> tuple[float, float]:
    """(epsilon', delta') for replace-one neighbours of an (epsilon, delta)-DP mechanism run on
    a Poisson sample at ``rate`` of ``records`` records.

    The mechanism must be DP for replacing one record among datasets of any one size. With
    gamma = size / records,

        epsilon' = log(1 + gamma (e^epsilon - 1)),  delta' = gamma delta + P[Bin(records, rate) > size],

    each bounded from above (epsilon' for five roundings, delta' evaluated in 30 digits).

    Given its size s, which both neighbours' samples share in law and the release reveals, the
    sample is uniform without replacement, which amplifies to log(1 + (s/n)(e^epsilon - 1)) and
    (s/n) delta for replace-one neighbours (the book's slicing privacy page proves it); samples
    larger than ``size`` are charged to delta whole.
    """
    _positive_int("records", records)
    if not 0 <= size <= records:
        raise ValueError(f"size must be in [0, records={records}], got {size!r}")
    epsilon = _validate.non_negative("epsilon", epsilon)
    delta = _validate.unit_interval("delta", delta)
    rate = _validate.probability("rate", rate)
    with mp.workdps(30):
        tail = _binomial_tail(size, records, rate)
    return _same_size_pair(epsilon, delta, size, records, tail)


def _same_size_pair(epsilon: float, delta: float, size: int, records: int,
                    tail: mp.mpf) -> tuple[float, float]:
    """:func:`poisson_same_size_amplified` given the tail P[S > size] (in 30 digits)."""
    gamma = size / records
    with mp.workdps(30):
        total = mp.mpf(size) / records * mp.mpf(delta) + tail
    return (float(inflate(math.log1p(gamma * math.expm1(epsilon)), 5.0)),
            float(inflate(float(total), 1.0)))  # 1 unit: the rounding of a 30-digit value


def _binomial_tail(size: int, records: int, rate: float) -> mp.mpf:
    """An upper bound on P[Bin(records, rate) > size] in the working precision, not a float
    library's tail, which is only as accurate as its error tables say (Cephes's incomplete beta:
    up to 9e-10 relative for parameters up to 1e5).

    The probabilities move away from the mode geometrically, so they are summed outward from
    ``size`` by their recurrence until one is 1e-40 of the sum. Where the terms fall from
    ``size`` + 1 up (size + 1 >= (records + 1) rate), the terms of the tail are summed and the
    rest bounded by a geometric series (the ratio of successive terms falls); below the mode,
    one minus the terms from ``size`` down, a lower bound on the rest, which is not near 1
    there, so the subtraction keeps its digits.
    """
    if size >= records:
        return mp.mpf(0)
    rate_ = mp.mpf(rate)
    upper = size + 1 >= (records + 1) * rate
    k = size + 1 if upper else size
    term = mp.binomial(records, k) * rate_**k * (1 - rate_) ** (records - k)
    total, negligible = mp.mpf(0), mp.mpf(10) ** -40
    while True:
        total += term
        if k == (records if upper else 0):
            return total if upper else 1 - total
        # term(k + 1) / term(k) upward, term(k - 1) / term(k) downward: falling away from the mode
        ratio = ((records - k) * rate_ / ((k + 1) * (1 - rate_)) if upper
                 else k * (1 - rate_) / ((records - k + 1) * rate_))
        if term * ratio <= total * negligible and ratio < 1:
            return total + term * ratio / (1 - ratio) if upper else 1 - total
        term, k = term * ratio, k + 1 if upper else k - 1


def poisson_same_size_base(epsilon: float, delta: float, *, rate: float, records: int,
                           tail_share: float = TAIL_SHARE) -> tuple[float, float, int]:
    """(epsilon_0, delta_0, s*): the base budget that :func:`poisson_same_size_amplified` turns
    into at most (epsilon, delta), with s* the typical size for a tail of ``tail_share`` delta;
    both rounded down so that the amplified pair never exceeds the target.
    """
    epsilon = _validate.positive("epsilon", epsilon)
    delta = _validate.probability("delta", delta)
    tail_share = _validate.probability("tail_share", tail_share)
    size = typical_sample_size(records, rate, tail_share * delta)
    gamma = max(size, 1) / records
    base_epsilon = _base_epsilon(epsilon, gamma)
    with mp.workdps(30):
        tail = _binomial_tail(size, records, rate)
    base_delta = min((delta - float(tail)) / gamma, 1.0)
    while _same_size_pair(base_epsilon, base_delta, size, records, tail)[0] > epsilon:
        base_epsilon = math.nextafter(base_epsilon, 0.0)
    while _same_size_pair(base_epsilon, base_delta, size, records, tail)[1] > delta:
        base_delta = math.nextafter(base_delta, 0.0)
    return base_epsilon, base_delta, size


def slicing_release(data: np.ndarray, *, projections: int, sigma: float, row_norm: float,
                    rng: np.random.Generator, ledger: RdpLedger, label: str,
                    curve: SlicingCurve = "lemma-2") -> tuple[np.ndarray, np.ndarray]:
    """Release (U, XU + V) of Definition 5 after charging its RDP curve to ``ledger``.

    Rows of ``data`` longer than ``row_norm`` (L2) are scaled down to it, record by record
    (:func:`clip_rows`, exact norm at most ``row_norm``), so the adjacency distance C follows
    from ``row_norm`` and the ledger's relation. The charge
    comes first: if it does not fit the budget, BudgetExceededError is raised and nothing is
    drawn or returned. Replace-one neighbours only: the output has one row per record.
    """
    if ledger.relation is not NeighbourRelation.REPLACE_ONE:
        raise ValueError("a slicing release outputs one row per record, so the number of records "
                         "is released: it is private for replace-one neighbours only (datasets "
                         "of one size); use a REPLACE_ONE ledger")
    x = np.asarray(data, dtype=float)
    if x.ndim != 2 or not np.all(np.isfinite(x)):
        raise ValueError(f"data must be a finite (records x columns) array, got shape {x.shape}")
    distance = adjacency_distance(row_norm, ledger.relation)
    curve_values = slicing_rdp(ORDERS, sigma, dim=x.shape[1], projections=projections,
                               distance=distance, curve=curve)
    ledger.charge(curve_values, mechanism="slicing", label=label, sigma=sigma,
                  projections=projections, dim=x.shape[1], distance=distance)
    return _release(x, projections=projections, sigma=sigma, row_norm=row_norm, rng=rng)


def per_class_slicing_release(data: np.ndarray, labels: np.ndarray, *, classes: int,
                              per_class: int, projections: int, sigma: float, row_norm: float,
                              rng: np.random.Generator, ledger: RdpLedger, label: str,
                              curve: SlicingCurve = "lemma-2"
                              ) -> list[tuple[np.ndarray, np.ndarray]]:
    """One release (U_c, X_c U_c + V_c) of Definition 5 per class c = 0 .. classes - 1, each on
    a uniform sample of exactly ``per_class`` records of class c drawn without replacement
    (a class with fewer records is taken whole, padded with zero rows and shuffled, so that the
    zero rows take uniformly random places), after one charge of twice the slicing curve
    (replace-one neighbours only).

    Why twice: replacing one record changes the records of at most two classes (its old label's
    and its new one's). A class that lost or gained the record keeps the same number of rows in
    its sample, and its two samples can be coupled to differ in at most one row (the record is
    swapped for another member of the class, uniformly, or for a zero row, which is why a padded
    sample is shuffled: with the zero rows always last, the record's place would go to another
    record and that record's place to a zero row, two rows apart); a class whose
    record was replaced in place differs in that row. The other classes' releases have the same
    law. By the joint convexity of exp((alpha - 1) D_alpha), the classes' releases together
    have at most the RDP of two slicing releases (the book's slicing privacy page proves it).
    The class sizes are never released: ``per_class`` is public, so choose it below every
    class's size (padding rows carry no signal).
    """
    if ledger.relation is not NeighbourRelation.REPLACE_ONE:
        raise ValueError("per-class releases are accounted for replace-one neighbours (a record "
                         "that changes label touches two classes); use a REPLACE_ONE ledger")
    x = np.asarray(data, dtype=float)
    labels = np.asarray(labels)
    if x.ndim != 2 or not np.all(np.isfinite(x)) or labels.shape != (len(x),):
        raise ValueError(f"data must be a finite (records x columns) array with one label per "
                         f"record, got shapes {x.shape} and {labels.shape}")
    _positive_int("classes", classes)
    _positive_int("per_class", per_class)
    members = [np.flatnonzero(labels == c) for c in range(classes)]
    if sum(len(m) for m in members) != len(x):
        raise ValueError(f"labels must be the codes 0 .. {classes - 1}")
    distance = adjacency_distance(row_norm, ledger.relation)
    curve_values = slicing_rdp(ORDERS, sigma, dim=x.shape[1], projections=projections,
                               distance=distance, curve=curve)
    ledger.charge(2 * curve_values, mechanism="slicing", label=label, sigma=sigma,
                  projections=projections, dim=x.shape[1], distance=distance,
                  classes=classes, per_class=per_class, touched=2)
    samples = [x[rng.choice(m, size=min(per_class, len(m)), replace=False)] for m in members]
    return [_release(_padded(rows, per_class, rng), projections=projections, sigma=sigma,
                     row_norm=row_norm, rng=rng) for rows in samples]


def _padded(rows: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """``rows`` (already in uniformly random order) as ``size`` rows: unchanged if there are
    that many, else with zero rows added and the whole shuffled.
    """
    if len(rows) == size:
        return rows
    padded = np.vstack([rows, np.zeros((size - len(rows), rows.shape[1]))])
    return padded[rng.permutation(size)]


def subsampled_slicing_rdp(alpha: float | np.ndarray, sigma: float, *, dim: int,
                           projections: int, rate: float, distance: float,
                           curve: SlicingCurve = "lemma-2") -> np.ndarray:
    """The RDP of (U, X_B U + V) for B a uniform sample of m = ``rate`` n of the n records,
    without replacement: :func:`slicing_rdp` amplified by Wang, Balle and Kasiviswanathan's
    Theorem 9 (:func:`reprolib.privacy._subsampled.without_replacement_rdp`; replace-one
    neighbours, ``distance`` = C = 2 x the row norm).
    """
    return without_replacement_rdp(
        lambda orders: slicing_rdp(orders, sigma, dim=dim, projections=projections,
                                   distance=distance, curve=curve), rate,
        np.atleast_1d(np.asarray(alpha, dtype=float)))


class SlicingStream:
    """``steps`` releases of the slicing mechanism, each on a fresh uniform batch of
    ``batch_size`` of ``records`` records without replacement, the rows being any features of
    the batch's records of norm at most ``row_norm`` (longer rows are scaled down).

    The features may change from release to release (a network trained on earlier releases):
    each release is a mechanism chosen adaptively, and adaptive composition adds their RDP
    curves. So the stream charges, once and before anything is drawn, ``steps`` times the
    amplified curve :func:`subsampled_slicing_rdp` (replace-one neighbours only: the batch size
    is public and fixed), and then refuses a release past ``steps``.
    """

    def __init__(self, records: int, *, dim: int, batch_size: int, steps: int,
                 projections: int, sigma: float, row_norm: float, ledger: RdpLedger,
                 label: str, curve: SlicingCurve = "lemma-2") -> None:
        if ledger.relation is not NeighbourRelation.REPLACE_ONE:
            raise ValueError("sampling without replacement is amplified for replace-one "
                             "neighbours; use a REPLACE_ONE ledger")
        for name, value in (("records", records), ("dim", dim), ("batch_size", batch_size),
                            ("steps", steps), ("projections", projections)):
            _positive_int(name, value)
        if batch_size >= records:
            raise ValueError(f"batch_size ({batch_size}) must be below the records ({records}) "
                             "for a subsample")
        self.records, self.dim, self.batch_size = records, dim, batch_size
        self.projections, self.sigma, self.row_norm = projections, sigma, row_norm
        distance = adjacency_distance(row_norm, ledger.relation)
        each = subsampled_slicing_rdp(ORDERS, sigma, dim=dim, projections=projections,
                                      rate=batch_size / records, distance=distance, curve=curve)
        ledger.charge(each, mechanism="slicing", label=label, repeat=steps, sigma=sigma,
                      projections=projections, dim=dim, distance=distance,
                      batch_size=batch_size, records=records)
        self.remaining = steps

    def release(self, features: Callable[[np.ndarray], np.ndarray],
                rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """(U, Phi(X_B) U + V): draws the batch B (record indices), calls ``features(B)`` for
        their (batch_size x dim) feature rows, and releases their slicing projections.
        """
        if self.remaining < 1:
            raise BudgetExceededError("the stream has made every release it was charged for")
        batch = rng.choice(self.records, size=self.batch_size, replace=False)
        rows = np.asarray(features(batch), dtype=float)
        if rows.shape != (self.batch_size, self.dim) or not np.all(np.isfinite(rows)):
            raise ValueError(f"features must return finite ({self.batch_size} x {self.dim}) "
                             f"rows, got shape {rows.shape}")
        self.remaining -= 1
        return _release(rows, projections=self.projections, sigma=self.sigma,
                        row_norm=self.row_norm, rng=rng)


def remaining_stream_sigma(ledger: RdpLedger, *, records: int, dim: int, batch_size: int,
                           steps: int, projections: int, row_norm: float,
                           curve: SlicingCurve = "lemma-2") -> float:
    """The smallest sigma, to a relative 1e-10 and from above, at which a
    :class:`SlicingStream` of these settings fits what the ledger has left.
    """
    distance = adjacency_distance(row_norm, ledger.relation)
    rate = batch_size / records

    def spends(sigma: float) -> float:
        return ledger.epsilon_after(subsampled_slicing_rdp(
            ORDERS, sigma, dim=dim, projections=projections, rate=rate, distance=distance,
            curve=curve), steps)

    start = math.sqrt(projections / (dim * ledger.budget.epsilon)) * distance
    floor = spends(start * 1e6)
    if floor > ledger.budget.epsilon:
        raise BudgetExceededError(
            f"{steps} releases on batches of {batch_size} of {records} records spend at least "
            f"epsilon={floor:.4g} however large the noise (Theorem 9's amplification keeps a "
            f"floor that grows with the releases), over the {ledger.budget.epsilon:g} left; "
            "make fewer releases, smaller batches, or raise the budget")
    return smallest_sigma(spends, ledger.budget.epsilon, start=start)


def clip_rows(x: np.ndarray, row_norm: float) -> np.ndarray:
    """``x`` with every row whose norm may exceed a little below ``row_norm`` scaled down to it,
    so that each row's exact (real) norm is at most ``row_norm``.

    A row's norm computed in floating point errs by less than (d + 3)/2 units of roundoff
    (d columns: d squares, d - 1 additions, a square root), and scaling adds two more; a row
    scaled to ``row_norm`` itself could thus end up longer. The target is ``row_norm`` / (1 +
    2 (d + 5) u), rounded down, which covers both errors twice over.
    """
    x = np.asarray(x, dtype=float)
    margin = 1 + 2 * (x.shape[1] + 5) * Fraction(UNIT_ROUNDOFF)
    target = round_down(Fraction(row_norm) / margin)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x * np.minimum(1.0, target / np.maximum(norms, np.finfo(float).tiny))


def _release(x: np.ndarray, *, projections: int, sigma: float, row_norm: float,
             rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(U, XU + V) of rows scaled down to norm ``row_norm``; charged by the caller."""
    x = clip_rows(x, row_norm)
    directions = rng.normal(0.0, 1.0 / math.sqrt(x.shape[1]), size=(x.shape[1], projections))
    return directions, x @ directions + rng.normal(0.0, sigma, size=(x.shape[0], projections))


def _positive_int(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
