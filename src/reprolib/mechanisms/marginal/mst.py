"""MST: the maximum-spanning-tree mechanism (McKenna, Miklau, Sheldon, JPC 2021; NIST 2018 winner).

The budget is split in thirds: (a) measure every one-way marginal; compress each attribute's
domain by merging the values whose noisy count is below 3 sigma into one "rare" value; (b) pick
d - 1 two-way marginals forming a maximum spanning tree, Kruskal-style, with one exponential
mechanism per edge on how badly an independence model answers each pair; (c) measure the tree's
two-way marginals. Private-PGM fits all measurements and the records drawn from it are mapped
back to the original domain. Data- and efficiency-aware, workload- and budget-agnostic (AIM
paper, Table 1). Details the paper leaves open follow the authors' reference code (private-pgm,
``mechanisms/mst.py``) and are marked "reference code" below.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from reprolib.data import Dataset, Domain
from reprolib.mechanisms._base import MechanismTraits, SynthesisResult, check_inputs, open_ledger
from reprolib.mechanisms.pgm import (
    LOSS_WEIGHTINGS,
    Clique,
    LossWeighting,
    NoisyMarginal,
    StepRule,
    estimated_total,
    loss_measurements,
    measure_marginal,
    mirror_descent,
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

if TYPE_CHECKING:
    import mbi

# A value is kept when its noisy one-way count is at least this many sigmas (reference code).
RARE_THRESHOLD_SIGMAS = 3.0
MST_STEPS = 3
"""MST splits rho in equal thirds: one-way measurements, edge selection, edge measurements."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class MSTConfig:
    """MST's settings; the defaults are the reference code's.

    Attributes:
        pgm_iters: Private-PGM iterations of the final fit (reference code: 5000).
        selection_pgm_iters: iterations of the one-way model the tree is scored against
            (reference code: 1000).
        loss_weighting: Private-PGM loss; "inverse-variance" (maximum likelihood) is what the
            2021-22 library MST and the AIM paper ran on computes (see
            ``reprolib.mechanisms.pgm._model.fit_model``). It matters here because the one-way and
            two-way measurements have different sigmas.
        step_rule: Private-PGM's line search; the default "backtracking-2022" is the 2022
            library's, which the AIM and PrivPGD papers ran, "mbi-2.0" mbi 2.0's
            (``reprolib.mechanisms.pgm._mirror_descent``).
        relation: the neighbouring relation the accounting assumes: add/remove as in the MST
            paper, or replace-one as in the PrivPGD paper's PGM+MST baseline (every sigma grows
            by sqrt(2), the selection's score sensitivity doubles).
    """

    pgm_iters: int = 5000
    selection_pgm_iters: int = 1000
    loss_weighting: LossWeighting = "inverse-variance"
    step_rule: StepRule = "backtracking-2022"
    relation: NeighbourRelation = NeighbourRelation.ADD_REMOVE

    def __post_init__(self) -> None:
        if self.pgm_iters < 1 or self.selection_pgm_iters < 1:
            raise ValueError("pgm_iters and selection_pgm_iters must be positive integers, got "
                             f"{self.pgm_iters} and {self.selection_pgm_iters}")
        if self.loss_weighting not in LOSS_WEIGHTINGS:
            raise ValueError(
                f"loss_weighting must be one of {LOSS_WEIGHTINGS}, got {self.loss_weighting!r}")


