"""Tables of the slicing pages, built from the recorded runs."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from reprolib._paths import results_dir
from reprolib.experiments import PAPER_SETTING_COLUMNS, benchmark_rows, paper_setting_runs


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
    """Table 1 or 3: per task and mechanism, each score's mean ± std over our seeds beside the
    paper's (columns: score, then "ours" / "paper"); MERF is our DP-MERF and DP-SGD our
    DP-CTGAN, PATE our PATE-GAN.
    """
    from reprolib.papers.slicing.reported import PRINTED_AS, SCORES, TABLE_1, TABLE_3

    reported = TABLE_1 if artifact == "slicing-tab1" else TABLE_3
    ours_as = {printed: ours for ours, printed in PRINTED_AS.items()}
    rows, index = [], []
    for (task, printed), values in reported.items():
        mechanism = ours_as.get(printed, printed)
        ours = frame[(frame["dataset"] == task) & (frame["mechanism"] == mechanism)]
        row: dict[tuple[str, str], int | str] = {("runs", ""): len(ours)}
        for score, paper in zip(SCORES, values, strict=True):
            column = ours.get(f"metric.{score}", pd.Series(dtype=float)).dropna()
            row[(score, "ours")] = (f"{column.mean():.2f} ± {column.std(ddof=0):.2f}"
                                    if len(column) else "–")
            row[(score, "paper")] = "–" if paper is None else _as_printed(*paper)
        rows.append(row)
        index.append((task, mechanism))
    table = pd.DataFrame(rows, index=pd.MultiIndex.from_tuples(index, names=["task", "mechanism"]))
    table.columns = pd.MultiIndex.from_tuples(table.columns)
    return table


def pate_gan_cost_in_words(frame: pd.DataFrame) -> str:
    """PATE-GAN's runs in ``frame`` in words: the iterations and votes until the budget was
    spent, and per task the teachers and the range of the runs' wall times ("" if none ran).
    """
    runs = frame[frame["mechanism"] == "PATE-GAN"]
    if runs.empty:
        return ""
    spent = ", ".join(sorted({f"{i:,.0f} iterations and {v:,.0f} votes" for i, v in
                              zip(runs["metric.iterations"], runs["metric.votes"], strict=True)}))
    epsilons = ", ".join(f"{e:g}" for e in sorted(runs["epsilon"].unique()))
    tasks = "; ".join(f"{task}, {rows['metric.teachers'].iloc[0]:,.0f} teachers: "
                      f"{_span(rows['wall_time_s'])} s"
                      for task, rows in runs.groupby("dataset", sort=False))
    seeds = runs["seed"].nunique()
    return (f"at ε = {epsilons} the budget lasted {spent} on every task; a run took "
            f"({seeds} seed{'s' * (seeds > 1)}, on {', '.join(sorted(runs['device'].unique()))}) "
            f"{tasks}")


def _span(values: pd.Series) -> str:
    """The range of ``values`` to whole units ("23 to 25"; one number where both round alike)."""
    low, high = f"{values.min():.0f}", f"{values.max():.0f}"
    return low if low == high else f"{low} to {high}"


def _as_printed(mean: float, std: float) -> str:
    """A reported mean ± std with the paper's decimals (two, three for its 0.001 and 0.003)."""
    return f"{mean:.2f} ± {std:.2f}" if round(std, 2) == std else f"{mean:.2f} ± {std:.3f}"


