"""Figures of the AIM part, drawn like the paper's: one panel per dataset, epsilon on a log axis,
mean over trials with min-max bars, workload-aware mechanisms solid and the others dotted.
"""

from __future__ import annotations

import math

import pandas as pd
from matplotlib.ticker import NullLocator

from reprolib.figures._style import new_figure, new_grid
from reprolib.papers.aim.setup import WORKLOAD_AWARE

MECHANISM_COLOURS = {
    "AIM": "#d62728", "MWEM+PGM": "#1f77b4", "MWEM+RP": "#17becf", "MST": "#2ca02c",
    "PrivBayes+PGM": "#9467bd", "Independent": "#7f7f7f", "Gaussian": "#ff7f0e",
    "GEM": "#8c564b", "RAP": "#bcbd22", "PrivMRF": "#e377c2",
}
PANELS_PER_ROW = 3  # the most dataset panels side by side in the book's text width


def _errorbar(ax, rows: pd.DataFrame, x: str, **style) -> None:
    """Mean against ``x`` with min-max bars (``rows`` from :func:`summarise` or alike)."""
    rows = rows.sort_values(x)
    mean, low, high = (rows[c].to_numpy(float) for c in ("mean", "min", "max"))
    ax.errorbar(rows[x].to_numpy(float), mean, yerr=[mean - low, high - mean],
                marker="o", markersize=3, capsize=2, **style)


def summarise(frame: pd.DataFrame, metric: str = "workload_error") -> pd.DataFrame:
    """Mean, min and max of ``metric`` over trials, per dataset, mechanism and epsilon."""
    column = f"metric.{metric}"
    return (frame.groupby(["dataset", "mechanism", "epsilon"])[column]
            .agg(["mean", "min", "max", "count"]).reset_index())


def error_vs_epsilon(frame: pd.DataFrame, metric: str = "workload_error",
                     ylabel: str = "workload error (Definition 2)"):
    """One panel per dataset: ``metric`` against epsilon for every mechanism, in rows of at
    most three panels as even as can be; the legend takes a spare cell of the grid when there
    is one, else the figure's right margin (never over a curve).
    """
    summary = summarise(frame, metric)
    datasets = list(dict.fromkeys(summary["dataset"]))
    nrows = math.ceil(len(datasets) / PANELS_PER_ROW)
    fig, grid = new_grid(nrows, math.ceil(len(datasets) / nrows), width=3.6, height=3.0)
    axes, spare = grid.ravel()[:len(datasets)], grid.ravel()[len(datasets):]
    for ax, dataset in zip(axes, datasets, strict=True):
        for mechanism, rows in summary[summary["dataset"] == dataset].groupby("mechanism"):
            _errorbar(ax, rows, "epsilon", label=mechanism,
                      color=MECHANISM_COLOURS.get(mechanism),
                      linestyle="-" if mechanism in (*WORKLOAD_AWARE, "Gaussian") else ":")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(dataset)
        ax.set_xlabel("ε")
    for row in grid:
        row[0].set_ylabel(ylabel)
    for ax in spare:
        ax.set_axis_off()
    # every mechanism once, also one that ran on some datasets only
    legend = {label: handle for ax in axes for handle, label in zip(
        *ax.get_legend_handles_labels(), strict=True)}
    labels = sorted(legend)
    handles = [legend[label] for label in labels]
    if len(spare):
        spare[0].legend(handles, labels, loc="center")
    else:
        fig.legend(handles, labels, loc="outside right center")
    return fig


def winners(frame: pd.DataFrame, mechanisms: tuple[str, ...],
            metric: str = "workload_error") -> pd.DataFrame:
    """Per (dataset, epsilon) setting, the :func:`summarise` row of the one of ``mechanisms``
    with the lowest mean, among those of them that ran in the setting; a setting where only one
    of them ran is no comparison and is left out.
    """
    summary = summarise(frame[frame["mechanism"].isin(mechanisms)], metric)
    setting = summary.groupby(["dataset", "epsilon"])["mean"]
    compared = summary[setting.transform("size") > 1]
    return compared.loc[compared.groupby(["dataset", "epsilon"])["mean"].idxmin()]


def best_share(frame: pd.DataFrame, mechanisms: tuple[str, ...],
               metric: str = "workload_error") -> pd.Series:
    """Share of (dataset, epsilon) settings in which each of ``mechanisms`` has the lowest mean,
    among those of them that ran in the setting (:func:`absent_runs` names the others; a
    setting where only one ran is left out, :func:`winners`).
    """
    best = winners(frame, mechanisms, metric)["mechanism"]
    return best.value_counts(normalize=True).reindex(mechanisms, fill_value=0.0)


def absent_runs(frame: pd.DataFrame, mechanisms: tuple[str, ...]) -> str:
    """Which of ``mechanisms`` have no runs on which of ``frame``'s datasets, in words ("" when
    every one ran on every dataset): the settings :func:`best_share` judged without them.
    """
    datasets = list(dict.fromkeys(frame["dataset"]))
    ran = frame.groupby("mechanism")["dataset"].unique()
    lacking = {m: [d for d in datasets if m not in ran or d not in ran[m]] for m in mechanisms}
    return "; ".join(f"{m} not run on {', '.join(missing)}"
                     for m, missing in lacking.items() if missing)


