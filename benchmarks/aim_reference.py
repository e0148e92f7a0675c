"""AIM side by side with the authors' 2022 code: rounds, anneals, workload error and time.

Runs our AIM under both Private-PGM step rules (``step_rule="backtracking-2022"``, our default,
and ``"mbi-2.0"``), optionally with the 2022 library's home for the potentials
(``ours:backtracking-2022:junction-tree-2022``: ``potentials="junction-tree-2022"``), and, given ``--reference PATH`` (a local checkout of the public
``ryan112358/private-pgm`` repository at a 2022/2023 commit, before the 2.0 rewrite, i.e. with
``src/mbi/inference.py`` holding ``FactoredInference``), the authors' ``mechanisms/aim.py`` on
their NumPy engine, on the same data, epsilon, delta = 1e-9, seed, model capacity and number of
Private-PGM iterations. Nothing of the reference is copied here: the checkout is imported from
its path. Its script needs ``hdmm`` (only ``hdmm.matrix.Identity``), ``autodp`` and
``disjoint_set`` (imported, unused by AIM); where they are missing this script stands in an
identity matrix from SciPy and empty modules.

The reference hard-codes 1000 iterations per round and 2500 for the final fit; to keep CPU time
possible every engine here runs ``--pgm-iters`` (default 100) per round and for the final fit.
The reference draws from NumPy's global generator, seeded with ``--seed``; ours from
``np.random.default_rng(seed)``: same seed value, different noise draws. Rows are appended to
``--out`` (one per dataset, epsilon and engine)::

    PYTHONHASHSEED=0 nice -n 15 .venv/bin/python benchmarks/aim_reference.py \\
        --reference /tmp/ref-pgm --dataset nltcs --epsilon 0.1 1 10 100 \\
        --out results/aim/benchmarks/aim-reference.csv   (the page reads this file)

With ``--table-3`` (fire only) every engine runs without and with Table 3's structural zeros (AIM
and AIM+SZ), the rows recording how many zeros were imposed; they go to
``aim-reference-zeros.csv``, which the structural-zeros page reads.

The workload is all 3-way marginals; the error is Definition 2 of the paper (mean L1 over the
workload divided by the records, :func:`reprolib.metrics.workload_error`), computed by our code
for every engine's synthetic data.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import itertools
import sys
import time
import types
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse
from _records import append  # the benchmarks' CSV writer (a sibling module)

from reprolib.data import Dataset
from reprolib.experiments import collect_provenance
from reprolib.mechanisms.marginal.aim import AIM, AIMConfig
from reprolib.metrics import workload_error
from reprolib.papers.aim.experiments import FIRE_ZERO_PAIRS, structural_zeros
from reprolib.papers.aim.setup import DELTA, build_workload, load_aim_dataset, run_mechanism

ENGINES = ("ours:backtracking-2022", "ours:mbi-2.0", "ours:backtracking-2022:junction-tree-2022",
           "reference-2022")


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", nargs="+", default=["nltcs"])
    parser.add_argument("--epsilon", type=float, nargs="+", default=[0.1, 1.0, 10.0, 100.0])
    parser.add_argument("--capacity", type=float, default=80.0, help="MAX-SIZE in MB")
    parser.add_argument("--pgm-iters", type=int, default=100,
                        help="Private-PGM iterations per round and for the final fit")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--table-3", action="store_true",
                        help="Table 3's comparison (fire only): every engine without and with the"
                             " structural zeros of its attribute pairs, as AIM and AIM+SZ")
    parser.add_argument("--engine", nargs="+", default=list(ENGINES), choices=ENGINES)
    parser.add_argument("--reference", type=Path, default=None,
                        help="local checkout of ryan112358/private-pgm (2022 engine)")
    parser.add_argument("--out", type=Path, default=None, help="CSV to append rows to")
    return parser.parse_args()


def run_ours(engine: str, data: Dataset, workload, epsilon: float, capacity: float, iters: int,
             seed: int, zeros: tuple = ()) -> dict[str, object]:
    rule, *home = engine.split(":")[1:]  # "ours:RULE" or "ours:RULE:POTENTIALS"
    config = AIMConfig(max_model_size_mb=capacity, pgm_iters=iters, final_pgm_iters=iters,
                       step_rule=rule, potentials=home[0] if home else "measured-cliques",
                       structural_zeros=zeros)
    result, seconds = run_mechanism(AIM(config), data, workload, epsilon, seed)
    return {"rounds": result.diagnostics["rounds"], "anneals": result.diagnostics["anneals"],
            "workload_error": workload_error(data, result.synthetic, workload),
            "seconds": seconds}


def _load_reference(checkout: Path, iters: int):
    """The reference ``mechanisms.aim`` module from ``checkout``, its engine held at ``iters``."""
    for name, attributes in (("hdmm", {}), ("hdmm.matrix", {"Identity": scipy.sparse.identity}),
                             ("autodp", {"privacy_calibrator": types.SimpleNamespace()}),
                             ("disjoint_set", {"DisjointSet": None})):
        try:
            importlib.import_module(name)
        except ImportError:
            sys.modules[name] = types.SimpleNamespace(**attributes)
    ours = _pop_mbi()  # the reference's own ``mbi`` (2022) goes by the same name as mbi 2.0
    sys.path[:0] = [str(checkout / "src"), str(checkout)]
    module = importlib.import_module("mechanisms.aim")
    module.MBI_MODULES = _pop_mbi()
    sys.modules.update(ours)

    class FixedIterations(module.FactoredInference):
        """The reference engine, with every fit (rounds and final) at ``iters`` iterations."""

        def __setattr__(self, name, value):
            super().__setattr__(name, iters if name == "iters" else value)

    module.FactoredInference = FixedIterations
    graphical_model = module.MBI_MODULES["mbi.graphical_model"].GraphicalModel
    graphical_model.synthetic_data = _synthetic_data_pandas3
    return module


def _synthetic_data_pandas3(model, rows=None, method="round"):
    """The 2022 ``GraphicalModel.synthetic_data`` ("round" method) for pandas >= 3.

    The 2022 code fills each column group by group with ``groupby(...).apply``, which under
    pandas 3 no longer passes the grouping columns to the function and so loses them. This does
    the same sampling (reverse elimination order; within each group of the already-sampled parent
    values, the conditional counts scaled to the group's size, rounded down, the remainder drawn
    without replacement in proportion to the fractional parts, then shuffled) with explicit
    group indices, drawing from NumPy's global generator as the reference does.
    """
    assert method == "round", "the reference AIM samples with the default 'round' method"
    total = int(model.total) if rows is None else rows
    columns = model.domain.attrs
    frame = pd.DataFrame(np.zeros((total, len(columns)), dtype=int), columns=columns)
    cliques = [set(c) for c in model.cliques]

    def rounded(counts, size):
        counts = counts * size / counts.sum()
        fraction, whole = np.modf(counts)
        whole = whole.astype(int)
        extra = size - whole.sum()
        if extra > 0:
            whole[np.random.choice(counts.size, extra, False, fraction / fraction.sum())] += 1
        values = np.repeat(np.arange(counts.size), whole)
        np.random.shuffle(values)
        return values

    order = model.elimination_order[::-1]
    frame[order[0]] = rounded(model.project([order[0]]).datavector(flatten=False), total)
    used = {order[0]}
    for column in order[1:]:
        parents = tuple(used.intersection(set.union(*[c for c in cliques if column in c])))
        used.add(column)
        table = model.project(parents + (column,)).datavector(flatten=False)
        if not parents:
            frame[column] = rounded(table, total)
            continue
        for key, index in frame.groupby(list(parents)).indices.items():
            key = key if isinstance(key, tuple) else (key,)
            frame.loc[index, column] = rounded(table[key], len(index))
    return sys.modules["mbi"].Dataset(frame, model.domain)  # the 2022 Dataset (see _reference_mbi)


def _pop_mbi() -> dict[str, types.ModuleType]:
    """Remove and return the loaded ``mbi`` package and its submodules."""
    return {name: sys.modules.pop(name) for name in list(sys.modules)
            if name == "mbi" or name.startswith("mbi.")}


@contextlib.contextmanager
def _reference_mbi(module):
    """Within the block ``import mbi`` (the reference imports inside functions) is the 2022 one."""
    ours = _pop_mbi()
    sys.modules.update(module.MBI_MODULES)
    try:
        yield module.MBI_MODULES["mbi"]
    finally:
        _pop_mbi()
        sys.modules.update(ours)


def reference_zeros(zeros: tuple) -> dict:
    """Structural zeros as the 2022 engine takes them: {clique: list of impossible cells}."""
    return {z.clique: [tuple(int(v) for v in cell) for cell in z.cells] for z in zeros}


def run_reference(module, data: Dataset, workload, epsilon: float, capacity: float,
                  seed: int, zeros: tuple = ()) -> dict[str, object]:
    log = io.StringIO()
    with _reference_mbi(module) as mbi, contextlib.redirect_stdout(log):
        domain = mbi.Domain(data.domain.attributes, data.domain.sizes)
        reference_data = mbi.Dataset(data.frame, domain)
        np.random.seed(seed)  # the reference draws from NumPy's global generator
        mechanism = module.AIM(epsilon, DELTA, max_model_size=capacity,
                               structural_zeros=reference_zeros(zeros))
        started = time.perf_counter()
        synthetic = mechanism.run(reference_data, [(tuple(c), 1.0) for c in workload.cliques])
        seconds = time.perf_counter() - started
    events = [line for line in log.getvalue().splitlines()
              if line.startswith("Selected") or "Reducing sigma" in line]
    rounds = sum(line.startswith("Selected") for line in events)
    # an anneal printed after the last round's selection is the final round's: ours does not count it
    last = max(i for i, line in enumerate(events) if line.startswith("Selected"))
    anneals = sum("Reducing sigma" in line for line in events[:last])
    frame = pd.DataFrame({a: np.asarray(synthetic.df[a], dtype=np.int64)
                          for a in data.domain.attributes})
    synthetic = Dataset(frame, data.domain, source="reference synthetic")
    return {"rounds": rounds, "anneals": anneals,
            "workload_error": workload_error(data, synthetic, workload), "seconds": seconds}


def _table3_zeros(data: Dataset, name: str) -> tuple:
    """Table 3's structural zeros on fire (the empty cells of its nine attribute pairs)."""
    if name != "fire":
        raise SystemExit(f"--table-3: Table 3's attribute pairs are fire's, not {name}'s")
    return structural_zeros(data, FIRE_ZERO_PAIRS)


