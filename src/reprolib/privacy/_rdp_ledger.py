"""A ledger in Rényi DP: charges are RDP curves over a grid of orders, composed order by order,
converted to (epsilon, delta) only when a charge is tested against the budget.

Mechanisms whose guarantee is an RDP curve rather than a zCDP constant (the slicing mechanism's
Lemma 2, whose curve grows faster than linearly in alpha and is infinite past an order) are
charged here. Adaptive composition adds the curves order by order (Mironov 2017, Prop. 1); a
rho-zCDP release is the curve rho * alpha (Bun & Steinke 2016, Def. 1.1), so both kinds mix.

Exactness, as in :class:`reprolib.privacy.Ledger`, for the sums: each order's total is kept as the
exact sum (``Fraction``) of the float charges, rounded up to a float before the conversion, and
the conversion itself rounds up (:func:`reprolib.privacy.rdp_to_eps`). A charge is accepted only
if the epsilon so obtained is at most the budget's. The charged curves are floating-point
evaluations of closed forms, each bounded from above by its own module
(:func:`reprolib.privacy._exact.inflate` and the forward error bounds beside each use), so no
rounding makes a charge smaller than its formula.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from fractions import Fraction
from types import MappingProxyType

import numpy as np

from reprolib.privacy import _validate
from reprolib.privacy._exact import round_up
from reprolib.privacy._ledger import BudgetExceededError
from reprolib.privacy._neighbours import NeighbourRelation
from reprolib.privacy._rdp import RdpConversion, rdp_to_eps

#: Rényi orders of the ledger: dense near 1 (large-noise, small-epsilon regimes) and up to 10^4.
ORDERS = np.unique(np.concatenate([1.0 + np.geomspace(1e-3, 1e4, 600), np.arange(2, 65)]))


def zcdp_curve(rho: float) -> np.ndarray:
    """The RDP curve rho * alpha of a rho-zCDP release on :data:`ORDERS`, each product of the two
    floats rounded up (one rounding to nearest, then one ulp up).
    """
    return np.nextafter(rho * ORDERS, np.inf)


@dataclasses.dataclass(frozen=True, kw_only=True)
class RdpBudget:
    """An (epsilon, delta)-DP target for mechanisms accounted in RDP.

    Attributes:
        epsilon, delta: the target.
        relation: the neighbouring relation every charge's curve refers to.
        conversion: RDP -> (epsilon, delta): ``"classic"`` (Mironov 2017, Prop. 3, the slicing
            paper's Proposition 2) or ``"improved"`` (Canonne, Kamath, Steinke 2020).
    """

    epsilon: float
    delta: float
    relation: NeighbourRelation
    conversion: RdpConversion = "classic"

    def __post_init__(self) -> None:
        _validate.positive("epsilon", self.epsilon)
        _validate.probability("delta", self.delta)
        if not isinstance(self.relation, NeighbourRelation):
            raise TypeError(f"relation must be a NeighbourRelation, got {self.relation!r}")
        if self.conversion not in ("classic", "improved"):
            raise ValueError(f"conversion must be 'classic' or 'improved', got "
                             f"{self.conversion!r}")


@dataclasses.dataclass(frozen=True)
class RdpCharge:
    """One charge: the RDP curve on :data:`ORDERS` (inf where it holds at no finite value) of
    each of ``repeat`` releases composed.
    """

    curve: tuple[float, ...]
    mechanism: str
    label: str
    repeat: int = 1
    details: Mapping[str, float] = dataclasses.field(default_factory=dict)


class RdpLedger:
    """Records every RDP charge against an :class:`RdpBudget` and refuses to overspend."""

    def __init__(self, budget: RdpBudget) -> None:
        self.budget = budget
        self._charges: list[RdpCharge] = []
        self._spent = [Fraction(0)] * len(ORDERS)  # exact per-order sums
        self._infinite = np.zeros(len(ORDERS), dtype=bool)

    @property
    def relation(self) -> NeighbourRelation:
        """The neighbouring relation of every charge."""
        return self.budget.relation

    @property
    def charges(self) -> tuple[RdpCharge, ...]:
        """All charges in the order they were made."""
        return tuple(self._charges)

    @property
    def spent_curve(self) -> np.ndarray:
        """The composed RDP curve on :data:`ORDERS`, each order's exact sum rounded up."""
        curve = np.array([round_up(total) for total in self._spent])
        curve[self._infinite] = np.inf
        return curve

    def charge(self, curve: np.ndarray, *, mechanism: str, label: str, repeat: int = 1,
               **details: float) -> RdpCharge:
        """Record a release with RDP ``curve`` (on :data:`ORDERS`), or ``repeat`` releases of
        that curve composed (the curve times ``repeat``, exactly); raise BudgetExceededError,
        recording nothing, if the composed curve would no longer imply the budget.
        """
        values = np.asarray(curve, dtype=float)
        if values.shape != ORDERS.shape:
            raise ValueError(f"an RDP curve has one value per order of ORDERS ({ORDERS.size}), "
                             f"got shape {values.shape}")
        if np.any(np.isnan(values)) or np.any(values < 0):
            raise ValueError("RDP values must be non-negative (inf where the bound fails)")
        spent, infinite = self._added(values, repeat)
        epsilon = self._epsilon(spent, infinite, self.budget.delta)
        if epsilon > self.budget.epsilon:
            raise BudgetExceededError(
                f"charging {mechanism} ({label}) would spend epsilon={epsilon:.6g} at "
                f"delta={self.budget.delta:g}, over the budget's {self.budget.epsilon:g}; "
                "add noise to this release or raise the budget")
        entry = RdpCharge(curve=tuple(float(v) for v in values), mechanism=mechanism,
                          label=label, repeat=repeat, details=MappingProxyType(dict(details)))
        self._charges.append(entry)
        self._spent, self._infinite = spent, infinite
        return entry

    def epsilon_after(self, curve: np.ndarray, repeat: int = 1) -> float:
        """The epsilon (at the budget's delta) that charging ``curve`` (``repeat`` times) now
        would bring the total to, computed as :meth:`charge` tests it (so a release calibrated
        to fit is accepted).
        """
        values = np.asarray(curve, dtype=float)
        return self._epsilon(*self._added(values, repeat), self.budget.delta)

    def _added(self, values: np.ndarray, repeat: int) -> tuple[list[Fraction], np.ndarray]:
        """The exact per-order totals and the infinite orders after adding ``repeat`` times
        ``values``.
        """
        if isinstance(repeat, bool) or not isinstance(repeat, int) or repeat < 1:
            raise ValueError(f"repeat must be a positive integer, got {repeat!r}")
        spent = [total + repeat * Fraction(float(v)) if np.isfinite(v) else total
                 for total, v in zip(self._spent, values, strict=True)]
        return spent, self._infinite | np.isinf(values)

    def charge_zcdp(self, rho: float, *, mechanism: str, label: str, **details: float
                    ) -> RdpCharge:
        """Record a rho-zCDP release: the RDP curve rho * alpha at every order."""
        rho = _validate.non_negative("rho", rho)
        return self.charge(zcdp_curve(rho), mechanism=mechanism, label=label, repeat=1, rho=rho,
                           **details)

    def spent_epsilon(self, delta: float | None = None) -> float:
        """Epsilon at ``delta`` (default: the budget's) of everything charged, rounded up."""
        delta = self.budget.delta if delta is None else _validate.probability("delta", delta)
        return self._epsilon(self._spent, self._infinite, delta)

    def _epsilon(self, spent: list[Fraction], infinite: np.ndarray, delta: float) -> float:
        if not any(spent) and not infinite.any():
            return 0.0
        finite = ~infinite
        if not finite.any():
            return float("inf")
        curve = np.array([round_up(total) for total, ok in zip(spent, finite, strict=True)
                          if ok])
        return rdp_to_eps(ORDERS[finite], curve, delta, conversion=self.budget.conversion)[0]

    def summary(self) -> dict[str, object]:
        """A JSON-friendly record of the budget and the spend."""
        return {"relation": self.relation.value, "conversion": self.budget.conversion,
                "epsilon": self.budget.epsilon, "delta": self.budget.delta,
                "spent_epsilon": self.spent_epsilon(), "n_charges": len(self._charges)}
