"""Time one RAP++ run: Adam steps per second and the wall time (a benchmark, not a test).

Runs one full ``RAPPP.fit`` on a stand-in task (or the paper's, where the Census files are
present) and writes one record (JSON) with the wall time, the time spent in Algorithm 1, the
Adam steps taken and their rate, the rounds, the JAX backend and the machine's load.

Example (the paper's settings: 1,000 relaxed rows, up to 2,000 steps per pass, 200,000
thresholds)::

    .venv/bin/python benchmarks/rappp_speed.py --task income --state national2018 \\
        --n-synthetic 1000 --max-steps 2000 --lt-queries 200000 --out /tmp/rappp_speed.json

The issue's goal for a GPU is a paper-size run (58-74 rounds, 200,000 thresholds on 200,000
rows) under two minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import jax
import numpy as np
from _records import append  # the benchmarks' CSV writer (a sibling module)

from reprolib._device import describe_device, placed, resolve_device
from reprolib.experiments._provenance import collect_provenance
from reprolib.mechanisms.relaxed.rappp import RAPPP, RAPPPConfig
from reprolib.papers.rappp.data import load_task, split
from reprolib.privacy import NeighbourRelation, PrivacyBudget


def parse_args() -> argparse.Namespace:
    """Command-line options; defaults are the small profile's setting, not the paper's."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="income")
    parser.add_argument("--state", default="national2018")
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--n-synthetic", type=int, default=500)
    parser.add_argument("--max-steps", type=int, default=500)
    parser.add_argument("--lt-queries", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--replicate", type=int, default=1,
                        help="stack the training rows this many times (timing only: the paper "
                             "size has about 200,000 rows, our stand-ins fewer)")
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    parser.add_argument("--out", type=Path, default=None, help="write the record as JSON here")
    parser.add_argument("--csv", type=Path, default=None,
                        help="append the record to this CSV (the book reads "
                             "results/rappp/benchmarks/rappp-speed.csv)")
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    train, _ = split(load_task(args.task, args.state).data, args.seed)
    if args.replicate > 1:
        train = train.take(np.tile(np.arange(train.records), args.replicate))
    device = resolve_device(args.device)
    budget = PrivacyBudget.from_epsilon_delta(args.epsilon, 1.0 / train.records ** 2,
                                              relation=NeighbourRelation.REPLACE_ONE,
                                              bound="bun-steinke")
    config = RAPPPConfig(n_synthetic=args.n_synthetic, max_steps=args.max_steps,
                         lt_queries=args.lt_queries)
    started = time.perf_counter()
    with placed(device):
        result = RAPPP(config).fit(train, budget, np.random.default_rng(args.seed))
    wall = time.perf_counter() - started
    log = result.diagnostics["log"]
    steps, fitting = sum(r["steps"] for r in log), sum(r["seconds"] for r in log)
    record = {"git_revision": collect_provenance("")["git_revision"], "task": args.task, "state": args.state, "records": train.records,
              "epsilon": args.epsilon, "n_synthetic": args.n_synthetic,
              "max_steps": args.max_steps, "lt_queries": args.lt_queries, "rounds": len(log),
              "replicate": args.replicate,
              "wall_seconds": wall, "round_seconds": fitting, "adam_steps": steps,
              "steps_per_second": steps / fitting, "backend": result.diagnostics["backend"],
              "device": describe_device(device), "jax": jax.__version__, "machine": platform.machine(),
              "cpus": os.cpu_count(), "load_average": os.getloadavg()[0]}
    print(json.dumps(record, indent=2))
    if args.out is not None:
        args.out.write_text(json.dumps(record, indent=2) + "\n")
    if args.csv is not None:
        append(args.csv, record)


if __name__ == "__main__":
    main()
