"""Time one GEM update step at a dataset's largest measurements (a benchmark, not a test).

A GEM round (``reprolib.mechanisms.relaxed.gem``) runs up to 100 Adam steps, each of which
answers every marginal measured so far, ranks their cells' errors, and differentiates the loss
over the 10,000 worst cells. The cost of a step grows with the cells measured, so the last
rounds on a large domain set a run's time: this script fills the T slots of the authors' adult
script (T = 50, capped at the workload's size) with the workload's largest marginals (random
answers; the time does not depend on them), compiles the round's update, then times ``--steps``
steps. Each setting appends one row to ``--out`` with the machine and the code's revision::

    OMP_NUM_THREADS=1 taskset -c 0 .venv/bin/python benchmarks/gem_step.py --dataset salary \\
        --out results/aim/benchmarks/gem-step.csv

On salary's all-3way workload the 50 largest triples hold 13.7 million cells (the largest
33 x 76 x 501), about 160 times the 84,000 of adult's and 30,000 times nltcs's.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from _records import append  # the benchmarks' CSV writer (a sibling module)

from reprolib.experiments import collect_provenance
from reprolib.mechanisms.relaxed import gem
from reprolib.papers.aim.setup import build_workload, load_aim_dataset


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", nargs="+", default=["salary"])
    parser.add_argument("--workload", default="all-3way")
    parser.add_argument("--steps", type=int, default=5, help="steps timed after the compile")
    parser.add_argument("--out", type=Path, default=None, help="CSV to append one row per run to")
    return parser.parse_args()


def time_steps(dataset: str, workload_kind: str, steps: int) -> dict[str, object]:
    """Compile and time one round's update with every slot filled by the largest marginals."""
    data = load_aim_dataset(dataset)
    workload = build_workload(workload_kind, data, dataset)
    config, domain = gem.GEMConfig(), data.domain
    index = {a: i for i, a in enumerate(domain.attributes)}
    cliques = tuple(tuple(index[a] for a in c) for c in workload.cliques)
    counts = [math.prod(domain.sizes[i] for i in c) for c in cliques]
    slots = min(config.rounds, len(cliques))
    offsets = tuple(int(o) for o in np.cumsum([0, *domain.sizes]))
    static = gem._Static(offsets=offsets, cliques=cliques, cells=max(counts), slots=slots)
    rng = np.random.default_rng(0)
    params = gem._initial_params(config, offsets[-1], rng)
    codes = jnp.asarray(rng.standard_normal((config.rows, config.code_dim)), jnp.float32)
    measured = gem._Slots.empty(static)
    largest = sorted(range(len(cliques)), key=lambda i: -counts[i])[:slots]
    for i in largest:
        measured.add(i, rng.dirichlet(np.ones(counts[i])).astype(np.float32))

    def update(iterations: int) -> float:
        started = time.perf_counter()
        out = gem._update(params, codes, *measured.arrays(), jnp.float32(0.0), static=static,
                          iterations=iterations, learning_rate=config.learning_rate,
                          top=config.max_queries, loss_p=config.loss_p)
        jax.block_until_ready(out)
        return time.perf_counter() - started

    compile_and_step = update(steps)  # threshold 0: every step runs
    seconds = update(steps)
    return {
        "dataset": dataset, "workload": workload_kind, "slots": slots,
        "cells_measured": sum(counts[i] for i in largest), "largest_marginal": max(counts),
        "rows": config.rows, "max_queries": config.max_queries, "steps": steps,
        "seconds_per_step": seconds / steps, "compile_seconds": compile_and_step - seconds,
        "host": platform.node(), "usable_cores": len(os.sched_getaffinity(0)),
        "omp_num_threads": os.environ.get("OMP_NUM_THREADS", ""),
        "load_average_1min": os.getloadavg()[0], "jax": jax.__version__,
        "jax_backend": jax.default_backend(),
        "git_revision": collect_provenance("cpu")["git_revision"],
    }


def main() -> None:
    args = parse_args()
    for dataset in args.dataset:
        row = time_steps(dataset, args.workload, args.steps)
        print(row, flush=True)
        if args.out is not None:
            append(args.out, row)


if __name__ == "__main__":
    main()
