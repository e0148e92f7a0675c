"""Tables as the book shows them."""

from __future__ import annotations

import pandas as pd
from pandas.io.formats.style import Styler


def headers_in_words(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its column names in words (``seconds per round`` for
    ``seconds_per_round``), which a browser can wrap, so a wide table fits the page.
    """
    return frame.rename(columns=lambda column: str(column).replace("_", " "))


def benchmark_table(rows: pd.DataFrame) -> Styler:
    """A benchmark CSV's rows as the speed pages show them: headers in words, no index, three
    decimals.
    """
    return headers_in_words(rows).style.hide(axis="index").format(precision=3)
