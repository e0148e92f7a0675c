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
# # From zCDP to (ε, δ): two conversions
#
# The mechanisms of this book account in ρ-zCDP and report (ε, δ)-DP. How much budget ρ a target
# (ε, δ) allows depends on the conversion: the simple bound of Bun and Steinke (2016) or the tight
# one of Canonne, Kamath and Steinke (2020) that the AIM reference code uses. This page computes
# both on a grid of targets (`reprolib.experiments.preliminaries`) and the Gaussian noise each lets
# a sensitivity-1 query carry. The chapter {ref}`privacy-preliminaries` derives the formulas.

# %% tags=["parameters", "remove-cell"]
scale = "small"
device = "auto"

# %%
from myst_nb import glue

from reprolib.experiments import SCALE_MEANING, run_experiment
from reprolib.experiments.preliminaries import quoted_table, value_at
from reprolib.figures.preliminaries import eps_vs_rho, sigma_vs_eps

results = run_experiment("prelim-conversions", scale=scale, device=device, progress=False)
glue("scale", scale, display=False)
print(f"scale = {scale} ({SCALE_MEANING[scale]}): {len(results)} grid points, closed forms, no data")

# %% [markdown]
# ## ε as a function of ρ

# %%
glue("fig_eps_vs_rho", eps_vs_rho(results))

# %% [markdown]
# ## The Gaussian noise a target (ε, δ) allows

# %%
glue("fig_sigma_vs_eps", sigma_vs_eps(results))

# %% [markdown]
# ## The values other chapters quote
#
# PrivPGD reports ε ∈ {0.2, 1, 2.5} at δ = 1e-5; AIM uses δ = 1e-9.

# %%
table = quoted_table(results)
table.style.hide(axis="index").format("{:.5g}", subset=list(table.columns[1:]))

# %%
numbers = {
    "rho_cks_eps1_d9": value_at(results, bound="cks", delta=1e-9, epsilon=1.0, metric="rho"),
    "rho_bs_eps1_d9": value_at(results, bound="bun-steinke", delta=1e-9, epsilon=1.0, metric="rho"),
    "sigma_cks_eps1_d5": value_at(results, bound="cks", delta=1e-5, epsilon=1.0, metric="sigma"),
    "sigma_bs_eps1_d5": value_at(results, bound="bun-steinke", delta=1e-5, epsilon=1.0,
                                 metric="sigma"),
}
numbers["sigma_saving_pct_eps1_d5"] = 100 * (1 - numbers["sigma_cks_eps1_d5"]
                                             / numbers["sigma_bs_eps1_d5"])
for name, value in numbers.items():
    glue(name, value, display=False)
numbers

# %% [markdown]
# **Summary.** At every target the tight conversion allows more ρ, so less noise: at ε = 1 and
# δ = 1e-5 a sensitivity-1 Gaussian needs
# σ = {glue:text}`sigma_cks_eps1_d5:.4f` instead of {glue:text}`sigma_bs_eps1_d5:.4f`
# ({glue:text}`sigma_saving_pct_eps1_d5:.1f` % less).
