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
# # Protecting one statistic: the domain constraint
#
# Figure 3 of the PrivPGD paper adds the penalty of Section 4.4 ({ref}`privpgd-constraints`):
# PrivPGD is pushed away from a DP estimate of one thresholding query
# 1{⟨θ, Emb(x)⟩ − b > 0}, with strength λ. The budget is (2.5, 10⁻⁵) in all, as in the paper,
# whose Appendix B gives (2.0, 8·10⁻⁶) to the marginals and (0.5, 2·10⁻⁶) to the statistic; our
# default calibration composes the two releases in zCDP and divides the whole ρ in the ratio of
# those shares' ρ, so neither release alone is held to its (ε, δ) share, only the total
# ({ref}`privpgd-privacy`). λ = 0 spends the same split and ignores the penalty. Four curves against λ: the absolute error of the protected query
# (**larger is better**: the statistic is hidden), the downstream error, and the mean absolute
# errors of the 200 counting and 200 thresholding queries (Eq. 9's numerator). The paper's claim:
# the protected error grows with λ while the other three stay close to the unregularised run.

# %% tags=["parameters", "remove-cell"]
scale = "small"
device = "auto"
overrides = {}

# %% tags=["hide-input"]
from myst_nb import glue

from reprolib.experiments import run_experiment
from reprolib.papers.privpgd.figures import constraint_figure
from reprolib.papers.privpgd.pages import readable_sources
from reprolib.papers.privpgd.setup import data_sources, describe_scale

results = run_experiment("privpgd-fig3", scale=scale, device=device, progress=False,
                         overrides=overrides)
print(describe_scale(results, scale))
readable_sources(data_sources(results)).style.hide(axis="index")

# %% [markdown]
# ## The protected queries
#
# The paper publishes the Income query only (in the authors' example code); we carry its weights
# over to the stand-in's columns. For Employment the paper gives no query: ours reuses the Income
# weights of the attributes both tasks share and puts b at the centre of the cube, Σθ / 2.

# %% tags=["hide-input"]
(results.drop_duplicates("dataset")
 .set_index("dataset")[["metric.protected_theta", "metric.protected_threshold",
                        "metric.protected_real"]]
 .rename(columns=lambda c: c.removeprefix("metric.")))

# %% tags=["hide-input"]
glue("privpgd-fig3-figure", constraint_figure(results))

# %% [markdown]
# ## All numbers
#
# Mean over runs per dataset and λ.

# %% tags=["hide-input", "full-width"]
columns = ["metric.protected_abs_error", "metric.downstream_error", "metric.counting_abs_error",
           "metric.thresholding_abs_error"]
(results.groupby(["dataset", "param.strength"])[columns].mean()
 .rename(columns=lambda c: c.removeprefix("metric.")).style.format("{:.4f}"))


# %% [markdown]
# ## What the runs say about the paper's claims
#
# The paper's claims checked on the stored runs of this page, evaluated as it was built. Where
# our runs contradict a claim, the documented deviation gives our finding, its numbers computed
# from the same runs. The scorecard adds the exact, budget and regression checks.

# %% tags=["hide-input"]
from IPython.display import Markdown

from reprolib.experiments import artifact_findings

Markdown(artifact_findings("privpgd-fig3"))
