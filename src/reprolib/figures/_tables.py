"""Tables as the book shows them."""

from __future__ import annotations

import math

import pandas as pd
from pandas.io.formats.style import Styler


def headers_in_words(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its column names in words (``seconds per round`` for
    ``seconds_per_round``), which a browser can wrap, so a wide table fits the page.
    """
    return frame.rename(columns=lambda column: str(column).replace("_", " "))


def readable_number(value: float) -> str:
    """``value`` to four significant digits without trailing zeros (``80``, ``5.316``,
    ``0.01401``, ``1e-09``), and from 1,000 up as a whole number with thousands separators,
    never in exponent form; a missing value as a dash.
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.4g}"


def benchmark_table(rows: pd.DataFrame) -> Styler:
    """A benchmark CSV's rows as the speed pages show them: headers in words, no index, numbers
    by :func:`readable_number`.
    """
    shown = headers_in_words(rows)
    return shown.style.hide(axis="index").format(
        readable_number, subset=list(shown.select_dtypes("number").columns))
