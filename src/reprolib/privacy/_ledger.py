"""The privacy ledger: a zCDP budget that every mechanism charges and that refuses to overspend."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from types import MappingProxyType

from reprolib.privacy import _validate
from reprolib.privacy._conversions import Bound, _check_bound, eps_to_rho, rho_to_eps
from reprolib.privacy._neighbours import NeighbourRelation

# Charges may exceed the budget by this relative amount to absorb floating-point rounding when a
# mechanism spends "exactly the rest" (e.g. AIM's last round). It is 4500 times smaller than the
# precision at which any paper reports epsilon.
OVERSPEND_RTOL = 1e-12


class BudgetExceededError(RuntimeError):
    """A charge would take the ledger past its budget; nothing was released."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class PrivacyBudget:
    """A total budget in rho-zCDP, with the (epsilon, delta) it was derived from when known.

    Attributes:
        rho: total zCDP budget.
        relation: the neighbouring relation that every charge's sensitivity assumes.
        epsilon, delta: the (epsilon, delta)-DP target, or None for a budget given directly in rho.
        bound: the zCDP -> (epsilon, delta) conversion used to derive ``rho``.
    """

    rho: float
    relation: NeighbourRelation
    epsilon: float | None = None
    delta: float | None = None
    bound: Bound = "cks"

    def __post_init__(self) -> None:
        _validate.positive("rho", self.rho)
        if not isinstance(self.relation, NeighbourRelation):
            raise TypeError(f"relation must be a NeighbourRelation, got {self.relation!r}")
        _check_bound(self.bound)
        if self.delta is not None:
            _validate.probability("delta", self.delta)

    @classmethod
    def from_epsilon_delta(
        cls, epsilon: float, delta: float, *, relation: NeighbourRelation, bound: Bound = "cks"
    ) -> PrivacyBudget:
        """The largest rho whose (epsilon, delta) guarantee under ``bound`` meets the target."""
        rho = eps_to_rho(epsilon, delta, bound=bound)
        return cls(rho=rho, relation=relation, epsilon=float(epsilon), delta=float(delta), bound=bound)


@dataclasses.dataclass(frozen=True)
class Charge:
    """One privacy-consuming release: its zCDP cost and what produced it."""

    rho: float
    mechanism: str
    label: str
    details: Mapping[str, float] = dataclasses.field(default_factory=dict)


class Ledger:
    """Records every charge against a :class:`PrivacyBudget` and refuses to overspend.

    Charges compose additively in rho (adaptive composition of zCDP, Bun & Steinke 2016, Lemma 1.7).
    A charge that would exceed the budget raises :class:`BudgetExceededError` *before* anything is
    recorded, so the caller must not release the output.
    """

    def __init__(self, budget: PrivacyBudget) -> None:
        self.budget = budget
        self._charges: list[Charge] = []

    @property
    def relation(self) -> NeighbourRelation:
        """The neighbouring relation the budget, and so every sensitivity, refers to."""
        return self.budget.relation

    @property
    def charges(self) -> tuple[Charge, ...]:
        """All charges in the order they were made."""
        return tuple(self._charges)

    @property
    def spent_rho(self) -> float:
        """Total rho charged so far (exactly rounded sum)."""
        return math.fsum(charge.rho for charge in self._charges)

    @property
    def remaining_rho(self) -> float:
        """Budget left, never negative."""
        return max(0.0, self.budget.rho - self.spent_rho)

    def charge(self, rho: float, *, mechanism: str, label: str, **details: float) -> Charge:
        """Record a release costing ``rho``; raise BudgetExceededError if it does not fit."""
        rho = _validate.non_negative("rho", rho)
        total = math.fsum([self.spent_rho, rho])
        if total > self.budget.rho * (1.0 + OVERSPEND_RTOL):
            raise BudgetExceededError(
                f"charging rho={rho:.6g} for {mechanism} ({label}) would spend {total:.6g} of a "
                f"budget of {self.budget.rho:.6g} (already spent {self.spent_rho:.6g}); "
                "lower this release's cost or raise the budget"
            )
        entry = Charge(rho=rho, mechanism=mechanism, label=label,
                       details=MappingProxyType(dict(details)))
        self._charges.append(entry)
        return entry

    def spent_epsilon(self, delta: float | None = None) -> float:
        """Epsilon of what was spent so far at ``delta`` (default: the budget's delta)."""
        delta = self.budget.delta if delta is None else delta
        if delta is None:
            raise ValueError("this budget was given in rho only; pass delta to convert")
        if self.spent_rho == 0.0:
            return 0.0
        return rho_to_eps(self.spent_rho, delta, bound=self.budget.bound)

    def is_exhausted(self, rtol: float = 1e-9) -> bool:
        """True when the spend equals the budget up to ``rtol`` (mechanisms spend all they get)."""
        return abs(self.spent_rho - self.budget.rho) <= rtol * self.budget.rho

    def summary(self) -> dict[str, object]:
        """A JSON-friendly record of the budget and the spend, for results and the book."""
        return {
            "relation": self.relation.value,
            "bound": self.budget.bound,
            "budget_rho": self.budget.rho,
            "epsilon": self.budget.epsilon,
            "delta": self.budget.delta,
            "spent_rho": self.spent_rho,
            "n_charges": len(self._charges),
        }