def main() -> None:
    args = parse_args()
    reference = None
    if "reference-2022" in args.engine:
        if args.reference is None:
            raise SystemExit("--reference PATH is needed for the reference-2022 engine")
        reference = _load_reference(args.reference, args.pgm_iters)
    revision = collect_provenance("cpu")["git_revision"]
    for name in args.dataset:
        data = load_aim_dataset(name)
        workload = build_workload("all-3way", data, name)
        zero_sets = ((), _table3_zeros(data, name)) if args.table_3 else ((),)
        for epsilon, zeros, engine in itertools.product(args.epsilon, zero_sets, args.engine):
            if engine == "reference-2022":
                measured = run_reference(reference, data, workload, epsilon, args.capacity,
                                         args.seed, zeros)
            else:
                measured = run_ours(engine, data, workload, epsilon,
                                    args.capacity, args.pgm_iters, args.seed, zeros)
            row = {"dataset": name, "workload": "all-3way", "epsilon": epsilon,
                   "delta": DELTA, "engine": engine, **measured, "pgm_iters": args.pgm_iters,
                   "max_model_size_mb": args.capacity, "seed": args.seed,
                   **({"structural_zeros": sum(len(z.cells) for z in zeros)}
                      if args.table_3 else {}),
                   "git_revision": revision}
            print(row, flush=True)
            if args.out is not None:
                append(args.out, row)


if __name__ == "__main__":
    main()
