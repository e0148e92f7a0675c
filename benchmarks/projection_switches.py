"""MWEM + relaxed projection with each of the reference code's two optimiser choices, alone and
together (a study, not a test).

RAP's public code steps Adam with its bias corrections frozen at the first step's
(``adam="frozen-bias"``) and never projects Adam's own iterate (``iterate="lazy"``); our relaxed
projection defaults to the paper's projected Adam (``adam="optax"``, ``iterate="projected"``).
This runs MWEM+RP (the AIM paper's Figure 7 mechanism, all 3-way marginals) with the four
combinations on the cells that :mod:`reprolib.mechanisms.relaxed.projection` quotes, with the data,
workload, budget and seed of the Figure 7 small grid (so the default's rows equal that grid's
committed ones), and appends one row per run::

    .venv/bin/python benchmarks/projection_switches.py \\
        --out results/aim/benchmarks/projection-switches.csv
"""

from __future__ import annotations

import argparse
import itertools
from pathlib import Path

from _records import append  # the benchmarks' CSV writer (a sibling module)

from reprolib.experiments import collect_provenance
from reprolib.mechanisms.relaxed.mwem_rp import MWEMRelaxedProjection, MWEMRPConfig
from reprolib.mechanisms.relaxed.projection import RelaxedProjectionConfig
from reprolib.metrics import workload_error
from reprolib.papers.aim.setup import DELTA, build_workload, load_aim_dataset, run_mechanism

CHOICES = (("optax", "projected"), ("frozen-bias", "lazy"), ("frozen-bias", "projected"),
           ("optax", "lazy"))
"""(adam, iterate): the paper's (our default), the code's, and each of the code's alone."""


def parse_args() -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", nargs="+", default=["nltcs:20", "titanic:10"],
                        metavar="DATASET:ROUNDS", help="datasets with MWEM's T")
    parser.add_argument("--epsilon", type=float, nargs="+", default=[1.0, 10.0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True, help="CSV to append one row per run to")
    return parser.parse_args()


def main() -> None:
    """Run every cell with every choice and append the rows."""
    args = parse_args()
    revision = collect_provenance("cpu")["git_revision"]
    for cell, epsilon, (adam, iterate) in itertools.product(args.cells, args.epsilon, CHOICES):
        dataset, rounds = cell.split(":")
        data = load_aim_dataset(dataset)
        workload = build_workload("all-3way", data, dataset)
        mechanism = MWEMRelaxedProjection(MWEMRPConfig(
            rounds=int(rounds), projection=RelaxedProjectionConfig(adam=adam, iterate=iterate)))
        result, seconds = run_mechanism(mechanism, data, workload, epsilon, args.seed)
        row = {"dataset": dataset, "rounds": int(rounds), "epsilon": epsilon, "delta": DELTA,
               "seed": args.seed, "adam": adam, "iterate": iterate,
               "workload_error": workload_error(data, result.marginal, workload),
               "spent_rho": result.ledger.spent_rho, "seconds": seconds, "git_revision": revision}
        append(args.out, row)
        print(row, flush=True)


if __name__ == "__main__":
    main()
