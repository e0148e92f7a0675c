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

# %%
import pandas as pd
from IPython.display import display
from myst_nb import glue

from reprolib._paths import results_dir
from reprolib.experiments import SCALE_MEANING, run_experiment
from reprolib.papers.aim.figures import runtime_vs_epsilon

results = run_experiment("aim-fig6", scale=scale, device=device, progress=False,
                         overrides=overrides)
print(f"scale = {scale} ({SCALE_MEANING[scale]}): {len(results)} AIM runs of Figure 1, "
      f"{results['metric.pgm_iters'].iloc[0]} Private-PGM iterations per round, capacity "
      f"{results['metric.max_model_size_mb'].iloc[0]} MB")

# %%
glue("aim-fig6-figure", runtime_vs_epsilon(results))

# %%
table = results.groupby(["dataset", "epsilon"]).agg(
    runtime_s=("metric.seconds", "mean"), rounds=("metric.rounds", "mean"),
    recorded_on=("metric.recorded_on", "first"))
table.style.format({"runtime_s": "{:.1f}", "rounds": "{:.0f}"})

# %% [markdown]
# ## The speed benchmark
#
# `benchmarks/aim_speed.py` times single AIM runs and appends one row per run to
# `results/aim/benchmarks/aim-speed.csv` (the command lines are in its docstring). The speed bar
# we hold ourselves to: on nltcs with the all-3way workload at ε = 1, δ = 1e-9, 80 MB and 100
# Private-PGM iterations per round, the authors' 2022 numpy implementation takes about 3.5 s per
# round and 3 minutes per run on one core. Our rows below say how many cores each run could use
# and which code ran (`git_revision`): rows before 05516f6 ran mbi's own mirror descent, which
# compiled new JAX programs every round.

# %%
benchmark = results_dir() / "aim" / "benchmarks" / "aim-speed.csv"
if benchmark.is_file():
    speed = pd.read_csv(benchmark)
    columns = ["git_revision", "dataset", "epsilon", "max_model_size_mb", "pgm_iters", "usable_cores",
               "load_average_1min", "rounds",
               "seconds", "seconds_per_round", "max_seconds_per_round", "model_size_mb",
               "workload_error", "jax_backend", "processor"]
    display(speed[columns].style.format(precision=3))
else:
    print(f"no benchmark results yet: run benchmarks/aim_speed.py to create {benchmark}")
