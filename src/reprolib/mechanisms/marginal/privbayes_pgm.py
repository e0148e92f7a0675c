"""PrivBayes+PGM: PrivBayes' private Bayesian network, with Private-PGM in place of its sampler.

PrivBayes (Zhang, Cormode, Procopiuc, Srivastava, Xiao; SIGMOD 2014, TODS 2017) builds a Bayesian
network of degree k greedily with the exponential mechanism, releases the noisy marginal of every
attribute together with its parents, and samples records from the network. PrivBayes+PGM (McKenna,
Sheldon, Miklau, ICML 2019) keeps the structure learning and the noisy marginals and lets
Private-PGM estimate the model that generates the data; the AIM paper compares it in that form.

Accounting, and what changed from the original:

* PrivBayes is pure epsilon-DP under bounded (replace-one) neighbours: Laplace noise, the record
  count n public (as it is under bounded DP), and a score sensitivity that depends on n. This
  port is rho-zCDP under ADD_REMOVE, AIM's relation, our choice for the AIM comparison (the paper's
  Section 3.2 notes that PrivBayes uses bounded DP and does not say how it compared mechanisms of
  different relations): each exponential-mechanism step costs eps**2/8 and the marginals get
  Gaussian noise.
* Budget: rho_sel = beta * rho (beta = ``selection_share``, 0.3: ours, after PrivBayes' 0.3 of
  epsilon under pure-DP composition, which does not carry over to rho) buys d - 1 selections,
  each with eps_sel = sqrt(8 rho_sel / (d - 1)); rho_meas = (1 - beta) * rho buys d marginals with
  equal noise, sigma = sqrt(d / (2 rho_meas)) (L2 sensitivity 1 per marginal). They add up to rho;
  the last marginal measured is calibrated to what the ledger has left, so the floating-point total
  is rho to within a few ulps and never above it. With one attribute there is nothing to select and
  its marginal gets all of rho.
* Score: the L1 dependence of :func:`dependence_score`, PrivBayes' R score (the journal version's,
  which replaced the conference version's mutual information) in counts: its add/remove
  sensitivity is 2 for every N, so N need not be public (see that function).
* N: the degree rule and the cell limit need the record count; they read it off the noisy total of
  the root's one-way marginal, one of the d measured marginals (post-processing, no extra cost).
* Measured marginals: all d (the root alone, every other attribute with its parents). PrivBayes
  releases d - k, since the first k follow from the (k+1)-th; for Private-PGM they are extra
  evidence, and the root's marginal yields the noisy total.
* Degree: PrivBayes' theta-usefulness rule restated for Gaussian noise (:func:`network_degree`).
* Candidates: for each attribute not yet in the network, the maximal parent sets of at most
  min(k, placed) placed attributes whose marginal is theta-useful on its own (the cell limit) and
  keeps the junction tree of the network so far within ``max_model_size_mb``. Without those limits
  these are PrivBayes' subsets of size min(k, placed); the limits keep the model tractable.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from reprolib.data import Dataset, Domain
from reprolib.mechanisms._base import MechanismTraits, SynthesisResult, check_inputs, open_ledger
from reprolib.mechanisms.pgm import (
    Clique,
    NoisyMarginal,
    StepRule,
    fit_model,
    junction_tree_size_mb,
    measure_marginal,
    synthetic_dataset,
)
from reprolib.privacy import (
    Ledger,
    NeighbourRelation,
    PrivacyBudget,
    exponential_mechanism,
    exponential_mechanism_epsilon,
    gaussian_sigma,
    marginal_l2_sensitivity,
)
from reprolib.queries import Workload

# Add/remove sensitivity of dependence_score, for every dataset size (derivation in its docstring).
SCORE_SENSITIVITY = 2.0


@dataclasses.dataclass(frozen=True, kw_only=True)
class PrivBayesPGMConfig:
    """PrivBayes+PGM's settings; the defaults are the papers'.

    Attributes:
        selection_share: beta, the share of rho spent on structure learning (PrivBayes: 0.3).
        theta: the usefulness threshold of the degree rule and the cell limit (PrivBayes: 4).
        max_model_size_mb: cap on the junction tree of the network's marginals, in MB (the AIM
            paper's model capacity, 80).
        iters: Private-PGM mirror-descent iterations.
        step_rule: Private-PGM's line search; the default "backtracking-2022" is the 2022
            library's, which the AIM and PrivPGD papers ran, "mbi-2.0" mbi 2.0's
            (``reprolib.mechanisms.pgm._mirror_descent``).
    """

    selection_share: float = 0.3
    theta: float = 4.0
    max_model_size_mb: float = 80.0
    iters: int = 1000
    step_rule: StepRule = "backtracking-2022"

    def __post_init__(self) -> None:
        if not 0.0 < self.selection_share < 1.0:
            raise ValueError(f"selection_share must lie in (0, 1), got {self.selection_share}")
        if self.theta <= 0:
            raise ValueError(f"theta must be positive, got {self.theta}")
        if self.max_model_size_mb <= 0:
            raise ValueError(f"max_model_size_mb must be positive, got {self.max_model_size_mb}")
        if self.iters < 1:
            raise ValueError(f"iters must be positive, got {self.iters}")


@dataclasses.dataclass(frozen=True, kw_only=True)
class Node:
    """One attribute of the network with the parents chosen for it (none for the root)."""

    child: str
    parents: Clique

    def clique(self, domain: Domain) -> Clique:
        """The attribute and its parents, in domain order: the marginal that gets measured."""
        members = {self.child, *self.parents}
        return tuple(a for a in domain.attributes if a in members)


@dataclasses.dataclass(frozen=True, eq=False)
class PrivBayesLog:
    """What a run decided and released: the network in selection order and every measurement."""

    network: tuple[Node, ...]
    measurements: tuple[NoisyMarginal, ...]


def dependence_score(data: Dataset, child: str, parents: Clique) -> float:
    """F = 1/2 sum_{x, pi} |c(x, pi) - c(x) c(pi) / N|: how far the counts are from independence.

    c are the counts of ``data`` (N records) over the child's values x and the parents' joint
    values pi. f / N = 1/2 ||P[X, Pi] - P[X] P[Pi]||_1, the total variation distance of the
    empirical distribution from independence; f is 0 without parents.

    Add/remove sensitivity 2, for every N. Let D' be D plus a record (x0, pi0), N = |D| >= 1,
    p_x = c(x) / N, q_pi = c(pi) / N, a = [x = x0], b = [pi = pi0] and e = c(x, pi) - c(x) c(pi) / N.
    Expanding e' - e gives N / (N + 1) (a - p_x)(b - q_pi), so
    sum |e' - e| = N / (N + 1) * 2 (1 - p_x0) * 2 (1 - q_pi0) < 4, and |f(D') - f(D)| < 2 by the
    triangle inequality. With N = 0 both scores are 0, and removing a record is the same pair read
    backwards. The bound is tight: counts [[1, 0], [0, N - 1]] plus a record in the first cell move
    f by 2 (N - 1)**2 / (N (N + 1)). PrivBayes' mutual information instead has a sensitivity that
    depends on N (SIGMOD 2014, Lemma 4.1: (2/n) log((n + 1)/2) + ((n - 1)/n) log((n + 1)/(n - 1))
    under replace-one, non-binary case), and N is private under add/remove.
    """
    counts = data.marginal((*parents, child)).reshape(-1, data.domain.size(child))
    total = counts.sum()
    if total == 0:
        return 0.0
    independent = np.outer(counts.sum(axis=1), counts.sum(axis=0)) / total
    return 0.5 * float(np.abs(counts - independent).sum())


def network_degree(noisy_total: float, sigma: float, sizes: Sequence[int], theta: float) -> int:
    """PrivBayes' degree rule (theta-usefulness), restated for Gaussian noise.

    A marginal with c cells is theta-useful when its average count is theta times the noise per
    cell: noisy_total / (c sigma) >= theta. The degree k is the largest number of parents that a
    useful marginal can have: the largest k in [0, d - 1] for which the k + 1 smallest attributes
    span a useful marginal (0 when none does). On binary data c = 2**(k+1), PrivBayes' rule with
    its Laplace scale replaced by sigma and probabilities by counts. On general domains each
    candidate marginal must also be useful itself (the cell limit of PrivBayesPGM).
    """
    cells = np.cumprod(np.sort(np.asarray(sizes, dtype=float)))
    useful = int(np.count_nonzero(noisy_total / (cells * sigma) >= theta))
    return max(useful - 1, 0)


class PrivBayesPGM:
    """PrivBayes+PGM, rho-zCDP under add/remove neighbours (budget split in the module docstring)."""

    name: ClassVar[str] = "PrivBayes+PGM"
    traits: ClassVar[MechanismTraits] = MechanismTraits(
        workload_aware=False, data_aware=True, budget_aware=True, efficiency_aware=True,
        relation=NeighbourRelation.ADD_REMOVE)

    def __init__(self, config: PrivBayesPGMConfig | None = None) -> None:
        self.config = config or PrivBayesPGMConfig()

    def fit(self, data: Dataset, budget: PrivacyBudget, rng: np.random.Generator, *,
            workload: Workload | None = None) -> SynthesisResult:
        """Learn the network, measure its marginals, fit Private-PGM and sample; ignores workload."""
        check_inputs(self, data, workload)
        return _Run(self.config, data, budget, rng, open_ledger(self, budget)).run()


class _Run:
    """One execution: the budget split, then structure, measurement and generation."""

    def __init__(self, config: PrivBayesPGMConfig, data: Dataset, budget: PrivacyBudget,
                 rng: np.random.Generator, ledger: Ledger) -> None:
        self.config, self.data, self.rng, self.ledger = config, data, rng, ledger
        self.domain = data.domain
        d = len(self.domain)
        selection_rho = config.selection_share * budget.rho if d > 1 else 0.0
        self.sigma = gaussian_sigma((budget.rho - selection_rho) / d,
                                    marginal_l2_sensitivity(ledger.relation, 1))
        self.epsilon = exponential_mechanism_epsilon(selection_rho / (d - 1)) if d > 1 else 0.0
        self.measurements: list[NoisyMarginal] = []
        self.scores: dict[tuple[str, Clique], float] = {}
        self.degree, self.cell_limit = 0, 0.0  # set from the root's noisy total in run()

    def run(self) -> SynthesisResult:
        started = time.perf_counter()
        attributes = self.domain.attributes
        root = Node(child=attributes[int(self.rng.integers(len(attributes)))], parents=())
        noisy_total = max(float(self._measure(root).values.sum()), 0.0)
        self.degree = network_degree(noisy_total, self.sigma, self.domain.sizes,
                                     self.config.theta)
        self.cell_limit = noisy_total / (self.config.theta * self.sigma)
        network = [root]
        while len(network) < len(attributes):
            network.append(self._select(network))
        for node in network[1:-1]:
            self._measure(node)
        if len(network) > 1:
            self._measure(network[-1], sigma=gaussian_sigma(
                self.ledger.remaining_rho, marginal_l2_sensitivity(self.ledger.relation, 1)))
        model = fit_model(self.domain, self.measurements, iters=self.config.iters,
                          step_rule=self.config.step_rule)
        cliques = [node.clique(self.domain) for node in network]
        return SynthesisResult(
            synthetic=synthetic_dataset(model, self.domain, self.rng), ledger=self.ledger,
            log=PrivBayesLog(network=tuple(network), measurements=tuple(self.measurements)),
            diagnostics={
                "degree": self.degree,
                "noisy_total": noisy_total,
                "cell_limit": self.cell_limit,
                "sigma": self.sigma,
                "epsilon_selection": self.epsilon,
                "network": [[node.child, list(node.parents)] for node in network],
                "model_size_mb": junction_tree_size_mb(self.domain, cliques),
                "seconds": time.perf_counter() - started,
            })

    def _measure(self, node: Node, sigma: float | None = None) -> NoisyMarginal:
        """Measure ``node``'s marginal at ``sigma`` (default: the common sigma)."""
        given = f" given {', '.join(node.parents)}" if node.parents else ""
        measurement = measure_marginal(self.data, node.clique(self.domain),
                                       sigma=self.sigma if sigma is None else sigma,
                                       rng=self.rng, ledger=self.ledger,
                                       label=f"measure {node.child}{given}")
        self.measurements.append(measurement)
        return measurement

    def _select(self, network: list[Node]) -> Node:
        """One greedy step: the exponential mechanism over (child, parent set) candidates."""
        placed = {node.child for node in network}
        chosen = [node.clique(self.domain) for node in network]
        candidates = [Node(child=child, parents=parents)
                      for child in self.domain.attributes if child not in placed
                      for parents in self._parent_sets(child, placed, chosen)]
        scores = np.array([self._score(node) for node in candidates])
        index = exponential_mechanism(scores, epsilon=self.epsilon, sensitivity=SCORE_SENSITIVITY,
                                      rng=self.rng, ledger=self.ledger,
                                      label=f"structure step {len(network)}")
        return candidates[index]

    def _parent_sets(self, child: str, placed: set[str], chosen: list[Clique]) -> list[Clique]:
        """The maximal admissible sets of at most min(k, |placed|) placed attributes.

        Sets grow one attribute at a time from admissible ones (a subset of an admissible set has
        fewer cells), and a set is kept when no admissible set one attribute larger contains it.
        Without the limits these are PrivBayes' size-min(k, |placed|) subsets; when nothing is
        admissible, the empty set. Uses released values only, so it costs no privacy.
        """
        pool = [a for a in self.domain.attributes if a in placed]
        level: list[Clique] = [()]
        maximal: list[Clique] = []
        for _ in range(min(self.degree, len(pool))):
            grown = sorted({self._ordered({*parents, extra}) for parents in level
                            for extra in pool if extra not in parents})
            level_up = [p for p in grown if self._admissible((child, *p), chosen)]
            covered = {sub for p in level_up for sub in itertools.combinations(p, len(p) - 1)}
            maximal += [p for p in level if p not in covered]
            level = level_up
        return maximal + level

    def _admissible(self, members: Clique, chosen: list[Clique]) -> bool:
        """theta-useful on its own, and the junction tree stays within the model capacity."""
        clique = self._ordered(set(members))
        if self.domain.project(clique).total_size > self.cell_limit:
            return False
        return junction_tree_size_mb(self.domain, [*chosen, clique]) <= self.config.max_model_size_mb

    def _ordered(self, members: set[str]) -> Clique:
        return tuple(a for a in self.domain.attributes if a in members)

    def _score(self, node: Node) -> float:
        key = (node.child, node.parents)
        if key not in self.scores:
            self.scores[key] = dependence_score(self.data, node.child, node.parents)
        return self.scores[key]
