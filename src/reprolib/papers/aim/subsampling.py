"""The non-private resampling baseline of the AIM paper's Appendix C, in closed form.

D_m is m records drawn uniformly *with replacement* from D (N = |D| records). For a clique r,
M_r(D_m) ~ Multinomial(m, p) with p = M_r(D) / N (Appendix C, Lemma 3), so every cell count X_t
is Binomial(m, p_t). Definition 2 compares counts on the scale of |D|, so the resample is rescaled
to N records, (N/m) M_r(D_m), before comparing. Its error on r is then

    (1/N) ||M_r(D) - (N/m) M_r(D_m)||_1 = ||M_r(D)/N - M_r(D_m)/m||_1,

the normalised L1 distance of Appendix C, Theorem 1, whose expectation is
(1/m) sum_t E|X_t - m p_t|. Everything here uses the convention of ``workload_error``
(Definition 2: L1, not TV); the reference script's TV variant of the same resample is exactly half,
since it also normalises each marginal by its own total.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from scipy.stats import binom

from reprolib.data import Dataset
from reprolib.queries import Workload


def _sample_size(name: str, m: object, minimum: int) -> int:
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum} (a number of records), got {m!r}")
    return int(m)


def expected_l1_deviation(m: int, p: ArrayLike) -> np.ndarray:
    """E|X - m p| for X ~ Binomial(m, p), elementwise in ``p`` (in counts, not proportions).

    Closed form (Appendix C, Lemma 2; de Moivre): 2 (k + 1) (1 - p) Pr[X = k + 1] with
    k = floor(m p). The binomial probability comes from scipy in log space, so the formula is
    stable for large m; p = 0 and p = 1 give 0 exactly.
    """
    m = _sample_size("m", m, 0)
    p = np.asarray(p, dtype=float)
    if not np.all((p >= 0.0) & (p <= 1.0)):
        raise ValueError("p must hold probabilities in [0, 1] (cell counts divided by |D|)")
    k = np.floor(m * p)
    return 2.0 * (k + 1.0) * (1.0 - p) * binom.pmf(k + 1.0, m, p)


def _cell_probabilities(data: Dataset, workload: Workload) -> list[np.ndarray]:
    """P = M_r(D) / N for every workload clique, without the empty cells (they add nothing)."""
    if data.records == 0:
        raise ValueError("the dataset has no records; there is nothing to resample")
    probabilities = []
    for clique in workload.cliques:
        p = np.ravel(data.marginal(clique)) / data.records
        probabilities.append(p[p > 0])
    return probabilities


def _expected_error(probabilities: list[np.ndarray], weights: tuple[float, ...], m: int) -> float:
    per_query = [expected_l1_deviation(m, p).sum() / m for p in probabilities]
    return float(np.dot(weights, per_query) / len(weights))


def expected_subsample_error(data: Dataset, workload: Workload, m: int) -> float:
    """Expected Definition-2 error of m records resampled with replacement, rescaled to |D|.

    (1/k) sum_i c_i (1/m) sum_t E|X_{i,t} - m p_{i,t}| with X_{i,t} ~ Binomial(m, p_{i,t}),
    p_i = M_{r_i}(D) / |D| (Appendix C, Theorem 1, averaged over the workload). This is the
    expectation of ``workload_error(data, lambda r: D_m.marginal(r) * N / m, workload)``; the TV
    variant of the reference script is half of it. Any m >= 1 is allowed, including m > |D|.
    """
    m = _sample_size("m", m, 1)
    return _expected_error(_cell_probabilities(data, workload), workload.weights, m)


def matching_fraction(data: Dataset, workload: Workload, target_error: float) -> float:
    """Fraction f = m/|D| of resampled records whose expected error matches ``target_error``.

    ``target_error`` is in Definition-2 units (as from ``workload_error``; double a value from
    ``workload_error_tv``). Returns m*/|D| for the smallest integer m* in [1, |D|] with expected
    error <= target, found by bisection (the expected error is non-increasing in m; the tests
    check this numerically). Capped at 1.0: if even m = |D| has a larger expected error than the
    target (the estimate beats resampling the whole dataset), 1.0 is returned, as in Figure 5.
    """
    target = float(target_error)
    if not (0.0 <= target < np.inf):
        raise ValueError(f"target_error must be finite and >= 0, got {target_error!r}")
    probabilities = _cell_probabilities(data, workload)
    records = data.records

    def error(m: int) -> float:
        return _expected_error(probabilities, workload.weights, m)

    if error(records) > target:
        return 1.0
    low, high = 0, records  # error(high) <= target; low == 0 or error(low) > target
    while high - low > 1:
        middle = (low + high) // 2
        if error(middle) <= target:
            high = middle
        else:
            low = middle
    return high / records
