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
# # Algorithm 1 and SliceWass on the ACS tasks
#
# Tables 1 (ε = 5.1) and 3 (ε = 8.1) of the paper score synthetic tables of the five ACS tasks
# with SDMetrics (see {ref}`slicing-index`): KSComp and TVComp compare single columns, ContSim
# and CorrSim pairs of columns, LogitRegression is the F1 on the real table of a classifier
# trained on the synthetic one; all lie in [0, 1], higher is better. Both mechanisms release one
# sliced view of a Poisson sample at rate 0.25 of the task and train a generator on it alone:
# Algorithm 1 on the smoothed-sliced Pearson χ² divergence with k = 2, SliceWass on the smoothed
# sliced Wasserstein distance with k = 1, the same number m′ of released projections for both.
# The ε is the paper's, *after* amplification; ours amplifies through the sample's size, valid
# for the replace-one neighbours this release needs ({prf:ref}`slicing-thm-poisson`), and pays the
# private bounds of the numerical columns from the same budget (the paper spends ε = 0.5 on them
# and does not count it). δ = 10⁻⁵ (ours; the paper gives none).
#
# **The data are stand-ins** (see the Table 2 page): the paper's California records need the
# Census Bureau's servers, which this machine cannot reach. Our numbers are therefore not
# comparable with the paper's cell by cell; what carries over is the comparison between the two
# mechanisms on the same data. MERF is re-run as DP-MERF with its authors' tabular settings
# (their `code_tab`: the class proportions released beside the mean embedding at one noise
# multiplier, Fourier features of the numbers beside the scaled one-hot blocks, 2,000 features,
# 200 steps on batches of 10 % of the records), on the whole task at the reported ε with no
# sample and no amplification, the proportions paid from the same budget. Ours differs from
# theirs in two places: the kernel's width is the typical distance √(p/6) of p uniform numbers
# (theirs is the median distance of held-out records, which reads data), and the generator
# ends in one softmax per categorical attribute (theirs: a sigmoid per one-hot column). The
# paper's DP-SGD row, a GAN trained with DP-SGD from the SmartNoise library, is re-run as our
# DP-CTGAN (SmartNoise's `DPCTGAN` settings, made private where SmartNoise's code is not; see
# {ref}`rappp-index`), at the reported ε counted in full. The paper leaves its own
# preprocessing (ε = 0.5, Appendix C) out of the reported ε and does not say how its baselines'
# budgets were handled; SmartNoise's GANs spend some ε on preprocessing, which the RAP++ paper
# granted DP-CTGAN uncounted (ε = 5), and the setting `gan_free_epsilon` reproduces that
# convention. Ours reads declared bounds and counts everything in one budget. The PATE row,
# SmartNoise's PATE-GAN in the paper, is re-run as our PATE-GAN: SmartNoise's `PATEGAN` settings
# (Laplace noise of scale 1,000 on the teachers' votes, one teacher per 1,000 records) until the
# budget is spent, accounted with the data-independent bound, so its ε is a guarantee; the
# paper's data-dependent accountant is a switch ({ref}`slicing-baselines`). At `smoke` both
# GANs run (PATE-GAN with 3 iterations, its noise calibrated to them); at `small` PATE-GAN runs
# at SmartNoise's noise until the budget is spent, and DP-CTGAN 30 of SmartNoise's 300 epochs
# (the tenth of the paper's epochs that Algorithm 1 gets), its noise calibrated to them.

# %% tags=["parameters", "remove-cell"]
scale = "small"
device = "auto"
artifact = "slicing-tab1"
overrides = {}

# %% tags=["hide-input", "full-width"]
import textwrap

from reprolib.experiments import compute_summary, run_experiment
from reprolib.figures import benchmark_table
from reprolib.papers.slicing.comparison import SETTINGS, pending_mechanisms
from reprolib.papers.slicing.pages import comparison_table

results = run_experiment(artifact, scale=scale, device=device, progress=False,
                         overrides=overrides)
settings = SETTINGS[scale]
print(textwrap.fill(
    f"Scale {scale}: {results['dataset'].nunique()} tasks, {results['seed'].nunique()} seeds "
    f"per task and mechanism, m′ = {settings.projections} released projections, "
    f"{settings.epochs} epochs at learning rate {settings.learning_rate:g} and batch 128 (the "
    "paper: 200 epochs, its m′ unstated; ours at paper scale: m′ = 500). "
    + (f"DP-CTGAN: {settings.gan_epochs} epochs. " if "DP-CTGAN" in settings.mechanisms else "")
    + ("PATE-GAN: " + (f"{settings.pate_iterations} iterations, noise calibrated to them. "
                       if settings.pate_iterations else "SmartNoise's noise, until the budget is "
                       "spent. ") if "PATE-GAN" in settings.mechanisms else "")
    + (f"Re-implemented, not yet run at this scale: {', '.join(pending_mechanisms(scale))}. "
       if pending_mechanisms(scale) else "")
    + f"Compute: {compute_summary(results)}.", 72))
comparison_table(results, artifact)

# %% tags=["remove-cell"]
# PATE-GAN's cost at ε = 5.1, for the baselines page (glued once)
from myst_nb import glue

from reprolib.papers.slicing.pages import pate_gan_cost_in_words

if artifact == "slicing-tab1":
    glue("slicing-pate-cost", pate_gan_cost_in_words(results) or "no runs stored yet",
         display=False)

# %% [markdown]
# Each of our cells is the mean ± standard deviation over the seeds (each seed draws its own
# sample, release and training); the paper's are as printed (mean ± std over an unstated number
# of runs). "–": CorrSim needs two numerical columns, which the employment task (both ours and
# the paper's) and the income stand-in (its second number, hours worked, is not in the excerpts)
# lack.
#
# ## What the runs say about the paper's claims
#
# The checks of this table, evaluated on the stored runs as this page was built: whether
# Algorithm 1 beats SliceWass, and each of the two slicing methods beats DP-MERF, PATE-GAN and
# DP-CTGAN, in most (task, score) pairs, as the paper found, each win by more than the seeds'
# spread (a gap within it counts for neither); against the GAN baselines, which the paper says
# the slicing methods "consistently" outperform, also with no pair the other way. Where our
# runs contradict the paper, the finding gives the numbers (computed
# from the same runs) and what differs: the stand-in data, a tenth of the paper's epochs for the
# slicing methods, and the baselines' settings, which the paper does not give. The scorecard
# adds the budget and regression checks.

# %% tags=["hide-input"]
from IPython.display import Markdown

from reprolib.experiments import artifact_findings

Markdown(artifact_findings(artifact))

# %% [markdown]
# ## The speed benchmark
#
# `benchmarks/slicing_speed.py` times Algorithm 1's training on a release the size of the
# paper's Income task after its 0.25 sample (49,000 rows of 100 encoded columns, batches of
# 128) and extrapolates its epochs to the paper's 200 (a row of 200 epochs is a whole model);
# its docstring has the command line. The paper reports under two hours per 200-epoch model on
# a V100; our goal is under ten minutes on one modern GPU. Rows record the device, the threads
# and the machine's load when they ran; rows marked "before" a revision timed the code before
# that commit (09886ab made the loss 2.4 times faster on a GPU).

# %% tags=["hide-input", "full-width"]
from IPython.display import display

from reprolib.papers.slicing.pages import speed_benchmark

speed = speed_benchmark()
if speed is None:
    print("no benchmark results yet: run benchmarks/slicing_speed.py --csv "
          "results/slicing/benchmarks/slicing-speed.csv")
else:
    display(benchmark_table(speed))
