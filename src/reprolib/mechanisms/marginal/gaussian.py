"""Gaussian: the AIM paper's workload baseline that answers every workload marginal directly.

No model and no synthetic records: each workload marginal r_i is released once with the Gaussian
mechanism, and the budget is split by PrivSyn's rule (Zhang et al., "PrivSyn: Differentially
Private Data Synthesis", USENIX Security 2021). Workload-aware only (AIM paper, Table 1).
"""

from __future__ import annotations

import math
import time

import numpy as np

from reprolib.data import Dataset, Domain
from reprolib.mechanisms._base import (
    MechanismTraits,
    SynthesisResult,
    check_inputs,
    open_ledger,
    require_workload,
)
from reprolib.mechanisms.pgm import measure_marginal
from reprolib.privacy import (
    NeighbourRelation,
    PrivacyBudget,
    gaussian_sigma,
    marginal_l2_sensitivity,
    split_budget,
)
from reprolib.queries import Workload

# E|Z| = sqrt(2/pi) for Z ~ N(0, 1): the expected L1 error of one noisy cell is sqrt(2/pi) sigma.
_EXPECTED_ABS_NORMAL = math.sqrt(2.0 / math.pi)


def privsyn_allocation(workload: Workload, domain: Domain, rho: float) -> np.ndarray:
    """ZCDP budget rho_i of each workload marginal: rho_i proportional to (c_i n_i)^(2/3).

    n_i is the marginal's number of cells and c_i its workload weight; sum_i rho_i = rho. The
    rule minimises the expected weighted L1 error sum_i c_i sqrt(2/pi) sigma_i n_i subject to
    sum_i 1/(2 sigma_i^2) = rho (PrivSyn, Zhang et al. 2021, with weights c_i). Aligned with
    ``workload.cliques``. The shares come from :func:`reprolib.privacy.split_budget`, so their
    exact sum is at most rho (and within an ulp of it).
    """
    weights = np.asarray(workload.weights, dtype=float)
    unweighted = [c for c, w in zip(workload.cliques, weights, strict=True) if w == 0]
    if unweighted:
        raise ValueError(
            f"workload {workload.name!r} gives weight 0 to {unweighted[:3]}; PrivSyn's rule gives "
            "such marginals no budget, so the Gaussian baseline cannot answer them: drop them "
            "from the workload")
    cells = np.array([domain.project(c).total_size for c in workload.cliques], dtype=float)
    shares = (weights * cells) ** (2.0 / 3.0)
    return np.array(split_budget(rho, [float(s) for s in shares]))


def expected_workload_error(workload: Workload, domain: Domain, rho: float,
                            records: int) -> float:
    """Expected workload error of :class:`GaussianWorkload` at budget rho (add/remove).

    Definition 2 of the AIM paper: (1/(k N)) sum_i c_i E||M_i(D) - y_i||_1 with k workload
    marginals and N = ``records``; L1 in counts divided by N (not total variation). With
    y_i = M_i(D) + N(0, sigma_i^2 I_{n_i}) this is (1/(k N)) sum_i c_i sqrt(2/pi) sigma_i n_i,
    sigma_i = 1/sqrt(2 rho_i) and rho_i from :func:`privsyn_allocation`.
    """
    if records < 1:
        raise ValueError(f"records must be a positive count, got {records}")
    rhos = privsyn_allocation(workload, domain, rho)
    sensitivity = marginal_l2_sensitivity(GaussianWorkload.traits.relation, 1)
    total = math.fsum(
        c * _EXPECTED_ABS_NORMAL * gaussian_sigma(rho_i, sensitivity)
        * domain.project(clique).total_size
        for clique, c, rho_i in zip(workload.cliques, workload.weights, rhos, strict=True))
    return total / (len(workload) * records)


class GaussianWorkload:
    """Answer each workload marginal with the Gaussian mechanism; rho-zCDP (add/remove).

    Marginal r_i gets rho_i from :func:`privsyn_allocation`, i.e. rho_i proportional to
    (c_i n_i)^(2/3) with n_i its number of cells and c_i its workload weight (PrivSyn, Zhang et
    al. 2021), and is released with sigma_i = 1/sqrt(2 rho_i) (L2 sensitivity 1 under
    add/remove), costing exactly rho_i; sum_i rho_i = rho. The last marginal is calibrated to what
    the ledger has left, so the total is rho to within a few ulps, never above. The result holds the raw noisy counts
    in ``answers`` and no synthetic records.
    """

    name = "Gaussian"
    traits = MechanismTraits(workload_aware=True, data_aware=False, budget_aware=False,
                             efficiency_aware=False, relation=NeighbourRelation.ADD_REMOVE,
                             synthetic_data=False)

    def fit(self, data: Dataset, budget: PrivacyBudget, rng: np.random.Generator, *,
            workload: Workload | None = None) -> SynthesisResult:
        """Release one noisy answer per workload marginal (counts, shaped like the marginal)."""
        check_inputs(self, data, workload)
        started = time.perf_counter()
        workload = require_workload(self, workload)
        ledger = open_ledger(self, budget)
        rhos = privsyn_allocation(workload, data.domain, budget.rho)
        sensitivity = marginal_l2_sensitivity(ledger.relation, 1)  # what measure_marginal charges
        answers = {}
        for i, (clique, rho_i) in enumerate(zip(workload.cliques, rhos, strict=True)):
            last = i == len(workload) - 1
            sigma = gaussian_sigma(ledger.remaining_rho if last else float(rho_i), sensitivity)
            answers[clique] = measure_marginal(data, clique, sigma=sigma, rng=rng, ledger=ledger,
                                               label=f"answer {','.join(clique)}").values
        return SynthesisResult(synthetic=None, ledger=ledger, answers=answers,
                               diagnostics={"rho_per_marginal": [float(r) for r in rhos],
                                            "seconds": time.perf_counter() - started})
