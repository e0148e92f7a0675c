"""The one interface every synthetic-data mechanism implements, and what a run returns."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, Protocol

import numpy as np

from reprolib.data import MixedDataset
from reprolib.privacy import Ledger, NeighbourRelation, PrivacyBudget, RdpBudget, RdpLedger

if TYPE_CHECKING:
    from reprolib.data import Dataset
    from reprolib.queries import Workload


@dataclasses.dataclass(frozen=True, kw_only=True)
class MechanismTraits:
    """What a mechanism adapts to (the four columns of the AIM paper's Table 1) and its accounting.

    Attributes:
        workload_aware: selects or answers queries with the workload in view.
        data_aware: its choice of measurements depends on the (private) data.
        budget_aware: what it measures (how many marginals, how large) depends on the budget.
        efficiency_aware: it has a safeguard that keeps the model it builds tractable.
        relation: the neighbouring relation its sensitivities assume; ``fit`` refuses other budgets.
        synthetic_data: whether it outputs records (False: query answers only, e.g. Gaussian).
        data_kind: what ``fit`` reads: "discrete" (a :class:`~reprolib.data.Dataset` of codes)
            or "mixed" (a :class:`~reprolib.data.MixedDataset`: codes and numbers).
    """

    workload_aware: bool
    data_aware: bool
    budget_aware: bool
    efficiency_aware: bool
    relation: NeighbourRelation
    synthetic_data: bool = True
    data_kind: Literal["discrete", "mixed"] = "discrete"


@dataclasses.dataclass(frozen=True, kw_only=True)
class SynthesisResult:
    """The output of one run.

    Attributes:
        synthetic: the synthetic records (codes, or mixed types for the mechanisms whose
            ``traits.data_kind`` is "mixed"), or None for mechanisms that only answer queries.
        answers: marginal estimates keyed by attribute tuple (counts, shaped like
            ``Dataset.marginal``), for mechanisms that answer queries; empty otherwise.
        ledger: every privacy charge the run made; its total equals the budget (a zCDP
            :class:`~reprolib.privacy.Ledger`, or an :class:`~reprolib.privacy.RdpLedger` for
            mechanisms accounted in Rényi DP).
        diagnostics: run facts (rounds, timings, selected marginals), JSON-friendly values,
            for the experiments: the privacy guarantee covers ``synthetic`` and ``answers``, not
            these (timings depend on the data).
        log: mechanism-specific per-round state (e.g. what AIM's uncertainty bounds need).
    """

    synthetic: Dataset | MixedDataset | None
    ledger: Ledger | RdpLedger
    answers: Mapping[tuple[str, ...], np.ndarray] = dataclasses.field(default_factory=dict)
    diagnostics: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    log: Any = None

    def marginal(self, names: tuple[str, ...]) -> np.ndarray:
        """The released estimate of the marginal on ``names`` (answers first, else synthetic)."""
        names = tuple(names)
        if names in self.answers:
            return np.asarray(self.answers[names])
        if self.synthetic is None:
            raise KeyError(
                f"this mechanism released no synthetic data and no answer for {names}; "
                f"answered marginals: {sorted(self.answers)[:5]}..."
            )
        if isinstance(self.synthetic, MixedDataset):
            return self.synthetic.categorical.marginal(names)
        return self.synthetic.marginal(names)


class Described(Protocol):
    """What every mechanism tells about itself: its name and its traits."""

    @property
    def name(self) -> str:
        """The mechanism's name as the papers write it."""
        ...

    @property
    def traits(self) -> MechanismTraits:
        """What the mechanism needs and how it accounts (relation, data kind, workload)."""
        ...


class Synthesizer(Described, Protocol):
    """A mechanism on integer codes: typed frozen config in the constructor, private data only
    inside ``fit``. (A mixed-type mechanism has the same ``fit`` on a
    :class:`~reprolib.data.MixedDataset`, and chooses its own queries.).

    ``fit`` spends exactly ``budget`` through privacy primitives that charge a fresh
    :class:`~reprolib.privacy.Ledger`, and draws all randomness from ``rng``. Workload-aware
    mechanisms require ``workload``; the others ignore it.
    """

    def fit(
        self,
        data: Dataset,
        budget: PrivacyBudget,
        rng: np.random.Generator,
        *,
        workload: Workload | None = None,
    ) -> SynthesisResult: ...


def open_ledger(mechanism: Described, budget: PrivacyBudget) -> Ledger:
    """A fresh ledger for ``budget``, after checking the budget's relation is the mechanism's.

    The refusal says how to fix it: the budget's relation, and also the mechanism's when its
    ``config`` is a dataclass with a ``relation`` field (AIM, MST).
    """
    _check_relation(mechanism, budget)
    return Ledger(budget)


def open_rdp_ledger(mechanism: Described, budget: PrivacyBudget) -> RdpLedger:
    """A fresh Rényi-DP ledger for the (epsilon, delta) target of ``budget``, after the same
    relation check as :func:`open_ledger`; a budget given in rho alone is refused.
    """
    _check_relation(mechanism, budget)
    if budget.epsilon is None or budget.delta is None:
        raise ValueError(
            f"{mechanism.name} accounts in Rényi DP against an (epsilon, delta) target, but the "
            f"budget was given in rho only; build it with PrivacyBudget.from_epsilon_delta")
    return RdpLedger(RdpBudget(epsilon=budget.epsilon, delta=budget.delta,
                               relation=budget.relation))


def _check_relation(mechanism: Described, budget: PrivacyBudget) -> None:
    if budget.relation is not mechanism.traits.relation:
        raise ValueError(
            f"{mechanism.name} accounts under the {mechanism.traits.relation.value} neighbouring "
            f"relation, but the budget is for {budget.relation.value}; build the budget with "
            f"relation=NeighbourRelation.{mechanism.traits.relation.name}"
            f"{_relation_config_hint(mechanism, budget.relation)}"
        )


def _relation_config_hint(mechanism: Described, relation: NeighbourRelation) -> str:
    """", or build <name> with <Config>(relation=...)" when the config sets the relation."""
    config = getattr(mechanism, "config", None)
    if not dataclasses.is_dataclass(config) or "relation" not in {
            field.name for field in dataclasses.fields(config)}:
        return ""
    return (f", or build {mechanism.name} with {type(config).__name__}"
            f"(relation=NeighbourRelation.{relation.name})")


def check_inputs(mechanism: Synthesizer, data: Dataset, workload: Workload | None) -> None:
    """Refuse, before anything is measured, data without records and workloads naming attributes
    the data does not have; each ValueError says what was wrong and what to pass instead.

    The refusal of an empty dataset reads the data unaccounted: under add/remove the empty
    dataset neighbours every one-record dataset. Every guarantee here is therefore stated for
    datasets with at least one record, which we take to be public.
    """
    if data.records == 0:
        raise ValueError(f"{mechanism.name} got a dataset with 0 records; pass at least one record")
    if workload is not None:
        unknown = [a for a in workload.attributes if a not in data.domain]
        if unknown:
            raise ValueError(
                f"workload {workload.name!r} names attributes {unknown} that the data does not "
                f"have (its domain: {list(data.domain.attributes)}); build the workload from "
                "data.domain, e.g. reprolib.queries.all_kway(data.domain, 3)"
            )


def check_mixed_inputs(mechanism: Described, data: MixedDataset, workload: object, *,
                       no_workload: str) -> None:
    """Refuse, before anything is measured, what a mixed-type mechanism cannot read: data other
    than a :class:`~reprolib.data.MixedDataset`, any workload (``no_workload`` says why it takes
    none) and data without records.
    """
    if not isinstance(data, MixedDataset):
        raise TypeError(f"{mechanism.name} reads mixed-type records: pass a "
                        f"reprolib.data.MixedDataset (see MixedCoding), got {type(data).__name__}")
    if workload is not None:
        raise ValueError(f"{mechanism.name} {no_workload}; pass workload=None")
    if data.records == 0:
        raise ValueError(f"{mechanism.name} got a dataset with 0 records; pass at least one record")


def require_workload(mechanism: Synthesizer, workload: Workload | None) -> Workload:
    """``workload``, or a ValueError telling the caller that this mechanism needs one."""
    if workload is None:
        raise ValueError(
            f"{mechanism.name} is workload-aware: pass workload=... (see reprolib.queries)"
        )
    return workload


def seed_from(rng: np.random.Generator) -> int:
    """A 63-bit seed drawn from ``rng``, for libraries that take an integer seed (JAX, torch)."""
    return int(rng.integers(0, 2**63 - 1))
