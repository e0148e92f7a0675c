"""PATE's noisy vote in Rényi DP: the data-independent bound and the data-dependent one.

k teachers, each trained on its own disjoint part of the data, vote for one of two labels; the
release is the label whose count plus independent Laplace noise of scale 1/lam is larger
(Papernot, Abadi, Erlingsson, Goodfellow and Talwar, ICLR 2017, Section 2.2; PATE-GAN, Jordon,
Yoon and van der Schaar, ICLR 2019, Section 4). A neighbouring dataset, under add/remove or
replace-one alike, changes one part, so one teacher's vote: each count moves by at most 1 and
the release is (2 lam)-DP (Papernot et al., Section 3), hence 2 lam^2-zCDP (Bun and Steinke
2016, Proposition 1.4), the RDP curve 2 lam^2 alpha. That is the data-independent bound.

The data-dependent bound (Papernot et al., Theorem 3, used by PATE-GAN's Algorithm 1) reads the
votes. With two labels and a gap g = |n_1 - n_0| between the counts, the noisy vote differs from
the plurality with probability exactly

    q = (2 + lam g) / (4 exp(lam g))

(the tail of the difference of two Laplace variables; Papernot et al.'s Lemma 4 is this bound).
If q < (e^{2 lam} - 1) / (e^{4 lam} - 1), the log moment at l = alpha - 1 of the privacy loss at
the actual data is at most log((1 - q) ((1 - q) / (1 - e^{2 lam} q))^l + q e^{2 lam l}), so the
Rényi divergence of order alpha is at most that divided by alpha - 1. We take the smaller of the
two bounds at each order and sum over the queries; the data-dependent one is evaluated in
interval arithmetic, so its float is an upper bound on the formula. This curve is a function of
the private votes: the epsilon it gives is a statement about this dataset and its neighbours, not
a differential privacy guarantee, and releasing it (or stopping when it is spent) leaks through
it (Papernot et al. 2018 release it with smooth sensitivity; we do not). The pages say which runs
used it.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import mpmath
import numpy as np

from reprolib.privacy import _validate
from reprolib.privacy._exact import inflate, round_up
from reprolib.privacy._gaussian import remaining_gaussian_sigma
from reprolib.privacy._rdp_ledger import ORDERS, RdpLedger, zcdp_curve


def vote_rho(inverse_scale: float) -> float:
    """The zCDP rho of one two-label noisy vote with Laplace noise of scale 1 / ``inverse_scale``:
    2 lam^2 (lam = ``inverse_scale``), computed exactly and rounded up.
    """
    inverse_scale = _validate.positive("inverse_scale", inverse_scale)
    return round_up(2 * Fraction(inverse_scale) ** 2)


def vote_rdp(inverse_scale: float, gaps: np.ndarray | None = None) -> np.ndarray:
    """The RDP curve, at the ledger's ``ORDERS``, of one noisy vote per entry of ``gaps`` (the
    absolute differences between the two labels' counts), composed: the data-dependent bound,
    never above the data-independent one. ``gaps=None``: one vote, data-independent.
    """
    independent = zcdp_curve(vote_rho(inverse_scale))
    if gaps is None:
        return independent
    gaps = np.asarray(gaps, dtype=float)
    if gaps.ndim != 1 or np.any(gaps < 0) or np.any(~np.isfinite(gaps)):
        raise ValueError("gaps must be a 1-d array of non-negative vote differences")
    lam = inverse_scale
    total = np.zeros(len(ORDERS))
    values, counts = np.unique(gaps, return_counts=True)  # gaps repeat: k + 1 values at most
    for gap, count in zip(values, counts, strict=True):
        total += count * np.minimum(independent, np.array(_dependent(lam, float(gap))))
    return inflate(total, len(values) + 1.0)  # a product and a sum per gap, all positive


@functools.lru_cache(maxsize=4096)  # a run meets a few gaps at one lam, each thousands of times
def _dependent(lam: float, gap: float) -> tuple[float, ...]:
    """Papernot et al.'s Theorem 3 for one vote with ``gap``: log(e^first + e^second) / l at each
    order, evaluated in mpmath's interval arithmetic (every operation rounded outward), each
    interval's upper end rounded up to a float; inf at every order if the theorem's condition on
    q is not certain.

    q is about e^{-lam g}, and log(1 - q) must resolve it: the working precision is 160 bits
    beyond -log2 q, up to 1,100 bits. Past that q is below the smallest float, log(1 - q) is an
    interval about zero and the bound stays valid, its values at small orders rounding up to the
    smallest floats.
    """
    ctx = mpmath.ctx_iv.MPIntervalContext()  # a context of its own: mpmath's global one is left
    ctx.prec = 160 + min(math.ceil(lam * gap / math.log(2.0)), 1100)
    lam_ = ctx.mpf(lam)
    q = (2 + lam_ * gap) / (4 * ctx.exp(lam_ * gap))
    growth = ctx.exp(2 * lam_)
    if not q.b < ((growth - 1) / (ctx.exp(4 * lam_) - 1)).a:
        return (math.inf,) * len(ORDERS)
    log_q, log_1q, log_1s = ctx.log(q), ctx.log(1 - q), ctx.log(1 - growth * q)
    bounds = []
    for order in ORDERS:
        moment = ctx.mpf(float(order)) - 1  # l
        first = log_1q + moment * (log_1q - log_1s)
        second = log_q + 2 * lam_ * moment
        pivot, other = (first, second) if first.mid >= second.mid else (second, first)
        upper = ((pivot + ctx.log(1 + ctx.exp(other - pivot))) / moment).b
        bound = float(upper)
        bounds.append(bound if mpmath.mpf(bound) >= upper else math.nextafter(bound, math.inf))
    return tuple(bounds)


def noisy_vote(ones: np.ndarray, teachers: int, *, inverse_scale: float, data_dependent: bool,
               rng: np.random.Generator, ledger: RdpLedger, label: str) -> np.ndarray:
    """Release, for each query, 1 if ``ones`` (the teachers voting 1, of ``teachers``) plus
    Laplace noise beats the other count plus its own noise, else 0; charge the votes' curve
    (data-dependent or not) to ``ledger`` first, so a refused charge releases nothing.
    """
    ones = np.asarray(ones, dtype=float)
    zeros = teachers - ones
    gaps = np.abs(ones - zeros) if data_dependent else None
    curve = vote_rdp(inverse_scale, gaps)
    repeat = 1 if data_dependent else len(ones)
    ledger.charge(curve, mechanism="pate-vote", label=label, repeat=repeat,
                  inverse_scale=float(inverse_scale), votes=float(len(ones)),
                  data_dependent=float(data_dependent))
    noise = rng.laplace(0.0, 1.0 / inverse_scale, size=(2, len(ones)))
    return (ones + noise[1] > zeros + noise[0]).astype(np.int64)


def last_vote_inverse_scale(ledger: RdpLedger, votes: int) -> float:
    """The largest lam at which ``votes`` data-independent noisy votes still fit what the ledger
    has left: the votes that spend the rest (to the precision of
    :func:`reprolib.privacy.remaining_gaussian_sigma`, never above it).
    """
    if isinstance(votes, bool) or not isinstance(votes, int) or votes < 1:
        raise ValueError(f"votes must be a positive integer, got {votes!r}")
    sigma = remaining_gaussian_sigma(ledger, 1.0)  # the rest as the zCDP rho 1 / (2 sigma^2)
    rest = Fraction(1) / (2 * Fraction(sigma) ** 2)
    lam = math.sqrt(float(rest / (2 * votes)))
    while votes * Fraction(vote_rho(lam)) > rest:  # rounding may have made lam too large
        lam = math.nextafter(lam, 0.0)
    return lam
