"""Utility metrics: workload error, the subsampling baseline, and AIM's uncertainty bounds."""

from reprolib.metrics._subsampling import (
    expected_l1_deviation,
    expected_subsample_error,
    matching_fraction,
)
from reprolib.metrics._uncertainty import (
    SUPPORTED_LAMBDA_95,
    UNSUPPORTED_LAMBDA1_95,
    UNSUPPORTED_LAMBDA2_95,
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
    "UNSUPPORTED_LAMBDA1_95",
    "UNSUPPORTED_LAMBDA2_95",
    "MarginalEstimate",
    "candidate_error_bound",
    "expected_l1_deviation",
    "expected_subsample_error",
    "gaussian_l1_bound",
    "marginal_l1_errors",
    "matching_fraction",
    "supported_bound",
    "supported_failure_probability",
    "unsupported_bound",
    "unsupported_failure_probability",
    "weighted_average_estimate",
    "workload_error",
    "workload_error_tv",
]
