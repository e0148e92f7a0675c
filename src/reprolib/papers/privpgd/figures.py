"""Figures and tables of the PrivPGD part, drawn like the paper's.

Figures 1-2 and 4-7 show, per dataset and metric, the log2 ratio of a mechanism's error to the
reference mechanism's (PrivPGD's) mean error: positive means the reference is better. Figure 3
shows the constraint study against the regularisation strength lambda.

Input frames are results as :func:`reprolib.experiments.run_experiment` returns them: columns
``mechanism``, ``dataset``, ``epsilon``, ``seed``, ``param.<name>`` and ``metric.<name>``, with
mechanisms named as in the paper (``PrivPGD``, ``PGM+AIM``, ``PGM+MST``, ``Private GSD``, ``GEM``,
``RAP``) so that our points and the paper's share a colour.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import cycle

import numpy as np
import pandas as pd
from matplotlib.colors import TABLEAU_COLORS, to_hex
from matplotlib.lines import Line2D
from matplotlib.ticker import NullLocator

from reprolib.figures._style import new_figure

#: Panel titles of the metrics (``metric.<name>`` columns); "l1" is the tables' "TV distance".
METRIC_LABELS = {
    "downstream_error": "downstream error",
    "covariance_error": "covariance error",
    "counting_error": "counting-query error",
    "thresholding_error": "thresholding-query error",
    "sw1": "average SW1",
    "l1": "average L1 (2·TV)",
}
#: Colour and marker of each mechanism; unknown mechanisms get matplotlib's next colour and "o".
MECHANISM_STYLE = {
    "PrivPGD": ("#d62728", "o"), "PGM+AIM": ("#1f77b4", "s"), "PGM+MST": ("#2ca02c", "^"),
    "Private GSD": ("#9467bd", "D"), "GEM": ("#ff7f0e", "v"), "RAP": ("#17becf", "P"),
}
#: Figure 3's panels: metric and title.
CONSTRAINT_PANELS = (
    ("protected_abs_error", "protected query, abs. error (larger is better)"),
    ("downstream_error", "downstream error"),
    ("counting_abs_error", "counting queries, abs. error"),
    ("thresholding_abs_error", "thresholding queries, abs. error"),
)
SUBSTITUTE_MARK = "†"
_DODGE = 0.5  # total width of the horizontal spread of the mechanisms around a dataset's tick


def _column(frame: pd.DataFrame, metric: str) -> str:
    column = f"metric.{metric}"
    if column not in frame.columns:
        raise KeyError(f"The results have no column '{column}'; metrics present: "
                       f"{sorted(c[7:] for c in frame.columns if c.startswith('metric.'))}.")
    return column


def log2_ratios(frame: pd.DataFrame, metrics: Sequence[str],
                reference: str = "PrivPGD") -> pd.DataFrame:
    """Mean and std over seeds of log2(run's error / reference's mean error on that dataset).

    The paper's Figure 1 definition: each run's error is divided by the mean over runs of the
    ``reference`` mechanism on the same dataset, and the log2 ratios are averaged over runs.
    ``std`` is the population standard deviation (ddof = 0), so a single run gives 0.

    Returns:
        One row per (dataset, mechanism, metric) with columns ``dataset``, ``mechanism``,
        ``metric``, ``mean``, ``std`` and ``runs``; datasets and mechanisms in input order.
    """
    missing = set(frame["dataset"]) - set(frame.loc[frame["mechanism"] == reference, "dataset"])
    if missing:
        raise ValueError(f"No runs of the reference '{reference}' on {sorted(missing)}; the "
                         "ratios need them: run it there or pass another reference=.")
    parts = []
    for metric in metrics:
        column = _column(frame, metric)
        means = frame[frame["mechanism"] == reference].groupby("dataset")[column].mean()
        ratio = np.log2(frame[column] / frame["dataset"].map(means))
        summary = (ratio.groupby([frame["dataset"], frame["mechanism"]], sort=False)
                   .agg(mean="mean", std=lambda r: r.std(ddof=0), runs="count").reset_index())
        parts.append(summary.assign(metric=metric))
    columns = ["dataset", "mechanism", "metric", "mean", "std", "runs"]
    return pd.concat(parts, ignore_index=True)[columns]


def _offsets(mechanisms: Sequence[str]) -> dict[str, float]:
    steps = np.linspace(-_DODGE / 2, _DODGE / 2, len(mechanisms)) if len(mechanisms) > 1 else [0.0]
    return dict(zip(mechanisms, steps, strict=True))


def _styles(mechanisms: Sequence[str]) -> dict[str, tuple[str, str]]:
    """Colour and marker per mechanism: :data:`MECHANISM_STYLE`, else tab10 colours and "o"."""
    used = {colour for colour, _ in MECHANISM_STYLE.values()}
    spare = cycle(c for c in map(to_hex, TABLEAU_COLORS.values()) if c not in used)
    return {name: MECHANISM_STYLE.get(name) or (to_hex(next(spare)), "o") for name in mechanisms}


def _ratio_panel(ax, ratios: pd.DataFrame, paper: pd.DataFrame | None, datasets: list[str],
                 cut: float, styles: dict[str, tuple[str, str]]) -> int:
    """Draw one metric's panel; returns the most names listed above the cut at one dataset."""
    position = {name: i for i, name in enumerate(datasets)}
    offset = _offsets(list(styles))
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.axhline(cut, color="grey", linestyle="--", linewidth=0.8)
    for mechanism in dict.fromkeys(ratios["mechanism"]):
        colour, marker = styles[mechanism]
        rows = ratios[ratios["mechanism"] == mechanism]
        x = rows["dataset"].map(position).to_numpy() + offset[mechanism]
        above = rows["mean"].to_numpy() > cut
        ax.errorbar(x, np.minimum(rows["mean"], cut), yerr=np.where(above, 0.0, rows["std"]),
                    linestyle="none", marker=marker, markersize=4, capsize=2, color=colour,
                    label=mechanism)
        if paper is not None:
            reported = paper[(paper["mechanism"] == mechanism)
                             & paper["dataset"].isin(position)]
            ax.plot(reported["dataset"].map(position).to_numpy() + offset[mechanism],
                    np.minimum(reported["log2_ratio"], cut), linestyle="none", marker=marker,
                    markersize=7, markerfacecolor="none", color=colour)
    most = 0
    for dataset, rows in ratios[ratios["mean"] > cut].groupby("dataset", sort=False):
        names = rows.sort_values("mean", ascending=False)["mechanism"]
        ax.annotate("\n".join(names), (position[dataset], cut), xytext=(0, 3),
                    textcoords="offset points", fontsize=5.5, ha="center", va="bottom")
        most = max(most, len(names))
    return most


