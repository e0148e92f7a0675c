"""The contract every registered mechanism keeps (DESIGN.md, "reprolib: modules and contracts").

Like scikit-learn's ``parametrize_with_checks``: every check runs for every name in
``reprolib.mechanisms.available()`` with its registration's ``quick`` config, and the checks on
accounting run once per neighbouring relation the registration accepts. Registering a mechanism
is all it takes to be covered. What is specific to one mechanism (closed-form charges, the
algorithm's behaviour) is tested in its own file.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from reprolib.data import Dataset, MixedDataset
from reprolib.mechanisms import SynthesisResult, available, build, registration
from reprolib.privacy import (
    Charge,
    NeighbourRelation,
    PrivacyBudget,
    RdpBudget,
    RdpCharge,
    RdpLedger,
)
from reprolib.queries import Workload, all_kway

SEED, OTHER_SEED = 0, 1
EPSILON, DELTA = 1.0, 1e-9
UNKNOWN = "NoSuchAttribute"


@dataclasses.dataclass
class Runs:
    """The toy data (codes, and mixed types for the mechanisms that read them), the workload,
    the budgets, and one memoised run per (mechanism, relation)."""

    data: Dataset
    mixed: MixedDataset
    workload: Workload
    _cache: dict[tuple[str, NeighbourRelation], SynthesisResult] = dataclasses.field(
        default_factory=dict)

    @staticmethod
    def budget(relation: NeighbourRelation) -> PrivacyBudget:
        return PrivacyBudget.from_epsilon_delta(EPSILON, DELTA, relation=relation)

    @staticmethod
    def mechanism(name: str, relation: NeighbourRelation) -> Any:
        """``name`` with its quick config, set to account under ``relation``."""
        entry = registration(name)
        return build(name, {**entry.quick, **entry.relation_overrides(relation)})

    def toy_data(self, name: str) -> Dataset | MixedDataset:
        """The toy data of the kind ``name`` reads."""
        return self.mixed if _mixed(name) else self.data

    def fit(self, name: str, relation: NeighbourRelation, seed: int = SEED, *,
            data: Dataset | MixedDataset | None = None, workload: Workload | None = None,
            budget: PrivacyBudget | None = None) -> SynthesisResult:
        """A fresh run (never memoised); unset arguments are the toy data, workload (none for
        mixed-type mechanisms, which choose their own queries) and budget."""
        if workload is None and not _mixed(name):
            workload = self.workload
        return self.mechanism(name, relation).fit(
            self.toy_data(name) if data is None else data,
            self.budget(relation) if budget is None else budget,
            np.random.default_rng(seed), workload=workload)

    def first(self, name: str, relation: NeighbourRelation) -> SynthesisResult:
        """The run with ``SEED`` and the toy inputs, made once and shared by the checks."""
        key = (name, relation)
        if key not in self._cache:
            self._cache[key] = self.fit(name, relation)
        return self._cache[key]


@pytest.fixture(scope="module")
def runs(small_titanic, small_mixed) -> Runs:
    return Runs(small_titanic, small_mixed, all_kway(small_titanic.domain, 2))


def _mixed(name: str) -> bool:
    return Runs.mechanism(name, registration(name).relations[0]).traits.data_kind == "mixed"


# ------------------------------------------------------------------------------------ the checks


def check_spends_exactly(runs: Runs, name: str, relation: NeighbourRelation) -> None:
    """The ledger's total is the budget, never above it, in positive charges; summary agrees."""
    mechanism = runs.mechanism(name, relation)
    assert mechanism.name == name, f"registered as {name!r}, but the class is {mechanism.name!r}"
    assert mechanism.traits.relation is relation, (
        f"the registration's settings for {relation.value} give a mechanism that accounts under "
        f"{mechanism.traits.relation.value}")
    ledger, budget = runs.first(name, relation).ledger, runs.budget(relation)
    assert ledger.charges, "nothing was charged"
    if isinstance(ledger, RdpLedger):  # accounted in Rényi DP against the (epsilon, delta) target
        assert ledger.budget == RdpBudget(epsilon=EPSILON, delta=DELTA, relation=relation)
        spent = ledger.spent_epsilon()
        assert spent <= EPSILON and math.isclose(spent, EPSILON, rel_tol=1e-9), spent
        assert ledger.summary()["spent_epsilon"] == spent
        return
    assert ledger.budget == budget
    free = [c.label for c in ledger.charges if not c.rho > 0]
    assert not free, f"charges of rho <= 0: {free}"
    spent = ledger.spent_rho
    assert spent <= budget.rho, f"overspent by {spent - budget.rho:.3g} of rho={budget.rho!r}"
    assert math.isclose(spent, budget.rho, rel_tol=1e-12), f"spent {spent!r} of {budget.rho!r}"
    expected = {"relation": relation.value, "bound": budget.bound, "budget_rho": budget.rho,
                "epsilon": budget.epsilon, "delta": budget.delta, "spent_rho": spent,
                "n_charges": len(ledger.charges)}
    summary = ledger.summary()
    assert {key: summary.get(key) for key in expected} == expected


