"""RAP side by side with its authors' code: workload error and time on the same data and budget.

Runs our RAP on the workload's counting queries (``reprolib.mechanisms.relaxed.rap_queries``,
:class:`RAPQueries` at its defaults) and, from ``--reference PATH`` (a local extract of the public
``amazon-science/relaxed-adaptive-projection`` repository at its ICML 2021 tree, commit b690fe1,
written for jax 0.2.7), the authors' ``RAP.train`` at the defaults of their ``main.py``: T = 10
epochs (capped at ceil(|Q| / K), as ``main.py`` does), K = ``--top-q`` 50, n' = 1000 generated
points, 1000 iterations an epoch, Adam at learning rate 1e-3, the L2 norm, early stop at 1e-7,
no projection interval, no binomial initialisation; and ``--categorical-consistency``, which
``main.py`` leaves off by default but which its randomized rounding needs and which our
mechanism always applies (sparsemax projection of every attribute's block). Both run on the same
AIM dataset, workload, rho (from epsilon and delta = 1e-9 by our conversion, under replace-one
neighbours) and seed value. The reference's queries are the workload's marginals, fed to its
k-way statistic (``statistickway.preserve_statistic`` on the cells of the workload's cliques,
built by its dataset class's ``get_queries``) in place of ``main.py``'s random 64 marginals.

Budget: the reference's ``zCDPTracker`` turns (epsilon, delta) into rho by its own conversion;
the script overwrites the tracker's ``budget`` with our rho before training, so both spend the
same total (the tracker then gives rho / T an epoch, half to K report-noisy-max draws with Gumbel
scale (1/N) / sqrt(2 rho_select / K), half to K Gaussian answers with sigma (1/N) / sqrt(2
rho_answer / K): the same noise as ours), and the row records what it used.

Nothing of the reference is copied here: its modules are imported from its path, with shims for
the jax and NumPy of this environment applied at import time (``jax.experimental.optimizers`` is
``jax.example_libraries.optimizers``; ``jax.numpy.DeviceArray``, ``jax.numpy.in1d``,
``jax.partial``, ``jax.ops.index_update`` and ``numpy.int`` are restored; ``jax.numpy.hstack``
and ``vstack`` accept the generators it passes them). Its training loop also recomputes every
query's answer after every Adam step only to log it; the script hands those logging calls a
placeholder (every other call to the statistic, the truth and each epoch's selection scores, is
exact), which leaves its output unchanged and keeps titanic's 173,703 queries affordable. NumPy's
global generator (its Gumbel noise, unseeded in ``main.py``) is seeded with the seed value, and
its jax key is ``PRNGKey(seed)`` split as ``main.py`` splits it.

Each engine releases as many records as the data has. The reference rounds its relaxed rows with
its ``generate_rounded_dataset`` at oversample ceil(N / n') and the script keeps N of those rows
at random (``main.py``'s default oversample floor(N / n') would release fewer than N); our code
scores both with Definition 2 of the AIM paper (:func:`reprolib.metrics.workload_error`). The
two draw different noise from the same seed value. ``final_l2`` is the last step's
||q(D') - y||_2 over the answered queries (fractions of N; ours reports its square). Rows are
appended to ``--out``::

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/rap_reference.py \\
        --reference /work/scratch/rap_ref --dataset titanic nltcs --epsilon 0.1 1 10 --seed 0 1 \\
        --out results/aim/benchmarks/rap-reference.csv
"""

from __future__ import annotations

import argparse
import functools
import math
import sys
import time
import types
from pathlib import Path

import numpy as np
import pandas as pd
from _records import (  # the benchmarks' shared helpers (a sibling module)
    append,
    parse_side_by_side,
    side_by_side_parser,
)

from reprolib.data import Dataset
from reprolib.experiments import collect_provenance
from reprolib.mechanisms.relaxed.rap_queries import RAPQueries, RAPQueriesConfig
from reprolib.metrics import workload_error
from reprolib.papers.aim.setup import DELTA, build_workload, load_aim_dataset
from reprolib.privacy import NeighbourRelation, PrivacyBudget

