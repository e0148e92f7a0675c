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
# # F1 against runtime: PGM's bins and RAP++'s threshold rounds
#
# The paper's Figure 3: each point is one setting of a mechanism's main knob, the macro-F1 of
# the linear model trained on its synthetic records (y) against the wall time of one run (x),
# means over seeds. PGM (MWEM+PGM) cuts every number into 10, 20, 50 or 100 equal-width bins;
# RAP++ runs T_LT = 10, 30, 50 or 70 rounds of linear-threshold queries. The paper's claims:
# RAP++ reaches better accuracy in less time, and RAP++ is not very sensitive to T_LT while PGM
# is to its bins. The dotted line is the real training split's F1.
#
# ```{admonition} Stand-in data, reduced compute, and our machine
# :class: warning
# The paper does not name its three datasets; offline we run three stand-in tasks of the
# Massachusetts excerpt (the state of our Figure 4): income, where the numbers matter most,
# hispanic, where they matter least, and owner between them ({ref}`rappp-index`). The paper ran
# RAP++ on a GPU and PGM on a CPU; our `small` runs are all on the CPU named below, at the cut
# compute knobs printed below, so the wall times compare our implementations on one machine,
# not the paper's.
#
# Runs scored before the linear model's coordinate order was seeded can differ in F1 by a few
# thousandths where the model stops before converging; the paragraph printed below counts them,
# and every run recorded since is scored deterministically.
# ```

# %% tags=["parameters", "remove-cell"]
scale = "small"
device = "auto"
overrides = {}

# %% tags=["hide-input"]
from myst_nb import glue

from reprolib.experiments import run_experiment
from reprolib.figures import benchmark_table
from reprolib.papers.rappp.figures import sensitivity_figure
from reprolib.papers.rappp.pages import describe_comparison, sensitivity_table

results = run_experiment("rappp-fig3", scale=scale, device=device, progress=False,
                         overrides=overrides)
print(describe_comparison(results, "rappp-fig3", scale))

# %% tags=["hide-input", "full-width"]
if not results.empty:
    glue("rappp-fig3-figure", sensitivity_figure(results))

# %% [markdown]
# ## The numbers behind the figure

# %% tags=["hide-input"]
sensitivity_table(results).style.format(precision=3)

# %% [markdown]
# ## The speed benchmark
#
# `benchmarks/rappp_speed.py` times one whole RAP++ run (selection, measurement, Algorithm 1 in
# every round, rounding) and appends a row to `results/rappp/benchmarks/rappp-speed.csv`; its
# docstring has the command lines. Our goal is a paper-size run, 1,000 relaxed rows, up to
# 2,000 Adam steps a pass, 200,000 candidate thresholds on about 200,000 records, in under two
# minutes on one GPU. Our stand-in states are smaller than the paper's, so the paper-size rows
# stack the national excerpt's training split (`replicate`): records enter the run only once,
# when the true answers are computed, so this sizes that step without changing the fit. Wall
# times include JAX's compilation.
#
# On the GPU, the rate of Adam steps hardly changes between the `small` settings and the
# paper's, though the paper's steps do ten times the arithmetic: a step there is bound by the
# fixed cost of launching its many small kernels, not by the work in them.

# %% tags=["hide-input", "full-width"]
from IPython.display import display

from reprolib.papers.rappp.pages import speed_benchmark, speed_summary

speed = speed_benchmark()
if speed is None:
    print("no benchmark results yet: run benchmarks/rappp_speed.py --csv "
          "results/rappp/benchmarks/rappp-speed.csv")
else:
    print(speed_summary(speed))
    display(benchmark_table(speed))


# %% [markdown]
# ## What the runs say about the paper's claims
#
# The paper's claims checked on the stored runs of this page, evaluated as it was built. Where
# our runs contradict a claim, the documented deviation gives our finding, its numbers computed
# from the same runs. The scorecard adds the exact, budget and regression checks.

# %% tags=["hide-input"]
from IPython.display import Markdown

from reprolib.experiments import artifact_findings

Markdown(artifact_findings("rappp-fig3"))
