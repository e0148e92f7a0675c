"""Weighted marginal workloads: all k-way, target, and skewed (AIM paper, Section 6.1)."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np

from reprolib.data import Domain

Clique = tuple[str, ...]


@dataclasses.dataclass(frozen=True)
class Workload:
    """A list of marginal queries (attribute tuples in domain order) with weights c_i >= 0.

    A clique may appear once only; repeated draws are folded into its weight.
    """

    name: str
    cliques: tuple[Clique, ...]
    weights: tuple[float, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "cliques", tuple(tuple(c) for c in self.cliques))
        object.__setattr__(self, "weights", tuple(float(w) for w in self.weights))
        if len(self.cliques) != len(self.weights):
            raise ValueError(f"{len(self.cliques)} cliques but {len(self.weights)} weights")
        if not self.cliques:
            raise ValueError("a workload needs at least one marginal query")
        if len(set(self.cliques)) != len(self.cliques):
            raise ValueError("cliques must be distinct; add repeated weights together instead")
        if any(w < 0 for w in self.weights):
            raise ValueError("workload weights must be non-negative")

    def __len__(self) -> int:
        return len(self.cliques)

    @property
    def attributes(self) -> tuple[str, ...]:
        """Every attribute some query touches, in first-seen order."""
        return tuple(dict.fromkeys(a for c in self.cliques for a in c))


def all_kway(domain: Domain, k: int = 3) -> Workload:
    """Every k-way marginal with weight 1 (the paper's "all-3way" for k = 3)."""
    _check_k(domain, k)
    cliques = tuple(itertools.combinations(domain.attributes, k))
    return Workload(f"all-{k}way", cliques, (1.0,) * len(cliques))


def target_workload(domain: Domain, target: str, k: int = 3) -> Workload:
    """Every k-way marginal that contains ``target``, weight 1 (the paper's "target")."""
    _check_k(domain, k)
    domain.size(target)  # unknown target -> KeyError naming the attributes
    cliques = tuple(c for c in itertools.combinations(domain.attributes, k) if target in c)
    return Workload(f"target({target})", cliques, (1.0,) * len(cliques))


def random_target(domain: Domain, seed: int) -> str:
    """A target attribute drawn uniformly with ``seed`` (datasets without a natural target)."""
    return domain.attributes[int(np.random.default_rng(seed).integers(len(domain)))]


def skewed_workload(domain: Domain, seed: int, n_queries: int = 256, k: int = 3) -> Workload:
    """``n_queries`` k-way marginals drawn with probability proportional to attribute weights.

    The paper says each attribute gets a weight from a "squared exponential distribution" and 256
    triples are sampled in proportion to the product of their weights; it leaves the rest open. Our
    rule: w_a = E_a**2 with E_a ~ Exponential(1) i.i.d., then ``n_queries`` draws *with*
    replacement from all k-subsets with probability proportional to prod_{a in r} w_a. A subset
    drawn m times enters the workload once with weight m * k / n_queries (k distinct subsets):
    the weights average 1, so Definition 2's (1/k) sum_i c_i err_i equals the plain mean error
    over the ``n_queries`` draws, as if the list kept its repeats.
    """
    _check_k(domain, k)
    rng = np.random.default_rng(seed)
    attribute_weight = rng.exponential(size=len(domain)) ** 2
    subsets = list(itertools.combinations(range(len(domain)), k))
    probability = np.array([np.prod(attribute_weight[list(s)]) for s in subsets])
    drawn = rng.choice(len(subsets), size=n_queries, replace=True, p=probability / probability.sum())
    counts = np.bincount(drawn, minlength=len(subsets))
    chosen = np.flatnonzero(counts)
    cliques = tuple(tuple(domain.attributes[i] for i in subsets[j]) for j in chosen)
    scale = len(chosen) / n_queries
    return Workload(f"skewed({n_queries})", cliques,
                    tuple(float(counts[j]) * scale for j in chosen))


def _check_k(domain: Domain, k: int) -> None:
    if not 1 <= k <= len(domain):
        raise ValueError(f"k must be between 1 and the number of attributes ({len(domain)}); got {k}")
