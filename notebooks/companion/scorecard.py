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
# # Scorecard
#
# Every reproduction check of the book, evaluated on the results recorded in `results/` when this
# page was built (`reprolib check` prints the same table). Kinds: **exact** (must match exactly),
# **band** (within a stated tolerance of the paper's number), **claim** (a paper's qualitative
# claim, tested on what was run), **regression** (smoke-scale numbers recomputed now equal the
# recorded ones). `missing` means the results a check needs were not recorded: it counts as failed.
# `not-applicable` means the check's premise did not hold in what was run (a comparison with the
# paper's table when only a stand-in dataset ran): it is listed with the reason, neither passed
# nor failed. `deviation` marks a claim of a paper that our runs contradict, documented as a finding
# (the note says what we found); if it ever passes, it turns into `fail` until the note is revised.

# %% tags=["parameters", "remove-cell"]
scale = "small"
device = "auto"
paper = None  # one paper's checks, or None for all

# %% tags=["hide-input"]
from myst_nb import glue

from reprolib.experiments import artifact_status, checks_of, evaluate_checks, scorecard_frame

card = scorecard_frame(evaluate_checks(checks_of(paper)))
counts = card["status"].value_counts()
glue("n_checks", len(card), display=False)
glue("n_passed", int(counts.get("pass", 0)), display=False)
print(f"{counts.get('pass', 0)} of {len(card)} checks pass "
      f"({counts.get('fail', 0)} fail, {counts.get('missing', 0)} missing results, "
      f"{counts.get('not-applicable', 0)} not applicable to what was run, "
      f"{counts.get('deviation', 0)} documented deviations from the paper)")

# %% tags=["hide-input", "full-width"]
columns = ["paper", "check", "kind", "scale", "data", "status", "observed", "expected", "note"]
card[columns].style.hide(axis="index").map(
    lambda status: {"pass": "color: green", "fail": "color: red"}.get(status, "color: orange"),
    subset=["status"],
)

# %% [markdown]
# ## Which artifacts are re-run
#
# Papers whose artifacts are not re-run yet have no checks above. This table (also printed by
# `reprolib list`) shows every artifact of the four papers, its notebook, and the scales at which
# results are recorded.

# %% tags=["hide-input", "full-width"]
artifact_status(paper).style.hide(axis="index")
