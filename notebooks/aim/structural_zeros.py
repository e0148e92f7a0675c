# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Structural zeros (Table 3)
#
# Appendix D of the AIM paper imposes known impossible value combinations on the model and
# compares AIM with and without them on fire with the all-3way workload. The paper used 9 attribute
# pairs and 2,696 zero cells without listing them; we use the 9 pairs of
# `reprolib.papers.aim.experiments.FIRE_ZERO_PAIRS` (a coarser grouping of a finer attribute: geography and
# call-type group) and take their empty cells as the known zeros. Read off the private data,
# they stand in for an expert's list, so the AIM+SZ runs are **not differentially private** as
# run (their ledgers record AIM's spend as if the list were public; {ref}`aim-structural-zeros`
# says why). Ratio = AIM / AIM+SZ: above 1 means the zeros helped.

# %% tags=["parameters", "remove-cell"]
scale = "small"
device = "auto"
overrides = {}

# %% tags=["hide-input"]
import pandas as pd
from IPython.display import display
from myst_nb import glue

from reprolib.experiments import compute_summary, run_experiment
from reprolib.papers.aim.checks import PAPER_TABLE3
from reprolib.papers.aim.figures import summarise

runs = run_experiment("aim-tab3", scale=scale, device=device, progress=False, overrides=overrides)
# the grid under the chosen home of the potentials, and the 2022 home's runs beside it
home = runs.get("param.potentials", pd.Series(index=runs.index, dtype=object)).fillna(
    "measured-cliques")
chosen = overrides.get("potentials", "measured-cliques")
results = runs[home == chosen]
zeros = int(results.loc[results["mechanism"] == "AIM+SZ", "metric.structural_zeros"].iloc[0])
dataset = results["dataset"].iloc[0]
print(f"scale = {scale}: dataset {dataset}, {zeros:,} structural zeros (paper: 2,696 on fire), "
      f"{results['seed'].nunique()} trial(s), {results['param.pgm_iters'].iloc[0]} Private-PGM iterations, "
      f"capacity {results['param.max_model_size_mb'].iloc[0]:g} MB")
print(f"compute (both homes of the potentials): {compute_summary(runs)}")
glue("aim-tab3-zeros", zeros, display=False)

# %% tags=["hide-input"]
table = summarise(results).pivot_table(index="epsilon", columns="mechanism", values="mean")
table["ratio"] = table["AIM"] / table["AIM+SZ"]
paper = PAPER_TABLE3.set_index("epsilon")
table = table.join(paper.add_prefix("paper "), how="left")
table.style.format("{:.3f}").format_index("{:g}")

# %% tags=["hide-input"]
import numpy as np

ratio = table["ratio"].dropna()
print(f"AIM / AIM+SZ over the {len(ratio)} ε: geometric mean {np.exp(np.log(ratio).mean()):.3f}, "
      f"the zeros help at {int((ratio > 1).sum())} of them (paper: geometric mean "
      f"{np.exp(np.log(paper['ratio']).mean()):.3f}, the zeros help at "
      f"{int((paper['ratio'] > 1).sum())} of {len(paper)})")

# %% [markdown]
# ## With the 2022 home of Private-PGM's potentials
#
# The same grid run with `potentials="junction-tree-2022"`, the home of the potentials in the
# Private-PGM engine the paper ran (the section "Why, at ε = 1" below says what it changes), beside
# our default's ratio above. The small scale runs it up to ε = 10
# (`reprolib.papers.aim.experiments.HOME_2022_EPSILONS`); the section on the capacity filter at the
# end of this page says why not beyond.

# %% tags=["hide-input"]
old_home = runs[home == "junction-tree-2022"] if chosen != "junction-tree-2022" else runs.iloc[:0]
if old_home.empty:
    print("Not run under the 2022 home at this scale.")
else:
    by_home = summarise(old_home).pivot_table(index="epsilon", columns="mechanism", values="mean")
    by_home["ratio"] = by_home["AIM"] / by_home["AIM+SZ"]
    by_home["ratio, our default"] = table["ratio"]
    by_home["paper ratio"] = paper["ratio"]
    display(by_home.style.format("{:.3f}").format_index("{:g}"))
    ratio_2022 = by_home["ratio"].dropna()
    ratio_default = by_home.loc[ratio_2022.index, "ratio, our default"]
    print(f"AIM / AIM+SZ with the 2022 home: geometric mean "
          f"{np.exp(np.log(ratio_2022).mean()):.3f}, the zeros help at "
          f"{int((ratio_2022 > 1).sum())} of {len(ratio_2022)} ε (our default at the same ε: "
          f"{np.exp(np.log(ratio_default).mean()):.3f}, at {int((ratio_default > 1).sum())})")
    beyond = table.index.difference(by_home.index)
    if len(beyond):
        print("not run under the 2022 home at ε = " + ", ".join(f"{e:g}" for e in beyond)
              + " (the section on the capacity filter below says why)")

