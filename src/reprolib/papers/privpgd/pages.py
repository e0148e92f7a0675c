"""What the PrivPGD pages show, computed from the results and the paper's tables.

The notebooks and the checks call these; tables come back with readable labels (dataset titles,
"yes"/"no", short metric headers explained by :func:`column_legend`), and the notebooks only style
them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from reprolib._paths import results_dir
from reprolib.experiments import (
    PAPER_SETTING_COLUMNS,
    benchmark_rows,
    beside_reference,
    paper_setting_runs,
)
from reprolib.mechanisms.genetic.private_gsd import PrivateGSDConfig
from reprolib.papers.privpgd import TABLE_NUMBERS
from reprolib.papers.privpgd.data import PRIVPGD_DATASETS

#: Each metric's short table header and what it stands for; the headers keep the tables of up to
#: seven metrics narrow enough for the book's page.
COLUMN_HEADERS: Mapping[str, tuple[str, str]] = {
    "downstream_error": ("Down.", "downstream error of a model trained on the synthetic data"),
    "downstream_error_real": ("Down. real", "the same trained on the real data"),
    "covariance_error": ("Cov.", "covariance error"),
    "counting_error": ("Count.", "counting-query error"),
    "thresholding_error": ("Thr.", "thresholding-query error"),
    "sw1": ("SW₁", "average SW₁ distance over the two-way marginals"),
    "l1": ("L1", "average L1 distance over the two-way marginals, 2·TV: the paper's TV column"),
}


def dataset_title(name: str) -> str:
    """The paper's name of a dataset (``"publiccoverage"`` -> ``"ACS Public Coverage"``); a name
    that is not one of the paper's nine is returned unchanged.
    """
    entry = PRIVPGD_DATASETS.get(name)
    return entry.title if entry is not None else name


def only_value(results: pd.DataFrame, column: str) -> float:
    """The single value of ``column`` in ``results`` (epsilon or delta of one artifact's runs)."""
    values = results[column].dropna().unique()
    if len(values) != 1:
        raise ValueError(f"expected one {column} in the results, found {sorted(values)}")
    return float(values[0])


def table_number(artifact: str) -> int:
    """The paper's table number of a table artifact, from the PrivPGD spec."""
    if artifact not in TABLE_NUMBERS:
        raise KeyError(f"{artifact!r} is not one of PrivPGD's table artifacts "
                       f"({', '.join(TABLE_NUMBERS)})")
    return TABLE_NUMBERS[artifact]


def readable_sources(sources: pd.DataFrame) -> pd.DataFrame:
    """A ``data_sources`` frame for readers: dataset titles and "yes"/"no" for substitution."""
    return sources.assign(
        dataset=sources["dataset"].map(dataset_title),
        substituted=sources["substituted"].map(lambda v: "yes" if bool(v) else "no"),
    ).rename(columns={"substituted": "stand-in data"})


def distance_means(results: pd.DataFrame) -> pd.DataFrame:
    """Mean SW1, L1 and TV over runs per dataset (title) and mechanism."""
    means = results.groupby(["dataset", "mechanism"])[
        ["metric.sw1", "metric.l1", "metric.tv"]].mean()
    means.columns = ["SW₁", "L1", "TV"]
    return means.rename(index=dataset_title, level="dataset")


def paper_lowest(reported: pd.DataFrame, epsilon: float, metric: str,
                 mechanism: str = "PrivPGD") -> tuple[int, int]:
    """On how many of the paper's datasets at ``epsilon`` ``mechanism``'s ``metric`` is strictly
    below every other mechanism's: (count, datasets).
    """
    rows = reported[np.isclose(reported["epsilon"], epsilon)]
    means = rows.pivot_table(index="dataset", columns="mechanism", values=metric)
    lowest = means[mechanism] < means.drop(columns=mechanism).min(axis=1)
    return int(lowest.sum()), len(lowest)


def short_headers(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` with its metric columns, at any column level, renamed to their short headers."""
    return table.rename(columns={metric: short for metric, (short, _) in COLUMN_HEADERS.items()})


def column_legend(table: pd.DataFrame) -> str:
    """What the short headers among ``table``'s columns (any level) stand for, as one sentence."""
    shown = set(table.columns.get_level_values(0))
    return "; ".join(f"{short}: {meaning}" for short, meaning in COLUMN_HEADERS.values()
                     if short in shown) + "."


def paper_table(reported: pd.DataFrame, number: int,
                metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """The paper's Table ``number`` as printed: one row per dataset (title) and mechanism.

    The metric columns carry :func:`short_headers`; :func:`column_legend` spells them out.
    """
    rows = reported[reported["table"] == number].drop(columns=["table", "epsilon", "delta"])
    if metrics is not None:
        rows = rows[["dataset", "mechanism", *metrics]]
    return short_headers(rows.assign(dataset=rows["dataset"].map(dataset_title)).set_index(
        ["dataset", "mechanism"]))


SPEED_CSV = "privpgd/benchmarks/privpgd-speed.csv"
SPEED_COLUMNS = ("code", "dataset", "particles", "epochs", "projection_iterations", "device",
                 "threads", "load_average_1min_before", "seconds_projection", "seconds_descent",
                 "seconds_per_epoch", "seconds_total")


def reduced_against_paper(reduced: pd.DataFrame, paper: pd.DataFrame,
                          metrics: Sequence[str]) -> pd.DataFrame:
    """PrivPGD's runs at the paper's settings beside its runs at the reduced ones on the same
    datasets and seeds: per dataset title, the runs compared and each metric's mean at both
    settings (columns ``(metric header, "reduced" | "paper")``; the data are the same, the
    knobs are in the runs' ``param.privpgd``).
    """
    keys = ["dataset", "seed"]
    runs = {knobs: frame[frame["mechanism"] == "PrivPGD"].set_index(keys)
            for knobs, frame in (("reduced", reduced), ("paper", paper))}
    shared = runs["paper"].index.intersection(runs["reduced"].index)
    table = pd.DataFrame(
        {(COLUMN_HEADERS[metric][0], knobs): runs[knobs].loc[shared, f"metric.{metric}"]
         for metric in metrics for knobs in runs}, index=shared)
    means = table.groupby(level="dataset").mean()
    means.insert(0, ("runs", ""), table.groupby(level="dataset").size())
    means.index = means.index.map(dataset_title)
    return means


def reduction_in_words(table: pd.DataFrame) -> str:
    """How far the reduced settings raise PrivPGD's errors, from :func:`reduced_against_paper`'s
    table: per error the median over the datasets of the reduced run's mean over the paper
    setting's, and the dataset whose ratios are the largest.
    """
    errors = [header for header in dict.fromkeys(c[0] for c in table.columns) if header != "runs"]
    ratio = pd.DataFrame({e: table[(e, "reduced")] / table[(e, "paper")] for e in errors})
    worst = ratio.max(axis=1).idxmax()
    return (f"Reduced over paper settings, PrivPGD's mean errors, median over the {len(ratio)} "
            "datasets: " + ", ".join(f"{e} {ratio[e].median():.3g}" for e in errors)
            + f"; the largest on {worst}, {ratio.loc[worst].min():.3g} to "
            f"{ratio.loc[worst].max():.3g}.")


def speed_benchmark(root: Path | None = None) -> pd.DataFrame | None:
    """The rows of ``benchmarks/privpgd_speed.py`` (the phases' wall times, the knobs, the
    machine's threads and load), or None if it has not been run.
    """
    return benchmark_rows((root or results_dir()) / SPEED_CSV, SPEED_COLUMNS, revision="code")


GSD_REFERENCE_CSV = "privpgd/benchmarks/gsd-reference.csv"


_TV = {"TV": ("tv_distance", "mean"), "TV min": ("tv_distance", "min"),
       "TV max": ("tv_distance", "max")}


def _gsd_runs(root: Path | None) -> pd.DataFrame | None:
    path = (root or results_dir()) / GSD_REFERENCE_CSV
    if not path.is_file():
        return None
    return pd.read_csv(path).drop_duplicates(
        ["dataset", "rho", "seed", "engine", "stop_tolerance", "max_generations"], keep="last")


def gsd_reference_table(root: Path | None = None) -> pd.DataFrame | None:
    """Our Private-GSD beside its authors' code (``benchmarks/private_gsd_reference.py``), both
    under the authors' early-stopping rule (``PrivateGSDConfig``'s default tolerance): per
    (dataset, rho, engine) the seeds run, the mean generations, the runs that stopped early, the
    mean seconds, the mean, min and max 2-way total variation distance (``TV``...), and ``TV /
    reference``, the engine's mean distance over the reference's; None when nothing was run.
    """
    runs = _gsd_runs(root)
    if runs is None:
        return None
    runs = runs[runs["stop_tolerance"] == PrivateGSDConfig().stop_tolerance]
    return beside_reference(runs, ["dataset", "rho"], {
        "seeds": ("seed", "nunique"), "generations": ("generations", "mean"),
        "stopped early": ("stopped_early", "sum"), "seconds": ("seconds", "mean"), **_TV}, "TV")


def gsd_search_length_table(root: Path | None = None) -> pd.DataFrame | None:
    """Our Private-GSD's 2-way total variation distance against the length of its search, from
    the same benchmark: per (dataset, rho) and stopping (``early`` under the authors' rule, or
    ``G generations`` for runs without early stopping, at ``G`` generations), the seeds, the mean
    generations run and the mean, min and max distance (``TV``...); None when no run went without early
    stopping.
    """
    runs = _gsd_runs(root)
    if runs is None:
        return None
    ours = runs[runs["engine"] == "ours"]
    unstopped = ours["stop_tolerance"] == 0
    if not unstopped.any():
        return None
    ours = ours.assign(
        stopping=np.where(unstopped, ours["max_generations"].map("{:,} generations".format),
                          "early"),
        order=np.where(unstopped, ours["max_generations"], -1))
    table = (ours.groupby(["dataset", "rho", "order", "stopping"])
             .agg(seeds=("seed", "nunique"), generations=("generations", "mean"), **_TV)
             .reset_index("order", drop=True))
    searched = set(zip(ours.loc[unstopped, "dataset"], ours.loc[unstopped, "rho"], strict=True))
    return table[[(dataset, rho) in searched for dataset, rho, _ in table.index]]


PAPER_PARTICLES, PAPER_EPOCHS = 100_000, 1000


def paper_setting_speed(root: Path | None = None) -> pd.DataFrame:
    """The benchmark's newest run of each kind with the paper's 100,000 particles on the
    current code (rows not marked "before" a revision; ``PAPER_SETTING_COLUMNS``): whole runs
    at its 1,000 epochs, shorter ones extrapolated from their epochs (the descent only).
    """
    speed = speed_benchmark(root)
    runs = []
    for run in [] if speed is None else speed.itertuples():
        if run.particles != PAPER_PARTICLES or str(run.code).startswith("before"):
            continue
        whole = run.epochs >= PAPER_EPOCHS
        runs.append({
            "paper": "privpgd", "mechanism": "PrivPGD",
            "setting": f"{run.dataset}, {run.particles:,} particles, {PAPER_EPOCHS:,} epochs, "
                       f"{run.projection_iterations:,} projection steps",
            "device": run.device,
            "minutes": (run.seconds_total if whole
                        else run.seconds_per_epoch * PAPER_EPOCHS) / 60,
            "measured": "whole run" if whole else f"descent extrapolated from {run.epochs} epochs",
            "goal": "< 5 min on one GPU",
            "authors": "none reported; their jobs asked for < 4 h on one GPU"})
    return pd.DataFrame(runs, columns=list(PAPER_SETTING_COLUMNS)).drop_duplicates(
        ["mechanism", "setting", "device", "measured"], keep="last")


def baselines_at_paper_settings(root: Path | None = None) -> pd.DataFrame:
    """The longest small run of each mechanism of Figures 1, 4 and 5 whose small cells are
    paper cells (``paper_setting_runs``): the baselines, which ``small`` runs at the paper's
    settings. The data switch is set aside: offline, ``small``'s stand-ins and ``paper``'s
    downloads-where-possible are the same tables.
    """
    return paper_setting_runs("privpgd", ("privpgd-fig1", "privpgd-fig4", "privpgd-fig5"),
                              ignore=lambda mechanism: ("substitute",), root=root)
