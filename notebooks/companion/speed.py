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
# # Run times
#
# How long the committed runs took, read from the results stores when this page was built:
# per paper, mechanism, scale and device, the number of runs recorded, the median and the
# largest wall time of one run, the dataset of the largest, and whether the runs were private
# (False for the papers' non-private references). The `small` rows are the
# reduced compute of the whole design, the `paper` rows runs at the papers' own settings
# (spot runs, where a paper's grid is not complete). Each run's time is that of the machine
# that recorded it, loaded or not, so these figures size a batch (`reprolib batch --dry-run`
# estimates one from the same rows) rather than rank implementations. A CPU is named by its
# model and widest vector instructions; runs stored before the store recorded that name show as
# "cpu (model not recorded)".
#
# The papers' benchmarks, which fix the knobs and record the machine's load, are on their own
# pages: AIM's speed benchmark and its side-by-side with the authors' 2022 code on
# {doc}`../aim/runtime`, GEM's side-by-side with its authors' code on
# {doc}`../aim/workload_error-fig1`, RAP++'s Adam steps per second on CPU and GPU on
# {doc}`../rappp/sensitivity`, and the slicing mechanism's steps per second on
# {doc}`../slicing/comparison-tab1`. PrivPGD's benchmark closes this page.

# %% tags=["parameters", "remove-cell"]
scale = "small"  # unused: the page reads every committed small and paper run
device = "auto"

# %% tags=["hide-input", "full-width"]
from IPython.display import display

from reprolib.experiments import recorded_speed
from reprolib.figures import benchmark_table

times = recorded_speed()
if times.empty:
    print("no runs recorded at small or paper scale")
else:
    display(times.set_index(["paper", "mechanism", "scale", "device"])
            .style.format({"median_s": "{:.3g}", "max_s": "{:.3g}"})
            .set_table_styles([{"selector": "td, th", "props": "padding: 0 0.5em"}]))

# %% [markdown]
# ## At the papers' settings, on a CPU and on a GPU
#
# One row per benchmark run at a paper's own setting (or the paper-sized problem of its
# benchmark), read from the four benchmarks' CSV files, and, for AIM, the stored paper-scale
# runs on fire, the goal's dataset: a whole run, or a shorter one extrapolated to the paper's
# length, where a whole run was out of reach. The CPU rows ran on this project's 2-core
# machines, the GPU rows on one NVIDIA H200 (16 cores beside it). Each row names the
# project's goal for that paper and what its authors report.
#
# AIM on fire at 80 MB and ε = 10, with the paper's 1,000 iterations a round and 2,500 for the
# final fit, ran whole on the GPU (the row marked "paper scale"), against the authors' 9 hours
# on one core of their cluster.

# %% tags=["hide-input", "full-width"]
import pandas as pd

from reprolib.papers.aim.pages import paper_setting_speed as aim_speed
from reprolib.papers.privpgd.pages import paper_setting_speed as privpgd_speed
from reprolib.papers.rappp.pages import paper_setting_speed as rappp_speed
from reprolib.papers.slicing.pages import paper_setting_speed as slicing_speed

settings = pd.concat([speed() for speed in (aim_speed, privpgd_speed, rappp_speed,
                                            slicing_speed)], ignore_index=True)
display(settings.set_index(["paper", "mechanism"]).style.format({"minutes": "{:.3g}"})
        .set_table_styles([{"selector": "td, th", "props": "padding: 0 0.5em"}]))

# %% [markdown]
# ### The baselines at their paper settings
#
# Several baselines run the paper's own settings at `small` already: AIM's single-fit
# mechanisms (MST, PrivBayes+PGM, Independent) run their own Private-PGM iterations at every
# scale, and the Gaussian baseline fits nothing; PrivPGD's PGM+AIM and PGM+MST run at 80 MB and
# 3,000 iterations; the slicing tables' DP-MERF and PATE-GAN run their authors' settings. A
# `small` run counts here only if its cell is a paper cell, once the knobs the mechanism does not
# read and, for PrivPGD and the slicing tables, the data switch are set aside (offline the paper
# cells' data are the same stand-ins, which the rows name). Each row is the longest such run.
# The private mechanisms of the run-times table that neither table names follow it (the
# table's `private` column is False for the papers' non-private references): none of their
# `small` cells is a paper cell (their grids cut the knobs, or their paper-setting grids are
# still to run), and no benchmark ran them at a paper setting.

# %% tags=["hide-input", "full-width"]
import textwrap

from reprolib.experiments import without_paper_setting_time
from reprolib.papers.aim.pages import baselines_at_paper_settings as aim_baselines
from reprolib.papers.privpgd.pages import baselines_at_paper_settings as privpgd_baselines
from reprolib.papers.slicing.pages import baselines_at_paper_settings as slicing_baselines

baselines = pd.concat([runs() for runs in (aim_baselines, privpgd_baselines,
                                           slicing_baselines)], ignore_index=True)
display(baselines.drop(columns=["goal", "authors"]).set_index(["paper", "mechanism"])
        .style.format({"minutes": "{:.3g}"})
        .set_table_styles([{"selector": "td, th", "props": "padding: 0 0.5em"}]))
missing = without_paper_setting_time(times, settings, baselines)
print("\n".join(["Not timed at a paper setting yet:"] + [
    textwrap.fill(f"{paper}: {', '.join(mechanisms)}", 88, initial_indent="  ",
                  subsequent_indent="    ") for paper, mechanisms in missing.items()])
      if missing else "every mechanism with recorded runs has a paper-setting time")

# %% [markdown]
# ## GEM's update step
#
# A GEM round takes up to 100 Adam steps; each answers every marginal measured so far, ranks
# their cells' errors and differentiates the loss over the 10,000 worst cells, so the last
# rounds on a large domain set a run's time. `benchmarks/gem_step.py` times one step with the
# 50 slots of the authors' script filled by the workload's largest marginals (on salary's
# all-3way workload 13.7 million cells, the largest 33 × 76 × 501), one row per revision of the
# code, each alone on one core. Revision 2e01ef3 computes the loss from the kept cells' columns
# only, where the one before pulled it back through every measured marginal.

# %% tags=["hide-input", "full-width"]
from reprolib.papers.aim.pages import gem_step_benchmark

gem_step = gem_step_benchmark()
if gem_step is None:
    print("GEM's step benchmark has not been run (benchmarks/gem_step.py)")
else:
    display(benchmark_table(gem_step))

# %% [markdown]
# ## PrivPGD's phases
#
# `benchmarks/privpgd_speed.py` times one `PrivPGD.fit` on the AIM paper's adult table, split
# into the projection that releases the private marginals and the particle descent, with the
# knobs, the threads and the machine's load before the run; rows marked "before" a revision
# were measured on the code before that commit.

# %% tags=["hide-input", "full-width"]
from reprolib.papers.privpgd.pages import speed_benchmark

privpgd_speed = speed_benchmark()
if privpgd_speed is None:
    print("PrivPGD's speed benchmark has not been run (benchmarks/privpgd_speed.py)")
else:
    display(benchmark_table(privpgd_speed))