# %% [markdown]
# ## The authors' code at the same settings
#
# Where the paper finds the zeros helping on average, at the small scale they hurt on average
# (the first table; the check `aim-tab3-zeros-help-small` records it as a deviation), under either
# home of the potentials: the 2022 home moves single ε, ε = 1 above all, not the average. To tell a
# fault of ours from an effect of the reduced settings,
# `benchmarks/aim_reference.py --table-3` runs the comparison with our AIM and with the authors'
# 2022 `aim.py` on its own Private-PGM engine (imported from a local checkout of the public
# private-pgm history, never copied here), both given the same nine pairs' zeros, on fire with the
# all-3way workload, at the settings below: the capacity, the Private-PGM iterations (one count for
# every round and the final fit), ε and the seed values. The reference draws its noise from NumPy's
# global generator and ours from `default_rng(seed)`, so the same seed value gives different draws.
# A ratio below 1 in the reference's rows means the authors' own code is hurt by the zeros too.

# %% tags=["hide-input"]
from reprolib.papers.aim.reference import ZEROS_CSV, zeros_reference_table

beside = zeros_reference_table()
if beside is None:
    print(f"no seed has run both yet: benchmarks/aim_reference.py --table-3 writes {ZEROS_CSV}")
else:
    display(beside.style.format(precision=3)
            .format("{:.1f}", subset=["rounds AIM", "rounds AIM+SZ"])
            .format_index("{:g}", level=["MB", "epsilon"]))

# %% [markdown]
# ## Why, at ε = 1: what a warm start keeps
#
# At ε = 1 the zeros help the reference and hurt our default. The cause is one difference between
# the Private-PGM engines, which the runtime page's replay shows round by round
# ({doc}`runtime`): every AIM round refits the model from the previous one, and the 2022 library
# keeps its potentials on the cliques of the junction tree, dropping those that a new
# triangulation no longer holds, while mbi 2.0 (and our default, `potentials="measured-cliques"`)
# keeps all of them. A fit that starts from a partly forgotten model moves it more, a large move
# is not an anneal, and so the reference anneals less often and runs more rounds (the rounds
# columns above). With the 2022 home, `potentials="junction-tree-2022"` (the rows
# `ours:backtracking-2022:junction-tree-2022`), our AIM+SZ ends where the reference's does and the
# zeros help it too; without the zeros the two homes end within the seeds' spread of each other.
# On the same measurements our default's fits reach the lower loss (the replay's loss columns),
# so what differs is how many rounds AIM runs, not how well a round fits. Which home is better for
# AIM in general is open: the paper ran the 2022 one, mbi 2.0 moved away from it. The section
# "With the 2022 home" above gives Table 3 under it.
#
# ## Why, at ε = 10: the zeros take the capacity
#
# At ε = 10 the authors' code is hurt as ours is, under either home of the potentials, so there
# the cause lies in the setting. Each zero pair must be a clique of the model
# ({ref}`aim-structural-zeros`), and the nine pairs link the geographic attributes (battalion,
# station area, city, zip code, neighbourhood, supervisor and fire prevention districts) in
# cycles. A junction tree that holds them merges those attributes into large cliques, so every
# marginal that adds one more geographic link costs far more. Below, the size of the junction
# tree (JT-SIZE, MB) of the 1-way marginals and one 3-way marginal on battalion, neighbourhood
# and a third attribute, without and with the zero pairs:

# %% tags=["hide-input"]
from reprolib.mechanisms.pgm import junction_tree_size_mb
from reprolib.papers.aim.experiments import FIRE_ZERO_PAIRS
from reprolib.papers.aim.setup import load_aim_dataset

fire = load_aim_dataset("fire").domain
one_way = [(a,) for a in fire.attributes]
pairs = [tuple(a for a in fire.attributes if a in pair) for pair in FIRE_ZERO_PAIRS]
linked = ("Battalion", "Neighborhooods - Analysis Boundaries")
sizes = pd.DataFrame(
    [(third, junction_tree_size_mb(fire, [*one_way, clique]),
      junction_tree_size_mb(fire, [*one_way, *pairs, clique]))
     for third in ("ALS Unit", "Final Priority", "Call Type Group", "City")
     for clique in [tuple(a for a in fire.attributes if a in (*linked, third))]],
    columns=["third attribute", "without the zeros (MB)", "with the zero pairs (MB)"])