REFERENCE_TREE = "b690fe1"  # the ICML 2021 tree of amazon-science/relaxed-adaptive-projection


def parse_args() -> argparse.Namespace:
    parser = side_by_side_parser(__doc__.splitlines()[0],
                                 "amazon-science/relaxed-adaptive-projection at b690fe1", "nltcs")
    parser.add_argument("--workload", default="all-3way")
    parser.add_argument("--epsilon", type=float, nargs="+", default=[0.1, 1.0, 10.0])
    parser.add_argument("--seed", type=int, nargs="+", default=[0])
    return parse_side_by_side(parser)


def import_reference(reference: Path) -> types.SimpleNamespace:
    """The authors' modules, made importable on the jax and NumPy of this environment."""
    import jax
    import jax.example_libraries.optimizers
    import jax.numpy as jnp
    import jax.ops

    sys.modules.setdefault("jax.experimental.optimizers", jax.example_libraries.optimizers)
    jax.experimental.optimizers = jax.example_libraries.optimizers  # type: ignore[attr-defined]
    jnp.DeviceArray = jax.Array  # type: ignore[attr-defined]  # used in annotations
    jax.partial = functools.partial  # type: ignore[attr-defined]
    jax.ops.index_update = lambda x, index, y: x.at[index].set(y)  # type: ignore[attr-defined]
    if not hasattr(jnp, "in1d"):
        jnp.in1d = lambda a, b, assume_unique=False, invert=False: jnp.isin(  # type: ignore[attr-defined]
            a, b, assume_unique=assume_unique, invert=invert)
    np.int = int  # type: ignore[attr-defined]  # its get_queries predates NumPy 1.24

    def materialised(stack):
        @functools.wraps(stack)
        def wrapped(arrays, *args, **kwargs):
            if isinstance(arrays, types.GeneratorType):
                arrays = list(arrays)
            return stack(arrays, *args, **kwargs)
        return wrapped

    jnp.hstack, jnp.vstack = materialised(jnp.hstack), materialised(jnp.vstack)
    sys.path.insert(0, str(reference))
    import statistickway
    from datasets.adult import Adult
    from relaxed_adaptive_projection import RAP, RAPConfiguration
    from relaxed_adaptive_projection.constants import Norm
    from utils_data import ohe_to_categorical

    return types.SimpleNamespace(statistickway=statistickway, Adult=Adult, RAP=RAP,
                                 RAPConfiguration=RAPConfiguration, Norm=Norm,
                                 ohe_to_categorical=ohe_to_categorical)


class _ExactButLogs:
    """The reference's statistic, exact except on the calls that only feed its per-step logs.

    ``RAP.train`` calls it on the data (the truth), on the initial rows (epoch 1's selection
    scores), after every Adam step (logs only) and, at each later epoch, on the rows of the last
    step again (the selection scores): those are computed, the rest get a placeholder.
    """

    def __init__(self, statistic, queries: int) -> None:
        self.statistic, self.queries = statistic, queries
        self.calls, self.exact, self.last = 0, 0, None

    def __call__(self, rows):
        import jax.numpy as jnp

        self.calls += 1
        exact = self.calls <= 2 or rows is self.last
        self.last = rows
        if exact:
            self.exact += 1
            return self.statistic(rows)
        return jnp.zeros(self.queries, jnp.float32)


