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
# # Model capacity (Figure 4 a–b)
#
# AIM only considers candidates whose selection keeps the junction tree of the model below a
# capacity (MAX-SIZE, 80 MB by default; see {prf:ref}`AIM <aim-alg-aim>`). Section 6.5 of the paper sweeps
# it from 1.25 MB to 1.28 GB on fire with the all-3way workload at two ε and finds that runtime
# grows and error falls with capacity: larger is always better, only slower. The paper's two ε are
# not printed in our copy of the text; we use the values printed below. Each point is the mean over
# trials, the bars span the smallest and largest trial. The runs share one Python process, and JAX
# reuses a compiled Private-PGM program whenever a run meets a set of cliques an earlier run compiled:
# a run that retraces an earlier one (as happens when the capacity does not bind) can take a
# fraction of a second. Runtimes here are therefore indicative; the runtime page has the benchmark.

# %% tags=["parameters", "remove-cell"]
scale = "small"
device = "auto"
overrides = {}

# %% tags=["hide-input"]
from myst_nb import glue

from reprolib.experiments import SCALE_MEANING, compute_summary, run_experiment
from reprolib.papers.aim.figures import capacity_sweep
from reprolib.papers.aim.studies import STUDIES

results = run_experiment("aim-fig4ab", scale=scale, device=device, progress=False,
                         overrides=overrides)
study = STUDIES[scale]
print(f"scale = {scale} ({SCALE_MEANING[scale]}): dataset {study.dataset} (paper: fire), "
      f"all-3way, ε ∈ {sorted(set(results['epsilon']))}, capacities {list(study.capacities_mb)} MB, "
      f"{results['seed'].nunique()} trial(s), {results['param.pgm_iters'].iloc[0]} Private-PGM "
      "iterations per round")
print(f"compute: {compute_summary(results)}")

# %% tags=["hide-input"]
glue("aim-fig4ab-figure", capacity_sweep(results))

# %% [markdown]
# ## All numbers
#
# Mean over trials of the runtime, the workload error, the size of the final model (MB) and its
# share of the capacity. The final model never exceeds the capacity; where its share falls well
# below 1 the capacity stopped binding, and the curves level off.

# %% tags=["hide-input"]
table = (results.assign(used=results["metric.model_size_mb"] / results["param.max_model_size_mb"])
         .groupby(["epsilon", "param.max_model_size_mb"])
         [["metric.seconds", "metric.workload_error", "metric.model_size_mb", "used",
           "metric.rounds"]]
         .mean())
table.columns = ["runtime (s)", "workload error", "final model (MB)", "final model / capacity",
                 "rounds"]
table.index.names = ["ε", "capacity (MB)"]
table.style.format("{:.4g}").format_index("{:g}")

# %% [markdown]
# ## What the reduced capacity of Figures 1–3 costs
#
# At reduced scales Figures 1–3 run AIM on this dataset at a smaller capacity than the paper's
# 80 MB (the profile's, printed below). Where the sweep holds both, it measures what that cut costs
# at equal Private-PGM iterations.

# %% tags=["hide-input"]
from reprolib.papers.aim.setup import PROFILES

reduced = PROFILES[scale].capacities(study.dataset)[0]
errors = (results.groupby(["epsilon", "param.max_model_size_mb"])["metric.workload_error"].mean()
          .unstack())
if reduced != 80.0 and {reduced, 80.0} <= set(errors.columns):
    for epsilon, e in errors.iterrows():
        print(f"ε = {epsilon:g}: workload error {e[reduced]:.4f} at {reduced:g} MB (Figures 1–3 at "
              f"this scale), {e[80.0]:.4f} at 80 MB (the paper): {e[80.0] / e[reduced]:.2f} times")
else:
    print(f"Figures 1–3 run {study.dataset} at {reduced:g} MB at this scale; the sweep does not "
          "hold both that capacity and the paper's 80 MB")


# %% [markdown]
# ## What the runs say about the paper's claims
#
# The paper's claims checked on the stored runs of this page, evaluated as it was built. Where
# our runs contradict a claim, the documented deviation gives our finding, its numbers computed
# from the same runs. The scorecard adds the exact, budget and regression checks.

# %% tags=["hide-input"]
from IPython.display import Markdown

from reprolib.experiments import artifact_findings

Markdown(artifact_findings("aim-fig4ab"))
