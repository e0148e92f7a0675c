"""Independent: the AIM paper's simplest baseline, a product of noisy one-way marginals.

Every attribute's one-way marginal is measured with the Gaussian mechanism at an equal share
rho/d of the budget, Private-PGM fits a model to them (an independence model, since no
measurement joins two attributes), and records are drawn from it. Workload-, data- and
budget-agnostic; efficiency-aware only (its model is always tiny). AIM paper, Sections 3.3 and 6.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from reprolib.data import Dataset
from reprolib.mechanisms._base import MechanismTraits, SynthesisResult, check_inputs, open_ledger
from reprolib.mechanisms.pgm import StepRule, fit_model, measure_marginal, synthetic_dataset
from reprolib.privacy import (
    NeighbourRelation,
    PrivacyBudget,
    gaussian_sigma,
    marginal_l2_sensitivity,
)
from reprolib.queries import Workload


@dataclasses.dataclass(frozen=True, kw_only=True)
class IndependentConfig:
    """Independent's settings.

    Attributes:
        pgm_iters: Private-PGM mirror-descent iterations (mbi's default, 1000; the model is a
            product of one-way tables, so few iterations already fit it).
        step_rule: Private-PGM's line search; the default "backtracking-2022" is the 2022
            library's, which the AIM and PrivPGD papers ran, "mbi-2.0" mbi 2.0's
            (``reprolib.mechanisms.pgm._mirror_descent``).
    """

    pgm_iters: int = 1000
    step_rule: StepRule = "backtracking-2022"

    def __post_init__(self) -> None:
        if self.pgm_iters < 1:
            raise ValueError(f"pgm_iters must be a positive integer, got {self.pgm_iters}")


class Independent:
    """Measure every one-way marginal at rho/d, fit Private-PGM, generate; rho-zCDP (add/remove).

    Each of the d measurements adds N(0, sigma^2) per cell with sigma = sqrt(d / (2 rho)) (L2
    sensitivity 1 under add/remove), so each costs 1/(2 sigma^2) = rho/d and the total is rho.
    The last measurement is calibrated to what the ledger has left, so the floating-point total
    is rho to within a few ulps and never above it.
    """

    name = "Independent"
    traits = MechanismTraits(workload_aware=False, data_aware=False, budget_aware=False,
                             efficiency_aware=True, relation=NeighbourRelation.ADD_REMOVE)

    def __init__(self, config: IndependentConfig | None = None) -> None:
        self.config = config or IndependentConfig()

    def fit(self, data: Dataset, budget: PrivacyBudget, rng: np.random.Generator, *,
            workload: Workload | None = None) -> SynthesisResult:
        """Release synthetic records; ``workload`` is ignored (the mechanism is workload-agnostic)."""
        check_inputs(self, data, workload)
        started = time.perf_counter()
        ledger = open_ledger(self, budget)
        attributes = data.domain.attributes
        l2 = marginal_l2_sensitivity(ledger.relation, 1)
        sigma = gaussian_sigma(budget.rho / len(attributes), l2)
        measurements = [
            measure_marginal(data, (a,), rng=rng, ledger=ledger, label=f"1-way {a}",
                             sigma=sigma if a != attributes[-1]
                             else gaussian_sigma(ledger.remaining_rho, l2))
            for a in attributes]
        model = fit_model(data.domain, measurements, iters=self.config.pgm_iters,
                          step_rule=self.config.step_rule)
        synthetic = synthetic_dataset(model, data.domain, rng)
        return SynthesisResult(synthetic=synthetic, ledger=ledger,
                               diagnostics={"sigma": sigma,
                                            "seconds": time.perf_counter() - started})
