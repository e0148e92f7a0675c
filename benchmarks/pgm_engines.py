"""Time one Private-PGM fit in NumPy and in JAX on models of growing size (a benchmark, not a test).

``mirror_descent`` picks its engine with ``prefers_numpy``: NumPy when its slower steps cost less
than compiling the model's JAX program. This script measures the two constants that rule uses on
this machine: NumPy's extra seconds per junction-tree cell and step over compiled XLA, and the
seconds compiling costs per maximal clique. Each model measures the one-way marginals of adult and
a chain of ``--width``-way marginals over its first attributes (one noisy measurement each, sigma
10); the chain's length sets the model's size. Run on one core::

    taskset -c 0 .venv/bin/python benchmarks/pgm_engines.py --links 2 4 6 8 --steps 100
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from reprolib.mechanisms.pgm import NoisyMarginal
from reprolib.mechanisms.pgm._junction_tree import NumpyModel
from reprolib.mechanisms.pgm._mirror_descent import mirror_descent
from reprolib.mechanisms.pgm._model import estimated_total, loss_measurements
from reprolib.papers.aim.setup import load_aim_dataset


def measurements(links: int, width: int, rng: np.random.Generator) -> list[NoisyMarginal]:
    """One-way marginals of adult and ``links`` overlapping ``width``-way ones, noisy."""
    data = load_aim_dataset("adult")
    attributes = data.domain.attributes
    cliques = [(a,) for a in attributes] + [tuple(attributes[i:i + width])
                                            for i in range(links)]
    out = []
    for clique in cliques:
        values = data.marginal(clique)
        out.append(NoisyMarginal(clique, values + rng.normal(0, 10.0, values.shape), 10.0))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--links", type=int, nargs="+", default=[2, 4, 6, 8])
    parser.add_argument("--width", type=int, default=3)
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args()
    domain = load_aim_dataset("adult").domain
    print("cells,cliques,numpy_s,jax_first_s,jax_again_s,numpy_extra_per_cell_step,"
          "compile_per_clique")
    for links in args.links:
        measured = measurements(links, args.width, np.random.default_rng(links))
        mbi_measurements = loss_measurements(measured, "inverse-variance")
        total = estimated_total(measured)
        seconds = {}
        for engine in ("numpy", "jax", "jax-again"):
            started = time.perf_counter()
            model = mirror_descent(domain.to_mbi(), mbi_measurements, known_total=total,
                                   iters=args.steps, engine=engine.removesuffix("-again"))
            for clique in model.potentials.cliques:  # JAX returns before it has computed
                np.asarray(model.potentials[clique].values)
            seconds[engine] = time.perf_counter() - started
        tree = NumpyModel(domain.to_mbi(), tuple(m.clique for m in measured), mbi_measurements,
                          total).tree
        cells, cliques = tree.cells, len(tree.maximal)
        extra = (seconds["numpy"] - seconds["jax-again"]) / (cells * args.steps)
        compile_each = (seconds["jax"] - seconds["jax-again"]) / cliques
        print(f"{cells},{cliques},{seconds['numpy']:.2f},{seconds['jax']:.2f},"
              f"{seconds['jax-again']:.2f},{extra:.2e},{compile_each:.3f}", flush=True)


if __name__ == "__main__":
    main()