def reference_rap(ref: types.SimpleNamespace, data: Dataset, cliques, epsilon: float,
                  rho: float, seed: int) -> tuple[Dataset, dict[str, object]]:
    """The authors' RAP at ``main.py``'s defaults (categorical consistency on); N records."""
    import jax
    import jax.numpy as jnp

    schema = ref.Adult(False, "", False, data.records, len(data.domain))
    schema.df = data.frame.copy()
    schema.domain = {a: int(s) for a, s in zip(data.domain.attributes, data.domain.sizes,
                                                strict=True)}
    onehot = jnp.asarray(schema.project_feats())
    n, d = onehot.shape
    cliques = [tuple(c) for c in cliques]
    compact, _ = schema.get_queries(cliques)
    statistic = ref.statistickway.preserve_statistic(compact)
    queries = int(statistic(onehot).shape[0])
    top_q, n_prime = 50, 1000
    epochs = int(min(10, math.ceil(queries / top_q)))
    ends = np.cumsum([0, *schema.domain.values()])
    feats_idx = [list(range(ends[i], ends[i + 1])) for i in range(len(ends) - 1)]
    config = ref.RAPConfiguration(
        num_points=n, num_generated_points=n_prime, num_dimensions=d,
        statistic_function=_ExactButLogs(statistic, queries),
        preserve_subset_statistic=ref.statistickway.preserve_subset_statistic,
        get_queries=schema.get_queries, get_sensitivity=ref.statistickway.get_sensitivity,
        verbose=False, silent=True, epochs=epochs, iterations=1000, epsilon=epsilon,
        delta=DELTA, norm=ref.Norm("L2"), projection_interval=None,
        optimizer_learning_rate=1e-3, lambda_l1=0, k=3, top_q=top_q, use_all_queries=False,
        rap_stopping_condition=1e-7, initialize_binomial=False, feats_idx=feats_idx)
    np.random.seed(seed)  # its report-noisy-max draws from NumPy's global generator
    key = jax.random.PRNGKey(seed)
    key, subkey = jax.random.split(key)  # as main.py
    rap = ref.RAP(config, key=key)
    native_rho = rap.tracker.budget
    rap.tracker.budget = rho  # our rho, in place of its own (epsilon, delta) conversion
    key, subkey = jax.random.split(subkey)
    rap.train(onehot, cliques, key)
    onehots = rap.generate_rounded_dataset(key, oversample=-(-n // n_prime))
    records = np.asarray(ref.ohe_to_categorical(onehots, feats_idx), dtype=np.int64)
    keep = np.sort(np.random.default_rng(seed).choice(len(records), n, replace=False))
    frame = pd.DataFrame(records[keep], columns=list(data.domain.attributes))
    return Dataset(frame, data.domain), {
        "rounds": epochs, "top_q": top_q, "steps": len(rap.losses),
        "final_l2": float(rap.losses[-1]), "rho_spent": float(rap.tracker.get_budget_used()),
        "reference_native_rho": float(native_rho)}


def main() -> None:
    args = parse_args()
    ref = import_reference(args.reference.resolve()) if "reference" in args.engine else None
    revision = collect_provenance("cpu")["git_revision"]
    config = RAPQueriesConfig()
    for name in args.dataset:
        data = load_aim_dataset(name)
        workload = build_workload(args.workload, data, name)
        for epsilon in args.epsilon:
            budget = PrivacyBudget.from_epsilon_delta(epsilon, DELTA,
                                                      relation=NeighbourRelation.REPLACE_ONE)
            for seed in args.seed:
                runs = {}
                if "ours" in args.engine:
                    started = time.perf_counter()
                    result = RAPQueries(config).fit(data, budget, np.random.default_rng(seed),
                                                    workload=workload)
                    seconds = time.perf_counter() - started
                    runs["ours"] = (result.synthetic, seconds, {
                        "rounds": result.diagnostics["rounds"],
                        "top_q": result.diagnostics["per_round"],
                        "steps": config.rounds * config.iterations,
                        "final_l2": math.sqrt(result.diagnostics["final_loss"]),
                        "rho_spent": result.ledger.spent_rho,
                        "reference_native_rho": float("nan")})
                if ref is not None:
                    started = time.perf_counter()
                    theirs, diagnostics = reference_rap(ref, data, workload.cliques, epsilon,
                                                        budget.rho, seed)
                    runs["reference"] = (theirs, time.perf_counter() - started, diagnostics)
                for engine, (synthetic, seconds, diagnostics) in runs.items():
                    row = {"dataset": name, "workload": args.workload, "epsilon": epsilon,
                           "delta": DELTA, "rho": budget.rho, "seed": seed, "engine": engine,
                           **diagnostics, "records": synthetic.records,
                           "workload_error": workload_error(data, synthetic, workload),
                           "seconds": seconds, "reference_tree": REFERENCE_TREE,
                           "git_revision": revision}
                    append(args.out, row)
                    print(row, flush=True)


if __name__ == "__main__":
    main()
