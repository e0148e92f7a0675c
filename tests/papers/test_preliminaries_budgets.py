"""reprolib.papers.preliminaries.budgets: the allocations the preliminaries page tabulates."""

import math

import pytest

from reprolib.mechanisms.marginal.aim import AIMConfig
from reprolib.papers.preliminaries.budgets import (
    authors_aim_cost_range,
    authors_baseline_costs,
    calibration_noise,
    constraint_split,
    noise_per_cell,
    replace_one_budget,
    true_epsilons,
)
from reprolib.privacy import eps_to_rho, gaussian_sigma


def test_aim_cost_range_is_the_errata_range():
    # the code of the paper's runs (T = 16 d, alpha 0.9): Gaussian costs booked at half, the
    # selection at a quarter; the authors' code since 2e0d52a: the Gaussian half only
    assert [round(x, 2) for x in authors_aim_cost_range()] == [2.19, 2.35]
    low, high = authors_aim_cost_range(selection_cost=1.0)
    assert round(low, 2) == 1.82 and round(high, 2) == 1.90
    # closed form: one-way share alpha/(2*16); regular rounds alpha/2 : (1 - alpha) booked,
    # alpha : selection_cost (1 - alpha) true; the final round alpha : (1 - alpha) booked
    oneway = 0.9 / 32
    assert low == pytest.approx(2 * oneway + (1 - oneway) * 1.0 / 0.55, rel=1e-12)
    assert high == pytest.approx(2 * oneway + (1 - oneway) * 1.9, rel=1e-12)
    before = authors_aim_cost_range()
    assert before[0] == pytest.approx(2 * oneway + (1 - oneway) * 2.2, rel=1e-12)  # final round
    assert before[1] == pytest.approx(2 * oneway + (1 - oneway) * 1.3 / 0.55, rel=1e-12)


def test_aim_cost_range_follows_the_config():
    low, high = authors_aim_cost_range(AIMConfig(alpha=0.5, rounds_factor=1), selection_cost=1.0)
    oneway = 0.25
    assert low == pytest.approx(2 * oneway + (1 - oneway) * 1.0 / 0.75)
    assert high == pytest.approx(2 * oneway + (1 - oneway) * 1.5)


def test_baseline_labels_carry_the_factors():
    costs = authors_baseline_costs()
    assert list(costs) == ["AIM, paper's runs, 2.19 ρ", "AIM, paper's runs, 2.35 ρ",
                           "AIM, code since 2e0d52a, 1.82 ρ", "AIM, code since 2e0d52a, 1.90 ρ"]


def test_true_epsilon_exceeds_the_label_and_is_the_label_at_factor_one():
    table = true_epsilons({"same": 1.0, "double": 2.0}, [0.2, 1.0], 1e-5)
    assert table["same"].to_numpy() == pytest.approx([0.2, 1.0], rel=1e-6)
    assert (table["double"] > table.index.to_numpy()).all()


def test_calibration_noise_paper_is_the_cks_budget():
    table = calibration_noise([1.0], 1e-5)
    rho = eps_to_rho(1.0, 1e-5)
    assert table.loc[1.0, "ρ, paper (CKS)"] == pytest.approx(rho)
    assert table.loc[1.0, "σ₁, paper"] == pytest.approx(gaussian_sigma(rho, 1.0))
    assert table.loc[1.0, "σ code / σ paper"] > 1.0  # Bun-Steinke allows less rho
    assert table.loc[1.0, "ε the code's noise meets (CKS)"] < 1.0


def test_noise_per_cell_groups_datasets_by_attribute_count():
    table = noise_per_cell({"A": 3, "B": 9, "C": 9}, [1.0], 1e-5)
    assert list(table.index) == ["A (d = 3)", "B, C (d = 9)"]
    sigma_1 = calibration_noise([1.0], 1e-5).loc[1.0, "σ₁, paper"]
    assert table.loc["A (d = 3)", "ε = 1, paper"] == pytest.approx(sigma_1 * math.sqrt(6))


def test_constraint_split_spends_the_budget():
    split = constraint_split(2.5, 1e-5, fraction=0.2)
    assert split.loc["paper", "ρ total"] == pytest.approx(replace_one_budget(2.5, 1e-5).rho)
    alone = split.loc["CKS of each share, added"]
    assert alone["ρ marginals"] == pytest.approx(replace_one_budget(2.0, 8e-6).rho)
    assert alone["ρ statistic"] == pytest.approx(replace_one_budget(0.5, 2e-6).rho)
    assert split.loc["paper", "ρ total"] >= alone["ρ total"]  # zCDP composes tighter
