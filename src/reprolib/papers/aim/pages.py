"""What the AIM pages show, computed from the results: the notebooks and the checks call these.

Tables come back as plain DataFrames with readable column names and values (booleans as
"yes"/"no", neighbouring relations in words); the notebooks only style them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from reprolib._paths import results_dir
from reprolib.experiments import (
    PAPER_SETTING_COLUMNS,
    benchmark_rows,
    listed_in_words,
    open_store,
    paper_setting_runs,
)
from reprolib.mechanisms.marginal.aim import AIMConfig, initial_parameters
from reprolib.papers.aim.checks import PAPER_TABLE1, PAPER_TABLE2
from reprolib.papers.aim.experiments import FIGURE_WORKLOADS
from reprolib.papers.aim.figures import best_over_rounds, summarise, winners
from reprolib.papers.aim.setup import (
    FIGURE_MECHANISMS,
    PRIOR_WORKLOAD_AWARE,
    PROFILES,
    WORKLOAD_AWARE,
    pending_runs,
    unread_params,
)
from reprolib.privacy import eps_to_rho

TAXONOMY = ("workload_aware", "data_aware", "budget_aware", "efficiency_aware")
RELATION_WORDS = {"add-remove": "add or remove one record", "replace-one": "replace one record"}
# MWEM+RP only exists for Figure 7's ablation: it is not one of the paper's Figure 1-3 baselines.
ABLATION_ONLY = ("MWEM+RP",)

# The speed benchmark (benchmarks/aim_speed.py): where it appends its rows, relative to the results
# directory, and the columns the runtime page shows.
SPEED_CSV = Path("aim") / "benchmarks" / "aim-speed.csv"
SPEED_COLUMNS = ("git_revision", "dataset", "epsilon", "max_model_size_mb", "pgm_iters",
                 "usable_cores", "load_average_1min", "rounds", "seconds", "seconds_per_round",
                 "max_seconds_per_round", "model_size_mb", "workload_error", "jax_backend",
                 "processor")
# benchmarks/aim_single_fit.py: the one-fit mechanisms against their Private-PGM iterations
SINGLE_FIT_CSV = Path("aim") / "benchmarks" / "single-fit.csv"
SINGLE_FIT_COLUMNS = ("mechanism", "dataset", "workload", "epsilon", "seed", "iters",
                      "workload_error", "seconds", "load_average_1min", "git_revision")
# benchmarks/gem_step.py: one GEM update step at a dataset's largest measurements
GEM_STEP_CSV = Path("aim") / "benchmarks" / "gem-step.csv"
GEM_STEP_COLUMNS = ("git_revision", "dataset", "slots", "cells_measured", "largest_marginal",
                    "seconds_per_step", "compile_seconds", "usable_cores", "load_average_1min",
                    "jax_backend")


def yes_no(values: pd.Series) -> pd.Series:
    """Booleans as the words a reader expects."""
    return values.map(lambda v: "yes" if bool(v) else "no")


def compared_workload_aware(mechanisms: Iterable[str]) -> tuple[str, ...]:
    """The workload-aware mechanisms among ``mechanisms`` that the paper's Figures 1-3 compare,
    in the order of ``WORKLOAD_AWARE`` (the "AIM wins" claim and its page use this one list).
    """
    present = set(mechanisms)
    return tuple(m for m in WORKLOAD_AWARE if m in present and m not in ABLATION_ONLY)


def taxonomy_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Table 1: each mechanism's declared traits ("yes"/"no"), whether they match the paper's
    row, and the neighbouring relation the mechanism's privacy guarantee uses.
    """
    rows = frame.set_index("mechanism")
    ours = rows[[f"metric.{t}" for t in TAXONOMY]].astype(bool)
    ours.columns = list(TAXONOMY)
    paper = pd.DataFrame(PAPER_TABLE1, index=list(TAXONOMY)).T.reindex(ours.index)
    table = ours.apply(yes_no)
    table.columns = [t.replace("_", "-") for t in TAXONOMY]
    table["as the paper"] = yes_no((ours == paper).all(axis=1))
    table["neighbours"] = rows["metric.relation"].map(lambda r: RELATION_WORDS.get(r, r))
    return table.rename_axis("mechanism")


