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
# # Average SW₁ and L1 distances relative to PrivPGD
#
# Figures 2, 6 and 7 of the PrivPGD paper compare the average sliced Wasserstein distance SW₁
# (Eq. 10, 50 random directions) and the average "TV distance" (Eq. 11) over all 2-way marginals.
# The paper's "TV" column is the L1 distance, twice the total variation (see
# {ref}`privpgd-errata`), so we plot L1 to compare like with like and report TV beside it.
# Points are the mean ± std over runs of log₂(the run's distance / PrivPGD's mean distance):
# **above 0, PrivPGD is closer to the data**. Hollow markers are the paper's values, from the
# means of its tables.

# %% tags=["parameters", "remove-cell"]
scale = "small"
device = "auto"
artifact = "privpgd-fig2"
overrides = {}

# %% tags=["hide-input"]
from myst_nb import glue

from reprolib.experiments import run_experiment
from reprolib.papers.privpgd.figures import log2_ratios, log_ratio_figure
from reprolib.papers.privpgd.pages import (
    dataset_title,
    distance_means,
    only_value,
    paper_lowest,
    readable_sources,
)
from reprolib.papers.privpgd.reported import reported_log2_ratios, reported_results
from reprolib.papers.privpgd.setup import data_sources, describe_scale

METRICS = ("sw1", "l1")
results = run_experiment(artifact, scale=scale, device=device, progress=False,
                         overrides=overrides)
epsilon, delta = only_value(results, "epsilon"), only_value(results, "delta")
sources = data_sources(results)
print(f"{artifact}: ε = {epsilon:g}, δ = {delta:g}.")
print(describe_scale(results, scale))
readable_sources(sources).style.hide(axis="index")

# %% tags=["hide-input"]
figure = log_ratio_figure(results, METRICS, cut=3.0, paper=reported_log2_ratios(epsilon),
                          substituted=tuple(sources.loc[sources["substituted"], "dataset"]))
glue(f"{artifact}-figure", figure)

# %% [markdown]
# ## The distances themselves
#
# Mean over runs; TV = L1 / 2.

# %% tags=["hide-input"]
distance_means(results).style.format("{:.2g}")

# %% tags=["hide-input"]
(log2_ratios(results, METRICS).pivot_table(index=["dataset", "mechanism"], columns="metric",
                                           values="mean")
 .rename(index=dataset_title, level="dataset").rename(columns={"sw1": "SW₁", "l1": "L1"})
 .rename_axis(columns="log₂ ratio").style.format("{:+.2f}"))

# %% [markdown]
# ## What the paper's own tables say
#
# The paper describes "a clear gap" in favour of PrivPGD in both distances. Its Tables 1–6 bear
# this out for SW₁ more than for the "TV" (L1) column: the number of datasets on which PrivPGD's
# mean is strictly below every other mechanism's in the paper's table at this ε.

# %% tags=["hide-input"]
paper = reported_results()
for metric in METRICS:
    lowest, total = paper_lowest(paper, epsilon, metric)
    text = f"{lowest} of {total}"
    glue(f"{artifact}-paper-{metric}-lowest", text, display=False)
    print(f"{metric}: PrivPGD strictly lowest on {text} datasets in the paper's table")
leaders = (results.groupby(["dataset", "mechanism"])["metric.sw1"].mean().unstack()
           .idxmin(axis=1).value_counts())
print("sw1, our runs: lowest mean on " + ", ".join(
    f"{count} of {leaders.sum()} datasets for {mechanism}" for mechanism, count in leaders.items()))

# %% [markdown]
# ## Private GSD beside its authors' code
#
# Where our Private GSD has the lowest SW₁ (the last line above counts each mechanism's
# datasets), the paper has PrivPGD ahead. To rule out a Private GSD that is better than the one the paper ran,
# `benchmarks/private_gsd_reference.py` runs ours and the authors' (`giusevtr/private_gsd` at
# commit f6150d7, imported from a local extract) in the paper's one-shot setting, all 2-way
# marginals released once with the same ρ, on the same data (adult, an AIM dataset that both
# codes read as it is) and seed value, with 2,000 records, and scores both by the mean total
# variation distance over the 2-way marginals. On one CPU thread the authors' code makes about
# 100 generations a second and was cut off by a time limit of 9 minutes, at 40,000–60,000
# generations; ours makes several thousand a second and stopped early by the shared rule. At
# ρ = 0.005 ours ends about 3 % above theirs: there a longer search fits the noise (the second
# table). At ρ = 0.5, where fitting longer helps, ours is the lower. The tables read
# `results/privpgd/benchmarks/gsd-reference.csv`; nothing is computed here.

# %% tags=["hide-input", "full-width"]
from IPython.display import display

from reprolib.papers.privpgd.pages import gsd_reference_table

PADDED = [{"selector": "td, th", "props": "padding: 0 0.5em"}]
gsd = gsd_reference_table()
if gsd is None:
    print("no side-by-side runs of Private GSD")
else:
    display(gsd.style.format("{:.4f}")
            .format("{:.0f}", subset=["seeds", "generations", "stopped early", "seconds"])
            .format("{:.3f}", subset=["TV / reference"])
            .format_index("{:g}", level="rho").set_table_styles(PADDED))

# %% [markdown]
# How far the search goes decides the distance, and in opposite directions at the two ends of the
# budget. Our Private GSD run again without early stopping, for a fixed number of generations,
# beside its early-stopped runs above (`--stop-tolerance 0` in the same benchmark, two seeds):
# at ρ = 0.005 the distance grows as the search goes on, the released records fitting the noise
# of the measured marginals ever more closely, so the stopping rule, not the search, sets the
# error there; at ρ = 0.5 it falls.

# %% tags=["hide-input", "full-width"]
from reprolib.papers.privpgd.pages import gsd_search_length_table

search = gsd_search_length_table()
if search is None:
    print("no run of Private GSD without early stopping")
else:
    display(search.style.format("{:.4f}").format("{:.0f}", subset=["seeds", "generations"])
            .format_index("{:g}", level="rho").set_table_styles(PADDED))


# %% [markdown]
# ## What the runs say about the paper's claims
#
# The paper's claims checked on the stored runs of this page, evaluated as it was built. Where
# our runs contradict a claim, the documented deviation gives our finding, its numbers computed
# from the same runs. The scorecard adds the exact, budget and regression checks.

# %% tags=["hide-input"]
from IPython.display import Markdown

from reprolib.experiments import artifact_findings

Markdown(artifact_findings(artifact))
