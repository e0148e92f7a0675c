"""Time PrivPGD's projection step and particle-descent epochs on one dataset (a benchmark, not a test).

Runs one full ``PrivPGD.fit`` and writes one record (JSON and a one-row CSV) with the wall times
of each phase, the particle throughput, the mean 2-way TV and SW1 distances to the real data
(``reprolib.metrics.average_tv`` and ``average_sw1``) and the machine's load.

Example (the CPU setting reported in the PrivPGD notes; one thread, pinned to one core)::

    nice -n 10 taskset -c 0 .venv/bin/python benchmarks/privpgd_speed.py --dataset aim/adult \\
        --particles 10000 --epochs 5 --projection-iterations 200 --device cpu --threads 1 \\
        --out /tmp/privpgd_speed.json

``particle_updates_per_second`` is n_particles x optimiser steps / descent seconds (one step moves
every particle once, on the coordinates of one batch of marginals);
``particle_marginal_updates_per_second`` is n_particles x epochs x marginals / descent seconds.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import time
from pathlib import Path

import numpy as np
import torch

from reprolib._device import describe_device
from reprolib.data import load_dataset
from reprolib.mechanisms.particles.privpgd import PrivPGD, PrivPGDConfig
from reprolib.metrics import average_sw1, average_tv
from reprolib.privacy import NeighbourRelation, PrivacyBudget


def parse_args() -> argparse.Namespace:
    """Command-line options; defaults are a small CPU setting, not the paper's."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="aim/adult")
    parser.add_argument("--particles", type=int, default=10_000)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--projection-iterations", type=int, default=200)
    parser.add_argument("--projection-directions", type=int, default=200)
    parser.add_argument("--epsilon", type=float, default=2.5)
    parser.add_argument("--delta", type=float, default=1e-5)
    parser.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    parser.add_argument("--threads", type=int, default=None, help="torch CPU threads")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None,
                        help="JSON output path; a .csv with the same stem is written beside it")
    return parser.parse_args()


def main() -> None:
    """Run the benchmark and write/print its record."""
    args = parse_args()
    if args.threads is not None:
        torch.set_num_threads(args.threads)
    data = load_dataset(args.dataset)
    config = PrivPGDConfig(n_particles=args.particles, epochs=args.epochs,
                           projection_iterations=args.projection_iterations,
                           projection_directions=args.projection_directions, device=args.device)
    budget = PrivacyBudget.from_epsilon_delta(args.epsilon, args.delta,
                                              relation=NeighbourRelation.REPLACE_ONE)
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    result = PrivPGD(config).fit(data, budget, np.random.default_rng(args.seed))
    wall = time.perf_counter() - start
    diag = result.diagnostics
    record = {
        "dataset": args.dataset,
        "records": data.records,
        "attributes": len(data.domain),
        "n_marginals": diag["n_marginals"],
        "particles": args.particles,
        "epochs": args.epochs,
        "steps": diag["steps"],
        "projection_iterations": args.projection_iterations,
        "projection_directions": args.projection_directions,
        "epsilon": args.epsilon,
        "delta": args.delta,
        "device": describe_device(diag["device"]),
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "host": platform.node(),
        "usable_cores": len(os.sched_getaffinity(0)),
        "load_average_1min_before": load_before,
        "load_average_1min_after": os.getloadavg()[0],
        "seconds_measure": diag["seconds_measure"],
        "seconds_projection": diag["seconds_projection"],
        "seconds_per_projection_iteration": (
            diag["seconds_projection"] / args.projection_iterations
            if args.projection_iterations else None),
        "seconds_descent": diag["seconds_descent"],
        "seconds_per_epoch": diag["seconds_descent"] / args.epochs if args.epochs else None,
        "particle_updates_per_second": diag["particle_updates_per_second"],
        "particle_marginal_updates_per_second": diag["particle_marginal_updates_per_second"],
        "seconds_total": wall,
        "final_loss": diag["final_loss"],
        "mean_two_way_tv": average_tv(data, result.synthetic),
        "mean_two_way_sw1": average_sw1(data, result.synthetic),
    }
    print(json.dumps(record, indent=2))
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(record, indent=2) + "\n")
        with args.out.with_suffix(".csv").open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(record))
            writer.writeheader()
            writer.writerow(record)


if __name__ == "__main__":
    main()
