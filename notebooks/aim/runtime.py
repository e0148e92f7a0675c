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
from reprolib.papers.aim.figures import runtime_vs_epsilon
from reprolib.papers.aim.pages import (
    SPEED_CSV,
    runtime_table,
    speed_benchmark,
    speed_benchmark_path,
)
from reprolib.papers.aim.setup import DELTA

results = run_experiment("aim-fig6", scale=scale, device=device, progress=False,
                         overrides=overrides)
glue("aim-delta", DELTA, display=False)
glue("aim-speed-csv", f"results/{SPEED_CSV.as_posix()}", display=False)
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
# ourselves to: on nltcs with the all-3way workload at ε = 1, δ = {glue:text}`aim-delta:g`, 80 MB and 100
# Private-PGM iterations per round, the authors' 2022 numpy implementation takes about 3.5 s per
# round and 3 minutes per run on one core. Our rows below say how many cores each run could use
# and which code ran (`git_revision`): rows before 05516f6 ran mbi's own mirror descent, which
# compiled new JAX programs every round.

# %% tags=["hide-input", "full-width"]
speed = speed_benchmark()
if speed is None:
    print(f"no benchmark results yet: run benchmarks/aim_speed.py to create "
          f"{speed_benchmark_path()}")
else:
    display(speed.style.hide(axis="index").format(precision=3))
