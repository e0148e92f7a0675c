"""DP-MERF on the slicing paper's digits task with another generator or more training steps (a
study, not a test).

The slicing paper's Figure 1 reproduction runs DP-MERF at its authors' defaults for images (their
convolutional generator, 5 epochs: 50 Adam steps on the 5,000-image private pool). The check
that DP-MERF stays ahead of the slicing methods asks whether that is the generator's doing or too
few steps: this runs DP-MERF with a generator (``conv`` or ``fc``) and a number of epochs on the
same data, budget and evaluation as the Figure 1 grid (:mod:`reprolib.papers.slicing.digits`) and
appends one row per run::

    .venv/bin/python benchmarks/merf_digits_variants.py --generator conv fc --epochs 5 \\
        --epsilon 1 10 100 --seeds 3 --out results/slicing/benchmarks/merf-variants.csv
    .venv/bin/python benchmarks/merf_digits_variants.py --generator conv fc --epochs 60 \\
        --epsilon 10 --seeds 1 --out results/slicing/benchmarks/merf-variants.csv
"""

from __future__ import annotations

import argparse
import itertools
from pathlib import Path

import numpy as np
from _records import append  # the benchmarks' CSV writer (a sibling module)

from reprolib._device import one_cpu_thread
from reprolib.data import ImageSet
from reprolib.experiments import collect_provenance
from reprolib.mechanisms import build
from reprolib.papers.slicing.digits import (
    DELTA,
    LABEL,
    as_mixed,
    classifier_accuracy,
    mechanism_config,
    mnist_halves,
)
from reprolib.privacy import PrivacyBudget

PER_CLASS = 400
"""Images released per class, as in the Figure 1 small grid."""


def parse_args() -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--generator", nargs="+", default=["conv", "fc"], choices=("conv", "fc"))
    parser.add_argument("--epochs", type=int, nargs="+", default=[5],
                        help="DP-MERF's epochs (its authors' default: 5)")
    parser.add_argument("--epsilon", type=float, nargs="+", default=[1.0, 10.0, 100.0])
    parser.add_argument("--seeds", type=int, default=3, help="seeds 0 to SEEDS - 1")
    parser.add_argument("--out", type=Path, required=True, help="CSV to append one row per run to")
    return parser.parse_args()


def main() -> None:
    """Run every combination and append the rows."""
    args = parse_args()
    revision = collect_provenance("cpu")["git_revision"]
    pool, held_out = mnist_halves()
    for generator, epochs, epsilon, seed in itertools.product(
            args.generator, args.epochs, args.epsilon, range(args.seeds)):
        config = mechanism_config("DP-MERF", {"per_class": PER_CLASS, "generator": generator})
        mechanism = build("DP-MERF", {**config, "epochs": epochs, "device": "cpu"})
        budget = PrivacyBudget.from_epsilon_delta(epsilon, DELTA,
                                                  relation=mechanism.traits.relation)
        with one_cpu_thread("cpu"):  # as the grid runs it: one torch thread
            result = mechanism.fit(as_mixed(pool), budget, np.random.default_rng(seed))
        synthetic = ImageSet(result.synthetic.numerical, result.synthetic.column(LABEL),
                             pool.image_shape)
        row = {"generator": generator, "epochs": epochs, "steps": result.diagnostics["steps"],
               "epsilon": epsilon, "delta": DELTA, "seed": seed, "per_class": PER_CLASS,
               "accuracy": classifier_accuracy(synthetic, held_out),
               "spent_epsilon": result.ledger.spent_epsilon(),
               "seconds": result.diagnostics["training_seconds"], "git_revision": revision}
        append(args.out, row)
        print(row, flush=True)


if __name__ == "__main__":
    main()
