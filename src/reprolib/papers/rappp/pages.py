"""Tables of the RAP++ pages, built from the recorded runs and the paper's printed numbers."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pandas as pd

from reprolib._paths import results_dir
from reprolib.experiments import (
    PAPER_SETTING_COLUMNS,
    benchmark_rows,
    compute_summary,
)
from reprolib.experiments._scales import Scale
from reprolib.papers.rappp.checks import PAPER_TABLE_2, importance_gains
from reprolib.papers.rappp.comparison import (
    ORIGINAL,
    pending_datasets,
    pending_mechanisms,
)
from reprolib.papers.rappp.reported import TABLE_1, TABLE_3
from reprolib.papers.rappp.summaries import error_summary, f1_summary, sensitivity_summary


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


def describe_comparison(results: pd.DataFrame, artifact: str, scale: Scale) -> str:
    """One paragraph on what was run for a comparison figure: datasets, seeds, mechanisms, the
    compute knobs, the datasets still to run and the compute, wrapped for an output cell.
    """
    if results.empty:
        return textwrap.fill(f"Scale {scale}: nothing is recorded yet; still to run: "
                             f"{', '.join(pending_datasets(artifact, scale))}.", 72)
    private = results[results["mechanism"] != ORIGINAL]
    first = {m: rows.iloc[0] for m, rows in private.groupby("mechanism")}
    relaxed = sorted(set(first) & {"RAP++", "RAP"}, reverse=True)
    knobs = []
    if relaxed:
        knobs.append(f"{' and '.join(relaxed)}: {first[relaxed[0]]['param.n_synthetic']:.0f} "
                     f"relaxed rows, at most {first[relaxed[0]]['param.max_steps']:.0f} Adam "
                     "steps per pass")
    if "RAP++" in first:
        knobs.append(f"RAP++: {first['RAP++']['param.lt_queries']:,.0f} candidate thresholds")
    if "PGM" in first:
        knobs.append(f"PGM: {first['PGM']['param.pgm_iters']:.0f} Private-PGM iterations per "
                     "round")
    if "DP-MERF" in first:
        knobs.append(f"DP-MERF: its authors' tabular settings ({_merf_settings()})")
    if "DP-CTGAN" in first:
        gan = first["DP-CTGAN"]
        free = float(gan["param.gan_free_epsilon"])
        knobs.append(f"DP-CTGAN: SmartNoise's settings, {gan['param.gan_epochs']:.0f} epochs, "
                     "noise calibrated to them" + (
                         f", its category frequencies on a separate ε = {free:g}, uncounted "
                         "as in the paper" if free else ""))
    knobs.append(f"{private['param.mm_queries'].iloc[0]:,.0f} mixed-marginal evaluation queries")
    epsilons = ", ".join(f"{e:g}" for e in sorted(private["epsilon"].unique()))
    parts = [(f"Scale {scale}: {len(private)} private runs on {results['dataset'].nunique()} "
              f"dataset(s) ({', '.join(sorted(results['dataset'].unique()))}), "
              f"{results['seed'].nunique()} seed(s), ε in {{{epsilons}}}, mechanisms "
              f"{', '.join(dict.fromkeys(private['mechanism']))}."),
             f"{'; '.join(knobs)}."]
    pending = pending_datasets(artifact, scale)
    if pending:
        parts.append("The whole design is being computed dataset by dataset; still to run at "
                     f"this scale: {', '.join(pending)}.")
    if pending_mechanisms(artifact, scale):
        parts.append("Re-implemented, not yet run at this scale: "
                     f"{', '.join(pending_mechanisms(artifact, scale))}.")
    parts.append(f"Compute: {compute_summary(results)}.")
    return textwrap.fill(" ".join(filter(None, parts)), 72)


def _merf_settings() -> str:
    from reprolib.mechanisms.deep.dp_merf import TABULAR

    return (f"{TABULAR['features']:,} Fourier features, {TABULAR['epochs']} epochs of one Adam "
            f"step on {TABULAR['batch_fraction']:.0%} of the records")


def _mean_sd(summary: pd.DataFrame, index: list[str]) -> pd.DataFrame:
    """'mean ± sd' cells, one column per mechanism (and epsilon where it is in ``index``)."""
    text = summary.assign(value=[f"{m:.4f} ± {sd:.4f}" if pd.notna(sd) else f"{m:.4f}"
                                 for m, sd in zip(summary["mean"], summary["std"], strict=True)])
    return text.pivot_table(index=index, columns="mechanism", values="value", aggfunc="first")


def error_table(results: pd.DataFrame, metrics: tuple[str, ...]) -> pd.DataFrame:
    """Figures 2 and 7 in numbers: per error, task and epsilon, each mechanism's mean ± sd."""
    if results.empty:
        return pd.DataFrame()
    return pd.concat({metric.removesuffix("_mean_error").upper():
                      _mean_sd(error_summary(results, metric), ["task", "epsilon"])
                      for metric in metrics}, names=["error"])


