"""Budget allocations the preliminaries chapter tabulates for the other parts of the book.

PrivPGD's two noise calibrations (``"paper"``: the budget's CKS conversion; ``"code"``: the
authors' Bun-Steinke one), the split of a budget between the marginals and a protected statistic,
and what the PrivPGD authors' AIM baseline really spends (see the PrivPGD errata page). Every
number comes from the mechanisms' own accounting: ``allocate`` of PrivPGD and AIM's ``AIMConfig``
(rounds per attribute, measurement share).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import cast

import pandas as pd

from reprolib.mechanisms.marginal.aim import AIMConfig
from reprolib.mechanisms.particles.privpgd import Calibration, ThresholdConstraint, allocate
from reprolib.privacy import (
    NeighbourRelation,
    PrivacyBudget,
    gaussian_sigma,
    marginal_l2_sensitivity,
    rho_to_eps,
)

CALIBRATIONS: tuple[Calibration, ...] = ("paper", "code")
# the share of PrivPGD's budget a protected statistic gets by default
CONSTRAINT_FRACTION = cast(float, next(
    f.default for f in dataclasses.fields(ThresholdConstraint) if f.name == "budget_fraction"))


def replace_one_budget(epsilon: float, delta: float) -> PrivacyBudget:
    """An (epsilon, delta) budget under PrivPGD's replace-one neighbours (CKS conversion)."""
    return PrivacyBudget.from_epsilon_delta(epsilon, delta, relation=NeighbourRelation.REPLACE_ONE)


def calibration_noise(epsilons: Sequence[float], delta: float) -> pd.DataFrame:
    """Rho and the sensitivity-1 Gaussian sigma of both calibrations, one row per epsilon.

    The last column is the epsilon (CKS, same delta) that the ``"code"`` calibration's noise meets.
    """
    rows = []
    for eps in epsilons:
        rho = {c: allocate(replace_one_budget(eps, delta), c).rho_marginals for c in CALIBRATIONS}
        sigma = {c: gaussian_sigma(rho[c], 1.0) for c in CALIBRATIONS}
        rows.append({"ε": eps, "ρ, paper (CKS)": rho["paper"], "ρ, code (Bun–Steinke)": rho["code"],
                     "σ₁, paper": sigma["paper"], "σ₁, code": sigma["code"],
                     "σ code / σ paper": sigma["code"] / sigma["paper"],
                     "ε the code's noise meets (CKS)": rho_to_eps(rho["code"], delta)})
    return pd.DataFrame(rows).set_index("ε")


def noise_per_cell(attributes: Mapping[str, int], epsilons: Sequence[float],
                   delta: float) -> pd.DataFrame:
    """Gaussian sigma of one cell of PrivPGD's k = C(d, 2) two-way marginals (replace-one).

    The L2 sensitivity of k marginals under replace-one is sqrt(2k). ``attributes`` maps a dataset
    name to its attribute count d; datasets with the same d share one row, labelled by their names.
    """
    by_d: dict[int, list[str]] = {}
    for name, d in attributes.items():
        by_d.setdefault(int(d), []).append(name)
    rows = {}
    for d in sorted(by_d):
        sensitivity = marginal_l2_sensitivity(NeighbourRelation.REPLACE_ONE, math.comb(d, 2))
        rows[f"{', '.join(by_d[d])} (d = {d})"] = {
            f"ε = {eps:g}, {c}": gaussian_sigma(
                allocate(replace_one_budget(eps, delta), c).rho_marginals, sensitivity)
            for eps in epsilons for c in CALIBRATIONS}
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("datasets")


