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
# # Runtime (Figure 6) and the speed benchmark
#
# Appendix E of the paper plots AIM's runtime against ε: AIM is budget-aware, so a larger budget
# buys more rounds and larger marginals, and the runtime grows steeply (the paper's runs: one
# 2.4 GHz core, 4 GB; 9 hours for fire at 80 MB and a large ε). The figure uses the wall times
# recorded by the all-3way runs of Figure 1 at the same scale (no new runs), so it shows our
# implementation on whatever machine produced the committed results; the table below says which.

# %% tags=["parameters", "remove-cell"]
scale = "small"
device = "auto"
overrides = {}

# %% tags=["hide-input"]
from IPython.display import display
from myst_nb import glue

from reprolib.experiments import SCALE_MEANING, run_experiment
from reprolib.figures import benchmark_table, headers_in_words
from reprolib.papers.aim.figures import runtime_vs_epsilon
from reprolib.papers.aim.pages import (
    SPEED_CSV,
    runtime_table,
    speed_benchmark,
    speed_benchmark_path,
)
from reprolib.papers.aim.reference import speed_bar_in_words
from reprolib.papers.aim.setup import DELTA

results = run_experiment("aim-fig6", scale=scale, device=device, progress=False,
                         overrides=overrides)
glue("aim-delta", DELTA, display=False)
glue("aim-speed-csv", f"results/{SPEED_CSV.as_posix()}", display=False)
glue("aim-speed-bar", speed_bar_in_words(), display=False)
print(f"scale = {scale} ({SCALE_MEANING[scale]}): {len(results)} AIM runs of Figure 1, "
      f"{results['metric.pgm_iters'].iloc[0]} Private-PGM iterations per round, capacity "
      f"{results['metric.max_model_size_mb'].iloc[0]} MB")

# %% tags=["hide-input"]
glue("aim-fig6-figure", runtime_vs_epsilon(results))

# %% tags=["hide-input"]
runtime_table(results).style.format({"runtime (s)": "{:.1f}", "rounds": "{:.0f}"}).format_index(
    "{:.3g}", level="epsilon")

# %% [markdown]
# ## The speed benchmark
#
# `benchmarks/aim_speed.py` times single AIM runs and appends one row per run to
# {glue:text}`aim-speed-csv:s` (the command lines are in its docstring). The speed bar we hold
# ourselves to is the authors' 2022 numpy implementation at one setting: nltcs, the all-3way
# workload, ε = 1, δ = {glue:text}`aim-delta:g`, 80 MB and 100 Private-PGM iterations per round.
# In the side-by-side runs further down (seed 0, wall times on this shared 2-core machine):
# {glue:text}`aim-speed-bar:s`. Our rows below say how many cores each run could use
# and which code ran (`git_revision`): rows before 05516f6 ran mbi's own mirror descent, which
# compiled new JAX programs every round. The paper's own setting on fire (80 MB, 1,000
# iterations a round and 2,500 for the final fit, ε = 10) ran as a paper-scale cell of
# Figure 1 on a GPU; its wall time is on the {doc}`../companion/speed` page, beside the 9 hours
# the paper reports.

# %% tags=["hide-input", "full-width"]
speed = speed_benchmark()
if speed is None:
    print(f"no benchmark results yet: run benchmarks/aim_speed.py to create "
          f"{speed_benchmark_path()}")
else:
    display(benchmark_table(speed))

# %% [markdown]
# ## The one-fit mechanisms and their iterations
#
# MST, PrivBayes+PGM and Independent fit Private-PGM once, at the end, and keep their own
# iteration counts (MST 5,000, the others 1,000) at every scale of this companion, where AIM and
# MWEM+PGM fit at every round and run fewer iterations at `small` scale. The runs below, of
# `benchmarks/aim_single_fit.py` (all-3way workload, one seed), are the evidence: fewer
# iterations leave the one model under-fitted, at a large error, and save little time, since at
# small ε most of the time goes to selection. At large ε PrivBayes' degree rule builds networks
# with large cliques, which its own 1,000 iterations do not fit either; 5,000 do, which is why
# PrivBayes+PGM's error can rise with ε in Figures 1-3 at its default. The first run of each
# process includes JAX's compilation, so compare the seconds within a setting loosely.

# %% tags=["hide-input"]
from reprolib.papers.aim.pages import single_fit_table

single_fit = single_fit_table()
if single_fit is None:
    print("no runs yet: run benchmarks/aim_single_fit.py (its docstring has the command lines)")
else:
    display(benchmark_table(single_fit))

