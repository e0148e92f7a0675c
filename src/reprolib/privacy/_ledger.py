"""The privacy ledger: a zCDP budget that every mechanism charges and that refuses to overspend."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from fractions import Fraction
from types import MappingProxyType

from reprolib.privacy import _validate
from reprolib.privacy._conversions import Bound, _check_bound, eps_to_rho, rho_to_eps
from reprolib.privacy._exact import round_down, round_up
from reprolib.privacy._neighbours import NeighbourRelation


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
    A charge that would take the total above the budget raises :class:`BudgetExceededError`
    *before* anything is recorded, so the caller must not release the output.

    The test is exact, with no tolerance: the ledger keeps the real sum of its (float) charges as a
    ``Fraction`` and accepts a charge only if that sum plus the charge is <= ``budget.rho``.
    Comparing ``math.fsum(charges) <= rho`` would not be exact: fsum rounds the true sum to the
    nearest float, so a total up to half an ulp above rho would round to rho and pass.
    """

    def __init__(self, budget: PrivacyBudget) -> None:
        self.budget = budget
        self._charges: list[Charge] = []
        self._spent = Fraction(0)  # the exact sum of the charges

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
        """Total rho charged so far: the exact sum rounded to nearest (equal to ``math.fsum``)."""
        return float(self._spent)

    @property
    def remaining_rho(self) -> float:
        """The largest float r such that charging r now still fits: rho - spent, rounded down.

        A mechanism that spends "the rest" in its last release calibrates it from this value, so
        that release is accepted and the total lands within an ulp or so of the budget.
        """
        return round_down(Fraction(self.budget.rho) - self._spent)

    def charge(self, rho: float, *, mechanism: str, label: str, **details: float) -> Charge:
        """Record a release costing ``rho``; raise BudgetExceededError if the exact total would
        exceed the budget (no tolerance).
        """
        rho = _validate.non_negative("rho", rho)
        total = self._spent + Fraction(rho)
        excess = total - Fraction(self.budget.rho)
        if excess > 0:
            raise BudgetExceededError(
                f"charging rho={rho:.17g} for {mechanism} ({label}) would spend "
                f"{float(total):.17g} of a budget of {self.budget.rho:.17g}, exceeding it by "
                f"{float(excess):.3g} (already spent {self.spent_rho:.17g}); "
                "lower this release's cost or raise the budget"
            )
        entry = Charge(rho=rho, mechanism=mechanism, label=label,
                       details=MappingProxyType(dict(details)))
        self._charges.append(entry)
        self._spent = total
        return entry

    def spent_epsilon(self, delta: float | None = None) -> float:
        """Epsilon of what was spent so far at ``delta`` (default: the budget's delta).

        The exact spend is rounded up before the (itself upward-rounded) conversion.
        """
        delta = self.budget.delta if delta is None else delta
        if delta is None:
            raise ValueError("this budget was given in rho only; pass delta to convert")
        if self._spent == 0:
            return 0.0
        return rho_to_eps(round_up(self._spent), delta, bound=self.budget.bound)

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
