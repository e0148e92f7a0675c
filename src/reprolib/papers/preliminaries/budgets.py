"""Budget allocations the preliminaries chapter tabulates for the other parts of the book.

PrivPGD's two noise calibrations (``"paper"``: the budget's CKS conversion; ``"code"``: the
authors' Bun-Steinke one), the split of a budget between the marginals and a protected statistic,
and what the PrivPGD authors' AIM and MST baselines really spend (see the PrivPGD errata page).
Every number comes from the mechanisms' own accounting: ``allocate`` of PrivPGD, AIM's
``AIMConfig`` (rounds per attribute, measurement share) and MST's three equal steps.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import cast

import pandas as pd

from reprolib.mechanisms.marginal.aim import AIMConfig
from reprolib.mechanisms.marginal.mst import MST_STEPS
from reprolib.mechanisms.particles.privpgd import Calibration, ThresholdConstraint, allocate
from reprolib.privacy import NeighbourRelation, PrivacyBudget, gaussian_sigma, rho_to_eps

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
        sensitivity = math.sqrt(2 * math.comb(d, 2))
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


def authors_aim_cost_range(config: AIMConfig | None = None) -> tuple[float, float]:
    """True zCDP cost of the PrivPGD authors' AIM baseline, as multiples of its booked rho.

    Their code books each Gaussian measurement at half its cost (sensitivity 1 instead of sqrt 2;
    the final round's sigma omits the sqrt 2, so it costs twice its booking too), while the
    exponential mechanism is booked correctly. The booked total is rho, so the true cost is rho
    plus the booked measurement share. With T = rounds_factor * d rounds assumed and alpha the
    measurement share of a round: the d one-way measurements book d * alpha/(2T) rho; each
    regular round books alpha/2 : (1 - alpha) (Gaussian : exponential); the final round books
    alpha : (1 - alpha) of what is left. The share is smallest when nothing is left for the
    final round and largest when (almost) everything is.

    >>> low, high = authors_aim_cost_range()
    >>> round(low, 2), round(high, 2)
    (1.82, 1.9)
    """
    config = config or AIMConfig()
    alpha = config.alpha
    oneway = alpha / (2 * config.rounds_factor)   # d * alpha / (2 T) with T = rounds_factor * d
    regular = (alpha / 2) / (alpha / 2 + 1 - alpha)
    low = oneway + (1 - oneway) * regular
    high = oneway + (1 - oneway) * alpha
    return 1.0 + low, 1.0 + high


def authors_mst_cost_factor(steps: int = MST_STEPS) -> float:
    """True cost of the authors' MST baseline as a multiple of rho: the two measurement steps
    spend rho/steps each, but the selection spends the whole rho.

    >>> round(authors_mst_cost_factor(), 4)  # 5/3
    1.6667
    """
    return (steps - 1) / steps + 1.0


def authors_baseline_costs(config: AIMConfig | None = None) -> dict[str, float]:
    """The true-cost factors of the authors' baselines, labelled as the book prints them."""
    low, high = authors_aim_cost_range(config)
    mst = authors_mst_cost_factor()
    return {f"AIM, {low:.2f} ρ": low, f"AIM, {high:.2f} ρ": high, f"MST, {mst:.3g} ρ": mst}


def true_epsilons(factors: Mapping[str, float], epsilons: Sequence[float],
                  delta: float) -> pd.DataFrame:
    """The epsilon (CKS, at ``delta``) that a run labelled epsilon meets if it really spends
    ``factor`` times the labelled budget's rho; one column per factor, one row per label.
    """
    return pd.DataFrame({
        name: {eps: rho_to_eps(factor * replace_one_budget(eps, delta).rho, delta)
               for eps in epsilons}
        for name, factor in factors.items()}).rename_axis("labelled ε")
