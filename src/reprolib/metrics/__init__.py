"""Utility metrics: workload error, the subsampling baseline, AIM's uncertainty bounds, and the
PrivPGD paper's evaluation (2-way SW1/TV/L1, random queries, covariance and downstream errors)."""

from reprolib.metrics._covariance import CovarianceDenominator, covariance_error
from reprolib.metrics._distances import (
    SW1_DIRECTIONS,
    average_l1,
    average_sw1,
    average_tv,
    pair_grid,
    sliced_w1,
    unit_directions,
)
from reprolib.metrics._downstream import Task, downstream_error, downstream_ratio
from reprolib.metrics._embedding import embed
from reprolib.metrics._privpgd import privpgd_metrics
from reprolib.metrics._queries import (
    CountingQueries,
    QuerySet,
    ThresholdingQueries,
    absolute_query_error,
    relative_query_error,
)
from reprolib.metrics._subsampling import (
    expected_l1_deviation,
    expected_subsample_error,
    matching_fraction,
)
from reprolib.metrics._uncertainty import (
    SUPPORTED_LAMBDA_95,
    UNSUPPORTED_LAMBDA1_95,
    UNSUPPORTED_LAMBDA2_95,
    MarginalBound,
    aim_error_bounds,
    candidate_error_bound,
    gaussian_l1_bound,
    supported_bound,
    supported_failure_probability,
    unsupported_bound,
    unsupported_failure_probability,
    weighted_average_estimate,
)
from reprolib.metrics._workload_error import (
    MarginalEstimate,
    marginal_l1_errors,
    workload_error,
    workload_error_tv,
)

__all__ = [
    "SUPPORTED_LAMBDA_95",
    "SW1_DIRECTIONS",
    "UNSUPPORTED_LAMBDA1_95",
    "UNSUPPORTED_LAMBDA2_95",
    "CountingQueries",
    "CovarianceDenominator",
    "MarginalBound",
    "MarginalEstimate",
    "QuerySet",
    "Task",
    "ThresholdingQueries",
    "absolute_query_error",
    "aim_error_bounds",
    "average_l1",
    "average_sw1",
    "average_tv",
    "candidate_error_bound",
    "covariance_error",
    "downstream_error",
    "downstream_ratio",
    "embed",
    "expected_l1_deviation",
    "expected_subsample_error",
    "gaussian_l1_bound",
    "marginal_l1_errors",
    "matching_fraction",
    "pair_grid",
    "privpgd_metrics",
    "relative_query_error",
    "sliced_w1",
    "supported_bound",
    "supported_failure_probability",
    "unit_directions",
    "unsupported_bound",
    "unsupported_failure_probability",
    "weighted_average_estimate",
    "workload_error",
    "workload_error_tv",
]
