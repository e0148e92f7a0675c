"""Figures of the preliminaries chapter, drawn from the prelim-conversions results."""

from __future__ import annotations

import numpy as np
import pandas as pd

from reprolib.figures._style import BOUND_STYLE, DELTA_LINESTYLE, new_figure


def _curves(frame: pd.DataFrame):
    for (bound, delta), rows in frame.groupby(["mechanism", "delta"]):
        rows = rows.sort_values("epsilon")
        linestyle = DELTA_LINESTYLE.get(delta, ":")
        style = {"color": BOUND_STYLE[bound]["color"], "linestyle": linestyle,
                 "label": f"{BOUND_STYLE[bound]['label']}, δ = {delta:g}"}
        yield rows, style


def eps_vs_rho(frame: pd.DataFrame):
    """Epsilon guaranteed by rho-zCDP, both conversions, one line per (conversion, delta)."""
    fig, (ax,) = new_figure(width=5.5, height=3.8)
    for rows, style in _curves(frame):
        ax.loglog(rows["metric.rho"], rows["epsilon"], **style)
    ax.set_xlabel("ρ (zCDP)")
    ax.set_ylabel("ε of the (ε, δ)-DP guarantee")
    ax.legend(fontsize=8)
    return fig


def sigma_vs_eps(frame: pd.DataFrame):
    """Left: Gaussian sigma for a sensitivity-1 query; right: Bun–Steinke sigma over CKS sigma."""
    fig, (left, right) = new_figure(2)
    for rows, style in _curves(frame):
        left.loglog(rows["epsilon"], rows["metric.sigma"], **style)
    left.set_xlabel("target ε")
    left.set_ylabel("σ (sensitivity 1)")
    left.legend(fontsize=7)
    pivot = frame.pivot_table(index=["delta", "epsilon"], columns="mechanism", values="metric.sigma")
    for delta, rows in pivot.groupby(level="delta"):
        eps = rows.index.get_level_values("epsilon")
        right.semilogx(eps, rows["bun-steinke"] / rows["cks"], color="black",
                       linestyle=DELTA_LINESTYLE.get(delta, ":"), label=f"δ = {delta:g}")
    right.axhline(1.0, color="grey", linewidth=0.8)
    right.set_xlabel("target ε")
    right.set_ylabel("σ_Bun–Steinke / σ_CKS")
    right.legend(fontsize=8)
    right.set_ylim(bottom=min(0.95, float(np.nanmin(right.get_ylim()))))
    return fig
