"""The RAP++ figures, drawn from the recorded runs in the book's style."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.ticker import NullFormatter

from reprolib.figures import new_figure, new_grid
from reprolib.papers.rappp.annealing import ANNEALED, FIXED
from reprolib.papers.rappp.comparison import ORIGINAL
from reprolib.papers.rappp.data import PAPER_TASKS, STAND_IN_TASKS
from reprolib.papers.rappp.summaries import (
    error_summary,
    f1_long,
    f1_summary,
    sensitivity_summary,
)

ANNEALED_COLOUR, FIXED_COLOUR = "#d62728", "#1f77b4"  # the paper's red line and blue curve
# RAP++ blue and PGM orange as in the paper's Figure 3; RAP, DP-MERF and DP-CTGAN (not in it)
# green, purple and brown
MECHANISM_STYLE = {"RAP++": {"color": "#1f77b4", "marker": "o"},
                   "PGM": {"color": "#ff7f0e", "marker": "s"},
                   "RAP": {"color": "#2ca02c", "marker": "^"},
                   "DP-MERF": {"color": "#9467bd", "marker": "D"},
                   "DP-CTGAN": {"color": "#8c564b", "marker": "v"}}
TASK_ORDER = [*PAPER_TASKS, *STAND_IN_TASKS]  # panels in the paper's (and our stand-ins') order
ERROR_LABELS = {"cm_mean_error": "categorical marginals (CM)",
                "mm_mean_error": "mixed marginals (MM)"}


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


def _mechanisms(frame: pd.DataFrame) -> list[str]:
    return [m for m in MECHANISM_STYLE if m in set(frame["mechanism"])]


def error_figure(frame: pd.DataFrame, metrics: tuple[str, ...]):
    """Figures 2 and 7: one row per error (``metrics``), one column per task; the mean error
    over states against epsilon per mechanism, bars one standard deviation over seeds.
    """
    tasks = list(dict.fromkeys(frame["dataset"].str.split("/").str[0]))
    fig, axes = new_grid(len(metrics), len(tasks), width=3.0, height=2.6)
    for row, metric in enumerate(metrics):
        summary = error_summary(frame, metric)
        for col, task in enumerate(tasks):
            ax = axes[row, col]
            for mechanism in _mechanisms(frame):
                rows = summary[(summary["task"] == task) & (summary["mechanism"] == mechanism)]
                rows = rows.sort_values("epsilon")
                ax.errorbar(rows["epsilon"], rows["mean"], yerr=rows["std"].fillna(0.0),
                            capsize=2, label=mechanism, **MECHANISM_STYLE[mechanism])
            ax.set_yscale("log")
            ax.set_xlabel("ε")
            ax.set_title(task if row == 0 else "")
        axes[row, 0].set_ylabel(f"mean error,\n{ERROR_LABELS[metric]}")
    axes[0, 0].legend(fontsize=8)
    return fig


def f1_figure(frame: pd.DataFrame, states: tuple[str, ...]):
    """Figures 4, 5, 8 and 9: one row per state, one column per target; the macro-F1 of the
    linear model trained on each mechanism's records against epsilon (bars: one standard
    deviation over seeds), and on the real training split as a dotted black line.
    """
    frame = frame[frame["dataset"].str.split("/").str[1].isin(states)]
    summary = f1_summary(frame, by_state=True)
    targets = sorted(set(summary["target"]), key=lambda t: (TASK_ORDER.index(t)
                                                            if t in TASK_ORDER else 99, t))
    fig, axes = new_grid(len(states), len(targets), width=3.0, height=2.6)
    for row, state in enumerate(states):
        for col, target in enumerate(targets):
            ax = axes[row, col]
            rows = summary[(summary["state"] == state) & (summary["target"] == target)]
            ax.set_title(f"{target} ({state})", fontsize=9)
            if rows.empty:  # a dataset of the design not run yet at this scale
                ax.text(0.5, 0.5, "not run yet", ha="center", va="center", color="grey",
                        transform=ax.transAxes)
                ax.set_xticks([])
                ax.set_yticks([])
                continue
            for mechanism in _mechanisms(frame):
                points = rows[rows["mechanism"] == mechanism].sort_values("epsilon")
                ax.errorbar(points["epsilon"], points["mean"], yerr=points["std"].fillna(0.0),
                            capsize=2, label=mechanism, **MECHANISM_STYLE[mechanism])
            original = rows.loc[rows["mechanism"] == ORIGINAL, "mean"]
            if len(original):
                ax.axhline(float(original.iloc[0]), color="black", linestyle=":",
                           label="real data")
            ax.set_xlabel("ε")
        axes[row, 0].set_ylabel("macro-F1")
    axes[0, 0].legend(fontsize=8)
    return fig


def sensitivity_figure(frame: pd.DataFrame):
    """Figure 3: one row per epsilon, one column per dataset; mean F1 against mean wall time per
    run for PGM at each bin count and RAP++ at each T_LT (points labelled by the knob), the real
    training split's F1 dotted.
    """
    summary = sensitivity_summary(frame)
    original = f1_long(frame[frame["mechanism"] == ORIGINAL]).groupby(["task", "state"])["f1"]
    original = original.mean()
    datasets = list(dict.fromkeys(frame["dataset"]))
    epsilons = sorted(summary["epsilon"].unique())
    fig, axes = new_grid(len(epsilons), len(datasets), width=3.2, height=2.8)
    for row, epsilon in enumerate(epsilons):
        for col, dataset in enumerate(datasets):
            task, state = dataset.split("/")
            ax = axes[row, col]
            here = summary[(summary["task"] == task) & (summary["state"] == state)
                           & (summary["epsilon"] == epsilon)]
            for mechanism, points in here.groupby("mechanism"):
                points = points.sort_values("knob")
                ax.plot(points["seconds mean"], points["f1 mean"], "-", label=str(mechanism),
                        **MECHANISM_STYLE[str(mechanism)])
                for _, p in points.iterrows():
                    ax.annotate(f"{p['knob']:g}", (p["seconds mean"], p["f1 mean"]), fontsize=7,
                                textcoords="offset points", xytext=(3, 3))
            if (task, state) in original.index:
                ax.axhline(original[(task, state)], color="black", linestyle=":",
                           label="real data")
            ax.set_xscale("log")
            ax.xaxis.set_minor_formatter(NullFormatter())  # 3 x 10^0, 4 x 10^0 ... collide
            ax.set_xlabel("wall time per run (s)")
            ax.set_title(f"{dataset}, ε = {epsilon:g}", fontsize=9)
        axes[row, 0].set_ylabel("macro-F1")
    axes[0, 0].legend(fontsize=8)
    return fig
