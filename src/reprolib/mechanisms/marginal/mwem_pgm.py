"""MWEM+PGM: Algorithm 1 of the AIM paper (McKenna et al. 2019, as described in Section 3.1).

T rounds; each selects one workload marginal with the exponential mechanism on how badly the
current model answers it, measures it with the Gaussian mechanism, and refits Private-PGM on all
measurements so far. Workload- and data-aware, neither budget- nor efficiency-aware (Table 1).

Where the paper text is silent we follow the authors' reference code (private-pgm,
``mechanisms/mwem+pgm.py``): the initial model is Private-PGM's estimate from no measurements,
the uniform distribution with total 1, and the optional model-size cap grows as cap * t / T.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Mapping, Sequence

import numpy as np

from reprolib.data import Dataset, Domain
from reprolib.mechanisms._base import (
    MechanismTraits,
    SynthesisResult,
    check_inputs,
    open_ledger,
    require_workload,
)
from reprolib.mechanisms.pgm import (
    Clique,
    NoisyMarginal,
    Potentials,
    StepRule,
    fit_model,
    junction_tree_size_mb,
    measure_marginal,
    model_marginals,
    synthetic_dataset,
)
from reprolib.privacy import (
    Ledger,
    NeighbourRelation,
    PrivacyBudget,
    exponential_mechanism,
    exponential_mechanism_epsilon,
    gaussian_sigma,
    marginal_l1_sensitivity,
    marginal_l2_sensitivity,
)
from reprolib.queries import Workload


@dataclasses.dataclass(frozen=True, kw_only=True)
class MWEMPGMConfig:
    """MWEM+PGM's settings.

    Attributes:
        rounds: T, the number of rounds; None means d, the number of attributes (the reference
            code's default; the paper tunes T and gives no default).
        alpha: share of each round's budget rho/T spent on measurement, the rest on selection.
            0.5 is Algorithm 1 of the AIM paper (epsilon = sqrt(8 rho/(2T)), sigma = sqrt(T/rho));
            the reference code at HEAD uses 0.9.
        pgm_iters: Private-PGM iterations per round, warm-started (reference code: 1000).
        max_model_size_mb: optional JT-SIZE cap; in round t a candidate is eligible only if the
            selected marginals plus it give a model of at most cap * t / T MB (reference code:
            25). None (default) is the paper's MWEM+PGM, which has no such safeguard.
        step_rule: Private-PGM's line search; the default "backtracking-2022" is the 2022
            library's, which the AIM and PrivPGD papers ran, "mbi-2.0" mbi 2.0's
            (``reprolib.mechanisms.pgm._mirror_descent``).
        potentials: where Private-PGM's potentials live, which decides what each round's warm
            start keeps: "measured-cliques" (default, mbi 2.0: all of the previous model) or
            "junction-tree-2022" (the 2022 library the reference code ran: the potentials of
            fill-in cliques a new triangulation no longer holds are dropped); see ``AIMConfig``.
        relation: the neighbouring relation every sensitivity assumes: add/remove (the AIM
            paper's) or replace-one (the RAP++ paper compares under it), where the selection's
            L1 sensitivity is 2 and a marginal's L2 sensitivity sqrt(2).
    """

    rounds: int | None = None
    alpha: float = 0.5
    pgm_iters: int = 1000
    max_model_size_mb: float | None = None
    step_rule: StepRule = "backtracking-2022"
    potentials: Potentials = "measured-cliques"
    relation: NeighbourRelation = NeighbourRelation.ADD_REMOVE

    def __post_init__(self) -> None:
        if self.rounds is not None and self.rounds < 1:
            raise ValueError(f"rounds must be a positive integer or None (= d), got {self.rounds}")
        if not 0.0 < self.alpha < 1.0:
            raise ValueError(f"alpha must lie in (0, 1), got {self.alpha}")
        if self.pgm_iters < 1:
            raise ValueError(f"pgm_iters must be a positive integer, got {self.pgm_iters}")
        if self.max_model_size_mb is not None and not self.max_model_size_mb > 0:
            raise ValueError(
                f"max_model_size_mb must be positive or None (no cap), got {self.max_model_size_mb}")


class MWEMPGM:
    """MWEM+PGM (AIM paper, Algorithm 1); rho-zCDP under the config's neighbouring relation.

    Every round costs rho/T: selection with epsilon = sqrt(8 (1 - alpha) rho / T), costing
    epsilon^2/8 = (1 - alpha) rho/T, and measurement with sigma = sqrt(T / (2 alpha rho)),
    costing 1/(2 sigma^2) = alpha rho/T. The quality of workload marginal r is
    q_r = ||M_r(D) - M_r(p_{t-1})||_1 - n_r (counts; n_r = number of cells), sensitivity 1
    (add/remove; 2 under replace-one, where the measurements' sensitivity is sqrt(2)).
    """

    name = "MWEM+PGM"

    def __init__(self, config: MWEMPGMConfig | None = None) -> None:
        self.config = config or MWEMPGMConfig()

    @property
    def traits(self) -> MechanismTraits:
        """Table 1's four columns, and the neighbouring relation set in the config."""
        return MechanismTraits(workload_aware=True, data_aware=True, budget_aware=False,
                               efficiency_aware=False, relation=self.config.relation)

    def fit(self, data: Dataset, budget: PrivacyBudget, rng: np.random.Generator, *,
            workload: Workload | None = None) -> SynthesisResult:
        """Run T rounds on the workload's marginals and release synthetic records."""
        check_inputs(self, data, workload)
        started = time.perf_counter()
        workload = require_workload(self, workload)
        ledger = open_ledger(self, budget)
        config, domain = self.config, data.domain
        rounds = config.rounds or len(domain)
        epsilon, sigma = round_parameters(budget.rho, rounds, config.alpha, ledger)
        truth = {r: data.marginal(r) for r in workload.cliques}
        estimates = uniform_marginals(domain, workload.cliques)
        measurements: list[NoisyMarginal] = []
        model = None
        for t in range(1, rounds + 1):
            candidates = self._eligible(domain, workload, [m.clique for m in measurements],
                                        t / rounds)
            if model is not None:
                estimates = model_marginals(model, candidates)
            selected = select_worst_marginal(candidates, truth, estimates, epsilon=epsilon,
                                             rng=rng, ledger=ledger, label=f"round {t} selection")
            measurements.append(measure_marginal(
                data, selected, sigma=measurement_sigma(sigma, t == rounds, ledger), rng=rng,
                ledger=ledger, label=f"round {t}"))
            model = fit_model(domain, measurements, iters=config.pgm_iters, warm_start=model,
                              step_rule=config.step_rule, potentials=config.potentials)
        synthetic = synthetic_dataset(model, domain, rng)
        selected_cliques = [m.clique for m in measurements]
        return SynthesisResult(synthetic=synthetic, ledger=ledger, diagnostics={
            "rounds": rounds,
            "epsilon": epsilon,
            "sigma": sigma,
            "selected": [list(c) for c in selected_cliques],
            "model_size_mb": junction_tree_size_mb(domain, selected_cliques),
            "seconds": time.perf_counter() - started,
        })

    def _eligible(self, domain: Domain, workload: Workload, selected: list[Clique],
                  progress: float) -> list[Clique]:
        """Workload marginals allowed in this round (all of them unless a size cap is set)."""
        cap = self.config.max_model_size_mb
        if cap is None:
            return list(workload.cliques)
        limit = cap * progress
        eligible = [r for r in workload.cliques
                    if junction_tree_size_mb(domain, [*selected, r]) <= limit]
        if not eligible:
            raise ValueError(
                f"no workload marginal keeps the model within {limit:.4g} MB (max_model_size_mb="
                f"{cap} scaled by round/T); raise max_model_size_mb or set it to None")
        return eligible


def round_parameters(rho: float, rounds: int, alpha: float,
                     ledger: Ledger) -> tuple[float, float]:
    """(epsilon, sigma) of one MWEM round: (1 - alpha) rho / T to selection, alpha rho / T to
    measurement (sigma for one marginal under the ledger's relation).
    """
    epsilon = exponential_mechanism_epsilon((1.0 - alpha) * rho / rounds)
    sigma = gaussian_sigma(alpha * rho / rounds, marginal_l2_sensitivity(ledger.relation, 1))
    return epsilon, sigma


def measurement_sigma(sigma: float, last: bool, ledger: Ledger) -> float:
    """``sigma``, except in the last round, whose measurement spends exactly what the ledger has
    left: T rounded per-round shares need not add up to rho, and the ledger accepts no total
    above it, so the last release absorbs the rounding (a few ulps, never above rho).
    """
    if not last:
        return sigma
    return gaussian_sigma(ledger.remaining_rho, marginal_l2_sensitivity(ledger.relation, 1))


def select_worst_marginal(candidates: list[Clique], truth: Mapping[Clique, np.ndarray],
                          estimates: Mapping[Clique, np.ndarray], *, epsilon: float,
                          rng: np.random.Generator, ledger: Ledger, label: str) -> Clique:
    """MWEM's selection: the exponential mechanism on q_r = ||M_r(D) - M_r(p)||_1 - n_r (counts).

    The estimate depends on released values only, so q_r moves by at most one marginal's L1
    sensitivity between neighbours.
    """
    scores = np.array([np.abs(truth[r] - estimates[r]).sum() - truth[r].size for r in candidates])
    return candidates[exponential_mechanism(
        scores, epsilon=epsilon, sensitivity=marginal_l1_sensitivity(ledger.relation, 1), rng=rng,
        ledger=ledger, label=label)]


def uniform_marginals(domain: Domain, cliques: Sequence[Clique]) -> dict[Clique, np.ndarray]:
    """Marginals of p_0, the uniform distribution with total 1 (data-independent).

    This is Private-PGM's estimate from no measurements, the reference code's p_0: with nothing
    measured, the numpy library the reference code ran on (``FactoredInference``) and mbi 2.0's
    ``minimum_variance_unbiased_total`` both take the total to be 1. Scaling it to N, as the
    paper's "uniform" might suggest, would use N without charging for it: private under
    add/remove (under replace-one N is public, and the 2021 reference code uses it there; the
    total only changes the first round's selection scores).
    """
    return {r: np.full(domain.project(r).sizes, 1.0 / math.prod(domain.project(r).sizes))
            for r in cliques}
