"""The side-by-side of our AIM and the authors' 2022 code, as the AIM runtime page shows it.

``benchmarks/aim_reference.py`` appends one row per (dataset, epsilon, engine, seed) to
``<results>/aim/benchmarks/aim-reference.csv``; :func:`reference_table` reads the seed-0 runs into
one row per (dataset, model capacity, Private-PGM iterations, epsilon) and one column group per
engine, the last run of each kept, and :func:`seed_spread` summarises the settings that more seeds
ran. With
``--table-3`` the script runs Table 3's comparison into ``aim-reference-zeros.csv``, which
:func:`zeros_reference_table` reads for the structural-zeros page. ``benchmarks/aim_fit_replay.py``
replays one run's measurements through the engines' fits into ``aim-fit-replay.csv``, which
:func:`fit_replay_table` reads, and ``benchmarks/aim_capacity_2022.py`` records where the capacity
filter looks and what each round's fit builds into ``aim-capacity-2022.csv``, which
:func:`capacity_trace_table` reads.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from reprolib._paths import results_dir
from reprolib.experiments import beside_reference

REFERENCE_CSV = Path("aim") / "benchmarks" / "aim-reference.csv"
ZEROS_CSV = Path("aim") / "benchmarks" / "aim-reference-zeros.csv"
REPLAY_CSV = Path("aim") / "benchmarks" / "aim-fit-replay.csv"
CAPACITY_CSV = Path("aim") / "benchmarks" / "aim-capacity-2022.csv"
REPLAY_ENGINES = {"ours": "ours", "ours_jt2022": "ours, junction-tree-2022",
                  "reference": "reference-2022"}
COLUMNS = ("rounds", "anneals", "workload_error", "seconds")


def reference_csv_path() -> Path:
    """The side-by-side CSV under the results directory."""
    return results_dir() / REFERENCE_CSV


def _runs(path: Path | None) -> pd.DataFrame | None:
    path = path or reference_csv_path()
    if not path.is_file():
        return None
    runs = pd.read_csv(path).rename(columns={"max_model_size_mb": "MB", "pgm_iters": "iterations"})
    return runs if "seed" in runs else runs.assign(seed=0)


SETTING = ["dataset", "MB", "iterations", "epsilon"]
"""What a side-by-side row holds fixed: the data, the capacity, the Private-PGM iterations (every
round's and the final fit's) and the budget."""


def reference_table(path: Path | None = None) -> pd.DataFrame | None:
    """Rounds, anneals, workload error and seconds of the seed-0 runs by ``SETTING`` and engine,
    or None when nothing was run yet.
    """
    runs = _runs(path)
    if runs is None:
        return None
    last = runs[runs["seed"] == 0].drop_duplicates([*SETTING, "engine"], keep="last")
    table = last.pivot(index=SETTING, columns="engine", values=list(COLUMNS))
    return table.swaplevel(axis=1).sort_index(axis=1)


def speed_bar_in_words(path: Path | None = None) -> str:
    """The speed bar of the AIM runtime page, read off the side-by-side runs: the seed-0 run of
    the authors' 2022 engine and of ours on nltcs, all-3way, ε = 1, 80 MB, 100 iterations, as
    seconds a round and minutes a run; "not measured yet" without them.
    """
    runs = _runs(path)
    if runs is None:
        return "not measured yet"
    setting = runs[(runs["dataset"] == "nltcs") & np.isclose(runs["epsilon"], 1.0)
                   & (runs["MB"] == 80) & (runs["iterations"] == 100) & (runs["seed"] == 0)]
    last = setting.drop_duplicates("engine", keep="last").set_index("engine")
    words = []
    for who, engine in (("the authors' 2022 engine", "reference-2022"),
                        ("ours", "ours:backtracking-2022")):
        if engine in last.index:
            seconds, rounds = last.at[engine, "seconds"], last.at[engine, "rounds"]
            words.append(f"{who} {seconds / rounds:.1f} s a round, {seconds / 60:.1f} minutes a "
                         f"run ({rounds:.0f} rounds)")
    return "; ".join(words) or "not measured yet"


def error_trend(table: pd.DataFrame) -> pd.DataFrame:
    """Per (dataset, capacity, iterations) and engine of :func:`reference_table`, over the
    epsilons that engine ran: ``largest rise``, the largest ratio of the workload error at one
    epsilon to the error at the epsilon before it (above 1: more budget gave a higher error, the
    issue's symptom), and ``last / first``, the error at the largest epsilon over the error at
    the smallest; NA where an engine ran fewer than two epsilons, and no row where none did.
    """
    errors = table.xs("workload_error", axis=1, level=1)
    rows = {}
    for key, group in errors.groupby(level=SETTING[:-1]):
        ordered = group.droplevel(SETTING[:-1]).sort_index()
        row = {}
        for engine, column in ordered.items():
            values = column.dropna().to_numpy()
            enough = len(values) >= 2
            row[(engine, "largest rise")] = (values[1:] / values[:-1]).max() if enough else pd.NA
            row[(engine, "last / first")] = values[-1] / values[0] if enough else pd.NA
        rows[key] = row
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index = out.index.set_names(SETTING[:-1])
    out.columns = pd.MultiIndex.from_tuples(out.columns, names=["engine", None])
    return out.dropna(how="all")


def seed_spread(path: Path | None = None) -> pd.DataFrame | None:
    """For each ``SETTING`` that some engine ran with more than one seed: per
    engine, the seeds run and the mean, min and max of rounds and workload error (the last run
    of each seed kept); None when every setting ran one seed.
    """
    runs = _runs(path)
    if runs is None:
        return None
    runs = runs.drop_duplicates([*SETTING, "engine", "seed"], keep="last")
    several = runs.groupby(SETTING)["seed"].transform("nunique") > 1
    if not several.any():
        return None
    return runs[several].groupby([*SETTING, "engine"]).agg(
        seeds=("seed", "nunique"), rounds=("rounds", "mean"), rounds_min=("rounds", "min"),
        rounds_max=("rounds", "max"), error=("workload_error", "mean"),
        error_min=("workload_error", "min"), error_max=("workload_error", "max"))


def zeros_reference_table(path: Path | None = None) -> pd.DataFrame | None:
    """Table 3's comparison by each engine (``benchmarks/aim_reference.py --table-3``): per
    (capacity in MB, Private-PGM iterations, epsilon, engine) the seeds that ran both AIM and
    AIM+SZ, their mean workload errors, ``AIM / AIM+SZ`` (above 1: the zeros helped) and their
    mean rounds; the last run of each kept; None while no seed has run both.
    """
    path = path or results_dir() / ZEROS_CSV
    if not path.is_file():
        return None
    setting = ["max_model_size_mb", "pgm_iters", "epsilon", "engine"]
    runs = pd.read_csv(path).drop_duplicates([*setting, "seed", "structural_zeros"], keep="last")
    runs["variant"] = runs["structural_zeros"].gt(0).map({False: "AIM", True: "AIM+SZ"})
    wide = runs.pivot(index=[*setting, "seed"], columns="variant",
                      values=["workload_error", "rounds"])
    paired = pd.DataFrame({
        "AIM": wide.get(("workload_error", "AIM")), "AIM+SZ": wide.get(("workload_error", "AIM+SZ")),
        "rounds AIM": wide.get(("rounds", "AIM")), "rounds AIM+SZ": wide.get(("rounds", "AIM+SZ")),
    }, index=wide.index).dropna()
    if paired.empty:
        return None
    table = paired.groupby(level=setting).agg(
        seeds=("AIM", "size"), AIM=("AIM", "mean"), **{"AIM+SZ": ("AIM+SZ", "mean")},
        **{c: (c, "mean") for c in ("rounds AIM", "rounds AIM+SZ")})
    table.insert(3, "AIM / AIM+SZ", table["AIM"] / table["AIM+SZ"])
    return table.rename_axis(index=["MB", "iterations", "epsilon", "engine"])


def fit_replay_table(path: Path | None = None) -> pd.DataFrame | None:
    """The replay of one AIM run's measurements (``benchmarks/aim_fit_replay.py``): per (dataset,
    epsilon, structural zeros imposed, seed, round) the annealing threshold and, per engine, the fit's shift ||w - z||_1,
    whether it anneals (shift at most the threshold) and the loss it reached, with the number of
    potentials the reference's warm start dropped; the last replay of each setting kept; None
    before any replay ran.
    """
    path = path or results_dir() / REPLAY_CSV
    if not path.is_file():
        return None
    setting = ["dataset", "epsilon", "structural_zeros", "seed", "max_model_size_mb", "pgm_iters"]
    runs = pd.read_csv(path)
    last = runs.groupby(setting)["git_revision"].transform("last") == runs["git_revision"]
    runs = runs[last].drop_duplicates([*setting, "round"], keep="last")
    columns = {("", "threshold"): runs["threshold"].to_numpy()}
    for key, engine in REPLAY_ENGINES.items():
        shift = runs[f"shift_{key}"].to_numpy()
        columns[(engine, "shift")] = shift
        columns[(engine, "anneals")] = shift <= runs["threshold"].to_numpy()
        columns[(engine, "loss")] = runs[f"loss_{key}"].to_numpy()
    columns[("reference-2022", "dropped")] = runs["reference_dropped"].to_numpy()
    index = pd.MultiIndex.from_frame(
        runs[["dataset", "epsilon", "structural_zeros", "seed", "round"]].rename(
            columns={"structural_zeros": "zeros"}))
    return pd.DataFrame(columns, index=index)


def capacity_trace_table(path: Path | None = None) -> pd.DataFrame | None:
    """Per traced AIM run (``benchmarks/aim_capacity_2022.py``: epsilon, seed, home of the
    potentials, zeros, capacity in MB): the rounds traced, the rounds whose fit built a junction
    tree of another size than the capacity filter computed, the largest JT-SIZE (MB) the filter computed
    and the largest a fit built (or was about to build when the run was stopped), the first round
    whose fit exceeded the capacity, whether the run was stopped there, and the largest difference
    between our sizes and the 2022 library's own (``hypothetical_model_size``; NaN where not
    computed). The last trace of each run is kept; None before any ran.
    """
    path = path or results_dir() / CAPACITY_CSV
    if not path.is_file():
        return None
    run = ["epsilon", "seed", "potentials", "structural_zeros", "max_model_size_mb"]
    rounds = pd.read_csv(path)
    last = rounds.groupby(run)["git_revision"].transform("last") == rounds["git_revision"]
    rounds = rounds[last].drop_duplicates([*run, "round"], keep="last")
    rounds["differ"] = ~np.isclose(rounds["fit_jt_mb"], rounds["filter_jt_mb"], rtol=1e-9)
    rounds["over"] = rounds["round"].where(rounds["fit_jt_mb"] > rounds["max_model_size_mb"])
    rounds["gap"] = pd.concat([
        (rounds[f"reference_{size}_jt_mb"] - rounds[f"{size}_jt_mb"]).abs()
        if f"reference_{size}_jt_mb" in rounds else pd.Series(float("nan"), rounds.index)
        for size in ("filter", "fit")], axis=1).max(axis=1, skipna=False)
    table = rounds.groupby(run).agg(
        rounds=("round", "max"), **{"sizes differ": ("differ", "sum")},
        **{"filter MB": ("filter_jt_mb", "max"), "fit MB": ("fit_jt_mb", "max"),
           "first round over": ("over", "min"), "stopped": ("stopped", "any"),
           "gap to 2022 MB": ("gap", "max")})
    return table.rename_axis(index=["epsilon", "seed", "potentials", "zeros", "MB"])


def reference_csv(mechanism: str) -> Path:
    """Where ``benchmarks/<mechanism>_reference.py`` (a dash read as an underscore) appends its
    rows, under the results folder.
    """
    return Path("aim") / "benchmarks" / f"{mechanism.lower()}-reference.csv"


def baseline_reference_table(mechanism: str, workload: str, path: Path | None = None
                             ) -> pd.DataFrame | None:
    """Ours beside the authors' code (``benchmarks/<mechanism>_reference.py``, "gem",
    "gem-2021", "privmrf" or "rap") on ``workload``: per (dataset, epsilon, engine) the seeds
    run, the mean, min and max workload error and the mean seconds, with ``error / reference``,
    the engine's mean error over the reference's (engines named ``ours-...`` are variants of
    ours); None when nothing was run.
    """
    path = path or results_dir() / reference_csv(mechanism)
    if not path.is_file():
        return None
    runs = pd.read_csv(path)
    runs = runs[runs["workload"] == workload].drop_duplicates(
        ["dataset", "epsilon", "seed", "engine"], keep="last")
    if runs.empty:
        return None
    return beside_reference(runs, ["dataset", "epsilon"], {
        "seeds": ("seed", "nunique"), "error": ("workload_error", "mean"),
        "error min": ("workload_error", "min"), "error max": ("workload_error", "max"),
        "seconds": ("seconds", "mean")}, "error")