# %% [markdown]
# ## Side by side with the authors' 2022 engine
#
# Earlier versions of this companion fitted Private-PGM with mbi 2.0's step-size rule: the step
# starts at 2/(L·N) in every fit and grows by 1 % per accepted step, so after a round measured a
# marginal with a small σ, 100 steps could not grow it far enough to fit that measurement. The
# next round then found the same marginal still badly fitted and selected it again, AIM annealed,
# and the budget ran out in a few rounds: on the large-domain datasets the error *rose* with ε.
# The engine the paper ran (the 2022 `FactoredInference`) starts each step at twice the last
# accepted one and halves until the loss falls enough, so it adapts within a step. Our default is
# now that rule (`step_rule="backtracking-2022"`, for every Private-PGM mechanism); mbi 2.0's is
# kept as `step_rule="mbi-2.0"`. The derivation is in `reprolib.mechanisms.pgm._mirror_descent`.
#
# `benchmarks/aim_reference.py` runs our AIM under both rules and the authors' 2022 AIM script
# (imported from a local checkout of the public private-pgm history, never copied here; the one
# change is its record sampler, ported to pandas 3 with the same rounding) on the same data,
# budget, capacity, seed value and Private-PGM iterations (one count for every round and the
# final fit: the tables' `iterations`), the all-3way workload, and δ = {glue:text}`aim-delta:g`. The reference draws its noise from
# NumPy's global generator and ours from `default_rng(seed)`: same seed value, different draws,
# so a single row differs by noise as well as by engine. Every engine's synthetic data is scored
# with our Definition 2 workload error. nltcs and adult run at the paper's 80 MB; fire runs at
# 10 MB, the capacity at which the pathology was first measured, because the reference engine
# needs hours per run on fire at 80 MB. The seconds are wall times on a shared 2-core machine,
# often with another run beside them: they compare engines roughly, not precisely. An engine
# without a row at some ε was not run there (the reference's runs at large ε take hours).

# %% tags=["hide-input", "full-width"]
from reprolib.papers.aim.reference import error_trend, reference_csv_path, reference_table

side_by_side = reference_table()
if side_by_side is None:
    print(f"no side-by-side results yet: run benchmarks/aim_reference.py to create "
          f"{reference_csv_path()}")
else:
    shown = headers_in_words(side_by_side)
    whole = [column for column in shown.columns if column[1] in ("anneals", "rounds", "seconds")]
    display(shown.style.format(precision=3, na_rep="not run")
            .format("{:.0f}", subset=whole, na_rep="not run")
            .format_index("{:.3g}", level="epsilon").format_index("{:g}", level="MB")
            .set_table_styles([{"selector": "td, th", "props": "padding: 0 0.5em"}]))

# %% [markdown]
# One seed per row above, and AIM's rounds depend on when it anneals, which depends on the noise
# draws. Where more seeds ran, this table gives every engine's spread (the last run of each
# seed, rounds and workload error as mean, min and max). It was run for nltcs at ε = 100, where
# our seed 0 stopped after markedly fewer rounds than the reference's seed 0 and ended a little
# worse. Over more seeds the two engines' rounds and errors overlap: that seed annealed early by
# chance, not by a difference of engines.

# %% tags=["hide-input", "full-width"]
from reprolib.papers.aim.reference import seed_spread

spread = seed_spread()
if spread is None:
    print("every setting of the side-by-side ran one seed")
else:
    display(headers_in_words(spread).style.format(precision=4)
            .format("{:.0f}", subset=["seeds", "rounds min", "rounds max"])
            .format("{:.1f}", subset=["rounds"])
            .format_index("{:.3g}", level="epsilon").format_index("{:g}", level="MB")
            .set_table_styles([{"selector": "td, th", "props": "padding: 0 0.5em"}]))
    engines = {"ours": "ours:backtracking-2022", "the reference": "reference-2022"}
    fire = {name: spread.loc[("fire", 10.0, 100, 1.0, engine)] for name, engine in engines.items()
            if ("fire", 10.0, 100, 1.0, engine) in spread.index}
    if len(fire) == len(engines):
        print("fire, ε = 1: " + "; ".join(
            f"{name} {run.rounds_min:.0f}–{run.rounds_max:.0f} rounds, mean error {run.error:.4f}"
            for name, run in fire.items()))

# %% [markdown]
# On fire at ε = 1, where our seed 0 also ended worse, three seeds give the two engines about the
# same mean error, but ours stops after fewer rounds in every seed (the line under the table): it
# anneals earlier. The next section finds why.

