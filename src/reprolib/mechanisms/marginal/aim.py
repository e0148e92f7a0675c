"""AIM: an adaptive and iterative mechanism for private synthetic data (McKenna et al., PVLDB 2022).

Algorithm 4 of the paper, ported from its description and the authors' reference code onto mbi 2.0
(Private-PGM). Where the paper text is silent, the reference code decides (the candidate size
cap grows with the budget spent; marginals already inside the model are always candidates; the
selection sensitivity is the largest weight among the round's candidates). Every data access is a
ledger-charged primitive: the one-way initialisation and, per round, one exponential-mechanism
selection and one Gaussian measurement.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping

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
    LossWeighting,
    NoisyMarginal,
    Potentials,
    StepRule,
    downward_closure,
    fit_model,
    junction_tree_size_mb,
    measure_marginal,
    model_marginals,
    synthetic_dataset,
)
from reprolib.privacy import (
    GAUSSIAN_MEAN_ABS,
    Ledger,
    NeighbourRelation,
    PrivacyBudget,
    exponential_mechanism,
    exponential_mechanism_epsilon,
    exponential_mechanism_rho,
    gaussian_rho,
    gaussian_sigma,
    marginal_l1_sensitivity,
    marginal_l2_sensitivity,
)
from reprolib.queries import Workload


@dataclasses.dataclass(frozen=True, eq=False)
class StructuralZeros:
    """Impossible value combinations of one marginal (AIM paper, Appendix D), public knowledge.

    The guarantee holds when the list does not depend on the private data (a domain expert's):
    a list read off the records (their empty cells) makes the run non-private.

    Attributes:
        clique: the attributes, in domain order.
        cells: integer array of shape (n_zeros, len(clique)); each row is one impossible cell.
    """

    clique: Clique
    cells: np.ndarray


@dataclasses.dataclass(frozen=True, kw_only=True)
class AIMConfig:
    """AIM's settings; the defaults are the paper's.

    Attributes:
        max_model_size_mb: model capacity, the cap on JT-SIZE in MB (paper default 80).
        rounds_factor: T = rounds_factor * d, the round count the initial per-round budget
            assumes (paper and reference code: 16).
        alpha: share of each round's budget spent on measurement (paper: 0.9).
        pgm_iters: Private-PGM iterations per round, warm-started (reference code: 1000).
        final_pgm_iters: iterations of the final fit (reference code at HEAD: 1000; 2022: 2500).
        loss_weighting: Private-PGM loss; "inverse-variance" (maximum likelihood) is what the
            reference code's library computes, "inverse-std" the paper's displayed objective (see
            ``reprolib.mechanisms.pgm._model.fit_model``).
        step_rule: Private-PGM's line search. "backtracking-2022" (default) is the 2022 library's
            (``FactoredInference``, which the paper ran): the first step tries 2 / N^2, each later
            one twice the previous step, halving until the loss decreases enough. "mbi-2.0" is
            mbi 2.0's: from 2 / (L N), x1.01 after an accepted step and x0.5 after a rejected one
            (``reprolib.mechanisms.pgm._mirror_descent``).
        potentials: where Private-PGM's potentials live, which decides what each round's warm
            start keeps. "measured-cliques" (default, mbi 2.0): on the measured cliques, so the
            warm start is the previous model. "junction-tree-2022" (the 2022 library the paper
            ran): on the junction tree's maximal cliques, so when a new measurement changes the
            triangulation the potentials of fill-in cliques the new tree no longer holds are
            dropped and the round's fit starts from part of the previous model. The capacity
            filter reads the model's cliques, as the 2022 script does: under the 2022 home it
            computes JT-SIZE on the junction tree's cliques plus the candidate, while the next
            fit triangulates the measured sets afresh, so it can admit a selection whose fit is
            far over MAX-SIZE (557 MB at 10 MB on fire, ``benchmarks/aim_capacity_2022.py``);
            under the default the two are the paper's JT-SIZE(r_1, ..., r_t).
        structural_zeros: impossible cells to impose on the model (Appendix D), public: never
            read them off the private data; empty by default.
        relation: the neighbouring relation the accounting assumes. The AIM paper proves
            Theorem 1 under add/remove; the PrivPGD paper runs AIM as a baseline under
            replace-one, where every noise scale grows by the marginals' L2 sensitivity sqrt(2)
            and the selection's score sensitivity doubles (L1 sensitivity 2).
    """

    max_model_size_mb: float = 80.0
    rounds_factor: int = 16
    alpha: float = 0.9
    pgm_iters: int = 1000
    final_pgm_iters: int = 1000
    loss_weighting: LossWeighting = "inverse-variance"
    step_rule: StepRule = "backtracking-2022"
    potentials: Potentials = "measured-cliques"
    structural_zeros: tuple[StructuralZeros, ...] = ()
    relation: NeighbourRelation = NeighbourRelation.ADD_REMOVE

    def __post_init__(self) -> None:
        if not 0.0 < self.alpha < 1.0:
            raise ValueError(f"alpha must lie in (0, 1), got {self.alpha}")
        if self.rounds_factor < 1:
            raise ValueError(f"rounds_factor must be >= 1 (T >= d), got {self.rounds_factor}")
        if self.max_model_size_mb <= 0:
            raise ValueError(f"max_model_size_mb must be positive, got {self.max_model_size_mb}")
        if self.pgm_iters < 1 or self.final_pgm_iters < 1:
            raise ValueError("pgm_iters and final_pgm_iters must be positive")


@dataclasses.dataclass(frozen=True, eq=False)
class AIMRound:
    """What one round released and decided (enough for the uncertainty bounds of Section 5).

    ``model_selected`` is the previous model's marginal on the selected clique,
    M_{r_t}(p_{t-1}); ``measurement`` is the Gaussian release on it.
    """

    index: int
    epsilon: float
    sigma: float
    sensitivity: float
    n_candidates: int
    selected: Clique
    selected_weight: float
    measurement: NoisyMarginal
    model_selected: np.ndarray
    annealed: bool
    final: bool
    rho_used: float
    size_limit_mb: float
    seconds: float


@dataclasses.dataclass(frozen=True, eq=False)
class Candidacy:
    """A candidate's state in the last round it was a candidate: the round, w_r and M_r(p_{t-1})."""

    round: AIMRound
    weight: float
    model_marginal: np.ndarray


@dataclasses.dataclass(frozen=True, eq=False)
class AIMLog:
    """Everything AIM released, per round, for uncertainty quantification and the book.

    Attributes:
        measurements: every Gaussian release, the one-way initialisation first.
        rounds: the rounds after initialisation, in order.
        last_candidacy: for each candidate marginal, its state in the last round it was a
            candidate (Section 5 prescribes that round for the unsupported bound).
        weights: the workload weight w_r of every candidate.
    """

    measurements: tuple[NoisyMarginal, ...]
    rounds: tuple[AIMRound, ...]
    last_candidacy: Mapping[Clique, Candidacy]
    weights: Mapping[Clique, float]


def candidate_weights(workload: Workload) -> dict[Clique, float]:
    """w_r = sum_s c_s |r ∩ s| for every r in the workload's downward closure (AIM, Section 4)."""
    return {r: sum(c * len(set(r) & set(s)) for s, c in zip(workload.cliques, workload.weights,
                                                           strict=True))
            for r in downward_closure(workload.cliques)}


def initial_parameters(rho: float, n_attributes: int, config: AIMConfig,
                       l2_sensitivity: float = 1.0) -> tuple[float, float]:
    """(sigma_0, epsilon_1): each round assumed to cost rho / T with T = rounds_factor * d, alpha
    of it to the Gaussian measurement (Delta^2 / (2 sigma_0^2), Delta the marginal's L2
    sensitivity: 1 under add/remove, sqrt(2) under replace-one) and the rest to the selection
    (epsilon_1^2 / 8).
    """
    per_round = rho / (config.rounds_factor * n_attributes)
    return (gaussian_sigma(config.alpha * per_round, l2_sensitivity),
            exponential_mechanism_epsilon((1.0 - config.alpha) * per_round))


class AIM:
    """AIM (Algorithm 4), ρ-zCDP under ``config.relation`` (Theorem 1 of the paper: add/remove)."""

    name = "AIM"

    def __init__(self, config: AIMConfig | None = None) -> None:
        self.config = config or AIMConfig()

    @property
    def traits(self) -> MechanismTraits:
        """Table 1's four columns, and the neighbouring relation set in the config."""
        return MechanismTraits(workload_aware=True, data_aware=True, budget_aware=True,
                               efficiency_aware=True, relation=self.config.relation)

    def fit(self, data: Dataset, budget: PrivacyBudget, rng: np.random.Generator, *,
            workload: Workload | None = None) -> SynthesisResult:
        """Run AIM on ``data``, spending exactly ``budget``; ``workload`` is required."""
        check_inputs(self, data, workload)
        workload = require_workload(self, workload)
        return _AIMRun(self.config, data, budget, rng, workload, open_ledger(self, budget)).run()


class _AIMRun:
    """One execution of AIM; holds the state the rounds share."""

    def __init__(self, config: AIMConfig, data: Dataset, budget: PrivacyBudget,
                 rng: np.random.Generator, workload: Workload, ledger: Ledger) -> None:
        self.config, self.data, self.rng, self.ledger = config, data, rng, ledger
        self.domain: Domain = data.domain
        self.rho = budget.rho
        self.weights = candidate_weights(workload)
        self.candidates = list(self.weights)
        self.truth = {r: data.marginal(r) for r in self.candidates}
        self.constraints = zero_constraints(self.domain, config.structural_zeros)
        self.measurements: list[NoisyMarginal] = []
        self.rounds: list[AIMRound] = []
        self.last_candidacy: dict[Clique, Candidacy] = {}

    def run(self) -> SynthesisResult:
        config, started = self.config, time.perf_counter()
        l2 = marginal_l2_sensitivity(self.ledger.relation, 1)

        def round_cost(sigma: float, epsilon: float) -> float:
            return gaussian_rho(sigma, l2) + exponential_mechanism_rho(epsilon)

        sigma, epsilon = initial_parameters(self.rho, len(self.domain), config, l2)
        for single in (c for c in self.candidates if len(c) == 1):
            self._measure(single, sigma, label=f"init {single[0]}")
        model = self._fit(config.pgm_iters, warm_start=None)
        final = False
        while not final:
            round_started = time.perf_counter()
            remaining = self.ledger.remaining_rho
            if remaining < 2.0 * round_cost(sigma, epsilon):  # Algorithm 3, line 8
                sigma = gaussian_sigma(config.alpha * remaining, l2)
                epsilon = exponential_mechanism_epsilon((1.0 - config.alpha) * remaining)
                final = True
            rho_used = self.ledger.spent_rho + round_cost(sigma, epsilon)
            size_limit = config.max_model_size_mb * rho_used / self.rho
            candidates = self._small_candidates(model, size_limit)
            estimates = model_marginals(model, candidates)
            selected, sensitivity = self._select(candidates, estimates, epsilon, sigma)
            if final:  # spend exactly the rest: the selection's rounded charge is known now
                sigma = gaussian_sigma(self.ledger.remaining_rho, l2)
            measurement = self._measure(selected, sigma, label=f"round {len(self.rounds) + 1}")
            model = self._fit(config.pgm_iters, warm_start=model)
            updated = model_marginals(model, [selected])[selected]
            shift = np.abs(updated - estimates[selected]).sum()
            annealed = bool(shift <= GAUSSIAN_MEAN_ABS * sigma * updated.size)
            record = AIMRound(
                index=len(self.rounds) + 1, epsilon=epsilon, sigma=sigma, sensitivity=sensitivity,
                n_candidates=len(candidates), selected=selected,
                selected_weight=self.weights[selected], measurement=measurement,
                model_selected=estimates[selected], annealed=annealed and not final, final=final,
                rho_used=self.ledger.spent_rho, size_limit_mb=size_limit,
                seconds=time.perf_counter() - round_started)
            self.rounds.append(record)
            for r in candidates:
                self.last_candidacy[r] = Candidacy(record, self.weights[r], estimates[r])
            if annealed:  # Algorithm 3, lines 1-5: the model barely moved, so spend more per round
                epsilon, sigma = 2.0 * epsilon, sigma / 2.0
        model = self._fit(config.final_pgm_iters, warm_start=model)
        synthetic = synthetic_dataset(model, self.domain, self.rng)
        return SynthesisResult(
            synthetic=synthetic, ledger=self.ledger,
            log=AIMLog(tuple(self.measurements), tuple(self.rounds), self.last_candidacy,
                       self.weights),
            diagnostics={
                "rounds": len(self.rounds),
                "anneals": sum(r.annealed for r in self.rounds),
                "model_size_mb": junction_tree_size_mb(self.domain, self._model_cliques(model)),
                "seconds": time.perf_counter() - started,
                "seconds_per_round": float(np.mean([r.seconds for r in self.rounds])),
                "selected": [list(r.selected) for r in self.rounds],
            })

    def _measure(self, clique: Clique, sigma: float, label: str) -> NoisyMarginal:
        measurement = measure_marginal(self.data, clique, sigma=sigma, rng=self.rng,
                                       ledger=self.ledger, label=label)
        self.measurements.append(measurement)
        return measurement

    def _fit(self, iters: int, warm_start):
        return fit_model(self.domain, self.measurements, iters=iters,
                         weighting=self.config.loss_weighting, warm_start=warm_start,
                         constraints=self.constraints, step_rule=self.config.step_rule,
                         potentials=self.config.potentials)

    def _model_cliques(self, model) -> list[Clique]:
        return [tuple(c) for c in model.cliques] + [c.clique for c in self.constraints]

    def _small_candidates(self, model, size_limit: float) -> list[Clique]:
        """Candidates whose addition keeps JT-SIZE within the limit, plus those the model holds
        (JT-SIZE of the model's cliques, the zero sets and the candidate: see ``potentials``).
        """
        cliques = self._model_cliques(model)
        free = set(downward_closure(cliques))
        return [r for r in self.candidates
                if r in free or junction_tree_size_mb(self.domain, [*cliques, r]) <= size_limit]

    def _select(self, candidates: list[Clique], estimates: Mapping[Clique, np.ndarray],
                epsilon: float, sigma: float) -> tuple[Clique, float]:
        """The exponential mechanism on :func:`quality_scores`."""
        scores = quality_scores(candidates, self.truth, estimates, self.weights, sigma)
        # q_r moves by at most w_r times the L1 sensitivity of one marginal between neighbours
        sensitivity = (max(self.weights[r] for r in candidates)
                       * marginal_l1_sensitivity(self.ledger.relation, 1))
        index = exponential_mechanism(scores, epsilon=epsilon, sensitivity=sensitivity,
                                      rng=self.rng, ledger=self.ledger,
                                      label=f"round {len(self.rounds) + 1} selection")
        return candidates[index], sensitivity


def quality_scores(candidates: list[Clique], truth: Mapping[Clique, np.ndarray],
                   estimates: Mapping[Clique, np.ndarray], weights: Mapping[Clique, float],
                   sigma: float) -> np.ndarray:
    """AIM's selection scores q_r = w_r (||M_r(D) - M_r(p)||_1 - sqrt(2/pi) sigma n_r) (Algorithm
    3, line 11): ``truth`` the data's marginals (counts), ``estimates`` the model's, n_r cells.
    """
    weight = np.array([weights[r] for r in candidates])
    errors = np.array([np.abs(truth[r] - estimates[r]).sum() for r in candidates])
    penalty = GAUSSIAN_MEAN_ABS * sigma * np.array([truth[r].size for r in candidates])
    return weight * (errors - penalty)


def zero_constraints(domain: Domain, zeros: tuple[StructuralZeros, ...]) -> tuple:
    """The structural zeros as mbi constraints, which every Private-PGM fit of AIM+SZ imposes."""
    if not zeros:
        return ()
    import mbi

    return tuple(mbi.Constraint(domain.project(z.clique).to_mbi(),
                                invalid=np.asarray(z.cells, dtype=np.int64)) for z in zeros)