def accuracy_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Figure 1's numbers: per epsilon and mechanism, the synthetic digits' test accuracy
    (mean, min, max over seeds), the real-image ceiling and the release's noise sigma (per
    projection for the slicing methods, per embedding entry for DP-MERF; three digits).
    """
    table = frame.groupby(["epsilon", "mechanism"]).agg(
        runs=("seed", "size"), accuracy=("metric.accuracy", "mean"),
        lowest=("metric.accuracy", "min"), highest=("metric.accuracy", "max"),
        real_images=("metric.real_accuracy", "mean"), sigma=("metric.sigma", "mean"))
    table.index.names = ["ε", "mechanism"]
    table["sigma"] = [f"{value:.3g}" for value in table["sigma"]]
    return table.round({"accuracy": 3, "lowest": 3, "highest": 3, "real_images": 3})


def adaptation_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Figure 2's numbers: per direction, budget (∞: no noise, not private) and mechanism, the
    target accuracy (mean, min, max over seeds), the accuracy when alignment started, the
    releases and the noise sigma per projection (three digits).
    """
    frame = frame.assign(budget=frame["epsilon"].fillna(float("inf")))
    table = frame.groupby(["dataset", "budget", "mechanism"]).agg(
        runs=("seed", "size"), accuracy=("metric.accuracy", "mean"),
        lowest=("metric.accuracy", "min"), highest=("metric.accuracy", "max"),
        at_alignment_start=("metric.source_only_accuracy", "mean"),
        releases=("metric.releases", "max"),
        sigma=("metric.sigma", "mean") if "metric.sigma" in frame else ("seed", "size"))
    table.index.names = ["direction", "ε", "mechanism"]
    table["sigma"] = ["–" if budget == float("inf") else f"{value:.3g}"
                      for (_, budget, _), value in table["sigma"].items()]
    return table.round({"accuracy": 3, "lowest": 3, "highest": 3, "at_alignment_start": 3})


SPEED_CSV = "slicing/benchmarks/slicing-speed.csv"
SPEED_COLUMNS = ("loss", "rows", "columns", "slice_dim", "slices", "batch_size", "epochs", "steps",
                 "steps_per_second", "paper_model_minutes", "device", "threads", "load_average",
                 "git_revision")


def speed_benchmark(path: Path | None = None) -> pd.DataFrame | None:
    """The rows of ``benchmarks/slicing_speed.py`` (the shown columns), or None if not run."""
    return benchmark_rows(path or results_dir() / SPEED_CSV, SPEED_COLUMNS)


PAPER_EPOCHS = 200


def paper_setting_speed(path: Path | None = None) -> pd.DataFrame:
    """The benchmark's newest run of each kind on the current code (rows not marked "before" a
    revision; ``PAPER_SETTING_COLUMNS``): whole 200-epoch models, and shorter runs
    extrapolated to 200 epochs.
    """
    speed = speed_benchmark(path)
    runs = []
    for run in [] if speed is None else speed.itertuples():
        if str(run.git_revision).startswith("before"):
            continue
        runs.append({
            "paper": "slicing", "mechanism": "Slicing" if run.loss == "sliced-f" else "SliceWass",
            "setting": f"{run.rows:,} rows, d = {run.columns}, m' = {run.slices * run.slice_dim}, "
                       f"{PAPER_EPOCHS} epochs",
            "device": run.device, "minutes": run.paper_model_minutes,
            "measured": "whole run" if run.epochs >= PAPER_EPOCHS
                        else f"extrapolated from {run.epochs} epoch(s)",
            "goal": "< 10 min on one GPU",
            "authors": "< 2 h per 200-epoch model on a V100 (Appendix C)"})
    return pd.DataFrame(runs, columns=list(PAPER_SETTING_COLUMNS)).drop_duplicates(
        ["mechanism", "setting", "device", "measured"], keep="last")


def baselines_at_paper_settings(root: Path | None = None) -> pd.DataFrame:
    """The longest small run of each mechanism of Tables 1 and 3 whose small cells are paper
    cells but for the data (``paper_setting_runs``): the baselines, at their authors' settings
    on the stand-ins, which the rows name; the paper's cells read CA 2018.
    """
    from reprolib.papers.slicing.comparison import unread_params

    return paper_setting_runs("slicing", ("slicing-tab1", "slicing-tab3"),
                              ignore=lambda mechanism: {"source", *unread_params(mechanism)},
                              root=root)
