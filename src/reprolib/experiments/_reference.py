"""Our mechanisms beside their authors' code: the side-by-side benchmarks' tables, one row per
engine (ours, its variants, the authors' code named ``reference``) and a ratio to the reference.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd


def beside_reference(runs: pd.DataFrame, keys: Sequence[str],
                     aggregations: Mapping[str, tuple[str, str]], value: str) -> pd.DataFrame:
    """``runs`` aggregated per (``keys``, engine) by ``aggregations`` (column name -> (source
    column, function)), with ``"<value> / reference"``: each engine's ``value`` over the
    reference engine's at the same keys (absent when no reference ran).
    """
    table = runs.groupby([*keys, "engine"]).agg(**aggregations)
    if "reference" in set(table.index.get_level_values("engine")):
        reference = table.xs("reference", level="engine")[value]
        table[f"{value} / reference"] = (table[value] / reference.reindex(
            table.index.droplevel("engine")).to_numpy())
    return table