@dataclasses.dataclass(frozen=True, eq=False)
class DomainCompression:
    """MST's compressed domain: per attribute, kept values keep their order, the rest merge.

    Attributes:
        original: the dataset's domain.
        kept: per attribute, the original values kept; they become codes 0 .. len(kept) - 1.
        merged: per attribute, the original values merged into the rare code len(kept); empty
            when none was merged (then the attribute has no rare code).
    """

    original: Domain
    kept: Mapping[str, np.ndarray]
    merged: Mapping[str, np.ndarray]

    @classmethod
    def from_one_way(cls, domain: Domain,
                     measurements: Sequence[NoisyMarginal]) -> DomainCompression:
        """Keep the values whose noisy count is at least 3 sigma (reference code's threshold)."""
        kept, merged = {}, {}
        for m in measurements:
            (attribute,) = m.clique
            support = m.values >= RARE_THRESHOLD_SIGMAS * m.sigma
            kept[attribute], merged[attribute] = np.flatnonzero(support), np.flatnonzero(~support)
        return cls(domain, kept, merged)

    @property
    def domain(self) -> Domain:
        """The compressed domain: len(kept), plus one rare value where anything was merged."""
        return Domain(self.original.attributes,
                      tuple(self.kept[a].size + (self.merged[a].size > 0)
                            for a in self.original.attributes))

    def codes(self, attribute: str) -> np.ndarray:
        """Compressed code of every original value of ``attribute``."""
        codes = np.full(self.original.size(attribute), self.kept[attribute].size, dtype=np.int64)
        codes[self.kept[attribute]] = np.arange(self.kept[attribute].size)
        return codes

    def compress(self, data: Dataset) -> Dataset:
        """``data`` re-coded into the compressed domain."""
        frame = data.frame.copy()
        for a in self.original.attributes:
            frame[a] = self.codes(a)[frame[a].to_numpy()]
        return Dataset(frame, self.domain, data.source)

    def decompress(self, data: Dataset, rng: np.random.Generator) -> Dataset:
        """Records mapped back to the original domain.

        A rare code becomes one of the attribute's merged values, drawn uniformly with ``rng``
        (as in the reference code).
        """
        frame = data.frame.copy()
        for a in self.original.attributes:
            codes = frame[a].to_numpy()
            rare = codes == self.kept[a].size
            values = np.empty_like(codes)
            values[~rare] = self.kept[a][codes[~rare]]
            if rare.any():
                values[rare] = rng.choice(self.merged[a], size=int(rare.sum()))
            frame[a] = values
        return Dataset(frame, self.original, source="synthetic")


