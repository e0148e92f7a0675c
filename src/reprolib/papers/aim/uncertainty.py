"""A posteriori error bounds for AIM's marginals (AIM paper, Section 5 and Appendix B).

Every error is an L1 distance between marginals in counts (not normalised, not TV). Each bound is
a one-sided confidence bound: it holds with at least the stated probability over the randomness
of the run (the Gaussian noise, and for unsupported marginals also the exponential mechanism).
The inputs are AIM's private outputs only, so computing a bound costs no privacy budget.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from reprolib.privacy import GAUSSIAN_MEAN_ABS
from reprolib.privacy._validate import non_negative, positive
from reprolib.queries import Clique
from reprolib.queries._tables import sum_to

if TYPE_CHECKING:
    from reprolib.mechanisms.marginal.aim import AIMLog
    from reprolib.mechanisms.pgm import NoisyMarginal

SUPPORTED_LAMBDA_95 = math.sqrt(2.0 * math.log(20.0))
"""lambda of Corollary 3 for 95 % confidence: exp(-lambda^2 / 2) = 0.05 (about 2.448)."""

UNSUPPORTED_LAMBDA1_95 = math.log(40.0)
"""lambda_1 of Corollary 5 for 95 %: the 5 % failure probability e^{-lambda_1} + e^{-lambda_2^2/2}
is split equally, 2.5 % for the exponential mechanism's draw (e^{-lambda_1} = 0.025, so
lambda_1 = ln 40, about 3.689) and 2.5 % for the Gaussian noise (see UNSUPPORTED_LAMBDA2_95)."""

UNSUPPORTED_LAMBDA2_95 = math.sqrt(2.0 * math.log(40.0))
"""lambda_2 of Corollary 5 for 95 % with the equal split: e^{-lambda_2^2/2} = 0.025 (about 2.716).
"""


def supported_failure_probability(lam: float) -> float:
    """Failure probability exp(-lambda^2 / 2) of Theorem 2 and Corollary 3."""
    lam = non_negative("lam", lam)
    return math.exp(-(lam**2) / 2.0)


def unsupported_failure_probability(lambda1: float, lambda2: float) -> float:
    """Failure probability e^{-lambda_1} + e^{-lambda_2^2 / 2} of Theorem 4 and Corollary 5."""
    lambda1 = non_negative("lambda1", lambda1)
    lambda2 = non_negative("lambda2", lambda2)
    return math.exp(-lambda1) + math.exp(-(lambda2**2) / 2.0)


def _check_count(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")


def _project(measurement: NoisyMarginal, clique: Clique) -> np.ndarray:
    """Sum a noisy marginal over the attributes outside ``clique``; axes in ``clique``'s order."""
    names = tuple(measurement.clique)
    values = np.asarray(measurement.values, dtype=float)
    if values.ndim != len(names):
        raise ValueError(
            f"measurement on {names} has {values.ndim} axes; expected one per attribute")
    return sum_to(values, names, clique)


def weighted_average_estimate(
    clique: Clique, measurements: Sequence[NoisyMarginal]
) -> tuple[np.ndarray, float] | None:
    """Theorem 1: unbiased estimate y_bar_r ~ N(M_r(D), sigma_bar_r^2 I) of a supported marginal.

    Every measurement y_i (noise std sigma_i per cell) whose clique r_i contains r is summed onto
    r, axes in ``clique``'s order whatever the order of r_i; each cell of the result sums
    n_{r_i}/n_r noisy cells, so its variance is (n_{r_i}/n_r) sigma_i^2. The projections are
    averaged with inverse-variance weights: sigma_bar_r^2 = [sum_i n_r / (n_{r_i} sigma_i^2)]^{-1}
    and y_bar_r = sigma_bar_r^2 sum_i n_r / (n_{r_i} sigma_i^2) P_r(y_i). Returns (y_bar_r in
    counts, sigma_bar_r as a standard deviation per cell), or None when no measurement contains r
    (r is unsupported). The measurement cliques and sigmas are treated as fixed, as in the paper.
    """
    clique = tuple(clique)
    if len(set(clique)) != len(clique):
        raise ValueError(f"clique {clique} repeats an attribute; list each attribute once")
    projections: list[np.ndarray] = []
    weights: list[float] = []
    for measurement in measurements:
        if not set(clique) <= set(measurement.clique):
            continue
        sigma = positive(f"sigma of the measurement on {measurement.clique}", measurement.sigma)
        projected = _project(measurement, clique)
        if projections and projected.shape != projections[0].shape:
            raise ValueError(
                f"measurements disagree on the domain of {clique}: shapes"
                f" {projections[0].shape} and {projected.shape}; use measurements of one domain"
            )
        projections.append(projected)
        weights.append(projected.size / (np.size(measurement.values) * sigma**2))
    if not projections:
        return None
    precision = sum(weights)
    estimate = sum(w * y for w, y in zip(weights, projections, strict=True)) / precision
    return np.asarray(estimate, dtype=float), math.sqrt(1.0 / precision)


