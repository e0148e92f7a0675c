"""Privacy accounting: zCDP/RDP conversions, Gaussian and selection primitives, and the Ledger.

Every privacy formula of reprolib lives here once. Mechanisms touch private data only through the
primitives below, and each primitive charges a :class:`Ledger` before it releases anything.
"""

from reprolib.privacy._conversions import BOUNDS, Bound, cks_delta, eps_to_rho, rho_to_eps
from reprolib.privacy._dp_sgd import (
    charge_dp_sgd,
    dp_sgd_noise_multiplier,
    dp_sgd_steps,
    sampled_gaussian_rdp,
)
from reprolib.privacy._exact import split_budget
from reprolib.privacy._gaussian import (
    GAUSSIAN_MEAN_ABS,
    gaussian_mechanism,
    gaussian_rho,
    gaussian_sigma,
    remaining_gaussian_sigma,
)
from reprolib.privacy._ledger import BudgetExceededError, Charge, Ledger, PrivacyBudget
from reprolib.privacy._neighbours import (
    NeighbourRelation,
    marginal_l1_sensitivity,
    marginal_l2_sensitivity,
)
from reprolib.privacy._pate import last_vote_inverse_scale, noisy_vote, vote_rdp, vote_rho
from reprolib.privacy._rdp import gaussian_rdp, rdp_to_eps
from reprolib.privacy._rdp_ledger import ORDERS, RdpBudget, RdpCharge, RdpLedger, zcdp_curve
from reprolib.privacy._selection import (
    exponential_mechanism,
    exponential_mechanism_epsilon,
    exponential_mechanism_rho,
    gumbel_top_k,
)
from reprolib.privacy._slicing import (
    SlicingCurve,
    SlicingStream,
    adjacency_distance,
    per_class_slicing_release,
    poisson_amplified,
    poisson_base,
    poisson_same_size_amplified,
    poisson_same_size_base,
    projection_epsilon,
    projection_rdp,
    projection_sigma,
    remaining_sigma,
    remaining_stream_sigma,
    slicing_epsilon,
    slicing_rdp,
    slicing_release,
    slicing_sigma,
    subsampled_slicing_rdp,
    typical_sample_size,
)
from reprolib.privacy._subsampled import without_replacement_rdp

__all__ = [
    "BOUNDS",
    "GAUSSIAN_MEAN_ABS",
    "ORDERS",
    "Bound",
    "BudgetExceededError",
    "Charge",
    "Ledger",
    "NeighbourRelation",
    "PrivacyBudget",
    "RdpBudget",
    "RdpCharge",
    "RdpLedger",
    "SlicingCurve",
    "SlicingStream",
    "adjacency_distance",
    "charge_dp_sgd",
    "cks_delta",
    "dp_sgd_noise_multiplier",
    "dp_sgd_steps",
    "eps_to_rho",
    "exponential_mechanism",
    "exponential_mechanism_epsilon",
    "exponential_mechanism_rho",
    "gaussian_mechanism",
    "gaussian_rdp",
    "gaussian_rho",
    "gaussian_sigma",
    "gumbel_top_k",
    "last_vote_inverse_scale",
    "marginal_l1_sensitivity",
    "marginal_l2_sensitivity",
    "noisy_vote",
    "per_class_slicing_release",
    "poisson_amplified",
    "poisson_base",
    "poisson_same_size_amplified",
    "poisson_same_size_base",
    "projection_epsilon",
    "projection_rdp",
    "projection_sigma",
    "rdp_to_eps",
    "remaining_gaussian_sigma",
    "remaining_sigma",
    "remaining_stream_sigma",
    "rho_to_eps",
    "sampled_gaussian_rdp",
    "slicing_epsilon",
    "slicing_rdp",
    "slicing_release",
    "slicing_sigma",
    "split_budget",
    "subsampled_slicing_rdp",
    "typical_sample_size",
    "vote_rdp",
    "vote_rho",
    "without_replacement_rdp",
    "zcdp_curve",
]
