"""Time Algorithm 1's training (a benchmark, not a test): steps per second and one model's time.

Training cost depends on the release's size, not its values: n released rows, m' = m k
projections of d encoded columns, batch b. This script draws random rows of norm at most 1,
releases them once (charged to a scratch ledger), trains a generator for ``--epochs`` epochs
and extrapolates to the paper's 200 epochs; it appends one record to ``--csv``.

The paper's Income task after Poisson subsampling at 0.25 has about 49,000 rows; the paper
reports under two hours per 200-epoch model on a V100; our goal is under 10 minutes on one GPU::

    .venv/bin/python benchmarks/slicing_speed.py --rows 49000 --columns 100 --slice-dim 2 \\
        --slices 50 --epochs 1 --device auto --csv results/slicing/benchmarks/slicing-speed.csv
"""

from __future__ import annotations

import argparse
import json
import os
import platform
from pathlib import Path

import numpy as np
import torch
from _records import append  # the benchmarks' CSV writer (a sibling module)

from reprolib._device import describe_device, resolve_device
from reprolib.experiments._provenance import collect_provenance
from reprolib.mechanisms.slicing.generator import Generator, OutputLayout
from reprolib.mechanisms.slicing.training import SlicedRelease, TrainingSettings, train
from reprolib.privacy import NeighbourRelation, RdpBudget, RdpLedger, slicing_release

PAPER_EPOCHS = 200


def parse_args() -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=49_000)
    parser.add_argument("--columns", type=int, default=100)
    parser.add_argument("--slice-dim", type=int, default=2)
    parser.add_argument("--slices", type=int, default=50)
    parser.add_argument("--loss", choices=("sliced-f", "sliced-wasserstein"), default="sliced-f")
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    parser.add_argument("--csv", type=Path, default=None)
    return parser.parse_args()


def main() -> None:
    args = parse_args()
    device = resolve_device(args.device)
    rng = np.random.default_rng(0)
    rows = rng.random((args.rows, args.columns)) / np.sqrt(args.columns)
    ledger = RdpLedger(RdpBudget(epsilon=1e4, delta=1e-5,  # timing only: any budget
                                 relation=NeighbourRelation.REPLACE_ONE))
    sigma = 1.0
    directions, outputs = slicing_release(rows, projections=args.slices * args.slice_dim,
                                          sigma=sigma, row_norm=1.0, rng=rng, ledger=ledger,
                                          label="benchmark release")
    release = SlicedRelease(directions, outputs, sigma, args.slice_dim)
    torch.manual_seed(0)
    generator = Generator(OutputLayout((), args.columns, 1 / np.sqrt(args.columns)))
    settings = TrainingSettings(loss=args.loss, epochs=args.epochs, batch_size=args.batch_size)
    log = train(generator, release, settings, seed=0, device=device)
    record = {"git_revision": collect_provenance("")["git_revision"], "rows": args.rows,
              "columns": args.columns, "slice_dim": args.slice_dim, "slices": args.slices,
              "loss": args.loss, "batch_size": args.batch_size, "epochs": args.epochs,
              "steps": log.steps, "seconds": log.seconds,
              "steps_per_second": log.steps / log.seconds,
              "paper_model_minutes": log.seconds / args.epochs * PAPER_EPOCHS / 60,
              "device": describe_device(device), "torch": torch.__version__,
              "threads": torch.get_num_threads(), "machine": platform.machine(),
              "cpus": os.cpu_count(), "load_average": os.getloadavg()[0]}
    print(json.dumps(record, indent=2))
    if args.csv is not None:
        append(args.csv, record)


if __name__ == "__main__":
    main()
