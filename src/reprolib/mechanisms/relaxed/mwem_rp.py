"""MWEM + Relaxed Projection: MWEM+PGM with RAP's relaxed projection as the estimate step.

The AIM paper's Appendix F (Figure 7) compares Algorithm 1 (MWEM+PGM) with a mechanism that is
"identical to MWEM+PGM in every way, except the call to Private-PGM is replaced with a call to
the relaxed projection algorithm of Aydore et al." This is that mechanism:

    eps = sqrt(8 rho / (2T)),  sigma = sqrt(T / rho)
    for t = 1..T:
        select r_t from the workload by the exponential mechanism (eps, sensitivity 1) with
            q_r = ||M_r(D) - M_r(D_{t-1})||_1 - n_r
        y_t = M_{r_t}(D) + N(0, sigma^2 I)
        D_t = relaxed projection onto (r_1, y_1 / N_t), ..., (r_t, y_t / N_t), from D_{t-1}
    return records rounded from D_T

Each round costs eps^2/8 + 1/(2 sigma^2) = rho/(2T) + rho/(2T), so T rounds spend rho exactly.
The projection fits normalised marginals, so the noisy counts are divided by a total N_t
estimated from the measurements themselves (no extra budget): the inverse-variance weighted mean
of their sums, sum(y_i) having variance sigma^2 n_{r_i} (Private-PGM's estimator), at least 1.
M_r(D_t) is N_t times the relaxed rows' marginal. Before any measurement the estimate is the
uniform table with total 1, as in the reference MWEM+PGM code, where Private-PGM gets no total
and no measurement; a data-independent D_0 keeps q_r's sensitivity at 1 (a uniform table scaled
by the true N would move by up to 1 in L1 too, doubling it). The released table has round(N_T)
records.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from reprolib.data import Dataset
from reprolib.mechanisms._base import (
    MechanismTraits,
    SynthesisResult,
    check_inputs,
    open_ledger,
    require_workload,
)
from reprolib.mechanisms.marginal.mwem_pgm import (
    measurement_sigma,
    round_parameters,
    select_worst_marginal,
    uniform_marginals,
)
from reprolib.mechanisms.pgm import Clique, NoisyMarginal, estimated_total, measure_marginal
from reprolib.mechanisms.relaxed.projection import (
    RelaxedData,
    RelaxedProjectionConfig,
    relaxed_projection,
)
from reprolib.privacy import (
    NeighbourRelation,
    PrivacyBudget,
)
from reprolib.queries import Workload


@dataclasses.dataclass(frozen=True, kw_only=True)
class MWEMRPConfig:
    """MWEM + Relaxed Projection's settings.

    Attributes:
        rounds: T, the number of select-measure-project rounds; None means d, the number of
            attributes (the reference MWEM+PGM code's default). Figure 7 sweeps it.
        projection: the relaxed projection run every round (RAP's code defaults).
    """

    rounds: int | None = None
    projection: RelaxedProjectionConfig = dataclasses.field(
        default_factory=RelaxedProjectionConfig)

    def __post_init__(self) -> None:
        if self.rounds is not None and self.rounds < 1:
            raise ValueError(f"rounds must be a positive integer or None, got {self.rounds}")


@dataclasses.dataclass(frozen=True, eq=False)
class MWEMRPLog:
    """What a run released and fitted.

    Attributes:
        measurements: the Gaussian releases, one per round.
        totals: N_t, the total estimated after each round's measurement.
        relaxed: the final relaxed rows D_T.
    """

    measurements: tuple[NoisyMarginal, ...]
    totals: tuple[float, ...]
    relaxed: RelaxedData


class MWEMRelaxedProjection:
    """MWEM with RAP's relaxed projection (AIM paper, Appendix F), rho-zCDP under add/remove."""

    name = "MWEM+RP"
    traits = MechanismTraits(workload_aware=True, data_aware=True, budget_aware=False,
                             efficiency_aware=True, relation=NeighbourRelation.ADD_REMOVE)

    def __init__(self, config: MWEMRPConfig | None = None) -> None:
        self.config = config or MWEMRPConfig()

    def fit(self, data: Dataset, budget: PrivacyBudget, rng: np.random.Generator, *,
            workload: Workload | None = None) -> SynthesisResult:
        """Run T rounds and release round(N_T) records rounded from the final relaxed rows."""
        check_inputs(self, data, workload)
        workload = require_workload(self, workload)
        ledger = open_ledger(self, budget)
        started = time.perf_counter()
        domain = data.domain
        rounds = self.config.rounds or len(domain)
        epsilon, sigma = round_parameters(budget.rho, rounds, 0.5, ledger)  # Algorithm 1's split
        candidates = list(workload.cliques)
        truth = {r: data.marginal(r) for r in candidates}

        relaxed: RelaxedData | None = None
        measurements: list[NoisyMarginal] = []
        totals: list[float] = []
        selected: list[Clique] = []
        fit_seconds: list[float] = []
        for t in range(1, rounds + 1):
            total = estimated_total(measurements)
            estimates = ({r: total * relaxed.marginal(r) for r in candidates} if relaxed
                         else uniform_marginals(domain, candidates))  # total is 1 before round 1
            choice = select_worst_marginal(candidates, truth, estimates, epsilon=epsilon, rng=rng,
                                           ledger=ledger, label=f"round {t} selection")
            measurements.append(measure_marginal(
                data, choice, sigma=measurement_sigma(sigma, t == rounds, ledger), rng=rng,
                ledger=ledger, label=f"round {t} {choice}"))
            selected.append(choice)
            totals.append(estimated_total(measurements))
            fit_started = time.perf_counter()
            relaxed = relaxed_projection(
                domain, [(m.clique, m.values / totals[-1]) for m in measurements],
                self.config.projection, rng, init=relaxed, cliques=candidates)
            fit_seconds.append(time.perf_counter() - fit_started)

        assert relaxed is not None  # rounds >= 1
        synthetic = relaxed.to_dataset(rng, rows=max(1, round(totals[-1])))
        return SynthesisResult(
            synthetic=synthetic, ledger=ledger,
            log=MWEMRPLog(tuple(measurements), tuple(totals), relaxed),
            diagnostics={
                "rounds": rounds,
                "epsilon": epsilon,
                "sigma": sigma,
                "selected": [list(r) for r in selected],
                "estimated_total": totals[-1],
                "final_loss": float(relaxed.losses[-1]),
                "projection_seconds": fit_seconds,
                "seconds": time.perf_counter() - started,
            })