def log_ratio_figure(frame: pd.DataFrame, metrics: Sequence[str], *, cut: float = 3.0,
                     reference: str = "PrivPGD", paper: pd.DataFrame | None = None,
                     substituted: Iterable[str] = ()):
    """Figures 1-2 and 4-7: one panel per metric, log2 error ratios against the datasets.

    Markers are means over seeds with +-std bars (:func:`log2_ratios`), one colour and marker per
    mechanism, no connecting lines. Means above ``cut`` (dashed line; the paper cuts at 3, at 4 in
    the arXiv Figure 1) are drawn at the cut without bars, and the mechanisms above it are listed
    over the line, largest first.

    Args:
        paper: :func:`reprolib.papers.privpgd.reported.reported_log2_ratios` at the same epsilon;
            its values for the mechanisms and datasets of ``frame`` are drawn as hollow markers
            of the mechanism's colour (clamped at the cut alike).
        substituted: Datasets run on a substitute table instead of the paper's; their tick labels
            get a trailing "†" and the axis label says what it means.
    """
    if cut <= 0:
        raise ValueError(f"cut must be a positive log2 ratio (the paper uses 3), got {cut}.")
    ratios = log2_ratios(frame, metrics, reference)
    datasets = list(dict.fromkeys(frame["dataset"]))
    marked = set(substituted) & set(datasets)
    labels = [name + (SUBSTITUTE_MARK if name in marked else "") for name in datasets]
    styles = _styles(list(dict.fromkeys(frame["mechanism"])))
    fig, axes = new_figure(len(metrics), width=max(4.0, 0.5 * len(datasets)), height=3.2)
    for ax, metric in zip(axes, metrics, strict=True):
        listed = _ratio_panel(ax, ratios[ratios["metric"] == metric],
                              None if paper is None else paper[paper["metric"] == metric],
                              datasets, cut, styles)
        bottom, _ = ax.get_ylim()
        room = 0.05 + 0.05 * listed  # share of the panel's height above the cut: ~1 per name
        ax.set_ylim(bottom, cut + room * (cut - bottom) / (1 - room))
        ax.set_xticks(range(len(datasets)), labels, rotation=45, ha="right")
        ax.set_title(METRIC_LABELS.get(metric, metric))
        if marked:
            ax.set_xlabel(f"dataset ({SUBSTITUTE_MARK}: substitute data, not the paper's)")
    axes[0].set_ylabel(f"log₂ error ratio to {reference}")
    handles, names = axes[0].get_legend_handles_labels()
    if paper is not None:
        handles.append(Line2D([], [], linestyle="none", marker="o", markerfacecolor="none",
                              color="black"))
        names.append("paper (from table means)")
    fig.legend(handles, names, loc="outside lower center", ncols=len(names), fontsize=8)
    return fig


