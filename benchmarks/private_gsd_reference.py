"""Private-GSD side by side with its authors' code: 2-way TV distance and time, same data and rho.

Runs our Private-GSD (``reprolib.mechanisms.genetic.private_gsd``, :class:`PrivateGSDConfig` at
its defaults but for ``--records`` and ``--max-generations``) and, from ``--reference PATH`` (a
local extract of the public ``giusevtr/private_gsd`` repository at commit f6150d7, e.g.
``git -C <mirror> archive f6150d7 | tar -x -C PATH``), the authors' one-shot Private-GSD as their
entry point ``GSDSynthesizer.fit`` runs it: all 2-way marginals, one Gaussian release spending the
whole rho, m = ``--records`` (2,000) synthetic records, every genetic operator of the package, the
bandit over operators, early stopping at a relative improvement below 1e-4 over blocks of
max(100, m) generations. This is the setting of the PrivPGD paper's Private-GSD baseline; both
engines run on the same AIM dataset (``load_aim_dataset``: already discrete), the same rho (given
directly with ``--rho``, replace-one neighbours) and the same seed value, and our code scores both
with the mean 2-way total variation distance between the released records and the data
(:func:`reprolib.metrics.average_tv`, Eq. 11 of the PrivPGD paper).

How the reference is run (nothing of it is copied here; its modules are imported from
``PATH/src`` and the following is done to them at import time or around the call):

* Bypass of the entry point. ``GSDSynthesizer`` derives from smartnoise-synth's ``Synthesizer``
  and uses its transformers to turn a raw table into codes; smartnoise-synth (and the NumPy < 2
  and jax 0.4.6 the package pins) cannot be installed here, and our data is already coded. The
  script therefore repeats what ``fit`` does after its preprocessing, by calling the package's own
  classes: a ``Domain`` that declares every attribute categorical with our domain sizes (what
  ``fit`` builds when every column is passed as categorical; its label transformer would in
  addition drop codes that never occur in the data, our domain keeps them, as our engine does),
  no numeric thresholds (there are no numeric columns, so ``fit`` computes none and gives the
  whole rho to the marginals), ``Marginals.get_all_kway_combinations(k=2, tree_query_depth=3)``
  fitted in an ``AdaptiveChainedStatistics``, ``private_measure_all_statistics`` at our rho, and
  ``GeneticSD(..., stop_early=True, stop_eary_threshold=1e-4, sparse_statistics=True)`` with all
  of ``AVAILABLE_GENETIC_OPERATORS``, fitted on the release; the jax keys are split from
  ``PRNGKey(seed)`` in the order ``fit`` splits them. The package's ``__init__`` (which imports the
  smartnoise-dependent entry point) is not run: ``genetic_sd`` is registered as a bare package
  whose path is the extract's, so its subpackages import as they are.
* Budget. ``fit`` converts (epsilon, delta) with smartnoise's ``cdp_rho``; the script skips that
  and hands our rho straight to ``private_measure_all_statistics``, which gives each of the
  C(d, 2) marginals rho / C(d, 2) with L2 sensitivity sqrt(2) / N, i.e. noise of standard
  deviation sqrt(C(d, 2) / rho) / N on every cell frequency: the same as our one release of all
  marginals (sensitivity sqrt(2 C(d, 2)) in counts) at the same rho.
* Shims. flax is not installed here; the reference uses only ``flax.struct.dataclass``, which the
  script supplies as a frozen dataclass registered as a jax pytree with a ``replace`` method.
  ``snsynth.utils.cdp_rho`` (imported by its generator base class for methods the one-shot path
  never calls) is a stub that raises if called. Python's global ``random`` (the reference
  shuffles the column order of its mutation operator with it, unseeded) is seeded with the seed.
* Generation cap and time limit. ``fit`` asks for 50,000,000 generations, i.e. no cap but early
  stopping; the script passes ``--max-generations`` instead (so its keys, split from one key into
  that many, differ from a run with the entry point's number). Its early-stopping check (a module
  function called every max(100, m) generations) is wrapped: the wrapper records the generation
  and the verdict, and also ends the run at the first check after ``--time-limit`` seconds (the
  reference has no time limit of its own). ``stopped_early`` is its own criterion's verdict;
  ``stop`` says what ended each run (``early``, ``time-limit`` or ``generations``).

Where the setting still differs: the reference clips its noisy frequencies to [0, 1] and, with
``sparse_statistics=True``, fits per marginal only the m cells with the largest noisy values (a
marginal with more than m cells loses the rest; on adult the largest has 1,344 cells, so at
m = 2,000 none is dropped); ours fits every cell, unclipped. ``own_fitness`` is each engine's
last fitness on its own targets (theirs: at its last early-stopping check), so the two are not
comparable. Its generations
propose 50 candidates from one operator that a bandit picks; ours propose ``mutations`` mutations
and ``crossovers`` crossovers. The two draw different noise from the same seed value. The
reference's early-stopping reference point is the fitness one block earlier, checked from
generation 2m on; ours compares consecutive blocks from the first. Wall time for the reference
includes its setup of the statistics (its vmap'd scans over the data), ours includes the release;
both include compilation. The reference checks its stopping rule only every max(100, m)
generations, so a time-limited run overshoots ``--time-limit`` by up to one block (15 to 35 s on
one CPU thread at m = 2,000). ``--stop-tolerance`` sets both engines' early-stopping tolerance
(default the entry point's 1e-4; 0 never stops early, so a run makes ``--max-generations``
generations, or the reference runs to its time limit): the file's runs without early stopping
measure how our search's distance moves with its length. Rows are appended to ``--out``, each
with its tolerance (the file's rows came from these calls, one process at a time, on one CPU
thread)::

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/private_gsd_reference.py --engine ours \\
        --dataset adult --rho 0.005 0.05 0.5 --seed 0 1 \\
        --out results/privpgd/benchmarks/gsd-reference.csv
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/private_gsd_reference.py --engine reference \\
        --reference /work/scratch/gsd_ref --dataset adult --rho 0.005 0.05 0.5 --seed 0 \\
        --time-limit 540 --out results/privpgd/benchmarks/gsd-reference.csv   (then --seed 1)
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/private_gsd_reference.py --engine ours \\
        --dataset adult --rho 0.005 0.5 --seed 0 1 --stop-tolerance 0 --max-generations G \\
        --out results/privpgd/benchmarks/gsd-reference.csv   (G = 20000, 50000, 200000)

The last ran beside two other processes on a 2-core machine: their seconds are not comparable.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import random
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
from reprolib.mechanisms.genetic.private_gsd import PrivateGSD, PrivateGSDConfig
from reprolib.metrics import average_tv
from reprolib.papers.aim.setup import load_aim_dataset
from reprolib.privacy import NeighbourRelation, PrivacyBudget

REFERENCE_TREE = "f6150d7"  # giusevtr/private_gsd
STOP_TOLERANCE = 1e-4  # the entry point's early_stop_threshold (ours: PrivateGSDConfig's default)


def parse_args() -> argparse.Namespace:
    parser = side_by_side_parser(__doc__.splitlines()[0], "giusevtr/private_gsd at f6150d7",
                                 "adult")
    parser.add_argument("--rho", type=float, nargs="+", default=[0.005, 0.05, 0.5])
    parser.add_argument("--seed", type=int, nargs="+", default=[0])
    parser.add_argument("--records", type=int, default=PrivateGSDConfig().records,
                        help="m, the synthetic records of both engines")
    parser.add_argument("--max-generations", type=int, default=PrivateGSDConfig().generations,
                        help="the most generations of both engines")
    parser.add_argument("--stop-tolerance", type=float, default=STOP_TOLERANCE,
                        help="both engines' early-stopping tolerance (0: no early stopping)")
    parser.add_argument("--time-limit", type=float, default=600.0,
                        help="seconds after which the reference stops at its next early-stopping "
                             "check (ours has no time limit)")
    return parse_side_by_side(parser)


def _pytree_dataclass(cls):
    """Stand-in for ``flax.struct.dataclass``: a frozen dataclass, a jax pytree, ``.replace``."""
    import jax

    cls = dataclasses.dataclass(frozen=True)(cls)
    names = [field.name for field in dataclasses.fields(cls)]
    jax.tree_util.register_pytree_node(
        cls, lambda obj: ([getattr(obj, name) for name in names], None),
        lambda _, children: cls(*children))
    cls.replace = lambda self, **changes: dataclasses.replace(self, **changes)
    return cls


def _no_cdp_rho(*_args, **_kwargs):
    raise NotImplementedError("smartnoise-synth's cdp_rho is not available: pass rho directly")


class _StopMonitor:
    """Wraps the reference's early-stopping check: records it and imposes a time limit."""

    def __init__(self, check) -> None:
        self.check = check
        self.reset(float("inf"))

    def reset(self, time_limit: float) -> None:
        self.time_limit, self.started = time_limit, time.perf_counter()
        self.last_checked, self.stop, self.fitness = None, None, float("nan")

    def __call__(self, t, best_fitness, *args):
        self.last_checked, self.fitness = int(t), float(best_fitness)
        print(f"reference: generation {t}, fitness {self.fitness:.6g}, "
              f"{time.perf_counter() - self.started:.0f} s", file=sys.stderr, flush=True)
        if self.check(t, best_fitness, *args):
            self.stop = "early"
            return True
        if time.perf_counter() - self.started > self.time_limit:
            self.stop = "time-limit"
            return True
        return False


