"""Metrics more than one paper uses: workload error, 2-way SW1/TV/L1, counting and thresholding
queries, covariance error and downstream ML error.
"""

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
from reprolib.metrics._downstream import (
    Task,
    downstream_error,
    downstream_ratio,
    logistic_macro_f1,
)
from reprolib.metrics._queries import (
    CountingQueries,
    QuerySet,
    ThresholdingQueries,
    absolute_query_error,
    relative_query_error,
)
from reprolib.metrics._workload_error import (
    MarginalEstimate,
    marginal_l1_errors,
    workload_error,
    workload_error_tv,
    workload_errors,
)

__all__ = [
    "SW1_DIRECTIONS",
    "CountingQueries",
    "CovarianceDenominator",
    "MarginalEstimate",
    "QuerySet",
    "Task",
    "ThresholdingQueries",
    "absolute_query_error",
    "average_l1",
    "average_sw1",
    "average_tv",
    "covariance_error",
    "downstream_error",
    "downstream_ratio",
    "logistic_macro_f1",
    "marginal_l1_errors",
    "pair_grid",
    "relative_query_error",
    "sliced_w1",
    "unit_directions",
    "workload_error",
    "workload_error_tv",
    "workload_errors",
]