def check_refuses(runs: Runs, name: str, relation: NeighbourRelation,
                  other: NeighbourRelation) -> None:
    """Configured for ``relation``, it refuses a budget under ``other``, saying how to fix it."""
    with pytest.raises(ValueError) as error:
        runs.fit(name, relation, budget=runs.budget(other))
    message = str(error.value)
    assert relation.value in message and other.value in message, message
    assert f"relation=NeighbourRelation.{relation.name}" in message, message
    setting = registration(name).relation_setting
    if setting is not None:  # its config selects the relation: the message offers that fix too
        assert f"({setting}=NeighbourRelation.{other.name})" in message, message


def _same_release(a: SynthesisResult, b: SynthesisResult) -> bool:
    if (a.synthetic is None) != (b.synthetic is None):
        return False
    if isinstance(a.synthetic, MixedDataset) and isinstance(b.synthetic, MixedDataset):
        return (a.synthetic.categorical.frame.equals(b.synthetic.categorical.frame)
                and np.array_equal(a.synthetic.numerical, b.synthetic.numerical))
    if a.synthetic is not None and not a.synthetic.frame.equals(b.synthetic.frame):
        return False
    return a.answers.keys() == b.answers.keys() and all(
        np.array_equal(a.answers[key], b.answers[key]) for key in a.answers)


def check_same_seed(runs: Runs, name: str, relation: NeighbourRelation) -> None:
    """A second run with the same seed releases the same output after the same charges."""
    first, again = runs.first(name, relation), runs.fit(name, relation, SEED)
    assert _same_release(first, again)
    assert [(c.label, _cost(c)) for c in first.ledger.charges] == \
        [(c.label, _cost(c)) for c in again.ledger.charges]


def _cost(charge: Charge | RdpCharge) -> float | tuple[float, ...]:
    return charge.curve if isinstance(charge, RdpCharge) else charge.rho


def check_another_seed(runs: Runs, name: str, relation: NeighbourRelation) -> None:
    """A run with another seed releases another output."""
    first, other = runs.first(name, relation), runs.fit(name, relation, OTHER_SEED)
    assert not _same_release(first, other)


def check_inside_domain(runs: Runs, name: str, relation: NeighbourRelation) -> None:
    """Records: the data's attributes in order, codes in [0, size). Answer-only mechanisms: an
    answer shaped like the marginal for every workload query, and no records."""
    result, domain = runs.first(name, relation), runs.data.domain
    if _mixed(name):
        synthetic = result.synthetic
        assert isinstance(synthetic, MixedDataset) and synthetic.records > 0
        assert synthetic.domain == runs.mixed.domain  # codes and numbers checked on construction
        return
    if not runs.mechanism(name, relation).traits.synthetic_data:
        assert result.synthetic is None
        missing = [c for c in runs.workload.cliques if c not in result.answers]
        assert not missing, f"no answer for {missing}"
        for clique, answer in result.answers.items():
            assert np.shape(answer) == domain.project(clique).sizes, clique
            assert np.isfinite(answer).all(), clique
        return
    synthetic = result.synthetic
    assert synthetic is not None, "traits.synthetic_data is True but no records were released"
    assert synthetic.domain == domain
    assert tuple(synthetic.frame.columns) == domain.attributes
    assert synthetic.records > 0
    for attribute, size in zip(domain.attributes, domain.sizes, strict=True):
        codes = synthetic.frame[attribute].to_numpy()
        assert np.issubdtype(codes.dtype, np.integer), (attribute, codes.dtype)
        assert codes.min() >= 0 and codes.max() < size, (attribute, codes.min(), codes.max())