def constraint_split(epsilon: float, delta: float,
                     fraction: float = CONSTRAINT_FRACTION) -> pd.DataFrame:
    """Rho and sigma of the marginals and of a protected statistic getting ``fraction`` of the
    (epsilon, delta) budget (default: ``ThresholdConstraint``'s), under both calibrations, and the CKS rho of each share on its own.
    """
    rows: dict[str, dict[str, float]] = {}
    for calibration in CALIBRATIONS:
        shares = allocate(replace_one_budget(epsilon, delta), calibration,
                          constraint_fraction=fraction)
        assert shares.rho_constraint is not None  # allocate splits off a share when given one
        rows[calibration] = {
            "ρ marginals": shares.rho_marginals, "ρ statistic": shares.rho_constraint,
            "ρ total": shares.rho_marginals + shares.rho_constraint,
            "σ₁ marginals": gaussian_sigma(shares.rho_marginals, 1.0),
            "σ₁ statistic": gaussian_sigma(shares.rho_constraint, 1.0)}
    alone_m = replace_one_budget((1 - fraction) * epsilon, (1 - fraction) * delta).rho
    alone_s = replace_one_budget(fraction * epsilon, fraction * delta).rho
    rows["CKS of each share, added"] = {"ρ marginals": alone_m, "ρ statistic": alone_s,
                                        "ρ total": alone_m + alone_s}
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("calibration")


#: The PrivPGD authors' AIM selection before their commit 2e0d52a (18 March 2024): its
#: exponential mechanism was calibrated for score sensitivity w_r where replace-one needs 2 w_r,
#: so each selection's true epsilon was twice the booked one and its zCDP cost four times.
SELECTION_COST_BEFORE_FIX = 4.0


def authors_aim_cost_range(config: AIMConfig | None = None, *,
                           selection_cost: float = SELECTION_COST_BEFORE_FIX
                           ) -> tuple[float, float]:
    """True zCDP cost of the PrivPGD authors' AIM baseline, as multiples of its booked rho.

    Their code books each Gaussian measurement at half its cost (sensitivity 1 instead of sqrt 2;
    the final round's sigma omits the sqrt 2, so it costs twice its booking too), and each
    exponential mechanism at 1/``selection_cost`` of its cost (4 in the code of the paper's runs,
    1 since the authors' fix). The booked total is rho. With T = rounds_factor * d rounds
    assumed and alpha the measurement share of a round: the d one-way measurements book
    d * alpha/(2T) rho; each regular round books alpha/2 : (1 - alpha) (Gaussian : exponential);
    the final round books alpha : (1 - alpha) of what is left. The extremes are all of the rest
    spent in regular rounds or in the final one.

    >>> [round(x, 2) for x in authors_aim_cost_range()]
    [2.19, 2.35]
    >>> [round(x, 2) for x in authors_aim_cost_range(selection_cost=1.0)]
    [1.82, 1.9]
    """
    config = config or AIMConfig()
    alpha = config.alpha
    oneway = alpha / (2 * config.rounds_factor)   # d * alpha / (2 T) with T = rounds_factor * d
    booked_regular = alpha / 2 + 1 - alpha
    regular = (alpha + selection_cost * (1 - alpha)) / booked_regular  # true per booked rho
    final = 2 * alpha + selection_cost * (1 - alpha)
    ends = [2 * oneway + (1 - oneway) * rest for rest in (regular, final)]
    return min(ends), max(ends)


def authors_baseline_costs(config: AIMConfig | None = None) -> dict[str, float]:
    """The true-cost factors of the authors' AIM baseline, labelled as the book prints them:
    in the code of the paper's runs, and since the authors fixed its selection.
    """
    costs = {}
    for when, factor in (("paper's runs", SELECTION_COST_BEFORE_FIX), ("code since 2e0d52a", 1.0)):
        for end in authors_aim_cost_range(config, selection_cost=factor):
            costs[f"AIM, {when}, {end:.2f} ρ"] = end
    return costs


def true_epsilons(factors: Mapping[str, float], epsilons: Sequence[float],
                  delta: float) -> pd.DataFrame:
    """The epsilon (CKS, at ``delta``) that a run labelled epsilon meets if it really spends
    ``factor`` times the labelled budget's rho; one column per factor, one row per label.
    """
    return pd.DataFrame({
        name: {eps: rho_to_eps(factor * replace_one_budget(eps, delta).rho, delta)
               for eps in epsilons}
        for name, factor in factors.items()}).rename_axis("labelled ε")
