"""Workload error and wall time of the mechanisms that fit Private-PGM once (MST, PrivBayes+PGM,
Independent) against the iterations of that fit (a benchmark, not a test).

Why the AIM experiments keep these mechanisms' own iteration counts at every scale (the AIM part's
introduction quotes these rows): at small epsilon their time goes to selection, so cutting the
fit saves little and leaves the model under-fitted; at large epsilon PrivBayes' networks grow
and even its own 1,000 iterations under-fit them. The rows of the AIM part::

    .venv/bin/python benchmarks/aim_single_fit.py --mechanism PrivBayes+PGM --dataset nltcs \\
        --epsilon 1 100 --iters 100 1000 5000 --out results/aim/benchmarks/single-fit.csv
    .venv/bin/python benchmarks/aim_single_fit.py --mechanism MST --dataset adult \\
        --epsilon 1 --iters 100 5000 --out results/aim/benchmarks/single-fit.csv

Each run appends one row: the setting, the wall time, the workload error (Definition 2), the
machine's load and the code's revision.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from _records import append  # the benchmarks' CSV writer (a sibling module)

from reprolib.experiments import collect_provenance
from reprolib.mechanisms import build
from reprolib.metrics import workload_error
from reprolib.papers.aim.setup import DELTA, build_workload, load_aim_dataset, run_mechanism

# the config field that holds each mechanism's Private-PGM iterations
ITERATIONS_FIELD = {"MST": "pgm_iters", "PrivBayes+PGM": "iters", "Independent": "pgm_iters"}


def parse_args() -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mechanism", choices=sorted(ITERATIONS_FIELD), required=True)
    parser.add_argument("--dataset", nargs="+", default=["nltcs"])
    parser.add_argument("--workload", default="all-3way")
    parser.add_argument("--epsilon", type=float, nargs="+", default=[1.0])
    parser.add_argument("--iters", type=int, nargs="+", required=True,
                        help="Private-PGM iterations of the one fit")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None,
                        help="CSV to append one row per run to")
    return parser.parse_args()


def time_one(mechanism: str, dataset: str, workload_kind: str, epsilon: float, iters: int,
             seed: int) -> dict[str, object]:
    """One run of ``mechanism`` with ``iters`` iterations, its wall time and workload error."""
    data = load_aim_dataset(dataset)
    workload = build_workload(workload_kind, data, dataset)
    fitted = build(mechanism, {ITERATIONS_FIELD[mechanism]: iters})
    result, seconds = run_mechanism(fitted, data, workload, epsilon, seed)
    return {
        "mechanism": mechanism, "dataset": dataset, "workload": workload_kind,
        "epsilon": epsilon, "delta": DELTA, "iters": iters, "seed": seed, "seconds": seconds,
        "workload_error": workload_error(data, result.marginal, workload),
        "usable_cores": len(os.sched_getaffinity(0)), "load_average_1min": os.getloadavg()[0],
        "git_revision": collect_provenance("cpu")["git_revision"],
    }


def main() -> None:
    """Run every combination of the options and print/append one row per run."""
    args = parse_args()
    for dataset in args.dataset:
        for epsilon in args.epsilon:
            for iters in args.iters:
                row = time_one(args.mechanism, dataset, args.workload, epsilon, iters, args.seed)
                print(row, flush=True)
                if args.out is not None:
                    append(args.out, row)


if __name__ == "__main__":
    main()
