"""The side-by-side of our AIM and the authors' 2022 code, as the AIM runtime page shows it.

``benchmarks/aim_reference.py`` appends one row per (dataset, epsilon, engine) to
``<results>/aim/benchmarks/aim-reference.csv``; :func:`reference_table` reads it into one row per
(dataset, model capacity, epsilon) and one column group per engine, the last run of each kept.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reprolib._paths import results_dir

REFERENCE_CSV = Path("aim") / "benchmarks" / "aim-reference.csv"
COLUMNS = ("rounds", "anneals", "workload_error", "seconds")


def reference_csv_path() -> Path:
    """The side-by-side CSV under the results directory."""
    return results_dir() / REFERENCE_CSV


def reference_table(path: Path | None = None) -> pd.DataFrame | None:
    """Rounds, anneals, workload error and seconds by (dataset, capacity in MB, epsilon) and
    engine, or None when nothing was run yet.
    """
    path = path or reference_csv_path()
    if not path.is_file():
        return None
    runs = pd.read_csv(path)
    runs = runs.rename(columns={"max_model_size_mb": "MB"})
    last = runs.drop_duplicates(["dataset", "MB", "epsilon", "engine"], keep="last")
    table = last.pivot(index=["dataset", "MB", "epsilon"], columns="engine", values=list(COLUMNS))
    return table.swaplevel(axis=1).sort_index(axis=1)


def error_trend(table: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, capacity) and engine of :func:`reference_table`, over the epsilons that
    engine ran: ``largest rise``, the largest ratio of the workload error at one epsilon to the
    error at the epsilon before it (above 1: more budget gave a higher error, the issue's
    symptom), and ``last / first``, the error at the largest epsilon over the error at the
    smallest; NA where an engine ran fewer than two epsilons.
    """
    errors = table.xs("workload_error", axis=1, level=1)
    rows = {}
    for key, group in errors.groupby(level=["dataset", "MB"]):
        ordered = group.droplevel(["dataset", "MB"]).sort_index()
        row = {}
        for engine, column in ordered.items():
            values = column.dropna().to_numpy()
            enough = len(values) >= 2
            row[(engine, "largest rise")] = (values[1:] / values[:-1]).max() if enough else pd.NA
            row[(engine, "last / first")] = values[-1] / values[0] if enough else pd.NA
        rows[key] = row
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index = out.index.set_names(["dataset", "MB"])
    out.columns = pd.MultiIndex.from_tuples(out.columns, names=["engine", None])
    return out
