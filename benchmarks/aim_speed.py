"""Time AIM runs over datasets, model capacities and epsilons (a benchmark, not a test).

Each run appends one row to a CSV (``--out``): the setting, the machine, the wall time, the number
of rounds, the mean and maximum seconds per round, the final model size and the workload error.
The AIM Figure 6 page shows this file beside the runtimes recorded by the Figure 1 grid.

The speed bar of the AIM issue (the authors' 2022 numpy code takes about 3.5 s per round and
3 minutes per run on one core)::

    taskset -c 0 .venv/bin/python benchmarks/aim_speed.py --dataset nltcs --epsilon 1 \\
        --capacity 80 --pgm-iters 100 --out results/aim/benchmarks/aim-speed.csv

The Figure 6 / Figure 4a style sweep on adult and fire (hours on a CPU at large epsilon)::

    .venv/bin/python benchmarks/aim_speed.py --dataset adult fire --epsilon 0.1 1 10 \\
        --capacity 1.25 5 20 80 --out results/aim/benchmarks/aim-speed.csv

JAX picks its platform itself; ``JAX_PLATFORMS=cuda`` with a CUDA-enabled jaxlib runs on a GPU.
"""

from __future__ import annotations

import argparse
import os
import platform
from pathlib import Path

import jax
import numpy as np
from _records import append  # the benchmarks' CSV writer (a sibling module)

from reprolib.experiments import collect_provenance
from reprolib.mechanisms.marginal.aim import AIM, AIMConfig
from reprolib.metrics import workload_error
from reprolib.papers.aim.pages import SPEED_COLUMNS, speed_benchmark_path
from reprolib.papers.aim.setup import DELTA, build_workload, load_aim_dataset, run_mechanism


def parse_args() -> argparse.Namespace:
    """Command-line options; the defaults are the speed bar's setting."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", nargs="+", default=["nltcs"])
    parser.add_argument("--workload", default="all-3way")
    parser.add_argument("--epsilon", type=float, nargs="+", default=[1.0])
    parser.add_argument("--capacity", type=float, nargs="+", default=[80.0],
                        help="model capacities (MAX-SIZE) in MB")
    parser.add_argument("--pgm-iters", type=int, default=100,
                        help="Private-PGM iterations per round and for the final fit")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None,
                        help="CSV to append one row per run to (the AIM runtime page reads "
                             f"{speed_benchmark_path()})")
    return parser.parse_args()


def machine() -> dict[str, object]:
    """Where the run happened: host, usable cores, the machine's load at the end, JAX backend."""
    return {
        "host": platform.node(),
        "processor": platform.processor() or platform.machine(),
        "usable_cores": len(os.sched_getaffinity(0)),
        "load_average_1min": os.getloadavg()[0],
        "jax": jax.__version__,
        "jax_backend": jax.default_backend(),
        "git_revision": collect_provenance("cpu")["git_revision"],
    }


def time_one(dataset: str, workload_kind: str, epsilon: float, capacity: float, iters: int,
             seed: int) -> dict[str, object]:
    """One AIM run and its timings."""
    data = load_aim_dataset(dataset)
    workload = build_workload(workload_kind, data, dataset)
    mechanism = AIM(AIMConfig(max_model_size_mb=capacity, pgm_iters=iters, final_pgm_iters=iters))
    result, seconds = run_mechanism(mechanism, data, workload, epsilon, seed)
    round_seconds = [r.seconds for r in result.log.rounds]
    return {
        "dataset": dataset, "workload": workload_kind, "epsilon": epsilon, "delta": DELTA,
        "max_model_size_mb": capacity, "pgm_iters": iters, "seed": seed,
        "seconds": seconds, "rounds": len(round_seconds),
        "seconds_per_round": float(np.mean(round_seconds)),
        "max_seconds_per_round": float(np.max(round_seconds)),
        "model_size_mb": result.diagnostics["model_size_mb"],
        "workload_error": workload_error(data, result.marginal, workload),
        **machine(),
    }


def main() -> None:
    """Run every combination of the options and print/append one row per run."""
    args = parse_args()
    for dataset in args.dataset:
        for capacity in args.capacity:
            for epsilon in args.epsilon:
                row = time_one(dataset, args.workload, epsilon, capacity, args.pgm_iters,
                               args.seed)
                print(row, flush=True)
                missing = [c for c in SPEED_COLUMNS if c not in row]
                if missing:
                    raise KeyError(f"the runtime page shows {missing}, which no run records: "
                                   "update SPEED_COLUMNS in reprolib.papers.aim.pages")
                if args.out is not None:
                    append(args.out, row)


if __name__ == "__main__":
    main()