def gaussian_l1_bound(sigma: float, n_cells: int, lam: float = SUPPORTED_LAMBDA_95) -> float:
    """sqrt(2/pi) sigma n + lambda sigma sqrt(n), in counts (n = ``n_cells``).

    ||z||_1 for z ~ N(0, sigma^2 I_n) exceeds it with probability <= exp(-lambda^2 / 2)
    (Appendix B, Theorem 1; the first term is E||z||_1). With sigma = sigma_bar_r it is the
    right-hand side of Theorem 2, a bound on ||M_r(D) - y_bar_r||_1 in counts.
    """
    sigma = positive("sigma", sigma)
    lam = non_negative("lam", lam)
    _check_count("n_cells", n_cells)
    return GAUSSIAN_MEAN_ABS * sigma * n_cells + lam * sigma * math.sqrt(n_cells)


def supported_bound(
    estimate: np.ndarray,
    sigma: float,
    synthetic_marginal: np.ndarray,
    *,
    lam: float = SUPPORTED_LAMBDA_95,
) -> float:
    """Corollary 3: bound on ||M_r(D) - M_r(D_hat)||_1 (counts) failing w.p. <= exp(-lambda^2/2).

    ||M_r(D_hat) - y_bar_r||_1 + sqrt(2/pi) sigma_bar_r n_r + lambda sigma_bar_r sqrt(n_r), where
    (y_bar_r, sigma_bar_r) = ``(estimate, sigma)`` come from :func:`weighted_average_estimate` and
    n_r is the number of cells. Valid for any D_hat, even one computed from the noisy
    measurements: it is the triangle inequality plus Theorem 2, which bounds the whole noise
    ||y_bar_r - M_r(D)||_1 and so needs the sqrt(2/pi) term. The default lambda gives 95 %.
    """
    estimate = np.asarray(estimate, dtype=float)
    synthetic_marginal = np.asarray(synthetic_marginal, dtype=float)
    if estimate.shape != synthetic_marginal.shape:
        raise ValueError(
            f"estimate has shape {estimate.shape} but the synthetic marginal"
            f" {synthetic_marginal.shape}; pass both with the clique's axes in the same order"
        )
    distance = float(np.abs(synthetic_marginal - estimate).sum())
    return distance + gaussian_l1_bound(sigma, estimate.size, lam)


def candidate_error_bound(
    *,
    weight: float,
    n_cells: int,
    epsilon: float,
    sigma: float,
    sensitivity: float,
    n_candidates: int,
    selected_weight: float,
    selected_measurement: np.ndarray,
    selected_model_marginal: np.ndarray,
    lambda1: float = UNSUPPORTED_LAMBDA1_95,
    lambda2: float = UNSUPPORTED_LAMBDA2_95,
) -> float:
    """Theorem 4: B_r, bounding ||M_r(D) - M_r(p_{t-1})||_1 (counts) for a candidate r of round t.

    B_r = sqrt(2/pi) sigma_t n_r
          + (w_{r_t}/w_r) (||y_t - M_{r_t}(p_{t-1})||_1 + lambda_2 sigma_t sqrt(n_{r_t})
                           - sqrt(2/pi) sigma_t n_{r_t})
          + 2 Delta_t / (epsilon_t w_r) (ln |C_t| + lambda_1).
    Holds for all candidates of the round simultaneously with probability >= 1 - e^{-lambda_1}
    - e^{-lambda_2^2/2}. Arguments: ``weight`` = w_r > 0 and ``n_cells`` = n_r of the candidate;
    the round's exponential-mechanism parameter epsilon_t, noise std sigma_t (also the one in
    the quality score), the sensitivity Delta_t the mechanism was run with (max_r w_r under
    add/remove), |C_t|, and for the selected r_t its weight, its noisy marginal y_t and the
    previous model's marginal M_{r_t}(p_{t-1}) (same axis order).
    """
    weight = positive("weight", weight)
    sensitivity = positive("sensitivity", sensitivity)
    selected_weight = non_negative("selected_weight", selected_weight)
    if max(weight, selected_weight) > sensitivity * (1.0 + 1e-12):
        raise ValueError(
            f"weights {weight} and {selected_weight} must not exceed the sensitivity {sensitivity}:"
            " r and r_t must be candidates of the round, whose sensitivity is their largest weight"
        )
    _check_count("n_cells", n_cells)
    _check_count("n_candidates", n_candidates)
    epsilon = positive("epsilon", epsilon)
    sigma = positive("sigma", sigma)
    lambda1 = non_negative("lambda1", lambda1)
    lambda2 = non_negative("lambda2", lambda2)
    measured = np.asarray(selected_measurement, dtype=float)
    model = np.asarray(selected_model_marginal, dtype=float)
    if measured.shape != model.shape:
        raise ValueError(
            f"selected_measurement has shape {measured.shape} but selected_model_marginal"
            f" {model.shape}; both are marginals on r_t with the same axis order"
        )
    n_selected = measured.size
    selected_term = (float(np.abs(measured - model).sum())
                     + lambda2 * sigma * math.sqrt(n_selected)
                     - GAUSSIAN_MEAN_ABS * sigma * n_selected)
    selection_term = 2.0 * sensitivity / (epsilon * weight) * (math.log(n_candidates) + lambda1)
    return (GAUSSIAN_MEAN_ABS * sigma * n_cells
            + selected_weight / weight * selected_term
            + selection_term)


