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
# # Noise for the paper's budgets
#
# How much noise the slicing mechanism needs ({ref}`slicing-privacy`). The paper reports ε = 5.1
# (Table 1) and 8.1 (Table 3) after Poisson subsampling at rate 0.25, so the mechanism itself
# must meet the larger base budget ε₀ = log(1 + (e^ε − 1)/0.25), δ₀ = δ/0.25 (Lemma 1); the paper
# gives no δ, and ours is 10⁻⁵ after amplification. For each base budget and size (d encoded
# columns, m′ released projections, neighbours' rows at most 1 apart) we compute the smallest σ
# under three curves: Theorem 1 (Lemma 2's bound with the classic conversion at the best order,
# as the paper calibrates), the exact Rényi curve of the same mechanism, and Proposition 3, the
# same noise on fixed orthonormal projections that are not released (k = 1).

# %% tags=["parameters", "remove-cell"]
scale = "small"
device = "auto"
overrides = {}

# %% tags=["hide-input"]
from myst_nb import glue

from reprolib.experiments import run_experiment
from reprolib.papers.slicing.figures import epsilon_figure
from reprolib.papers.slicing.lemma2 import lemma_2_table
from reprolib.papers.slicing.pages import calibration_table

results = run_experiment("slicing-calibration", scale=scale, device=device, progress=False,
                         overrides=overrides)
table = calibration_table(results)
table

# %% [markdown]
# Theorem 1's σ is within a few per cent of the exact curve's: Lemma 2's bound is tight where
# the calibration lands. Fixed projections need roughly √d times more noise, the gap the paper's
# discussion after Theorem 1 attributes to releasing random directions.

# %% tags=["hide-input", "full-width"]
glue("slicing-epsilon-figure", epsilon_figure(dim=100, projections=100))

# %% [markdown]
# ## Lemma 2, checked directly
#
# On small datasets (n rows, d columns, m′ projections, two neighbours whose differing rows are
# 1 apart) the mechanism's output is a Gaussian vector of dimension (d + n) m′ whose covariance
# we build from U and V alone, without the paper's algebra. The Rényi divergence between the two
# outputs' Gaussians (Eq. 7), and its Monte-Carlo estimate from 200,000 draws of the output,
# agree with the exact curve; Lemma 2 bounds it from above.

# %% tags=["hide-input"]
lemma_2_table([(2.0, 2.0, 3, 2, 2), (3.0, 3.0, 4, 3, 2), (1.5, 1.5, 3, 3, 1)]).style.hide(
    axis="index").format(precision=4)


# %% [markdown]
# ## What the runs say about the paper's claims
#
# The paper's claims checked on the stored runs of this page, evaluated as it was built. Where
# our runs contradict a claim, the documented deviation gives our finding, its numbers computed
# from the same runs. The scorecard adds the exact, budget and regression checks.

# %% tags=["hide-input"]
from IPython.display import Markdown

from reprolib.experiments import artifact_findings

Markdown(artifact_findings("slicing-calibration"))
