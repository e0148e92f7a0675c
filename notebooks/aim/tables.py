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
# # The mechanisms and the datasets (Tables 1 and 2)
#
# Table 1 of the AIM paper sorts mechanisms by what they adapt to. Here each row is read from the
# `traits` the mechanism's class declares in `reprolib.mechanisms`, so the table states what our
# code does; the checks compare it with the paper's table. Table 2's statistics are recomputed
# from the six benchmark files.

# %% tags=["parameters", "remove-cell"]
scale = "small"
device = "auto"
overrides = {}

# %% tags=["hide-input"]
from myst_nb import glue

from reprolib.experiments import run_experiment
from reprolib.papers.aim.pages import (
    attribute_counts,
    datasets_table,
    first_round_parameters,
    taxonomy_table,
)

taxonomy = run_experiment("aim-tab1", scale=scale, device=device, progress=False)
taxonomy_table(taxonomy)

# %% tags=["hide-input"]
datasets = run_experiment("aim-tab2", scale=scale, device=device, progress=False,
                          overrides=overrides)
table2 = datasets_table(datasets)
table2.style.format({"records": "{:,}", "log10 total domain": "{:.1f}"})

# %% [markdown]
# ## The budget of AIM's first round
#
# ρ for the paper's ε grid at δ = {glue:text}`aim-delta:g` (CKS conversion) and the initial noise
# σ₀ and selection parameter ε₁ of {prf:ref}`AIM <aim-alg-aim>` for the attribute counts of the
# paper's datasets, counted in Table 2 above: {glue:text}`aim-attribute-counts:s`. Closed forms.

# %% tags=["hide-input"]
from reprolib.papers.aim.setup import DELTA, PAPER_EPSILONS

counts = attribute_counts(table2)
glue("aim-delta", DELTA, display=False)
glue("aim-attribute-counts", "; ".join(f"d = {d} ({', '.join(names)})"
                                       for d, names in counts.items()), display=False)
worked = first_round_parameters(PAPER_EPSILONS, DELTA, counts)
worked = worked.style.hide(axis="index").format(
    {c: {"ε": "{:.3g}", "ρ": "{:.5g}"}.get(c, "{:.4g}") for c in worked.columns})
glue("aim-worked-numbers", worked, display=False)
worked