def check_empty_data(runs: Runs, name: str, relation: NeighbourRelation) -> None:
    """Data without records is refused with a ValueError that says so."""
    empty = runs.mixed.take(np.arange(0)) if _mixed(name) else Dataset(
        runs.data.frame.iloc[:0], runs.data.domain)
    with pytest.raises(ValueError, match="records"):
        runs.fit(name, relation, data=empty)


def check_unknown_attribute(runs: Runs, name: str, relation: NeighbourRelation) -> None:
    """A workload naming an attribute the data lacks is refused with an error naming it; a
    mixed-type mechanism (its own queries) refuses any workload, saying to pass none."""
    typo = Workload("typo", [("Survived", UNKNOWN)], [1.0])
    with pytest.raises((ValueError, KeyError), match="workload=None" if _mixed(name) else UNKNOWN):
        runs.fit(name, relation, workload=typo)


def check_codes_refused(runs: Runs, name: str, relation: NeighbourRelation) -> None:
    """A mixed-type mechanism given integer codes says it reads a MixedDataset."""
    with pytest.raises(TypeError, match="MixedDataset"):
        runs.fit(name, relation, data=runs.data)


Check = Callable[..., None]
# (id, check): run under every relation the registration accepts
PER_RELATION: tuple[tuple[str, Check], ...] = (
    ("spends-exactly", check_spends_exactly),
    ("inside-domain", check_inside_domain),
)
# (id, check): run under the registration's default relation
ONCE: tuple[tuple[str, Check], ...] = (
    ("same-seed-same-output", check_same_seed),
    ("another-seed-another-output", check_another_seed),
    ("refuses-empty-data", check_empty_data),
    ("refuses-unknown-attribute", check_unknown_attribute),
)
# (id, check): run once for the mechanisms that read mixed types
MIXED_ONLY: tuple[tuple[str, Check], ...] = (("refuses-codes", check_codes_refused),)


def contract_cases() -> Iterator[Any]:
    """One pytest.param per (registered mechanism, check[, relation]), with a readable id."""
    for name in available():
        relations = registration(name).relations
        for relation in relations:
            for label, check in PER_RELATION:
                yield pytest.param(name, check, (relation,), id=f"{name}-{label}-{relation.value}")
            for other in NeighbourRelation:
                if other is not relation:
                    yield pytest.param(name, check_refuses, (relation, other),
                                       id=f"{name}-{relation.value}-refuses-{other.value}")
        for label, check in ONCE + (MIXED_ONLY if _mixed(name) else ()):
            yield pytest.param(name, check, (relations[0],), id=f"{name}-{label}")


@pytest.mark.parametrize(("name", "check", "relations"), list(contract_cases()))
def test_contract(runs: Runs, name: str, check: Check,
                  relations: tuple[NeighbourRelation, ...]) -> None:
    check(runs, name, *relations)


@pytest.mark.parametrize("relation", list(NeighbourRelation), ids=lambda r: r.value)
@pytest.mark.parametrize("value", [0.0, -1.0, math.nan])
def test_a_budget_of_epsilon_or_rho_at_most_zero_cannot_be_built(relation, value):
    """No mechanism can be handed such a budget: building it fails, naming the argument."""
    with pytest.raises(ValueError, match="eps"):
        PrivacyBudget.from_epsilon_delta(value, DELTA, relation=relation)
    with pytest.raises(ValueError, match="rho"):
        PrivacyBudget(rho=value, relation=relation)
