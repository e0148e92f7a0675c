"""Where AIM's capacity filter looks, and what the next fit builds (a benchmark, not a test).

AIM admits a candidate r in round t only if JT-SIZE(r_1, ..., r_(t-1), r), the junction tree of
the marginals measured so far, the structural zeros' sets and r, fits in the round's share of
MAX-SIZE (Algorithm 4, line 12, and the paper's Appendix on structural zeros). The authors' 2022
script computes it on the fitted model's cliques instead (``hypothetical_model_size(domain,
model.cliques + [cl])``). On their engine those are the maximal cliques of the model's junction
tree, fill-in included, while the next fit triangulates the measured sets afresh, with a greedy
elimination order that may come out far larger. Our ``potentials="junction-tree-2022"`` keeps the
2022 home of the potentials, and with it the 2022 filter; under our default home the model's
cliques are the measured ones and the two sizes agree.

This runs our AIM and records every round: the selected marginal, JT-SIZE as the filter computed
it (the previous model's cliques, the zero sets and the selection) and JT-SIZE of the tree the
round's fit builds (every measured set and the zero sets), and the fit's seconds. A run stops,
recorded as stopped, at the first fit whose tree exceeds ``--stop-factor`` times the capacity
(such a fit takes many minutes and gigabytes). With ``--reference PATH`` (the 2022 checkout that
``aim_reference.py`` reads) each round's two sizes are also computed by the 2022 library's own
``hypothetical_model_size``, the function its ``aim.py`` filters with, on the same sets (under the
2022 home, on the cliques of the 2022 library's own model)::

    PYTHONHASHSEED=0 .venv/bin/python benchmarks/aim_capacity_2022.py --reference /tmp/ref-pgm \\
        --epsilon 100 --seed 0 --table-3 --out results/aim/benchmarks/aim-capacity-2022.csv

The setting is Table 3's at the small scale: fire, all-3way, 10 MB, 100 iterations.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from _records import append  # the benchmarks' CSV writer (a sibling module)
from aim_reference import _load_reference, _reference_mbi, _table3_zeros

from reprolib.experiments import collect_provenance
from reprolib.mechanisms.marginal import aim as aim_module
from reprolib.mechanisms.pgm import junction_tree_size_mb
from reprolib.papers.aim.setup import build_workload, load_aim_dataset, run_mechanism


class Stopped(Exception):
    """A fit's junction tree is past the stop size: the run ends here."""


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="fire")
    parser.add_argument("--epsilon", type=float, nargs="+", default=[100.0])
    parser.add_argument("--seed", type=int, nargs="+", default=[0])
    parser.add_argument("--capacity", type=float, default=10.0, help="MAX-SIZE in MB")
    parser.add_argument("--pgm-iters", type=int, default=100)
    parser.add_argument("--potentials", nargs="+", default=["junction-tree-2022"],
                        choices=("measured-cliques", "junction-tree-2022"))
    parser.add_argument("--table-3", action="store_true", help="impose Table 3's zeros (fire)")
    parser.add_argument("--stop-factor", type=float, default=5.0)
    parser.add_argument("--reference", type=Path, default=None,
                        help="local checkout of ryan112358/private-pgm (2022) for its sizes")
    parser.add_argument("--out", type=Path, default=None, help="CSV to append rows to")
    return parser.parse_args()


def reference_sizes(module, domain, potentials, previous, measured, zero_sets, selected
                    ) -> tuple[float, float]:
    """The 2022 library's JT-SIZE (MB) of the sets our filter read and of those our fit built:
    under the 2022 home the filter's are its own model's cliques (those of the junction tree of
    the sets measured before), so that the two libraries' trees are compared too.
    """
    with _reference_mbi(module) as mbi:
        old = mbi.Domain(domain.attributes, domain.sizes)
        model = [*previous, *zero_sets]
        if potentials == "junction-tree-2022":
            model = [*mbi.GraphicalModel(old, model).cliques, *zero_sets]
        return (module.hypothetical_model_size(old, [*model, selected]),
                module.hypothetical_model_size(old, [*measured, *zero_sets]))


def traced_run(args, data, workload, epsilon, seed, potentials, zeros, reference) -> list[dict]:
    """One AIM run, its round fits recorded (and checked against the stop size) as they happen."""
    rows: list[dict] = []
    fit_model = aim_module.fit_model
    stop_mb = args.stop_factor * args.capacity
    fitted = 0  # measurements in the previous fit

    def fit(domain, measurements, *, warm_start, constraints, **options):
        nonlocal fitted
        measured = [tuple(m.clique) for m in measurements]
        zero_sets = [tuple(c.clique) for c in constraints]
        is_round = warm_start is not None and len(measured) > fitted
        fitted = len(measured)
        if not is_round:  # the first fit on the one-way marginals, or the final one
            return fit_model(domain, measurements, warm_start=warm_start,
                             constraints=constraints, **options)
        selected = measured[-1]
        row = {"round": len(rows) + 1, "selected": " | ".join(selected),
               "filter_jt_mb": junction_tree_size_mb(
                   domain, [*(tuple(c) for c in warm_start.cliques), *zero_sets, selected]),
               "fit_jt_mb": junction_tree_size_mb(domain, [*measured, *zero_sets])}
        if reference is not None:
            row["reference_filter_jt_mb"], row["reference_fit_jt_mb"] = reference_sizes(
                reference, domain, potentials, measured[:-1], measured, zero_sets, selected)
        rows.append(row)
        if row["fit_jt_mb"] > stop_mb:
            row["fit_seconds"], row["stopped"] = float("nan"), True
            raise Stopped
        started = time.perf_counter()
        model = fit_model(domain, measurements, warm_start=warm_start, constraints=constraints,
                          **options)
        row["fit_seconds"], row["stopped"] = time.perf_counter() - started, False
        return model

    config = aim_module.AIMConfig(max_model_size_mb=args.capacity, pgm_iters=args.pgm_iters,
                                  final_pgm_iters=args.pgm_iters, potentials=potentials,
                                  structural_zeros=zeros)
    aim_module.fit_model = fit
    try:
        run_mechanism(aim_module.AIM(config), data, workload, epsilon, seed)
    except Stopped:
        pass
    finally:
        aim_module.fit_model = fit_model
    return rows


def main() -> None:
    args = parse_args()
    reference = None if args.reference is None else _load_reference(args.reference, 1)
    data = load_aim_dataset(args.dataset)
    workload = build_workload("all-3way", data, args.dataset)
    zeros = _table3_zeros(data, args.dataset) if args.table_3 else ()
    revision = collect_provenance("cpu")["git_revision"]
    for epsilon in args.epsilon:
        for seed in args.seed:
            for potentials in args.potentials:
                for row in traced_run(args, data, workload, epsilon, seed, potentials, zeros,
                                      reference):
                    row = {"dataset": args.dataset, "epsilon": epsilon, "seed": seed,
                           "potentials": potentials,
                           "structural_zeros": sum(len(z.cells) for z in zeros),
                           "max_model_size_mb": args.capacity, "pgm_iters": args.pgm_iters,
                           **row, "git_revision": revision}
                    print(row, flush=True)
                    if args.out is not None:
                        append(args.out, row)


if __name__ == "__main__":
    main()
