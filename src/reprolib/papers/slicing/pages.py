"""Tables of the slicing pages, built from the recorded runs."""

from __future__ import annotations

import pandas as pd


def calibration_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Sigma per reported epsilon (with its base epsilon), d and m', one column per curve."""
    table = frame.assign(**{"ε reported": frame["epsilon"],
                            "ε₀": frame["metric.base_epsilon"].round(4),
                            "d": frame["param.dim"], "m′": frame["param.projections"]})
    return table.pivot_table(index=["ε reported", "ε₀", "d", "m′"], columns="mechanism",
                             values="metric.sigma").round(4)[
        ["theorem-1", "exact", "proposition-3"]]