# %% [markdown]
# ### At 1,000 iterations: msnbc at the smallest budgets, fire at ε = 0.316
#
# msnbc and fire run 1,000 Private-PGM iterations a round at the `small` scale (the AIM chapter
# says why), and their grids raised a question that the rows at 1,000 iterations answer. The
# grids' numbers that matter here, read from Figure 1's store (or, until a dataset's grid is
# merged into it, from the grid's rows so far under `results/pending/`):

# %% tags=["hide-input"]
import pandas as pd

from reprolib.experiments import open_store
from reprolib.papers.aim.pages import grid_rows
from reprolib.papers.aim.pages import trials_in_words as trials

msnbc, msnbc_from = grid_rows("aim-fig1", "msnbc")
fire, fire_from = grid_rows("aim-fig1", "fire")
for epsilon in (0.01, 10 ** -1.5):
    print(f"msnbc, ε = {epsilon:.3g} ({msnbc_from or 'no'} rows): AIM {trials(msnbc, 'AIM', epsilon)}, "
          f"MST {trials(msnbc, 'MST', epsilon)}")
print(f"fire, ε = 0.316 ({fire_from or 'no'} rows): AIM {trials(fire, 'AIM', 10 ** -0.5)}")
print(f"fire, ε = 31.6, seed 0 ({fire_from or 'no'} rows): AIM {trials(fire, 'AIM', 10 ** 1.5, seed=0)}")
glue("aim-msnbc-thousand", f"{trials(msnbc, 'AIM', 1)} at ε = 1 and "
     f"{trials(msnbc, 'AIM', 10 ** 0.5)} at ε = 3.16", display=False)  # for the chapter page
glue("aim-fire-thousand", f"{trials(fire, 'AIM', 10 ** 1.5)} at ε = 31.6 and "
     f"{trials(fire, 'AIM', 100)} at ε = 100", display=False)
zeros_grid = open_store("aim-tab3", "small").frame()
default_home = zeros_grid[zeros_grid.get("param.potentials", pd.Series(dtype=object)).isna()]
print(f"fire, ε = 0.316, Table 3's grid (100 iterations, 10 MB): AIM "
      f"{trials(default_home, 'AIM', 10 ** -0.5)}")

# %% [markdown]
# On msnbc at the two smallest ε, AIM's mean error is above MST's (the first two lines; Figure 1
# shows both). The authors' AIM does no better
# there: in seeds 0 and 1 its error is as high as ours or higher (the seed table). The cause is
# AIM's plan rather than its engine. AIM prices its first measurements as if it ran 16d rounds
# (256 on msnbc's 16 attributes) and measures every one-way marginal at 0.9ρ/(16d), where MST
# gives each of them ρ/(3d), about six times as much. At these budgets AIM stops after 10 to 20
# rounds (the rounds columns): its model rests on those noisier one-way estimates and the few
# marginals measured after them, while MST measures every attribute and a tree of 15 pairs more
# precisely.
#
# On fire at ε = 0.316 the grid's trials end above the paper's Table 3 (0.087) and above our
# Table 3 grid at 100 iterations and the same 10 MB ({doc}`structural_zeros`; both printed
# above). The authors' AIM at the grid's settings (10 MB, 1,000 iterations,
# the fire row at 1,000 iterations above) ends as high as ours, so the gap is the setting's, not
# our engine's: the 10 MB capacity. Fire's largest
# attributes (neighbourhood, 42 values; station area, 46; zip code, 28) hold most of the
# workload's error, and once a run has measured a few marginals linking them to the small
# geographic attributes, a marginal on any two of the three needs a junction tree of 58 to 225 MB,
# so it is never measured (a diagnostic of our seed-0 run, not stored); the 100-iteration run
# measured two of those pairs before its model closed. At the paper's 80 MB the same seed ends
# at the paper's error: the stored paper-scale spot cell of Figure 1 and the speed benchmark's
# run at ε = 0.316 above.
#
# At ε = 31.6 the fire rows at 1,000 iterations differ: the reference ends at 0.0446 in 41
# rounds, and so does our engine under the 2022 home of the potentials
# (`potentials="junction-tree-2022"`), while the grid's run of our default with the same seed
# ends higher (printed above). The 2022 home's capacity filter reads
# the previous junction tree, so its fits can grow far beyond 10 MB (next section), which pays
# at this budget; our default keeps the paper's JT-SIZE rule strictly.