def datasets_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Table 2: records, attributes and domain sizes recomputed from the files, beside the paper's."""
    rows = frame.set_index("dataset")
    table = rows[["metric.records", "metric.attributes", "metric.min_domain",
                  "metric.max_domain", "metric.total_domain_log10"]].copy()
    table.columns = ["records", "attributes", "min domain", "max domain", "log10 total domain"]
    table["paper (records, attributes, min–max)"] = [
        "{:,}, {}, {}–{}".format(*PAPER_TABLE2[d]) if d in PAPER_TABLE2 else "–"
        for d in table.index]
    return table


def attribute_counts(datasets: pd.DataFrame) -> dict[int, list[str]]:
    """The datasets of a ``datasets_table``, grouped by their number of attributes d."""
    counts: dict[int, list[str]] = {}
    for name, d in datasets["attributes"].items():
        counts.setdefault(int(d), []).append(str(name))
    return dict(sorted(counts.items()))


def first_round_parameters(epsilons: Sequence[float], delta: float, attributes: Iterable[int],
                           config: AIMConfig | None = None) -> pd.DataFrame:
    """Rho (CKS, at ``delta``) and AIM's initial sigma_0 and epsilon_1 for each epsilon and each
    attribute count d (closed forms of ``initial_parameters``).
    """
    config = config or AIMConfig()
    rows = []
    for epsilon in epsilons:
        rho = eps_to_rho(epsilon, delta)
        row: dict[str, float] = {"ε": epsilon, "ρ": rho}
        for d in attributes:
            row[f"σ₀, d = {d}"], row[f"ε₁, d = {d}"] = initial_parameters(rho, d, config)
        rows.append(row)
    return pd.DataFrame(rows)


def marginal_errors(results: pd.DataFrame) -> pd.DataFrame:
    """Figure 4 (c): one row per bounded marginal of every run, with the bound / error ratio and
    whether the true error lies within the bound.
    """
    columns = ["cliques", "in_workload", "supported", "bound", "error"]
    frames = [pd.DataFrame({c: list(row[f"metric.{c}"]) for c in columns}).assign(seed=row["seed"])
              for _, row in results.iterrows()]
    errors = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
    errors["ratio"] = errors["bound"] / errors["error"]
    errors["covered"] = errors["error"] <= errors["bound"]
    return errors


def coverage_summary(errors: pd.DataFrame) -> pd.DataFrame:
    """Per kind of marginal (supported or not): count, share covered, median bound / error."""
    summary = errors.groupby("supported").agg(
        marginals=("covered", "size"), covered=("covered", "mean"),
        median_ratio=("ratio", "median"))
    summary.index = summary.index.map({True: "supported", False: "unsupported"})
    return summary.rename_axis("marginals").rename(columns={
        "marginals": "count", "covered": "within the bound",
        "median_ratio": "median bound / error"})


def mwem_best(results: pd.DataFrame) -> pd.DataFrame:
    """Figure 7: per dataset and epsilon, each generator's best-over-T error and its T, and
    whether MWEM+PGM's is at most MWEM+RP's (a bool column ``pgm_better``).
    """
    best = best_over_rounds(results).pivot_table(index=["dataset", "epsilon"],
                                                 columns="mechanism",
                                                 values=["best_error", "best_rounds"])
    table = pd.DataFrame({
        **{f"error, {m}": best[("best_error", m)] for m in ("MWEM+PGM", "MWEM+RP")},
        **{f"best T, {m}": best[("best_rounds", m)].astype(int) for m in ("MWEM+PGM", "MWEM+RP")},
    })
    table["pgm_better"] = table["error, MWEM+PGM"] <= table["error, MWEM+RP"]
    return table


def error_table(results: pd.DataFrame) -> pd.DataFrame:
    """Figures 1-3 as numbers: mean workload error, datasets and epsilons as rows, one column per
    mechanism.
    """
    return summarise(results).pivot_table(index=["dataset", "epsilon"], columns="mechanism",
                                          values="mean").rename_axis(columns=None)


def runtime_table(results: pd.DataFrame) -> pd.DataFrame:
    """Figure 6 as numbers: mean runtime and rounds per dataset and epsilon, and the machine."""
    return results.groupby(["dataset", "epsilon"]).agg(
        **{"runtime (s)": ("metric.seconds", "mean"), "rounds": ("metric.rounds", "mean"),
           "recorded on": ("metric.recorded_on", "first")})


