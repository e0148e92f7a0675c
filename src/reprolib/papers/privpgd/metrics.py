"""Every metric of the PrivPGD paper's evaluation (Section 4.1) in one call."""

from __future__ import annotations

from reprolib.data import Dataset
from reprolib.data._embedding import require_domain
from reprolib.metrics._covariance import CovarianceDenominator, covariance_error
from reprolib.metrics._distances import SW1_DIRECTIONS, average_l1, average_sw1
from reprolib.metrics._downstream import Task, downstream_error, error_ratio
from reprolib.metrics._queries import (
    CountingQueries,
    ThresholdingQueries,
    query_error_terms,
    relative_error,
)


def privpgd_metrics(
    real_train: Dataset,
    synthetic: Dataset,
    real_test: Dataset,
    *,
    target: str,
    task: Task,
    counting: CountingQueries | None = None,
    thresholding: ThresholdingQueries | None = None,
    real_downstream_error: float | None = None,
    seed: int = 0,
    sw1_directions: int = SW1_DIRECTIONS,
    covariance_denominator: CovarianceDenominator = "synthetic",
) -> dict[str, float]:
    """The paper's metrics of ``synthetic`` against the real data, by name.

    Keys: ``downstream_error`` (gradient boosting trained on ``synthetic``, tested on
    ``real_test``), ``downstream_error_real`` (trained on ``real_train``), ``downstream_ratio``
    (their ratio, NaN if the latter is 0), ``covariance_error``, ``counting_error`` and
    ``thresholding_error`` (Eq. 9, relative), ``counting_abs_error`` and
    ``thresholding_abs_error`` (Eq. 9's numerator), ``sw1`` (Eq. 10), ``tv`` (Eq. 11) and ``l1``
    (= 2 tv, the tables' "TV distance" column). Every distance compares with ``real_train``.

    Args:
        counting, thresholding: The query sets shared by all methods; ``None`` draws the paper's
            200 3-sparse queries from ``real_train`` with seed 0 (deterministic, so the same set
            every call, but redrawn each time: pass them in to save the work).
        real_downstream_error: The error of training on ``real_train``, if already known (it does
            not depend on the synthetic data).
        seed: The gradient-boosting seed and the seed of the SW1 directions.
        sw1_directions: Directions of each SW1 estimate.
        covariance_denominator: See :func:`covariance_error`.
    """
    require_domain(synthetic, real_train.domain, "synthetic")
    require_domain(real_test, real_train.domain, "test")
    counting = counting if counting is not None else CountingQueries.draw(real_train)
    thresholding = thresholding if thresholding is not None else ThresholdingQueries.draw(real_train)
    synthetic_error = downstream_error(synthetic, real_test, target, task, seed=seed)
    if real_downstream_error is None:
        real_downstream_error = downstream_error(real_train, real_test, target, task, seed=seed)
    counting_abs, counting_base = query_error_terms(counting, real_train, synthetic)
    thresholding_abs, thresholding_base = query_error_terms(thresholding, real_train, synthetic)
    l1 = average_l1(real_train, synthetic)
    return {
        "downstream_error": synthetic_error,
        "downstream_error_real": real_downstream_error,
        "downstream_ratio": error_ratio(synthetic_error, real_downstream_error),
        "covariance_error": covariance_error(real_train, synthetic,
                                             denominator=covariance_denominator),
        "counting_error": relative_error(counting_abs, counting_base),
        "counting_abs_error": counting_abs,
        "thresholding_error": relative_error(thresholding_abs, thresholding_base),
        "thresholding_abs_error": thresholding_abs,
        "sw1": average_sw1(real_train, synthetic, n_directions=sw1_directions, seed=seed),
        "tv": 0.5 * l1,
        "l1": l1,
    }
