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


def datasets_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Table 2: per task, the records and columns counted here beside the paper's."""
    from reprolib.papers.slicing.reported import TABLE_2, TABLE_2_COLUMNS

    ours = frame.set_index("dataset")
    table = pd.DataFrame({
        "data": ours["param.source"],
        **{f"{c} (ours)": ours[f"metric.{c}"].astype(int) for c in TABLE_2_COLUMNS},
        **{f"{c} (paper)": [TABLE_2[t][i] for t in ours.index]
           for i, c in enumerate(TABLE_2_COLUMNS)},
        "encoded columns": ours["metric.encoded_columns"].astype(int),
        "label = 1": ours["metric.positive_share"].round(3),
    })
    table.index.name = "task"
    return table


def comparison_table(frame: pd.DataFrame, artifact: str) -> pd.DataFrame:
    """Table 1 or 3: per task and mechanism, each score's mean ± std over our seeds, and the
    paper's; the paper's DP-SGD, PATE and MERF rows (not re-run) carry only the paper's.
    """
    from reprolib.papers.slicing.reported import SCORES, TABLE_1, TABLE_3

    reported = TABLE_1 if artifact == "slicing-tab1" else TABLE_3
    names = {"Algorithm 1": "Slicing"}
    rows = []
    for (task, mechanism), values in reported.items():
        ours = frame[(frame["dataset"] == task) & (frame["mechanism"] == names.get(mechanism,
                                                                                 mechanism))]
        row = {"task": task, "mechanism": names.get(mechanism, mechanism), "runs": len(ours)}
        for score, paper in zip(SCORES, values, strict=True):
            column = ours.get(f"metric.{score}", pd.Series(dtype=float)).dropna()
            row[f"{score} ours"] = (f"{column.mean():.2f} ± {column.std(ddof=0):.2f}"
                                    if len(column) else "–")
            row[f"{score} paper"] = "–" if paper is None else f"{paper[0]:.2f} ± {paper[1]:.2f}"
        rows.append(row)
    return pd.DataFrame(rows).set_index(["task", "mechanism"])
