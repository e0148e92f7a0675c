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

# %%
import pandas as pd
from myst_nb import glue

from reprolib.experiments import run_experiment
from reprolib.papers.aim.checks import PAPER_TABLE1, PAPER_TABLE2

taxonomy = run_experiment("aim-tab1", scale=scale, device=device, progress=False)
columns = ["workload_aware", "data_aware", "budget_aware", "efficiency_aware"]
ours = taxonomy.set_index("mechanism")[[f"metric.{c}" for c in columns]]
ours.columns = [c.replace("_", "-") for c in columns]
paper = pd.DataFrame(PAPER_TABLE1, index=columns).T.loc[ours.index]
paper.columns = ours.columns
table1 = ours.map(lambda v: "✓" if v else "")
table1["as the paper"] = (ours == paper).all(axis=1).map({True: "yes", False: "no"})
table1["neighbours"] = taxonomy.set_index("mechanism")["metric.relation"]
table1

# %%
datasets = run_experiment("aim-tab2", scale=scale, device=device, progress=False,
                          overrides=overrides)
table2 = datasets.set_index("dataset")[["metric.records", "metric.attributes",
                                        "metric.min_domain", "metric.max_domain",
                                        "metric.total_domain_log10"]]
table2.columns = ["records", "attributes", "min domain", "max domain", "log10 total domain"]
table2["paper (records, attributes, min-max)"] = [
    "{:,}, {}, {}–{}".format(*PAPER_TABLE2[d]) for d in table2.index]
table2.style.format({"records": "{:,}", "log10 total domain": "{:.1f}"})

# %% [markdown]
# ## The budget of AIM's first round
#
# ρ for the paper's ε grid at δ = 1e-9 (CKS conversion) and the initial noise σ₀ and selection
# parameter ε₁ of AIM ({prf:ref}`aim-alg-aim`) for the attribute counts of the paper's datasets:
# d = 9 (salary, titanic), 15 (adult, fire), 16 (msnbc, nltcs). Closed forms, no data.

# %%
from reprolib.mechanisms.marginal.aim import AIMConfig, initial_parameters
from reprolib.papers.aim.setup import DELTA, PAPER_EPSILONS
from reprolib.privacy import eps_to_rho

rows = []
for epsilon in PAPER_EPSILONS:
    rho = eps_to_rho(epsilon, DELTA)
    row = {"ε": f"{epsilon:.3g}", "ρ": f"{rho:.5g}"}
    for d in (9, 15, 16):
        sigma0, epsilon1 = initial_parameters(rho, d, AIMConfig())
        row[f"σ₀, d={d}"], row[f"ε₁, d={d}"] = f"{sigma0:.4g}", f"{epsilon1:.4g}"
    rows.append(row)
worked = pd.DataFrame(rows).style.hide(axis="index")
glue("aim-worked-numbers", worked, display=False)
worked