def import_reference(reference: Path) -> types.SimpleNamespace:
    """The authors' modules, importable without smartnoise-synth and flax."""
    source = reference / "src"
    flax, struct = types.ModuleType("flax"), types.ModuleType("flax.struct")
    struct.dataclass = _pytree_dataclass
    flax.struct = struct
    snsynth, utils = types.ModuleType("snsynth"), types.ModuleType("snsynth.utils")
    utils.cdp_rho = _no_cdp_rho
    snsynth.utils = utils
    package = types.ModuleType("genetic_sd")
    package.__path__ = [str(source / "genetic_sd")]  # its __init__ imports smartnoise: not run
    for name, module in {"flax": flax, "flax.struct": struct, "snsynth": snsynth,
                         "snsynth.utils": utils, "genetic_sd": package}.items():
        sys.modules.setdefault(name, module)
    sys.path.insert(0, str(source))
    from genetic_sd.adaptive_statistics import AdaptiveChainedStatistics, Marginals
    from genetic_sd.generator import generator_genetic_sd
    from genetic_sd.generator.mutation_strategies import AVAILABLE_GENETIC_OPERATORS
    from genetic_sd.utils import Dataset as RefDataset
    from genetic_sd.utils import Domain as RefDomain

    monitor = _StopMonitor(generator_genetic_sd.check_early_stop)
    generator_genetic_sd.check_early_stop = monitor
    return types.SimpleNamespace(
        AdaptiveChainedStatistics=AdaptiveChainedStatistics, Marginals=Marginals,
        GeneticSD=generator_genetic_sd.GeneticSD, operators=tuple(AVAILABLE_GENETIC_OPERATORS),
        Dataset=RefDataset, Domain=RefDomain, monitor=monitor)


