"""One plot style for the whole book: sizes, fonts and the colours of the conversions."""

from __future__ import annotations

from typing import Literal

import matplotlib.pyplot as plt

BOUND_STYLE = {
    "cks": {"color": "#1f77b4", "label": "Canonne–Kamath–Steinke (2020)"},
    "bun-steinke": {"color": "#d62728", "label": "Bun–Steinke (2016)"},
}
DELTA_LINESTYLE = {1e-5: "-", 1e-9: "--"}


def new_figure(ncols: int = 1, *, width: float = 4.2, height: float = 3.2):
    """A figure with ``ncols`` panels side by side, in the book's style.

    The figure is detached from pyplot at once, so a notebook shows it exactly once: where it is
    displayed or glued, never again by the inline backend at the end of the cell.
    """
    fig, axes = new_grid(1, ncols, width=width, height=height)
    return fig, axes[0]


def new_grid(nrows: int, ncols: int, *, width: float = 4.2, height: float = 3.2,
             sharey: bool | Literal["none", "all", "row", "col"] = False):
    """A figure with ``nrows`` x ``ncols`` panels (a 2-D array of axes), as :func:`new_figure`."""
    with plt.rc_context({"font.size": 10, "axes.grid": True, "grid.alpha": 0.3}):
        fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows),
                                 squeeze=False, layout="constrained", sharey=sharey)
    plt.close(fig)
    return fig, axes