class MST:
    """MST; rho-zCDP under ``config.relation``, spending rho/3 on each of three steps.

    With d attributes and Delta the marginals' L2 sensitivity (1 under add/remove, sqrt(2) under
    replace-one): d one-way measurements at sigma_1 = Delta sqrt(3 d / (2 rho)) (rho/(3d) each),
    d - 1 exponential-mechanism selections at epsilon = sqrt(8 rho / (3 (d - 1))) (rho/(3(d-1))
    each; score sensitivity 1 or 2), and d - 1 two-way measurements at
    sigma_2 = Delta sqrt(3 (d - 1) / (2 rho)) (rho/(3(d-1)) each). The last two-way measurement
    is calibrated to what the ledger has left, so the total is rho to within a few ulps and never
    above it.
    """

    name = "MST"

    def __init__(self, config: MSTConfig | None = None) -> None:
        self.config = config or MSTConfig()

    @property
    def traits(self) -> MechanismTraits:
        """Table 1's four columns, and the neighbouring relation set in the config."""
        return MechanismTraits(workload_aware=False, data_aware=True, budget_aware=False,
                               efficiency_aware=True, relation=self.config.relation)

    def fit(self, data: Dataset, budget: PrivacyBudget, rng: np.random.Generator, *,
            workload: Workload | None = None) -> SynthesisResult:
        """Release synthetic records in the original domain; ``workload`` is ignored."""
        check_inputs(self, data, workload)
        started = time.perf_counter()
        ledger = open_ledger(self, budget)
        attributes, d = data.domain.attributes, len(data.domain)
        if d < 2:
            raise ValueError(f"MST builds a tree over at least two attributes, got {d}; "
                             "use Independent for a single attribute")
        third, l2 = budget.rho / MST_STEPS, marginal_l2_sensitivity(ledger.relation, 1)
        sigma_1 = gaussian_sigma(third / d, l2)
        one_way = [measure_marginal(data, (a,), sigma=sigma_1, rng=rng, ledger=ledger,
                                    label=f"1-way {a}") for a in attributes]
        compression = DomainCompression.from_one_way(data.domain, one_way)
        compressed = compression.compress(data)
        independent = self._fit(compression, one_way, [], self.config.selection_pgm_iters)
        epsilon = exponential_mechanism_epsilon(third / (d - 1))
        edges = _spanning_tree(compressed, independent, epsilon, rng, ledger)
        sigma_2 = gaussian_sigma(third / (d - 1), l2)
        two_way = [measure_marginal(compressed, e, rng=rng, ledger=ledger,
                                    label=f"2-way {','.join(e)}",
                                    sigma=sigma_2 if e != edges[-1]
                                    else gaussian_sigma(ledger.remaining_rho, l2))
                   for e in edges]
        model = self._fit(compression, one_way, two_way, self.config.pgm_iters)
        synthetic = compression.decompress(
            synthetic_dataset(model, compression.domain, rng), rng)
        return SynthesisResult(synthetic=synthetic, ledger=ledger, diagnostics={
            "sigma_one_way": sigma_1,
            "epsilon_selection": epsilon,
            "sigma_two_way": sigma_2,
            "compressed_sizes": dict(zip(attributes, compression.domain.sizes, strict=True)),
            "selected": [list(e) for e in edges],
            "seconds": time.perf_counter() - started,
        })

    def _fit(self, compression: DomainCompression, one_way: Sequence[NoisyMarginal],
             two_way: Sequence[NoisyMarginal], iters: int) -> mbi.MarkovRandomField:
        """Private-PGM on the compressed domain, like ``_pgm.fit_model`` but with merged cells.

        A merged one-way cell is the sum of m noisy cells (noise variance m sigma^2); as in the
        reference code it enters the loss divided by sqrt(m), with its query row scaled alike,
        so every entry has noise sigma (mbi's ``LinearMeasurement.compress`` does exactly this).
        The total is the minimum-variance unbiased one from the unmerged one-way and the two-way
        measurements, the estimate the reference code's library makes from these measurements.
        """
        original = compression.original.to_mbi()
        loss = loss_measurements([*one_way, *two_way], self.config.loss_weighting)
        loss = [entry.compress({m.clique[0]: compression.codes(m.clique[0])}, original)
                if len(m.clique) == 1 and compression.merged[m.clique[0]].size else entry
                for m, entry in zip((*one_way, *two_way), loss, strict=True)]
        return mirror_descent(compression.domain.to_mbi(), loss,
                              known_total=estimated_total([*one_way, *two_way]), iters=iters,
                              step_rule=self.config.step_rule)

def _spanning_tree(compressed: Dataset, model: mbi.MarkovRandomField, epsilon: float,
                   rng: np.random.Generator, ledger: Ledger) -> list[Clique]:
    """D - 1 edges chosen Kruskal-style, each by the exponential mechanism.

    Candidates are the attribute pairs joining two different components of the tree so far;
    the score of (a, b) is ||M_ab(D) - M_ab(model)||_1 on the compressed domain, computed once
    against the one-way model (reference code). It moves by at most the marginal's L1
    sensitivity (1 under add/remove, 2 under replace-one) between neighbours, since the model is fit to released
    values only.
    """
    attributes = compressed.domain.attributes
    pairs = list(itertools.combinations(attributes, 2))
    estimates = model_marginals(model, pairs)
    score = {p: float(np.abs(compressed.marginal(p) - estimates[p]).sum()) for p in pairs}
    sensitivity = marginal_l1_sensitivity(ledger.relation, 1)
    component = {a: i for i, a in enumerate(attributes)}
    edges: list[Clique] = []
    for k in range(1, len(attributes)):
        candidates = [(a, b) for a, b in pairs if component[a] != component[b]]
        a, b = candidates[exponential_mechanism(
            np.array([score[p] for p in candidates]), epsilon=epsilon, sensitivity=sensitivity,
            rng=rng, ledger=ledger, label=f"edge {k} selection")]
        joined, absorbed = component[a], component[b]
        component = {x: joined if c == absorbed else c for x, c in component.items()}
        edges.append((a, b))
    return edges
