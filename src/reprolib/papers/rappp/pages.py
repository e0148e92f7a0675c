"""Tables of the RAP++ pages, built from the recorded runs and the paper's printed numbers."""

from __future__ import annotations

import pandas as pd

from reprolib.papers.rappp.checks import PAPER_TABLE_2, importance_gains
from reprolib.papers.rappp.reported import TABLE_1, TABLE_3


def datasets_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Table 1 as re-run: per task and state, categorical (targets included) and numerical
    features and rows; the paper's numbers beside where the task is the paper's.
    """
    out = []
    for _, row in frame.sort_values("dataset").iterrows():
        task, state = row["dataset"].split("/")
        paper = TABLE_1.get(task)
        out.append({"task": task, "state": state,
                    "data": "stand-in" if row["metric.stand_in"] else "paper",
                    "categorical": int(row["metric.categorical"]),
                    "numerical": int(row["metric.numerical"]),
                    "rows": int(row["metric.records"]),
                    "paper (cat., num.)": f"{paper[0]}, {paper[1]}" if paper and not
                    row["metric.stand_in"] else "",
                    "paper rows": paper[2].get(state, "") if paper else ""})
    return pd.DataFrame(out)


def paper_table_1() -> pd.DataFrame:
    """Table 1 as printed: features and rows per task and state."""
    return pd.DataFrame([{"task": task, "categorical": c, "numerical": n, **rows}
                         for task, (c, n, rows) in TABLE_1.items()])


def mechanisms_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Table 2: the paper's input type beside the one our code declares."""
    return pd.DataFrame([{"mechanism": row.mechanism, "paper": PAPER_TABLE_2[row.mechanism],
                          "ours": row["metric.input"] or "not re-run yet",
                          "our implementation": row["param.ours"] or "—"}
                         for _, row in frame.iterrows()])


def importance_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Table 3 as re-run, per stand-in state: mean macro-F1 per target over the seeds without
    and with the numerical columns, and the gain.
    """
    rows = []
    for dataset, runs in frame.groupby("dataset"):
        gains = importance_gains(runs)
        for target in gains.index:
            rows.append({"state": dataset.split("/")[1], "target": target,
                         "categorical only": runs[f"metric.f1_categorical.{target}"].mean(),
                         "categorical and numerical": runs[f"metric.f1_all.{target}"].mean(),
                         "gain": gains[target]})
    return pd.DataFrame(rows)


def paper_table_3() -> pd.DataFrame:
    """Table 3 as printed (ACS-NY multitask)."""
    return pd.DataFrame([{"target": t, "categorical only": a, "categorical and numerical": b,
                          "gain": round(b - a, 2)} for t, (a, b) in TABLE_3.items()])


def features_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Table 4's membership as rebuilt: a mark per task for every feature."""
    members: dict[str, dict[str, str]] = {}
    for _, row in frame.iterrows():
        for kind in ("categorical", "numerical", "targets"):
            for column in row[f"metric.{kind}"]:
                entry = members.setdefault(column, {"type": "NUM" if kind == "numerical"
                                                    else "CAT"})
                entry[row["dataset"]] = "target" if kind == "targets" else "✓"
    return pd.DataFrame([{"feature": name, **entry} for name, entry in members.items()]
                        ).fillna("")
