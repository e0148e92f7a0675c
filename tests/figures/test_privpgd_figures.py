"""PrivPGD figures and tables: hand-computed log2 ratios, the cut, Figure 3's layout, row alignment."""

import numpy as np
import pandas as pd
import pytest

from reprolib.papers.privpgd.figures import (
    constraint_figure,
    log2_ratios,
    log_ratio_figure,
    side_by_side,
)
from reprolib.papers.privpgd.reported import reported_log2_ratios, reported_results


def _runs(errors: dict[tuple[str, str], list[float]], metric: str = "covariance_error",
          epsilon: float = 2.5) -> pd.DataFrame:
    """One row per run: ``errors[(dataset, mechanism)]`` lists the seeds' values of ``metric``."""
    return pd.DataFrame([
        {"mechanism": mechanism, "dataset": dataset, "epsilon": epsilon, "seed": seed,
         f"metric.{metric}": value}
        for (dataset, mechanism), values in errors.items() for seed, value in enumerate(values)
    ])


def test_log2_ratios_by_hand():
    frame = _runs({("a", "PrivPGD"): [1.0, 3.0], ("a", "GEM"): [4.0, 16.0],
                   ("b", "PrivPGD"): [2.0], ("b", "GEM"): [8.0]})
    ratios = log2_ratios(frame, ["covariance_error"]).set_index(["dataset", "mechanism"])
    # a: PrivPGD's mean is 2, so GEM's runs give log2(4/2) = 1 and log2(16/2) = 3.
    assert ratios.loc[("a", "GEM"), ["mean", "std", "runs"]].tolist() == [2.0, 1.0, 2]
    # PrivPGD's own runs: log2(1/2) = -1 and log2(3/2); ddof = 0.
    own = np.array([-1.0, np.log2(1.5)])
    assert ratios.loc[("a", "PrivPGD"), "mean"] == pytest.approx(own.mean())
    assert ratios.loc[("a", "PrivPGD"), "std"] == pytest.approx(own.std())
    # b: one run each, log2(8/2) = 2 with std 0.
    assert ratios.loc[("b", "GEM"), ["mean", "std", "runs"]].tolist() == [2.0, 0.0, 1]
    assert set(ratios["metric"]) == {"covariance_error"}


def test_log2_ratios_need_the_reference_and_the_metric():
    frame = _runs({("a", "PrivPGD"): [1.0], ("b", "GEM"): [2.0]})
    with pytest.raises(ValueError, match=r"No runs of the reference 'PrivPGD' on \['b'\]"):
        log2_ratios(frame, ["covariance_error"])
    with pytest.raises(KeyError, match="metric.sw1.*covariance_error"):
        log2_ratios(_runs({("a", "PrivPGD"): [1.0]}), ["sw1"])


def _plotted(ax) -> dict[str, np.ndarray]:
    """Marker heights of each labelled errorbar series in ``ax``."""
    return {c.get_label(): np.asarray(c.lines[0].get_ydata()) for c in ax.containers}


def test_values_above_the_cut_are_drawn_at_it_and_listed_in_order():
    # log2 ratios on dataset a: GEM 5, RAP 4, PGM+MST 1; the cut is 3.
    frame = _runs({("a", "PrivPGD"): [1.0], ("a", "GEM"): [32.0], ("a", "RAP"): [16.0],
                   ("a", "PGM+MST"): [2.0]})
    (ax,) = log_ratio_figure(frame, ["covariance_error"], cut=3.0).axes
    heights = _plotted(ax)
    assert heights["GEM"].tolist() == [3.0] and heights["RAP"].tolist() == [3.0]
    assert heights["PGM+MST"].tolist() == [1.0] and heights["PrivPGD"].tolist() == [0.0]
    assert [text.get_text() for text in ax.texts] == ["GEM\nRAP"]
    assert ax.get_ylim()[1] > 3.0
    assert ax.get_title() == "covariance error"
    with pytest.raises(ValueError, match="cut must be a positive log2 ratio"):
        log_ratio_figure(frame, ["covariance_error"], cut=0.0)


