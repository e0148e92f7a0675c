"""GEM beside its authors' first release (November 2021), and at both of their adult scripts.

Our GEM's defaults follow the authors' adult script of July 2022 (``reprolib.mechanisms.relaxed.gem``).
The AIM paper (arXiv, January 2022) ran the baselines at "default values available in their
open source implementations", and the only GEM public then was the first release (commit 0737aea
of ``terranceliu/dp-query-release``, November 2021), whose adult script differs:
``AUTHORS_SCRIPTS["2021-11"]``. This runs our GEM under each script's settings (``--script``)
on the same AIM dataset, workload (all-3way), budget (epsilon, delta = 1e-9, replace-one) and
seed, and, with ``--reference PATH`` (a checkout of that commit), the release itself at its
script's settings, and appends one row per run to ``--out``: engine ``ours`` (the 2021 script's
settings), ``ours-2022-07`` (our defaults) and ``reference`` (the release)::

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/gem_2021_reference.py --dataset nltcs adult \\
        --epsilon 1 10 --seed 0 --reference /tmp/gem-2021-11 \\
        --out results/aim/benchmarks/gem-2021-reference.csv   (the Figures 1-3 pages read it)

Nothing of the release is copied here: it is imported from its path. It needs two things our
environment lacks: ``np.infty`` (gone in NumPy 2, restored for it) and rdt 0.x's
``OneHotEncodingTransformer`` (rdt 0.x is not installable beside our pins), for which this script
registers an equivalent: one column per category, categories sorted, and the largest column read
back. The release fits its encoder on the data with one extra row per value the data lack, so the
columns are the domain's values in order, as its query manager assumes. Its generator releases
its draws in batches of K = 1,000 rows; we keep the first N. Both engines are scored by
Definition 2 of the AIM paper (:func:`reprolib.metrics.workload_error`).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import types
from pathlib import Path

import numpy as np
from _records import append  # the benchmarks' CSV writer (a sibling module)

from reprolib.data import Dataset
from reprolib.experiments import collect_provenance
from reprolib.mechanisms.relaxed.gem import AUTHORS_SCRIPTS, GEM, GEMConfig
from reprolib.metrics import workload_error
from reprolib.papers.aim.setup import DELTA, build_workload, load_aim_dataset
from reprolib.privacy import NeighbourRelation, PrivacyBudget


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", nargs="+", default=["nltcs"])
    parser.add_argument("--epsilon", type=float, nargs="+", default=[1.0, 10.0])
    parser.add_argument("--seed", type=int, nargs="+", default=[0])
    parser.add_argument("--script", nargs="+", choices=tuple(AUTHORS_SCRIPTS),
                        default=list(AUTHORS_SCRIPTS), help="our GEM at these scripts' settings")
    parser.add_argument("--reference", type=Path,
                        help="a checkout of dp-query-release at 0737aea (the 2021-11 release)")
    parser.add_argument("--out", type=Path, required=True)
    return parser.parse_args()


class _OneHot:
    """rdt 0.x's ``OneHotEncodingTransformer`` as the 2021 release uses it."""

    def fit(self, data: np.ndarray) -> None:
        self.categories = np.unique(np.asarray(data))

    def transform(self, data: np.ndarray) -> np.ndarray:
        return (np.asarray(data)[:, None] == self.categories[None, :]).astype(int)

    def reverse_transform(self, data: np.ndarray) -> np.ndarray:
        return self.categories[np.asarray(data).argmax(axis=1)]


def reference_gem(reference: Path, data: Dataset, cliques, rho: float, seed: int,
                  scratch: Path) -> Dataset:
    """The 2021 release's ``GEM_Workloads`` at its adult script's settings; N records."""
    import torch

    np.infty = np.inf  # type: ignore[attr-defined]  # the release predates NumPy 2
    transformers = types.ModuleType("rdt.transformers")
    transformers.OneHotEncodingTransformer = _OneHot  # type: ignore[attr-defined]
    sys.modules.setdefault("rdt", types.ModuleType("rdt"))
    sys.modules.setdefault("rdt.transformers", transformers)
    sys.path.insert(0, str(reference))
    from gem import GEM_Workloads
    from qm import KWayMarginalQM
    from utils import Dataset as RefDataset
    from utils import Domain as RefDomain

    theirs = RefDataset(data.frame.copy(),
                        RefDomain(list(data.domain.attributes), list(data.domain.sizes)))
    queries = KWayMarginalQM(theirs, [tuple(c) for c in cliques])
    rounds, alpha = min(75, len(cliques)), 0.5
    # its get_per_round_budget_zCDP: each round's eps0 from rho, T and alpha
    eps0 = (2 * rho / (rounds * (alpha**2 + (1 - alpha) ** 2))) ** 0.5
    np.random.seed(seed)
    torch.manual_seed(seed)
    gem = GEM_Workloads(queries, rounds, eps0, theirs, torch.device("cpu"), alpha=alpha,
                        default_dir=str(scratch), embedding_dim=256, gen_dim=[512],
                        batch_size=1000, loss_p=2, lr=1e-4, eta_min=None, resample=False,
                        max_idxs=10000, max_iters=100, ema_weights=True, ema_weights_beta=0.5,
                        ema_error_factor=0.25, verbose=False, seed=seed)
    gem.fit(queries.get_answers(theirs))
    draws = gem.get_syndata(math.ceil(data.records / 1000) * 1000).df
    records = draws[list(data.domain.attributes)].iloc[:data.records]
    return Dataset(records.astype(np.int64).reset_index(drop=True), data.domain)


def main() -> None:
    args = parse_args()
    revision = collect_provenance("cpu")["git_revision"]
    for name in args.dataset:
        data = load_aim_dataset(name)
        workload = build_workload("all-3way", data, name)
        for epsilon in args.epsilon:
            budget = PrivacyBudget.from_epsilon_delta(epsilon, DELTA,
                                                      relation=NeighbourRelation.REPLACE_ONE)
            for seed in args.seed:
                runs = [("ours" if script == "2021-11" else f"ours-{script}", script)
                        for script in args.script]
                if args.reference:
                    runs.append(("reference", "2021-11"))
                for engine, script in runs:
                    config = GEMConfig(**AUTHORS_SCRIPTS[script])
                    started = time.perf_counter()
                    if engine != "reference":
                        synthetic = GEM(config).fit(data, budget, np.random.default_rng(seed),
                                                    workload=workload).synthetic
                    else:
                        scratch = Path("/tmp") / f"gem-2021-{name}-{epsilon}-{seed}"
                        synthetic = reference_gem(args.reference, data, workload.cliques,
                                                  budget.rho, seed, scratch)
                    row = {"dataset": name, "workload": "all-3way", "epsilon": epsilon,
                           "delta": DELTA, "seed": seed, "engine": engine, "script": script,
                           "rounds": min(config.rounds, len(workload)),
                           "workload_error": workload_error(data, synthetic, workload),
                           "seconds": time.perf_counter() - started, "git_revision": revision}
                    append(args.out, row)
                    print(row, flush=True)


if __name__ == "__main__":
    main()
