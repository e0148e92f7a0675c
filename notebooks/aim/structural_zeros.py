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
# # Structural zeros (Table 3)
#
# Appendix D of the AIM paper imposes known impossible value combinations on the model and
# compares AIM with and without them on fire with the all-3way workload. The paper used 9 attribute
# pairs and 2,696 zero cells without listing them; we use the 9 pairs of
# `reprolib.papers.aim.experiments.FIRE_ZERO_PAIRS` (a coarser grouping of a finer attribute: geography and
# call-type group) and take their empty cells as the known zeros. Ratio = AIM / AIM+SZ: above 1
# means the zeros helped.

# %% tags=["parameters", "remove-cell"]
scale = "small"
device = "auto"
overrides = {}

# %% tags=["hide-input"]
from myst_nb import glue

from reprolib.experiments import compute_summary, run_experiment
from reprolib.papers.aim.checks import PAPER_TABLE3
from reprolib.papers.aim.figures import summarise

results = run_experiment("aim-tab3", scale=scale, device=device, progress=False,
                         overrides=overrides)
zeros = int(results.loc[results["mechanism"] == "AIM+SZ", "metric.structural_zeros"].iloc[0])
dataset = results["dataset"].iloc[0]
print(f"scale = {scale}: dataset {dataset}, {zeros:,} structural zeros (paper: 2,696 on fire), "
      f"{results['seed'].nunique()} trial(s), {results['param.pgm_iters'].iloc[0]} Private-PGM iterations, "
      f"capacity {results['param.max_model_size_mb'].iloc[0]:g} MB")
print(f"compute: {compute_summary(results)}")
glue("aim-tab3-zeros", zeros, display=False)

# %% tags=["hide-input"]
table = summarise(results).pivot_table(index="epsilon", columns="mechanism", values="mean")
table["ratio"] = table["AIM"] / table["AIM+SZ"]
paper = PAPER_TABLE3.set_index("epsilon")
table = table.join(paper.add_prefix("paper "), how="left")
table.style.format("{:.3f}")
