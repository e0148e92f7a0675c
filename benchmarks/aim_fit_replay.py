"""One AIM run's measurements replayed through three Private-PGM fits, round by round.

AIM's annealing test compares how far a round's fit moves the model on the marginal just measured,
||w - z||_1, with sqrt(2/pi) sigma n (Algorithm 3). Whether the fit of one engine moves the model as
another's does can only be seen on the same measurements, since two runs draw different noise and
then select differently. This script runs our AIM once (the default settings of
``benchmarks/aim_reference.py``: step rule "backtracking-2022", potentials on the measured cliques),
then feeds its measurements, the one-way ones first and then one more per round, to

- ``ours``: our fit, potentials on the measured cliques (mbi 2.0's home, our default);
- ``ours-jt2022``: our fit, potentials on the junction tree's cliques (the 2022 library's home);
- ``reference-2022``: the authors' 2022 ``FactoredInference`` (given ``--reference PATH``, loaded
  as ``benchmarks/aim_reference.py`` loads it), warm-started as their ``aim.py`` does,

each warm-started from its own previous fit with ``--pgm-iters`` iterations. Per round and engine it
records the shift ||w - z||_1, the annealing threshold, the loss the fit reached (the Gaussian
log-likelihood sum_i ||M_i(p) - y_i||^2 / (2 sigma_i^2)) and, for the reference, how many of its
previous potentials the warm start dropped (old junction-tree cliques held by no new one). With
``--table-3`` (fire only) the run is AIM+SZ: Table 3's structural zeros are imposed on the run and on
every replayed fit (the reference's engine takes them as its ``structural_zeros``)::

    PYTHONHASHSEED=0 nice -n 15 .venv/bin/python benchmarks/aim_fit_replay.py \\
        --reference /tmp/ref-pgm --dataset fire --epsilon 1 --capacity 10 --seed 0 \\
        --out results/aim/benchmarks/aim-fit-replay.csv   (the runtime page reads this file)
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import scipy.sparse
from _records import append
from aim_reference import _load_reference, _reference_mbi, _table3_zeros, reference_zeros

from reprolib.experiments import collect_provenance
from reprolib.mechanisms.marginal.aim import AIM, AIMConfig, zero_constraints
from reprolib.mechanisms.pgm import fit_model, model_marginals
from reprolib.papers.aim.setup import DELTA, build_workload, load_aim_dataset, run_mechanism
from reprolib.privacy import GAUSSIAN_MEAN_ABS


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="fire")
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--capacity", type=float, default=10.0, help="MAX-SIZE in MB")
    parser.add_argument("--pgm-iters", type=int, default=100,
                        help="Private-PGM iterations per round")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--reference", type=Path, required=True,
                        help="local checkout of ryan112358/private-pgm (2022 engine)")
    parser.add_argument("--table-3", action="store_true",
                        help="AIM+SZ: impose Table 3's structural zeros (fire only)")
    parser.add_argument("--out", type=Path, default=None, help="CSV to append rows to")
    return parser.parse_args()


def _loss(marginal_of, measurements) -> float:
    """sum_i ||M_i(p) - y_i||^2 / (2 sigma_i^2), M_i(p) read by ``marginal_of(clique)``."""
    return float(sum(0.5 * np.sum((marginal_of(m.clique) - np.ravel(m.values)) ** 2) / m.sigma**2
                     for m in measurements))


def replay_ours(domain, measurements, first: int, rounds, iters: int, potentials: str,
                zeros: tuple = ()):
    """(shift, loss) per round for our fit with ``potentials``."""
    constraints = zero_constraints(domain, zeros)
    model = fit_model(domain, measurements[:first], iters=iters, potentials=potentials,
                      constraints=constraints)
    out = []
    for k, round_ in enumerate(rounds):
        clique = round_.selected
        before = model_marginals(model, [clique])[clique]
        seen = measurements[:first + k + 1]
        model = fit_model(domain, seen, iters=iters, warm_start=model, potentials=potentials,
                          constraints=constraints)
        after = model_marginals(model, [clique])[clique]

        def marginal_of(c, model=model):
            return np.ravel(model_marginals(model, [c])[c])

        out.append({"shift": float(np.abs(after - before).sum()),
                    "loss": _loss(marginal_of, seen)})
    return out


def replay_reference(module, data, measurements, first: int, rounds, iters: int,
                     zeros: tuple = ()):
    """(shift, loss, dropped) per round for the 2022 ``FactoredInference``, warm-started."""
    out = []
    with _reference_mbi(module) as mbi:
        domain = mbi.Domain(data.domain.attributes, data.domain.sizes)
        engine = module.FactoredInference(domain, iters=iters, warm_start=True,
                                          structural_zeros=reference_zeros(zeros))
        triples = [(scipy.sparse.identity(m.values.size), np.ravel(m.values), m.sigma,
                    tuple(m.clique)) for m in measurements]
        model = engine.estimate(triples[:first])
        for k, round_ in enumerate(rounds):
            clique = tuple(round_.selected)
            before = model.project(clique).datavector()
            old = [set(c) for c in model.cliques]
            model = engine.estimate(triples[:first + k + 1])
            new = [set(c) for c in model.cliques]

            def marginal_of(c, model=model):
                return model.project(tuple(c)).datavector()

            out.append({"shift": float(np.abs(model.project(clique).datavector() - before).sum()),
                        "loss": _loss(marginal_of, measurements[:first + k + 1]),
                        "dropped": sum(not any(c <= n for n in new) for c in old)})
    return out


def main() -> None:
    args = parse_args()
    reference = _load_reference(args.reference, args.pgm_iters)
    revision = collect_provenance("cpu")["git_revision"]
    data = load_aim_dataset(args.dataset)
    workload = build_workload("all-3way", data, args.dataset)
    zeros = _table3_zeros(data, args.dataset) if args.table_3 else ()
    config = AIMConfig(max_model_size_mb=args.capacity, pgm_iters=args.pgm_iters,
                       final_pgm_iters=args.pgm_iters, structural_zeros=zeros)
    result, _ = run_mechanism(AIM(config), data, workload, args.epsilon, args.seed)
    measurements, rounds = list(result.log.measurements), result.log.rounds
    first = len(measurements) - len(rounds)
    replays = {home: replay_ours(data.domain, measurements, first, rounds, args.pgm_iters, home,
                                 zeros)
               for home in ("measured-cliques", "junction-tree-2022")}
    replays["reference"] = replay_reference(reference, data, measurements, first, rounds,
                                            args.pgm_iters, zeros)
    for k, round_ in enumerate(rounds):
        ours, jt, ref = (replays[e][k] for e in ("measured-cliques", "junction-tree-2022",
                                                  "reference"))
        row = {"dataset": args.dataset, "epsilon": args.epsilon, "delta": DELTA,
               "seed": args.seed, "max_model_size_mb": args.capacity,
               "pgm_iters": args.pgm_iters,
               "structural_zeros": sum(len(z.cells) for z in zeros), "round": round_.index,
               "selected": " x ".join(round_.selected), "sigma": round_.sigma,
               "threshold": GAUSSIAN_MEAN_ABS * round_.sigma * round_.model_selected.size,
               "shift_ours": ours["shift"], "shift_ours_jt2022": jt["shift"],
               "shift_reference": ref["shift"], "loss_ours": ours["loss"],
               "loss_ours_jt2022": jt["loss"], "loss_reference": ref["loss"],
               "reference_dropped": ref["dropped"], "git_revision": revision}
        print(row, flush=True)
        if args.out is not None:
            append(args.out, row)


if __name__ == "__main__":
    main()
