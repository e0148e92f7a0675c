"""The slicing part's figures, in the book's style."""

from __future__ import annotations

import numpy as np

from reprolib.figures import new_figure
from reprolib.papers.slicing.calibration import (
    DELTA,
    REPORTED_EPSILONS,
    SAMPLING_RATE,
    epsilon_curves,
)
from reprolib.privacy import poisson_base

CURVE_STYLE = {"theorem-1": {"color": "#1f77b4", "label": "Theorem 1 (Lemma 2)"},
               "exact": {"color": "#2ca02c", "label": "exact Rényi curve", "linestyle": "--"},
               "proposition-3": {"color": "#d62728", "label": "Proposition 3 (fixed U, k = 1)"}}


def epsilon_figure(*, dim: int, projections: int):
    """Base epsilon against sigma for the three curves at one size, with the paper's two base
    budgets as horizontal lines.
    """
    base_delta = DELTA / SAMPLING_RATE
    sigmas = np.geomspace(0.1, 100.0, 80)
    fig, axes = new_figure(1, width=5.5, height=3.6)
    ax = axes[0]
    for curve, values in epsilon_curves(sigmas, dim=dim, projections=projections,
                                        delta=base_delta).items():
        ax.plot(sigmas, values, **CURVE_STYLE[curve])
    for reported in REPORTED_EPSILONS:
        base, _ = poisson_base(reported, DELTA, SAMPLING_RATE)
        ax.axhline(base, color="grey", linewidth=0.8)
        ax.annotate(f"ε = {reported:g} reported, ε₀ = {base:.2f}", (sigmas[0], base),
                    fontsize=7, xytext=(2, 2), textcoords="offset points")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("noise standard deviation σ")
    ax.set_ylabel(f"base ε₀ at δ₀ = {base_delta:g}")
    ax.set_title(f"d = {dim}, m′ = {projections}")
    ax.legend(fontsize=8)
    return fig