def reference_gsd(ref: types.SimpleNamespace, data: Dataset, rho: float, seed: int, *,
                  records: int, max_generations: int, stop_tolerance: float,
                  time_limit: float) -> tuple[Dataset, dict[str, object]]:
    """The authors' one-shot Private-GSD as ``GSDSynthesizer.fit`` runs it, on our codes."""
    import jax

    attributes = list(data.domain.attributes)
    domain = ref.Domain({a: {"type": "string", "size": int(s)}
                         for a, s in zip(attributes, data.domain.sizes, strict=True)})
    theirs = ref.Dataset(data.frame[attributes].reset_index(drop=True), domain)
    random.seed(seed)  # its mutation operator shuffles its column order with Python's random
    key = jax.random.PRNGKey(seed)
    domain.set_bin_edges({})  # no numeric columns: no thresholds, the whole rho to the marginals
    generator = ref.GeneticSD(domain=domain, data_size=records, num_generations=max_generations,
                              genetic_operators=ref.operators, print_progress=False,
                              stop_early=True, stop_eary_threshold=stop_tolerance,
                              sparse_statistics=True)
    statistics = ref.AdaptiveChainedStatistics(theirs)
    statistics.add_stat_module_and_fit(ref.Marginals.get_all_kway_combinations(
        domain, k=2, tree_query_depth=3, num_cols_thresholds={}))
    key, key_measure = jax.random.split(key)
    statistics.private_measure_all_statistics(key=key_measure, rho=rho)
    key, key_fit = jax.random.split(key)
    ref.monitor.reset(time_limit)
    synthetic = generator.fit(key_fit, statistics)
    monitor = ref.monitor
    if monitor.stop is None:
        generations, stop = max_generations, "generations"
    else:
        generations, stop = monitor.last_checked + 1, monitor.stop
    codes = np.rint(synthetic.df[attributes].to_numpy(np.float64)).astype(np.int64)
    frame = pd.DataFrame(codes, columns=attributes)
    return Dataset(frame, data.domain), {
        "generations": generations, "stopped_early": stop == "early", "stop": stop,
        "own_fitness": monitor.fitness}