def speed_benchmark_path() -> Path:
    """The speed benchmark's CSV under the results directory."""
    return results_dir() / SPEED_CSV


def speed_benchmark(path: Path | None = None) -> pd.DataFrame | None:
    """The speed benchmark's rows (the shown columns), or None if it has not been run."""
    return benchmark_rows(path or speed_benchmark_path(), SPEED_COLUMNS)


def gem_step_benchmark(path: Path | None = None) -> pd.DataFrame | None:
    """The rows of ``benchmarks/gem_step.py`` (``GEM_STEP_COLUMNS``), or None if not run."""
    return benchmark_rows(path or results_dir() / GEM_STEP_CSV, GEM_STEP_COLUMNS)


def single_fit_table(path: Path | None = None) -> pd.DataFrame | None:
    """The runs of ``benchmarks/aim_single_fit.py`` (``SINGLE_FIT_COLUMNS``), ordered by
    mechanism, dataset, epsilon and iterations, or None if it has not been run.
    """
    runs = benchmark_rows(path or results_dir() / SINGLE_FIT_CSV, SINGLE_FIT_COLUMNS)
    return None if runs is None else runs.sort_values(
        ["mechanism", "dataset", "workload", "epsilon", "iters", "seed"], kind="stable")


SPOT_KEYS = ["mechanism", "dataset", "epsilon", "seed"]
SPOT_METRICS = {"error": "metric.workload_error", "rounds": "metric.rounds"}


