"""Figures of the AIM part, drawn like the paper's: one panel per dataset, epsilon on a log axis,
mean over trials with min-max bars, workload-aware mechanisms solid and the others dotted."""

from __future__ import annotations

import pandas as pd

from reprolib.experiments.aim_setup import WORKLOAD_AWARE
from reprolib.figures._style import new_figure

MECHANISM_COLOURS = {
    "AIM": "#d62728", "MWEM+PGM": "#1f77b4", "MWEM+RP": "#17becf", "MST": "#2ca02c",
    "PrivBayes+PGM": "#9467bd", "Independent": "#7f7f7f", "Gaussian": "#ff7f0e",
}


def summarise(frame: pd.DataFrame, metric: str = "workload_error") -> pd.DataFrame:
    """Mean, min and max of ``metric`` over trials, per dataset, mechanism and epsilon."""
    column = f"metric.{metric}"
    return (frame.groupby(["dataset", "mechanism", "epsilon"])[column]
            .agg(["mean", "min", "max", "count"]).reset_index())


def error_vs_epsilon(frame: pd.DataFrame, metric: str = "workload_error",
                     ylabel: str = "workload error (Definition 2)"):
    """One panel per dataset: ``metric`` against epsilon for every mechanism."""
    summary = summarise(frame, metric)
    datasets = list(dict.fromkeys(summary["dataset"]))
    fig, axes = new_figure(len(datasets), width=3.6, height=3.0)
    for ax, dataset in zip(axes, datasets, strict=True):
        for mechanism, rows in summary[summary["dataset"] == dataset].groupby("mechanism"):
            rows = rows.sort_values("epsilon")
            ax.errorbar(rows["epsilon"], rows["mean"],
                        yerr=[rows["mean"] - rows["min"], rows["max"] - rows["mean"]],
                        label=mechanism, color=MECHANISM_COLOURS.get(mechanism),
                        linestyle="-" if mechanism in WORKLOAD_AWARE else ":",
                        marker="o", markersize=3, capsize=2)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(dataset)
        ax.set_xlabel("ε")
    axes[0].set_ylabel(ylabel)
    axes[-1].legend(fontsize=7, loc="best")
    return fig


def best_share(frame: pd.DataFrame, mechanisms: tuple[str, ...],
               metric: str = "workload_error") -> pd.Series:
    """Share of (dataset, epsilon) settings in which each of ``mechanisms`` has the lowest mean."""
    summary = summarise(frame[frame["mechanism"].isin(mechanisms)], metric)
    winners = summary.loc[summary.groupby(["dataset", "epsilon"])["mean"].idxmin(), "mechanism"]
    return winners.value_counts(normalize=True).reindex(mechanisms, fill_value=0.0)
