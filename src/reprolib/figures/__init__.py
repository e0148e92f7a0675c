"""Plotting helpers in one style for the book's figures (no computation happens here)."""

from reprolib.figures._style import BOUND_STYLE, new_figure, new_grid

__all__ = ["BOUND_STYLE", "new_figure", "new_grid"]
