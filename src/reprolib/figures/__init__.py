"""Plotting and table helpers in one style for the book's figures (no computation happens here)."""

from reprolib.figures._style import BOUND_STYLE, new_figure, new_grid
from reprolib.figures._tables import benchmark_table, headers_in_words, readable_number

__all__ = ["BOUND_STYLE", "benchmark_table", "headers_in_words", "new_figure", "new_grid",
           "readable_number"]