def f1_table(results: pd.DataFrame, states: tuple[str, ...]) -> pd.DataFrame:
    """Figures 4, 5, 8 and 9 in numbers: per state, target and epsilon, each mechanism's mean ±
    sd macro-F1; the real data's F1 in the column ``original`` (the same for every epsilon).
    """
    if results.empty:
        return pd.DataFrame()
    summary = f1_summary(results[results["dataset"].str.split("/").str[1].isin(states)],
                         by_state=True)
    private = summary[summary["mechanism"] != ORIGINAL]
    table = _mean_sd(private, ["state", "target", "epsilon"])
    real = summary[summary["mechanism"] == ORIGINAL].set_index(["state", "target"])["mean"]
    return table.assign(original=[f"{real.get((s, t), float('nan')):.4f}"
                                  for s, t, _ in table.index])


def sensitivity_table(results: pd.DataFrame) -> pd.DataFrame:
    """Figure 3 in numbers: mean F1 and wall time per dataset, epsilon, mechanism and knob."""
    if results.empty:
        return pd.DataFrame()
    summary = sensitivity_summary(results)
    return summary.assign(dataset=summary["task"] + "/" + summary["state"]).set_index(
        ["dataset", "epsilon", "mechanism", "knob_name", "knob"])[
        ["f1 mean", "f1 std", "seconds mean", "seconds std"]]


# The speed benchmark (benchmarks/rappp_speed.py --csv): its CSV under the results directory,
# and the columns the Figure 3 page shows.
SPEED_CSV = Path("rappp") / "benchmarks" / "rappp-speed.csv"
SPEED_COLUMNS = ("git_revision", "device", "jax", "cpus", "load_average", "records", "replicate",
                 "n_synthetic", "max_steps", "lt_queries", "rounds", "adam_steps",
                 "steps_per_second", "round_seconds", "wall_seconds")


def speed_benchmark(path: Path | None = None) -> pd.DataFrame | None:
    """The speed benchmark's rows (the shown columns), or None if it has not been run."""
    return benchmark_rows(path or results_dir() / SPEED_CSV, SPEED_COLUMNS)


PAPER_SIZE = {"n_synthetic": 1000, "max_steps": 2000, "lt_queries": 200_000}
GOAL_SECONDS = 120  # the goal for a paper-size run on one GPU


def _paper_size_runs(speed: pd.DataFrame) -> pd.DataFrame:
    """The benchmark's rows at ``PAPER_SIZE``."""
    for column, value in PAPER_SIZE.items():
        speed = speed[speed[column] == value]
    return speed


def speed_summary(speed: pd.DataFrame) -> str:
    """One sentence per paper-size run of the benchmark: its wall time against the two-minute goal."""
    paper = _paper_size_runs(speed)
    if paper.empty:
        return "No paper-size run has been benchmarked yet."
    return "\n".join(
        f"Paper-size run on {row.device}: {row.wall_seconds:.0f} s for {row.rounds} rounds and "
        f"{row.adam_steps:,} Adam steps on {row.records:,} rows, "
        f"{'within' if row.wall_seconds <= GOAL_SECONDS else 'over'} the goal of "
        f"{GOAL_SECONDS} s." for row in paper.itertuples())


def paper_setting_speed(path: Path | None = None) -> pd.DataFrame:
    """The benchmark's paper-size runs (``PAPER_SIZE``), one row each
    (``PAPER_SETTING_COLUMNS``).
    """
    speed = speed_benchmark(path)
    runs = [] if speed is None else [
        {"paper": "rappp", "mechanism": "RAP++",
         "setting": f"{run.records:,} rows, n̂ = {run.n_synthetic:,}, {run.lt_queries:,} LT "
                    f"queries, {run.rounds} rounds",
         "device": run.device, "minutes": run.wall_seconds / 60, "measured": "whole run",
         "goal": f"< {GOAL_SECONDS // 60} min on one GPU",
         "authors": "no times; Figure 3 plots F1 against runtime (JAX on a GPU)"}
        for run in _paper_size_runs(speed).itertuples()]
    return pd.DataFrame(runs, columns=list(PAPER_SETTING_COLUMNS))