def constraint_figure(frame: pd.DataFrame):
    """Figure 3: the four errors against lambda (``param.strength``), one line per dataset.

    Means over seeds with +-std bars (ddof = 0) on a log lambda axis; lambda = 0, which a log axis
    cannot show, is a separate marker one decade left of the smallest positive lambda, with the
    tick "λ=0".
    """
    strengths = np.sort(frame["param.strength"].unique())
    positive = strengths[strengths > 0]
    zero_at = positive[0] / 10 if positive.size else 1.0
    ticks, labels = list(positive), [f"{value:g}" for value in positive]
    if (strengths == 0).any():
        ticks, labels = [zero_at, *ticks], ["λ=0", *labels]
    fig, axes = new_figure(len(CONSTRAINT_PANELS), width=3.6, height=3.0)
    for ax, (metric, title) in zip(axes, CONSTRAINT_PANELS, strict=True):
        summary = (frame.groupby(["dataset", "param.strength"])[_column(frame, metric)]
                   .agg(mean="mean", std=lambda r: r.std(ddof=0)).reset_index())
        for dataset in dict.fromkeys(frame["dataset"]):  # same order, so same colours, per panel
            rows = summary[summary["dataset"] == dataset]
            curve = rows[rows["param.strength"] > 0]
            line = ax.errorbar(curve["param.strength"], curve["mean"], yerr=curve["std"],
                               marker="o", markersize=3, capsize=2, label=dataset)
            origin = rows[rows["param.strength"] == 0]
            ax.errorbar(np.full(len(origin), zero_at), origin["mean"], yerr=origin["std"],
                        linestyle="none", marker="s", markersize=4, capsize=2,
                        color=line.lines[0].get_color())
        ax.set_xscale("log")
        ax.set_xticks(ticks, labels)
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xlabel("λ (regularisation strength)")
        ax.set_title(title, fontsize=9)
    axes[-1].legend(fontsize=8)
    return fig


def side_by_side(frame: pd.DataFrame, reported: pd.DataFrame, epsilon: float) -> pd.DataFrame:
    """Our means next to the paper's numbers at ``epsilon``, one row per (dataset, mechanism).

    Columns are (metric, ``"ours"`` | ``"paper"``) for the table metrics present in ``frame``;
    the downstream error is a "synthetic/original" string with 2 significant digits, like the
    paper's cells. Rows are ours; the paper's cell is NaN where the paper has no such row.

    Args:
        reported: :func:`reprolib.papers.privpgd.reported.reported_results`.
    """
    ours = frame[np.isclose(frame["epsilon"], epsilon)]
    paper = reported[np.isclose(reported["epsilon"], epsilon)].set_index(["dataset", "mechanism"])
    metrics = [m for m in METRIC_LABELS if f"metric.{m}" in ours.columns]
    wanted = [f"metric.{m}" for m in (*metrics, "downstream_error_real")]
    means = ours.groupby(["dataset", "mechanism"], sort=False)[
        [c for c in wanted if c in ours.columns]].mean()
    means.columns = [c.removeprefix("metric.") for c in means.columns]
    paper = paper.reindex(means.index)
    table = {}
    for metric in metrics:
        if metric == "downstream_error":
            table[(metric, "ours")] = _synthetic_original(means, "{:.2g}")
            table[(metric, "paper")] = _synthetic_original(paper, "{:g}")
        else:
            table[(metric, "ours")] = means[metric]
            table[(metric, "paper")] = paper[metric]
    return pd.DataFrame(table, index=means.index)


def _synthetic_original(rows: pd.DataFrame, number: str) -> pd.Series:
    """``downstream_error/downstream_error_real`` as text, NaN where either is missing."""
    synthetic = rows["downstream_error"]
    original = rows.get("downstream_error_real", pd.Series(np.nan, index=rows.index))
    text = [f"{number.format(s)}/{number.format(o)}" for s, o in zip(synthetic, original,
                                                                   strict=True)]
    return pd.Series(text, index=rows.index).where(synthetic.notna() & original.notna())