def main() -> None:
    args = parse_args()
    ref = import_reference(args.reference.resolve()) if "reference" in args.engine else None
    revision = collect_provenance("cpu")["git_revision"]
    config = PrivateGSDConfig(records=args.records, generations=args.max_generations,
                              stop_tolerance=args.stop_tolerance)
    for name in args.dataset:
        data = load_aim_dataset(name)
        marginals = len(list(itertools.combinations(data.domain.attributes, 2)))
        for rho in args.rho:
            budget = PrivacyBudget(rho=rho, relation=NeighbourRelation.REPLACE_ONE)
            for engine in args.engine:
                for seed in args.seed:
                    started = time.perf_counter()
                    if engine == "ours":
                        result = PrivateGSD(config).fit(data, budget, np.random.default_rng(seed))
                        seconds = time.perf_counter() - started
                        synthetic = result.synthetic
                        stopped = bool(result.diagnostics["stopped_early"])
                        diagnostics = {
                            "generations": result.diagnostics["generations"],
                            "stopped_early": stopped,
                            "stop": "early" if stopped else "generations",
                            "own_fitness": result.diagnostics["fitness"]}
                        limit = float("nan")
                    else:
                        synthetic, diagnostics = reference_gsd(
                            ref, data, rho, seed, records=args.records,
                            max_generations=args.max_generations,
                            stop_tolerance=args.stop_tolerance, time_limit=args.time_limit)
                        seconds = time.perf_counter() - started
                        limit = args.time_limit
                    row = {"dataset": name, "rho": rho, "seed": seed, "engine": engine,
                           "marginals": marginals, "records": synthetic.records,
                           "max_generations": args.max_generations, "time_limit": limit,
                           "stop_tolerance": args.stop_tolerance,
                           **diagnostics, "tv_distance": average_tv(data, synthetic),
                           "seconds": seconds, "reference_tree": REFERENCE_TREE,
                           "git_revision": revision}
                    append(args.out, row)
                    print(row, flush=True)


if __name__ == "__main__":
    main()
