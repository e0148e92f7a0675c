"""PrivMRF side by side with its authors' code: workload error and time at the same noise.

Runs our PrivMRF (``reprolib.mechanisms.marginal.privmrf``, its defaults) and, from
``--reference PATH`` (a local checkout of the public ``caicre/PrivMRF`` repository), the authors'
``PrivMRF.run`` at its defaults, on the same AIM dataset and seed value. The authors' code turns
(epsilon, delta = 1e-5) into a Gaussian-DP budget b = mu^2 with its own table
(``PrivMRF.utils.tools.privacy_budget``: pick epsilons it lists) and spends b over Gaussian
releases, each costing (sensitivity / sigma)^2; ours gets rho = b / 2, the zCDP of the same
releases (rho = (sensitivity / sigma)^2 / 2 each), so for the same split every release of the two
has the same noise. Nothing of the reference is copied here: the checkout is imported from its
path. Its code needs cupy, Python < 3.10 and pandas 1, so the script runs it on NumPy: a stand-in
``cupy`` module whose functions are NumPy's, ``collections.Iterable`` restored, and pandas'
``DataFrame.groupby`` defaulting to ``group_keys=False`` (pandas 1's behaviour for the
transform-like ``apply`` its sampler uses). It writes scratch files into its checkout's
``PrivMRF/temp``, ``result`` and ``out`` folders. Both are scored with Definition 2 of the AIM
paper (:func:`reprolib.metrics.workload_error`) on ``--workload``. Rows are appended to
``--out``::

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/privmrf_reference.py \\
        --reference /tmp/PrivMRF --dataset nltcs --epsilon 0.1 0.4 1.6 3.2 --seed 0 1 2 \\
        --out results/aim/benchmarks/privmrf-reference.csv   (the Figures 1-3 pages read it)

Ours runs with the authors' early stopping unless ``--no-stop``; ``--ours-only`` adds rows of ours
beside existing ones.
"""

from __future__ import annotations

import argparse
import collections
import collections.abc
import random
import sys
import time
import types
from pathlib import Path

import numpy as np
import pandas as pd
from _records import append  # the benchmarks' CSV writer (a sibling module)

from reprolib.data import Dataset
from reprolib.experiments import collect_provenance
from reprolib.mechanisms.marginal.privmrf import PrivMRF, PrivMRFConfig
from reprolib.metrics import workload_error
from reprolib.papers.aim.setup import build_workload, load_aim_dataset
from reprolib.privacy import NeighbourRelation, PrivacyBudget

REFERENCE_DELTA = 1e-5  # the delta of the authors' budget table


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference", type=Path, required=True,
                        help="a checkout of caicre/PrivMRF")
    parser.add_argument("--dataset", nargs="+", default=["nltcs"])
    parser.add_argument("--workload", default="all-3way")
    parser.add_argument("--epsilon", type=float, nargs="+", default=[0.1, 0.4, 1.6, 3.2])
    parser.add_argument("--seed", type=int, nargs="+", default=[0])
    parser.add_argument("--stop-ratio", type=float, default=PrivMRFConfig.stop_ratio,
                        help="ours' PrivMRFConfig.stop_ratio (the authors' early stopping; "
                             "default: theirs, 1.2); its rows are labelled ours-stop-<ratio>")
    parser.add_argument("--no-stop", action="store_true",
                        help="run ours without early stopping (rows labelled ours-stop-none)")
    parser.add_argument("--ours-only", action="store_true",
                        help="skip the reference (to add rows of ours beside existing ones)")
    parser.add_argument("--out", type=Path, required=True)
    return parser.parse_args()


def import_reference(reference: Path) -> types.ModuleType:
    """The authors' ``PrivMRF`` package, made importable on NumPy and current libraries."""
    cupy = types.ModuleType("cupy")
    cupy.__dict__.update({name: getattr(np, name) for name in dir(np) if not name.startswith("_")})
    cupy.asnumpy = np.asarray  # type: ignore[attr-defined]
    cupy.get_array_module = lambda *arrays: np  # type: ignore[attr-defined]
    sys.modules.setdefault("cupy", cupy)
    collections.Iterable = collections.abc.Iterable  # type: ignore[attr-defined]
    groupby = pd.DataFrame.groupby

    def pandas_1_groupby(self, *args, **kwargs):
        kwargs.setdefault("group_keys", False)
        return groupby(self, *args, **kwargs)

    pd.DataFrame.groupby = pandas_1_groupby  # type: ignore[method-assign]
    sys.path.insert(0, str(reference))
    import PrivMRF

    return PrivMRF


def reference_privmrf(package: types.ModuleType, data: Dataset, epsilon: float, seed: int,
                      scratch: Path) -> Dataset:
    """The authors' PrivMRF at its defaults; its sampler's records, in our domain."""
    from PrivMRF.domain import Domain as RefDomain

    domain = RefDomain({i: {"domain": size} for i, size in enumerate(data.domain.sizes)},
                       list(range(len(data.domain))))
    random.seed(seed)
    np.random.seed(seed)
    model = package.run(data.frame.to_numpy(), domain, None, f"reference-{seed}", epsilon,
                        p_config={"print": False})
    records = np.asarray(model.synthetic_data(str(scratch)), dtype=np.int64)
    frame = pd.DataFrame(records[:, :len(data.domain)], columns=list(data.domain.attributes))
    return Dataset(frame, data.domain)


def main() -> None:
    args = parse_args()
    package = import_reference(args.reference.resolve())
    from PrivMRF.utils.tools import privacy_budget

    ratio = None if args.no_stop else args.stop_ratio
    config = PrivMRFConfig(stop_ratio=ratio)
    label = "ours-stop-none" if ratio is None else f"ours-stop-{ratio:g}"

    revision = collect_provenance("cpu")["git_revision"]
    for name in args.dataset:
        data = load_aim_dataset(name)
        workload = build_workload(args.workload, data, name)
        for epsilon in args.epsilon:
            gdp = privacy_budget(epsilon)  # mu^2 of the authors' Gaussian-DP accounting
            budget = PrivacyBudget(rho=gdp / 2, relation=NeighbourRelation.ADD_REMOVE)
            for seed in args.seed:
                started = time.perf_counter()
                ours = PrivMRF(config).fit(data, budget, np.random.default_rng(seed)).synthetic
                runs = {label: (ours, time.perf_counter() - started)}
                if not args.ours_only:
                    started = time.perf_counter()
                    scratch = Path("/tmp") / f"privmrf-reference-{name}-{epsilon}-{seed}.csv"
                    theirs = reference_privmrf(package, data, epsilon, seed, scratch)
                    runs["reference"] = (theirs, time.perf_counter() - started)
                for engine, (synthetic, seconds) in runs.items():
                    row = {"dataset": name, "workload": args.workload, "epsilon": epsilon,
                           "delta": REFERENCE_DELTA, "gdp_mu_squared": gdp, "seed": seed,
                           "engine": engine, "records": synthetic.records,
                           "workload_error": workload_error(data, synthetic, workload),
                           "seconds": seconds, "git_revision": revision}
                    append(args.out, row)
                    print(row, flush=True)


if __name__ == "__main__":
    main()