def spot_comparison(reduced: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """Spot runs at the paper's settings beside the same (mechanism, dataset, ε, seed) at the
    reduced settings: columns (error | rounds, reduced | paper) and the error ratio
    paper / reduced (the compute of each is in the runs' wall times).
    """
    runs = {knobs: frame.set_index(SPOT_KEYS) for knobs, frame in
            (("reduced", reduced), ("paper", paper))}
    shared = runs["paper"].index.intersection(runs["reduced"].index).sort_values()
    table = pd.DataFrame({(name, knobs): runs[knobs].loc[shared, column]
                          for name, column in SPOT_METRICS.items() for knobs in runs},
                         index=shared)
    table["error", "paper / reduced"] = table["error", "paper"] / table["error", "reduced"]
    return table.sort_index(axis=1, level=0, sort_remaining=False)


def paper_setting_speed(path: Path | None = None,
                        results_root: Path | None = None) -> pd.DataFrame:
    """One row per whole AIM run at the paper's Private-PGM setting (80 MB, 1,000 or more
    iterations a fit; ``PAPER_SETTING_COLUMNS``): the speed benchmark's, and the stored
    paper-scale Figure 1 runs on fire, the goal's dataset.
    """
    goal, authors = ("fire, 80 MB, large ε: < 30 min on one GPU",
                     "fire, 80 MB: 9 h on one 2.4 GHz core (Section 6.5)")
    speed = speed_benchmark(path)
    runs = [] if speed is None else [
        {"paper": "aim", "mechanism": "AIM",
         "setting": f"{run.dataset}, ε = {run.epsilon:.3g}, {run.max_model_size_mb:g} MB, "
                    f"{run.pgm_iters:,} iterations a fit",
         "device": f"{run.jax_backend} (JAX)", "minutes": run.seconds / 60,
         "measured": "whole run", "goal": goal, "authors": authors}
        for run in speed.itertuples()
        if run.max_model_size_mb == 80 and run.pgm_iters >= 1000]
    stored = open_store("aim-fig1", "paper", results_root).frame()
    fire = stored[(stored["mechanism"] == "AIM") & (stored["dataset"] == "fire")]
    runs += [
        {"paper": "aim", "mechanism": "AIM",
         "setting": f"fire, ε = {row['epsilon']:.3g}, {row['param.max_model_size_mb']:g} MB, "
                    f"{row['param.pgm_iters']:,} iterations a round, "
                    f"{row['param.final_pgm_iters']:,} for the final fit (Figure 1, paper scale)",
         "device": row["device"], "minutes": row["wall_time_s"] / 60, "measured": "whole run",
         "goal": goal, "authors": authors}
        for _, row in fire.sort_values("epsilon").iterrows()]
    return pd.DataFrame(runs, columns=list(PAPER_SETTING_COLUMNS))


def baselines_at_paper_settings(root: Path | None = None) -> pd.DataFrame:
    """The longest small run of each Figure 1-3 mechanism whose small cells are paper cells
    once the knobs its config does not read are set aside (``paper_setting_runs``): the
    single-fit baselines, which run their own iterations at every scale.
    """
    return paper_setting_runs("aim", ("aim-fig1", "aim-fig2", "aim-fig3"),
                              ignore=unread_params, root=root)


def grid_rows(artifact: str, dataset: str, root: Path | None = None) -> tuple[pd.DataFrame, str]:
    """One dataset's ``small`` rows of ``artifact`` and where they come from: the committed
    store, or, until its grid is merged, its grid's rows so far in ``results/pending/<dataset>``
    (``"pending"``); no rows (the store's columns) and ``""`` where neither has any.
    """
    root = root or results_dir()
    rows = pd.DataFrame()
    for source, folder in (("committed", root), ("pending", root / "pending" / dataset)):
        stored = open_store(artifact, "small", folder).frame()
        rows = stored[stored["dataset"] == dataset]
        if not rows.empty:
            return rows, source
    return rows, ""


def trials_in_words(rows: pd.DataFrame, mechanism: str, epsilon: float,
                    seed: int | None = None) -> str:
    """The mean workload error of ``mechanism``'s trials at ``epsilon`` in ``rows`` (one seed's
    run if given), with the trials' range and, for AIM, its mean rounds: "0.0414 (3 trials,
    0.039 to 0.044; 40 rounds)"; "not run yet" where there is none.
    """
    hit = rows[(rows["mechanism"] == mechanism) & np.isclose(rows["epsilon"], epsilon, rtol=1e-3)]
    hit = hit if seed is None else hit[hit["seed"] == seed]
    if hit.empty:
        return "not run yet"
    error = hit["metric.workload_error"]
    spread = f", {error.min():.3f} to {error.max():.3f}" if len(hit) > 1 else ""
    rounds = f"; {hit['metric.rounds'].mean():.0f} rounds" if mechanism == "AIM" else ""
    return f"{error.mean():.4f} ({len(hit)} trial{'s' * (len(hit) > 1)}{spread}{rounds})"


def wall_minutes_in_words(mechanism: str, datasets: Sequence[str] | None = None,
                          root: Path | None = None) -> str:
    """How long ``mechanism``'s runs of Figures 1-3 at ``small`` scale take, per dataset (of
    ``datasets``, default all): the median and the longest wall time in minutes, from the
    committed stores and, for a dataset not in them yet, from the grids under
    ``results/pending`` ("adult 2.9 (at most 7.1; 81 runs), salary 126 (1 run, pending)").
    """
    root = root or results_dir()

    def runs_under(folder: Path) -> pd.DataFrame:
        stored = [open_store(artifact, "small", folder).frame() for artifact in FIGURE_WORKLOADS]
        mine = [frame[frame["mechanism"] == mechanism] for frame in stored if not frame.empty]
        return pd.concat(mine) if mine else pd.DataFrame(columns=["dataset", "wall_time_s"])

    committed = runs_under(root)
    pending = pd.concat([runs_under(folder) for folder in sorted((root / "pending").glob("*"))
                         if folder.is_dir()] or [runs_under(root / "pending")])
    pending = pending[~pending["dataset"].isin(committed["dataset"])]
    words = []
    for runs, source in ((committed, ""), (pending, ", pending")):
        for dataset, rows in runs.groupby("dataset"):
            if datasets is not None and dataset not in datasets:
                continue
            minutes = rows["wall_time_s"].astype(float) / 60
            longest = f"at most {_minutes(minutes.max())}; " if len(rows) > 1 else ""
            words.append(f"{dataset} {_minutes(minutes.median())} ({longest}{len(rows)} "
                         f"run{'s' * (len(rows) > 1)}{source})")
    return ", ".join(words) or "no runs stored yet"


def _minutes(value: float) -> str:
    return f"{value:.0f}" if value >= 10 else f"{value:.2g}"


def relaxed_baselines_in_words(root: Path | None = None) -> dict[str, str]:
    """RAP and GEM in Figures 1-3's ``small`` stores, in words for the chapter page.

    Keys: each one's runs stored (``rap_runs``, ``gem_runs``); the datasets GEM ran on
    (``gem_datasets``) and a clause on those its profile still leaves out (``gem_pending``); the
    (dataset, workload, ε) settings in which RAP has the lowest mean error of every mechanism but
    AIM (``rap_lowest``) and those of the all-3way workload in which it is lowest of the paper's
    three prior workload-aware mechanisms (``rap_best_prior``, the check
    ``aim-fig1-rap-never-best``); and the settings in which RAP's mean error is below
    Independent's (``rap_beats_independent``), with the (dataset, workload) pairs where it never is.
    """
    stored = {artifact: open_store(artifact, "small", root).frame() for artifact in FIGURE_WORKLOADS}
    stored = {artifact: frame for artifact, frame in stored.items() if not frame.empty}
    runs = pd.concat(list(stored.values()) or [pd.DataFrame(
        columns=["mechanism", "dataset", "param.workload", "epsilon", "metric.workload_error"])])
    ran = set(runs.loc[runs["mechanism"] == "GEM", "dataset"])
    words = {f"{m.lower()}_runs": f"{int((runs['mechanism'] == m).sum()):,}" for m in ("RAP", "GEM")}
    pending = list(pending_runs("small").get("GEM", ()))
    words |= {"gem_datasets": listed_in_words([d for d in PROFILES["small"].datasets if d in ran]),
              "gem_pending": (f"still to run on {listed_in_words(pending)}, where the pages judge "
                              "each setting among the mechanisms that ran and say so" if pending
                              else "that is every dataset of the profile")}
    others = tuple(m for m in FIGURE_MECHANISMS if m != "AIM")
    lowest = [winners(frame, others) for frame in stored.values()]
    rap_lowest = sum(int((best["mechanism"] == "RAP").sum()) for best in lowest)
    words["rap_lowest"] = f"{rap_lowest or 'none'} of the {sum(map(len, lowest))} settings"
    prior = (winners(stored["aim-fig1"], PRIOR_WORKLOAD_AWARE).query("mechanism == 'RAP'")
             if "aim-fig1" in stored else pd.DataFrame(columns=["dataset", "epsilon"]))
    words["rap_best_prior"] = "; ".join(
        f"{dataset} at ε = {listed_in_words([f'{e:.3g}' for e in sorted(rows['epsilon'])])}"
        for dataset, rows in prior.groupby("dataset", sort=False)) or "no setting"
    means = (runs[runs["mechanism"].isin(["RAP", "Independent"])]
             .groupby(["dataset", "param.workload", "epsilon", "mechanism"])
             ["metric.workload_error"].mean().unstack().dropna())
    if means.empty:
        return words | {"rap_beats_independent": "no setting (no runs of both stored)"}
    below = means["RAP"] < means["Independent"]
    never = [f"{dataset}'s {workload}" for (dataset, workload), wins
             in below.groupby(level=["dataset", "param.workload"]) if not wins.any()]
    return words | {"rap_beats_independent": (
        f"{int(below.sum())} of the {len(below)} (dataset, workload, ε) settings"
        + (f" (never on {listed_in_words(never)})" if never else ""))}


GEM_2021_GRID = Path("pending") / "gem-2021"  # under the results directory, until it is merged


def gem_scripts_compared(artifact: str, root: Path | None = None) -> pd.DataFrame:
    """GEM at the November 2021 release's settings (the grid so far, ``results/pending/gem-2021``)
    beside the committed ``small`` runs at the July 2022 script's, per dataset and ε where both
    ran: each one's mean workload error over its trials, the trials, and the ratio 2021 / 2022.
    """
    root = root or results_dir()
    columns = ["dataset", "epsilon", "2021 settings", "trials", "2022 settings", "2021 / 2022"]
    means = []
    for folder in (root / GEM_2021_GRID, root):
        rows = open_store(artifact, "small", folder).frame()
        rows = rows[rows["mechanism"] == "GEM"] if not rows.empty else rows
        if rows.empty:
            return pd.DataFrame(columns=columns)
        means.append(rows.groupby(["dataset", "epsilon"])["metric.workload_error"].agg(
            ["mean", "count"]))
    both = means[0].join(means[1], lsuffix="_2021", rsuffix="_2022", how="inner").reset_index()
    both["ratio"] = both["mean_2021"] / both["mean_2022"]
    return (both[["dataset", "epsilon", "mean_2021", "count_2021", "mean_2022", "ratio"]]
            .set_axis(columns, axis=1))