def capacity_sweep(frame: pd.DataFrame):
    """Figure 4 (a-b): runtime and workload error against model capacity, one line per epsilon."""
    fig, (runtime, error) = new_figure(2, width=3.8, height=3.0)
    for ax, metric, label in ((runtime, "seconds", "runtime (s)"),
                              (error, "workload_error", "workload error (Definition 2)")):
        summary = (frame.groupby(["epsilon", "param.max_model_size_mb"])[f"metric.{metric}"]
                   .agg(["mean", "min", "max"]).reset_index())
        for epsilon, rows in summary.groupby("epsilon"):
            _errorbar(ax, rows, "param.max_model_size_mb", label=f"ε = {epsilon:g}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        # a tick at each capacity run, labelled as printed: on a range of a decade or two the
        # log axis's own minor labels (3 x 10^-3, 4 x 10^-3, ...) run into each other
        capacities = sorted(summary["param.max_model_size_mb"].unique())
        ax.set_xticks(capacities, [f"{c:g}" for c in capacities], rotation=45, ha="right",
                      fontsize=7)
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xlabel("model capacity (MB)")
        ax.set_ylabel(label)
    error.legend(fontsize=8)
    return fig


def bounds_scatter(errors: pd.DataFrame):
    """Figure 4 (c): true L1 error of each marginal against its 95 % bound (log-log, y = x line).

    ``errors`` has one row per marginal with columns ``error``, ``bound`` and ``supported``.
    """
    fig, (ax,) = new_figure(1, width=4.4, height=3.6)
    for supported, colour, label in ((True, "#1f77b4", "supported (Cor. 3)"),
                                     (False, "#d62728", "unsupported (Cor. 5)")):
        rows = errors[errors["supported"] == supported]
        ax.scatter(rows["bound"], rows["error"], s=8, alpha=0.6, color=colour, label=label)
    low = max(min(errors["error"].min(), errors["bound"].min()), 1e-1)
    high = max(errors["error"].max(), errors["bound"].max())
    ax.plot([low, high], [low, high], color="black", linewidth=0.8, label="error = bound")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("95 % bound on ‖M_r(D) − M_r(D̂)‖₁")
    ax.set_ylabel("true error ‖M_r(D) − M_r(D̂)‖₁")
    ax.legend(fontsize=8)
    return fig


def _line_panels(frame: pd.DataFrame, panel: str, line: str, y: str, ylabel: str,
                 colours: dict[str, str] | None = None):
    """One log-log panel per value of ``panel``: ``y`` against epsilon, one line per ``line``."""
    panels = list(dict.fromkeys(frame[panel]))
    fig, axes = new_figure(len(panels), width=3.5, height=3.0)
    for ax, name in zip(axes, panels, strict=True):
        for label, rows in frame[frame[panel] == name].groupby(line):
            rows = rows.sort_values("epsilon")
            ax.plot(rows["epsilon"], rows[y], marker="o", markersize=3, label=label,
                    color=(colours or {}).get(label))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(name)
        ax.set_xlabel("ε")
    axes[0].set_ylabel(ylabel)
    axes[-1].legend(fontsize=7)
    return fig


def matching_fractions(frame: pd.DataFrame):
    """Figure 5: the subsampling fraction matching AIM's error, one panel per workload."""
    return _line_panels(frame, "param.workload", "dataset", "metric.matching_fraction",
                        "fraction of records, m / N")


def runtime_vs_epsilon(frame: pd.DataFrame):
    """Figure 6: AIM's wall time against epsilon, one line per dataset, min-max bars."""
    summary = (frame.groupby(["dataset", "epsilon"])["metric.seconds"]
               .agg(["mean", "min", "max"]).reset_index())
    fig, (ax,) = new_figure(1, width=4.4, height=3.2)
    for dataset, rows in summary.groupby("dataset"):
        _errorbar(ax, rows, "epsilon", label=dataset)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("ε")
    ax.set_ylabel("AIM runtime (s)")
    ax.legend(fontsize=8)
    return fig


def best_over_rounds(frame: pd.DataFrame) -> pd.DataFrame:
    """Figure 7's statistic: per dataset, mechanism and epsilon, the smallest trial-mean error
    over the round counts T, and the T that attains it.
    """
    means = (frame.groupby(["dataset", "mechanism", "epsilon", "param.rounds"])
             ["metric.workload_error"].mean().reset_index())
    best = means.loc[means.groupby(["dataset", "mechanism", "epsilon"])
                     ["metric.workload_error"].idxmin()]
    return best.rename(columns={"metric.workload_error": "best_error",
                                "param.rounds": "best_rounds"}).reset_index(drop=True)


def mwem_comparison(frame: pd.DataFrame):
    """Figure 7: best-over-T workload error of MWEM+PGM and MWEM+RP against epsilon."""
    return _line_panels(best_over_rounds(frame), "dataset", "mechanism", "best_error",
                        "workload error, best T", MECHANISM_COLOURS)