# %% [markdown]
# ## Why ours annealed earlier: what a warm start keeps
#
# Each AIM round refits the model from the previous one (a warm start) and anneals when the fit
# barely moves the model on the marginal just measured (the paper's Algorithm 3: ‖w − z‖₁ ≤ √(2/π)·σ·n). The
# engines keep different things from the previous fit. mbi 2.0, and our default
# (`potentials="measured-cliques"`), keep the potentials on the measured cliques; the new
# measured cliques contain the old ones, so the warm start is the previous model. The 2022 library
# keeps them on the maximal cliques of the junction tree, fill-in cliques included, and adds each
# old potential to the first new maximal clique that contains it. When a new measurement changes
# the triangulation, an old fill-in clique may lie in no new one, and its potential, with all the
# earlier fits put there, is dropped. That round's fit starts from a model that has forgotten part
# of the earlier measurements and moves far to learn them again within its iterations; a large
# move is not an anneal. Our `potentials="junction-tree-2022"` does what the 2022 library does
# (the derivation is in `reprolib.mechanisms.pgm._mirror_descent`).
#
# `benchmarks/aim_fit_replay.py` shows it on one run. It takes the measurements of one of our AIM
# runs and feeds them, the one-way ones first and then one more per round, to our fit under either
# home of the potentials and to the authors' 2022 `FactoredInference`, each warm-started from its
# own previous fit, as their `aim.py` does (for AIM+SZ with Table 3's zeros imposed on the run and on
# every fit). Per round: the annealing threshold, each engine's
# shift ‖w − z‖₁ and whether it anneals, the loss each fit reached (Σᵢ ‖Mᵢ(p) − yᵢ‖² / 2σᵢ²),
# and how many potentials the reference's warm start dropped.

# %% tags=["hide-input", "full-width"]
from reprolib.papers.aim.reference import fit_replay_table

replay = fit_replay_table()
if replay is None:
    print("no replay yet: run benchmarks/aim_fit_replay.py (its docstring has the command line)")
else:
    anneals = [column for column in replay.columns if column[1] == "anneals"]
    display(replay.style.format(precision=1)
            .format(lambda annealed: "yes" if annealed else "", subset=anneals)
            .format_index("{:g}", level="epsilon"))
    for (name, epsilon, zeros, seed), run in replay.groupby(
            level=["dataset", "epsilon", "zeros", "seed"]):
        shift, loss = (run[("ours, junction-tree-2022", k)] / run[("reference-2022", k)] - 1
                       for k in ("shift", "loss"))
        differs = (run[("ours", "loss")] / run[("reference-2022", "loss")] - 1).abs() > 1e-6
        first_drop = run.index.get_level_values("round")[run[("reference-2022", "dropped")] > 0]
        anneals = {e: int(run[(e, "anneals")].sum()) for e in ("ours", "reference-2022")}
        variant = f"AIM+SZ ({zeros:,} zeros)" if zeros else "AIM"
        print(f"{variant} on {name}, ε = {epsilon:g}, seed {seed}: with the 2022 home our fit matches the "
              f"reference's in every round (largest relative difference: shift "
              f"{shift.abs().max():.1e}, loss {loss.abs().max():.1e}). Our default first differs "
              f"in round {run.index.get_level_values('round')[differs.to_numpy()].min()}; the "
              f"reference's warm start first drops potentials in round "
              f"{first_drop.min() if len(first_drop) else 'none'}. Rounds whose shift is under the "
              f"threshold: ours {anneals['ours']}, the reference {anneals['reference-2022']}. After "
              f"the last round the reference's loss is "
              f"{(run[('reference-2022', 'loss')] / run[('ours', 'loss')]).iloc[-1]:.2f} times our "
              f"default's.")

# %% [markdown]
# The pathology in two numbers per dataset and engine, over the ε that engine ran: the largest
# ratio of the workload error at one ε to the error at the ε before it (above 1, more budget
# gave a higher error: the symptom; one seed, so small rises are noise), and the error at
# the largest ε over the error at the smallest.

# %% tags=["hide-input"]
if side_by_side is not None:
    display(error_trend(side_by_side).style.format(precision=2, na_rep="fewer than two ε")
            .format_index("{:g}", level="MB"))


# %% [markdown]
# ## What the runs say about the paper's claims
#
# The paper's claims checked on the stored runs of this page, evaluated as it was built. Where
# our runs contradict a claim, the documented deviation gives our finding, its numbers computed
# from the same runs. The scorecard adds the exact, budget and regression checks.

# %% tags=["hide-input"]
from IPython.display import Markdown

from reprolib.experiments import artifact_findings

Markdown(artifact_findings("aim-fig6"))