def test_paper_points_are_hollow_clamped_and_substitutes_marked():
    frame = _runs({("medical", "PrivPGD"): [1.0], ("medical", "GEM"): [2.0],
                   ("taxi", "PrivPGD"): [1.0], ("taxi", "GEM"): [2.0]}, "downstream_error")
    fig = log_ratio_figure(frame, ["downstream_error"], paper=reported_log2_ratios(2.5),
                           substituted=["medical"])
    (ax,) = fig.axes
    hollow = [line for line in ax.lines if line.get_markerfacecolor() == "none"]
    assert len(hollow) == 2  # PrivPGD and GEM, on medical and taxi
    gem = max(hollow, key=lambda line: max(line.get_ydata()))
    by_position = sorted(zip(gem.get_xdata(), gem.get_ydata(), strict=True))
    # The paper's medical GEM: log2(75 / 2.2) = 5.1 > 3, drawn at the cut; taxi: log2(2.7 / 2.3).
    assert [y for _, y in by_position] == pytest.approx([3.0, np.log2(2.7 / 2.3)])
    assert [label.get_text() for label in ax.get_xticklabels()] == ["medical†", "taxi"]
    assert "†" in ax.get_xlabel()
    assert "paper (from table means)" in [text.get_text() for text in fig.legends[0].texts]


def _constraint_runs() -> pd.DataFrame:
    rows = []
    for dataset in ("income", "employment"):
        for strength in (0.0, 0.01, 0.1, 1.0, 10.0):
            for seed in range(2):
                rows.append({"mechanism": "PrivPGD", "dataset": dataset, "epsilon": 2.5,
                             "seed": seed, "param.strength": strength,
                             "metric.protected_abs_error": 0.1 * strength + seed,
                             "metric.downstream_error": 0.2, "metric.counting_abs_error": 0.01,
                             "metric.thresholding_abs_error": 0.02})
    return pd.DataFrame(rows)


def test_constraint_figure_has_four_panels_and_a_lambda_zero_tick():
    fig = constraint_figure(_constraint_runs())
    assert len(fig.axes) == 4
    protected = fig.axes[0]
    assert protected.get_xscale() == "log"
    ticks = [label.get_text() for label in protected.get_xticklabels()]
    assert ticks == ["λ=0", "0.01", "0.1", "1", "10"]
    assert protected.get_xticks()[0] == pytest.approx(0.001)
    # income's curve over lambda > 0 (mean over seeds 0 and 1 adds 0.5) and its lambda = 0 marker.
    curve, origin = protected.containers[0], protected.containers[1]
    assert list(curve.lines[0].get_ydata()) == pytest.approx([0.501, 0.51, 0.6, 1.5])
    assert list(origin.lines[0].get_xdata()) == pytest.approx([0.001])
    assert list(origin.lines[0].get_ydata()) == pytest.approx([0.5])


def test_side_by_side_aligns_our_rows_with_the_papers():
    values = {"downstream_error": 0.24, "downstream_error_real": 0.12, "covariance_error": 0.05}
    rows = [{"mechanism": mechanism, "dataset": dataset, "epsilon": epsilon, "seed": seed,
             **{f"metric.{name}": value * (1 + seed) for name, value in values.items()}}
            for dataset, mechanism in [("income", "PGM+MST"), ("employment", "GEM"),
                                       ("income", "PrivPGD")]
            for epsilon in (2.5, 1.0) for seed in range(2)]
    table = side_by_side(pd.DataFrame(rows), reported_results(), 2.5)
    assert list(table.index) == [("income", "PGM+MST"), ("employment", "GEM"),
                                 ("income", "PrivPGD")]
    assert list(table.columns) == [("downstream_error", "ours"), ("downstream_error", "paper"),
                                   ("covariance_error", "ours"), ("covariance_error", "paper")]
    # Ours: means over the two seeds at epsilon 2.5 (values x1 and x2), as synthetic/original.
    assert table.loc[("income", "PGM+MST"), ("downstream_error", "ours")] == "0.36/0.18"
    assert table.loc[("income", "PGM+MST"), ("covariance_error", "ours")] == pytest.approx(0.075)
    # Paper, Table 1: income PGM+MST 0.24/0.19 and 0.051; PrivPGD 0.19/0.19 and 0.001.
    assert table.loc[("income", "PGM+MST"), ("downstream_error", "paper")] == "0.24/0.19"
    assert table.loc[("income", "PGM+MST"), ("covariance_error", "paper")] == 0.051
    assert table.loc[("income", "PrivPGD"), ("covariance_error", "paper")] == 0.001
    # The paper has no GEM row on employment.
    assert table.loc[("employment", "GEM")][[("downstream_error", "paper"),
                                             ("covariance_error", "paper")]].isna().all()