def unsupported_bound(
    *,
    weight: float,
    model_marginal: np.ndarray,
    synthetic_marginal: np.ndarray,
    epsilon: float,
    sigma: float,
    sensitivity: float,
    n_candidates: int,
    selected_weight: float,
    selected_measurement: np.ndarray,
    selected_model_marginal: np.ndarray,
    lambda1: float = UNSUPPORTED_LAMBDA1_95,
    lambda2: float = UNSUPPORTED_LAMBDA2_95,
) -> float:
    """Corollary 5: ||M_r(D_hat) - M_r(p_{t-1})||_1 + B_r, bounding ||M_r(D) - M_r(D_hat)||_1.

    Counts, any D_hat; fails with probability <= e^{-lambda_1} + e^{-lambda_2^2/2} (5 % with the
    defaults). ``model_marginal`` is M_r(p_{t-1}) and ``synthetic_marginal`` M_r(D_hat), same axis
    order; the round's quantities are those of :func:`candidate_error_bound`. Use one round per
    marginal, chosen without looking at the bounds: the paper takes the last round in which r
    was a candidate.
    """
    model = np.asarray(model_marginal, dtype=float)
    synthetic = np.asarray(synthetic_marginal, dtype=float)
    if model.shape != synthetic.shape:
        raise ValueError(
            f"model_marginal has shape {model.shape} but synthetic_marginal {synthetic.shape};"
            " both are marginals on r with the same axis order"
        )
    bound = candidate_error_bound(
        weight=weight, n_cells=model.size, epsilon=epsilon, sigma=sigma, sensitivity=sensitivity,
        n_candidates=n_candidates, selected_weight=selected_weight,
        selected_measurement=selected_measurement,
        selected_model_marginal=selected_model_marginal, lambda1=lambda1, lambda2=lambda2)
    return float(np.abs(synthetic - model).sum()) + bound


@dataclasses.dataclass(frozen=True)
class MarginalBound:
    """A 95 % (by default) bound on ||M_r(D) - M_r(D_hat)||_1 in counts, and which result gave it."""

    clique: Clique
    supported: bool
    bound: float


def aim_error_bounds(
    log: AIMLog,
    synthetic: Callable[[Clique], np.ndarray],
    cliques: Iterable[Clique],
    *,
    lam: float = SUPPORTED_LAMBDA_95,
    lambda1: float = UNSUPPORTED_LAMBDA1_95,
    lambda2: float = UNSUPPORTED_LAMBDA2_95,
) -> list[MarginalBound]:
    """Section 5's bound for each clique, from AIM's released log alone (no privacy cost).

    A clique inside some measured clique is supported and gets Corollary 3; any other clique gets
    Corollary 5 from the last round in which it was a candidate, as the paper prescribes. A clique
    that was never measured nor a candidate has no bound and is left out. ``synthetic`` maps a
    clique to M_r(D_hat) in counts (e.g. ``Dataset.marginal``).
    """
    bounds = []
    for clique in cliques:
        clique = tuple(clique)
        synthetic_marginal = np.asarray(synthetic(clique), dtype=float)
        supported = weighted_average_estimate(clique, log.measurements)
        if supported is not None:
            estimate, sigma = supported
            bounds.append(MarginalBound(clique, True,
                                        supported_bound(estimate, sigma, synthetic_marginal,
                                                        lam=lam)))
            continue
        candidacy = log.last_candidacy.get(clique)
        if candidacy is None:
            continue
        past = candidacy.round
        bound = unsupported_bound(
            weight=candidacy.weight, model_marginal=candidacy.model_marginal,
            synthetic_marginal=synthetic_marginal, epsilon=past.epsilon, sigma=past.sigma,
            sensitivity=past.sensitivity, n_candidates=past.n_candidates,
            selected_weight=past.selected_weight,
            selected_measurement=past.measurement.values,
            selected_model_marginal=past.model_selected, lambda1=lambda1, lambda2=lambda2)
        bounds.append(MarginalBound(clique, False, bound))
    return bounds
