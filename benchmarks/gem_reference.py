"""GEM side by side with its authors' code: workload error and time on the same data and budget.

Runs our GEM (``reprolib.mechanisms.relaxed.gem``, its defaults) and, from ``--reference PATH``
(a local checkout of the public ``terranceliu/dp-query-release`` repository, PyTorch), the
authors' ``IterAlgoGEM`` with ``NeuralNetworkGenerator`` at the settings of their example script
for adult (T = 50 capped at the workload's size, alpha 0.5, K = 1000, widths 256, p = 2,
learning rate 1e-4, 100 iterations and 10,000 cells per round, no weight average), on the same
AIM dataset, workload, rho (from epsilon and delta = 1e-9 by our conversion, under replace-one)
and seed value. Nothing of the reference is copied here: the checkout is imported from its path
(its code predates NumPy 2, so ``np.infty`` is restored for it). Each engine releases as many
records as the data has (the reference draws them with its ``get_syndata``); our code scores
both with Definition 2 of the AIM paper (:func:`reprolib.metrics.workload_error`). The two draw
different noise from the same seed value (NumPy's and torch's global generators against our
``np.random.default_rng``). Rows are appended to ``--out``::

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/gem_reference.py \\
        --reference /tmp/dp-query-release --dataset nltcs --epsilon 0.1 1 10 --seed 0 1 \\
        --out results/aim/benchmarks/gem-reference.csv   (the Figures 1-3 pages read this file)
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from _records import append  # the benchmarks' CSV writer (a sibling module)

from reprolib.data import Dataset
from reprolib.experiments import collect_provenance
from reprolib.mechanisms.relaxed.gem import GEM, GEMConfig
from reprolib.metrics import workload_error
from reprolib.papers.aim.setup import DELTA, build_workload, load_aim_dataset
from reprolib.privacy import NeighbourRelation, PrivacyBudget


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", type=Path, required=True,
                        help="a checkout of terranceliu/dp-query-release")
    parser.add_argument("--dataset", nargs="+", default=["nltcs"])
    parser.add_argument("--workload", default="all-3way")
    parser.add_argument("--epsilon", type=float, nargs="+", default=[0.1, 1.0, 10.0])
    parser.add_argument("--seed", type=int, nargs="+", default=[0])
    parser.add_argument("--out", type=Path, required=True)
    return parser.parse_args()


def reference_gem(reference: Path, data: Dataset, cliques, rho: float, rounds: int,
                  seed: int, scratch: Path) -> Dataset:
    """The authors' GEM at their adult script's settings; N records from its generator."""
    import torch

    np.infty = np.inf  # type: ignore[attr-defined]  # the reference predates NumPy 2
    sys.path.insert(0, str(reference))
    from src.algo import IterAlgoGEM
    from src.qm import KWayMarginalQMTorch
    from src.syndata import NeuralNetworkGenerator
    from src.utils import Dataset as RefDataset
    from src.utils import Domain as RefDomain

    theirs = RefDataset(data.frame.copy(),
                        RefDomain(list(data.domain.attributes), list(data.domain.sizes)))
    queries = KWayMarginalQMTorch(theirs, [tuple(c) for c in cliques], device="cpu")
    alpha = 0.5  # their get_per_round_budget_zCDP: eps0 from rho, T and alpha
    eps0 = (2 * rho / (rounds * (alpha**2 + (1 - alpha) ** 2))) ** 0.5
    np.random.seed(seed)
    torch.manual_seed(seed)
    generator = NeuralNetworkGenerator(queries, K=1000, device="cpu", init_seed=seed,
                                       embedding_dim=256, gen_dims=[256, 256], resample=False)
    algorithm = IterAlgoGEM(generator, rounds, eps0, alpha=alpha, default_dir=str(scratch),
                            seed=seed, loss_p=2, lr=1e-4, eta_min=None, max_idxs=10000,
                            max_iters=100, ema_weights=False)
    algorithm.fit(queries.get_answers(theirs))
    records = generator.get_syndata(data.records).df[list(data.domain.attributes)]
    return Dataset(records.astype(np.int64).reset_index(drop=True), data.domain)


def main() -> None:
    args = parse_args()
    revision = collect_provenance("cpu")["git_revision"]
    for name in args.dataset:
        data = load_aim_dataset(name)
        workload = build_workload(args.workload, data, name)
        rounds = min(GEMConfig().rounds, len(workload))
        for epsilon in args.epsilon:
            budget = PrivacyBudget.from_epsilon_delta(epsilon, DELTA,
                                                      relation=NeighbourRelation.REPLACE_ONE)
            for seed in args.seed:
                started = time.perf_counter()
                ours = GEM().fit(data, budget, np.random.default_rng(seed),
                                 workload=workload).synthetic
                runs = {"ours": (ours, time.perf_counter() - started)}
                started = time.perf_counter()
                scratch = Path("/tmp") / f"gem-reference-{name}-{epsilon}-{seed}"
                theirs = reference_gem(args.reference, data, workload.cliques, budget.rho, rounds,
                                       seed, scratch)
                runs["reference"] = (theirs, time.perf_counter() - started)
                for engine, (synthetic, seconds) in runs.items():
                    row = {"dataset": name, "workload": args.workload, "epsilon": epsilon,
                           "delta": DELTA, "seed": seed, "rounds": rounds, "engine": engine,
                           "workload_error": workload_error(data, synthetic, workload),
                           "seconds": seconds, "git_revision": revision}
                    append(args.out, row)
                    print(row, flush=True)


if __name__ == "__main__":
    main()
