"""The RAP++ figures, drawn from the recorded runs in the book's style."""

from __future__ import annotations

import numpy as np
import pandas as pd

from reprolib.figures import new_figure
from reprolib.papers.rappp.annealing import ANNEALED, FIXED

ANNEALED_COLOUR, FIXED_COLOUR = "#d62728", "#1f77b4"  # the paper's red line and blue curve


def annealing_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per dataset and run (annealed, or fixed sigma): mean, min and max over seeds of the max
    and mean errors.
    """
    frame = frame.assign(sigma=np.where(frame["mechanism"] == ANNEALED, np.nan,
                                        frame["param.sigma_initial"]))
    grouped = frame.groupby(["dataset", "mechanism", "sigma"], dropna=False)
    out = grouped[["metric.max_error", "metric.mean_error"]].agg(["mean", "min", "max"])
    out.columns = [f"{m.removeprefix('metric.')} {s}" for m, s in out.columns]
    return out.reset_index()


def annealing_figure(frame: pd.DataFrame, dataset: str):
    """The paper's Figure 1 layout for one dataset: max error (left) and mean error (right)
    against the fixed sigma (blue, seeds' range shaded), annealing as a red line.
    """
    summary = annealing_summary(frame[frame["dataset"] == dataset])
    fixed = summary[summary["mechanism"] == FIXED].sort_values("sigma")
    annealed = summary[summary["mechanism"] == ANNEALED].iloc[0]
    fig, axes = new_figure(2)
    for ax, metric, label in zip(axes, ("max_error", "mean_error"), ("Maximum error",
                                                                       "Mean error"), strict=True):
        ax.plot(fixed["sigma"], fixed[f"{metric} mean"], "o-", color=FIXED_COLOUR,
                label="fixed σ")
        ax.fill_between(fixed["sigma"], fixed[f"{metric} min"], fixed[f"{metric} max"],
                        color=FIXED_COLOUR, alpha=0.2)
        ax.axhline(annealed[f"{metric} mean"], color=ANNEALED_COLOUR, label="annealing")
        ax.axhspan(annealed[f"{metric} min"], annealed[f"{metric} max"], color=ANNEALED_COLOUR,
                   alpha=0.15)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("fixed inverse temperature σ")
        ax.set_title(label)
    axes[0].legend()
    fig.suptitle(dataset)
    return fig