sizes.style.format(precision=3).hide(axis="index")

# %% [markdown]
# Inside AIM the same effect compounds with the marginals already selected: in a model that
# already holds the zero pairs and AIM's earlier selections, a 3-way marginal on battalion and
# neighbourhood no longer fits under the small scale's 10 MB, so AIM+SZ never measures one and the
# workload marginals on that pair keep a large error. (A diagnostic run of ours, seed 0 at ε = 10,
# not stored with the results, puts numbers on it; the check's note quotes them: by it, that is
# most of the gap at ε = 10.) The rows at other settings in the table above separate the two cuts of the small scale:
# more capacity (80 MB) shrinks the harm, more Private-PGM iterations alone (1000 a round) do
# not. Neither brings the ratio near the paper's at ε = 10. What we could not run: 80 MB with
# 1000 iterations together (hours a run on a CPU core), and the paper's own zero pairs, which it
# does not list; pairs that close fewer cycles would cost less capacity.

# %% [markdown]
# ## The 2022 capacity filter
#
# AIM admits a candidate only if the junction tree of the marginals measured so far, the zero
# sets and the candidate fits in the round's share of the capacity (the paper's Algorithm 4, line 12, with
# the zero sets as Appendix D asks). The authors' 2022 script computes that size on the fitted
# model's cliques instead. On its engine those are the maximal cliques of the model's junction
# tree, fill-in included, while the next fit triangulates the measured sets and the candidate
# afresh, and the greedy elimination order can then come out far larger. Our
# `potentials="junction-tree-2022"` keeps the 2022 model, and so the 2022 filter; under our
# default the model's cliques are the measured ones and the filter computes the paper's size.
# `benchmarks/aim_capacity_2022.py` traces AIM+SZ round by round: for each run the rounds
# traced, how many of them fitted a tree of another size than the filter had computed, the
# largest size the filter computed and the largest tree a fit built, the first round whose fit
# went over the capacity, whether the trace was stopped there (at a fit over five times the
# capacity, which would take many minutes and gigabytes every round), and the largest difference
# between our sizes and those of the 2022 library's own `hypothetical_model_size` on the same
# sets.

# %% tags=["hide-input"]
from reprolib.papers.aim.reference import CAPACITY_CSV, capacity_trace_table

trace = capacity_trace_table()
if trace is None:
    print(f"no trace yet: benchmarks/aim_capacity_2022.py writes {CAPACITY_CSV}")
else:
    display(trace.style.format(precision=2).format("{:.0f}", subset=["first round over"],
                                                   na_rep="none")
            .format_index("{:g}", level=["epsilon", "MB"]))
    over = trace[trace["fit MB"] > trace.index.get_level_values("MB")]
    for (epsilon, seed, home, _, capacity), run in over.iterrows():
        print(f"ε = {epsilon:g}, seed {seed}, {home}: a fit over {capacity:g} MB from round "
              f"{run['first round over']:.0f}, the largest {run['fit MB']:,.1f} MB"
              + (" (the trace stopped there)" if run["stopped"] else ""))
    print(f"{len(trace) - len(over)} of {len(trace)} traced runs kept every fit within the "
          f"capacity; our sizes and the 2022 library's differ by at most "
          f"{trace['gap to 2022 MB'].max():.1e} MB")

# %% [markdown]
# Under the 2022 home, then, the capacity no longer bounds what AIM fits, and the same holds for
# the authors' script, whose library computes the same sizes. Past ε = 10 at the small scale's
# 10 MB, an AIM+SZ run under that home reaches fits of a hundred MB and more in its last rounds,
# each of them minutes and gigabytes on a CPU core; the small scale leaves those ε out of the
# comparison above. Under our default home the filter computes the paper's JT-SIZE, the size of
# the tree the round's fit then builds, so no fit goes over the round's limit.


# %% [markdown]
# ## What the runs say about the paper's claims
#
# The paper's claims checked on the stored runs of this page, evaluated as it was built. Where
# our runs contradict a claim, the documented deviation gives our finding, its numbers computed
# from the same runs. The scorecard adds the exact, budget and regression checks.

# %% tags=["hide-input"]
from IPython.display import Markdown

from reprolib.experiments import artifact_findings

Markdown(artifact_findings("aim-tab3"))
