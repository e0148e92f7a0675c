"""More trials of a few cells of AIM's Figures 1-3 at small scale, to tell noise from a trend
(a study, not a test).

The small grids run three trials per cell. Where a mean over three trials decides a claim with
the trials' ranges overlapping (AIM's error rising between two epsilons, RAP beating MWEM+PGM),
more trials say whether it is noise. This runs the same cells as the grid (same settings; seeds
0 to TRIALS - 1, so the first three are the grid's own) in a scratch store and appends one row
per run to a CSV. The rows quoted by the AIM checks::

    .venv/bin/python benchmarks/aim_more_trials.py --artifact aim-fig1 aim-fig3 \\
        --dataset titanic --epsilon 0.01 0.0316227766 0.1 --trials 20 \\
        --out results/aim/benchmarks/more-trials.csv
    for m in MWEM+PGM RAP; do .venv/bin/python benchmarks/aim_more_trials.py \\
        --artifact aim-fig1 --dataset titanic --epsilon 0.01 0.0316227766 --trials 20 \\
        --mechanism $m --out results/aim/benchmarks/more-trials.csv; done

``--pgm-iters N`` runs the cells at N Private-PGM iterations a round instead of the profile's
count on that dataset, to show what a cut costs: msnbc's cells at small's general 100 (the profile
gives msnbc 1000)::

    .venv/bin/python benchmarks/aim_more_trials.py --artifact aim-fig1 --dataset msnbc \
        --epsilon 0.01 0.0316227766 0.1 0.316227766 1 3.16227766 10 31.6227766 100 \
        --trials 3 --pgm-iters 100 --out results/aim/benchmarks/more-trials.csv

Then ``--summary results/aim/benchmarks/more-trials.csv`` prints, per artifact, mechanism,
dataset, iterations and epsilon, the mean error, its standard error, the difference from the previous epsilon, the
median and the mean of the total-variation variant.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from _records import append  # the benchmarks' CSV writer (a sibling module)

from reprolib.experiments import run_experiment
from reprolib.papers.aim.setup import PAPER_EPSILONS, unread_params


def parse_args() -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--artifact", nargs="+", default=["aim-fig1"],
                        choices=("aim-fig1", "aim-fig2", "aim-fig3"))
    parser.add_argument("--dataset", default="titanic")
    parser.add_argument("--mechanism", default="AIM")
    parser.add_argument("--epsilon", type=float, nargs="+", default=[0.01, 0.0316227766, 0.1],
                        help="each rounded to the grid's epsilon nearest to it")
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--pgm-iters", type=int,
                        help="Private-PGM iterations a round (default: the profile's on the dataset)")
    parser.add_argument("--out", type=Path, help="CSV to append one row per run to")
    parser.add_argument("--summary", type=Path, help="print the summary of this CSV and stop")
    return parser.parse_args()


def grid_epsilon(epsilon: float) -> float:
    """The grid's epsilon nearest to ``epsilon`` (in log scale), so that cells match the grid's."""
    return min(PAPER_EPSILONS, key=lambda e: abs(np.log(e / epsilon)))


def summary(runs: pd.DataFrame) -> pd.DataFrame:
    """Per artifact, mechanism and epsilon: runs, mean workload error, its standard error, the
    change of the mean from the previous epsilon in standard errors of that difference, the
    median, and the mean of the total-variation variant (which does not see the record count)."""
    runs = runs.assign(pgm_iters=runs["pgm_iters"].fillna(0).astype(int))  # 0: no Private-PGM
    keys = ["artifact", "mechanism", "dataset", "pgm_iters", "epsilon"]
    grouped = runs.groupby(keys)["workload_error"]
    table = pd.DataFrame({"runs": grouped.size(), "mean": grouped.mean(),
                          "standard_error": grouped.std(ddof=1) / np.sqrt(grouped.size())})
    previous = table.groupby(level=keys[:-1]).shift()
    table["change_in_standard_errors"] = (table["mean"] - previous["mean"]) / np.hypot(
        table["standard_error"], previous["standard_error"])
    table["median"] = grouped.median()
    table["mean_tv"] = runs.groupby(keys)["workload_error_tv"].mean()
    return table


def main() -> None:
    """Run the cells, append their rows, print the summary."""
    args = parse_args()
    if args.summary is not None:
        print(summary(pd.read_csv(args.summary)).round(4).to_string())
        return
    epsilons = tuple(grid_epsilon(e) for e in args.epsilon)
    iterations = {} if args.pgm_iters is None else {"pgm_iters": args.pgm_iters,
                                                    "pgm_iters_by_dataset": {}}
    with tempfile.TemporaryDirectory() as scratch:
        for artifact in args.artifact:
            runs = run_experiment(artifact, scale="small", device="cpu", progress=True,
                                  results_root=Path(scratch),
                                  overrides={"datasets": (args.dataset,),
                                             "mechanisms": (args.mechanism,),
                                             "epsilons": epsilons, "trials": args.trials,
                                             **iterations})
            for _, run in runs.sort_values(["epsilon", "seed"]).iterrows():
                params = json.loads(run["params_json"])
                row = {"artifact": artifact, "mechanism": run["mechanism"],
                       "dataset": run["dataset"], "workload": params["workload"],
                       "pgm_iters": "" if "pgm_iters" in unread_params(run["mechanism"])
                       else params["pgm_iters"],
                       "epsilon": run["epsilon"], "seed": run["seed"],
                       "workload_error": run["metric.workload_error"],
                       "workload_error_tv": run["metric.workload_error_tv"],
                       "wall_time_s": run["wall_time_s"], "git_revision": run["git_revision"]}
                print(row, flush=True)
                if args.out is not None:
                    append(args.out, row)
    if args.out is not None:
        print(summary(pd.read_csv(args.out)).round(4).to_string())


if __name__ == "__main__":
    main()
