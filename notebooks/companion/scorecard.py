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
# What is reproduced, read from the results recorded in `results/` when this page was built and
# from the reproduction checks evaluated on them (`reprolib check` prints the same checks,
# `reprolib list` the same statuses).

# %% tags=["parameters", "remove-cell"]
scale = "small"
device = "auto"
paper = None  # one paper's artifacts and checks, or None for all

# %% tags=["hide-input"]
from html import escape

from reprolib.experiments import (
    STATUS_WORDS,
    STATUSES,
    artifact_scorecard,
    catalogue,
    checks_of,
    evaluate_checks,
    scorecard_frame,
)

papers = catalogue()
evaluated = evaluate_checks(checks_of(paper))
artifacts = artifact_scorecard(papers, evaluated, paper=paper)
card = scorecard_frame(evaluated)
STATUS_COLOURS = {"pass": "green", "fail": "red", "missing": "red"}
TABLE_CSS = [
    {"selector": "", "props": "width: 100%; border-collapse: collapse;"},
    {"selector": "th", "props": "text-align: left; vertical-align: bottom;"},
    {"selector": "td", "props": "vertical-align: top; white-space: normal; "
                                "overflow-wrap: break-word; padding: 0.3em 0.5em;"},
]


def breakable(text: str) -> str:
    """``text`` escaped, with a line break allowed after every slash (results paths)."""
    return escape(text).replace("/", "/<wbr>")


def small(text: str) -> str:
    """Secondary text under a cell's main words."""
    return f"<br><small>{breakable(text)}</small>" if text else ""


pages = dict(zip(artifacts["artifact"], artifacts["page"], strict=True))


def linked(artifact: str) -> str:
    """The artifact's id, unbroken, as a link to its page where it has one."""
    words = f'<a href="{pages[artifact]}">{artifact}</a>' if pages[artifact] else artifact
    return f'<span style="white-space: nowrap">{words}</span>'


def show(frame):
    """Render a table of prepared HTML cells, without the index, wrapping long words."""
    if paper is not None and "paper" in frame:
        frame = frame.drop(columns="paper")
    return frame.style.hide(axis="index").set_table_styles(TABLE_CSS)


# %% [markdown]
# ## Artifacts
#
# One row per figure or table of each paper. **Status**, from the lowest: *not re-run* (no
# notebook yet, or no results committed); *re-run* (a notebook and its smoke- or small-scale
# results; the note says what is missing); *whole design* (small-scale results that cover the
# paper's whole design: every dataset or its named stand-in, every ε, every mechanism, at least
# three trials); *paper scale* (results at the paper's own settings, or a small grid that is the
# paper's cell for cell because nothing in it is cut, as in a taxonomy). **Data**: the paper's own
# datasets, or the named real tables standing in for them where the paper's cannot be had offline
# (marked † here and on the pages). **Checks**: how many of the artifact's checks pass; checks not
# applicable to what was run are counted apart. **Deviations**: claims of the paper our runs
# contradict, by check (explained in the checks table below).

# %% tags=["hide-input"]
counts = artifacts["status"].value_counts()
print(f"{len(artifacts)} artifact{'s' * (len(artifacts) != 1)}: " + ", ".join(
    f"{counts[status]} {status}" for status in reversed(STATUSES) if status in counts))

# %% tags=["hide-input", "full-width"]
show(artifacts.assign(
    paper=[papers.paper(key).caption for key in artifacts["paper"]],
    artifact=artifacts["artifact"].map(linked),
    shows=artifacts["title"].map(breakable),
    status=[f"<b>{status}</b>{small(note)}"
            for status, note in zip(artifacts["status"], artifacts["note"], strict=True)],
    data=artifacts["data"].map(breakable),
    deviations=artifacts["deviations"].map(lambda text: breakable(text).replace("\n", "<br>")),
)[["paper", "artifact", "shows", "status", "data", "checks", "deviations"]])

# %% [markdown]
# ## Checks
#
# Every reproduction check of the artifacts above, with its kind and scale under its status.
# Kinds: **exact** (must match exactly), **band** (within a stated tolerance of the paper's
# number), **claim** (a paper's qualitative claim, tested on what was run), **regression**
# (smoke-scale numbers recomputed now equal the recorded ones). *Results missing* means the results a check needs were not recorded: it counts
# as failed. *Not applicable* means the check's premise did not hold in what was run (a comparison
# with the paper's table when only a stand-in dataset ran): it is listed with the reason, neither
# passed nor failed. *Documented deviation* marks a claim of a paper that our runs contradict,
# documented as a finding (under the check: what we found, its numbers computed from the
# committed runs as this page was built); if it ever passes, it turns into *fails* until the
# finding is revised.

# %% tags=["hide-input"]
tally = card["status"].value_counts()
others = [f"{tally[status]} {STATUS_WORDS[status]}"
          for status in ("fail", "missing", "not-applicable", "deviation") if status in tally]
print(f"{tally.get('pass', 0)} of {len(card)} checks pass" + "; " * bool(others) + ", ".join(others))

# %% tags=["hide-input", "full-width"]
# the paper (on the page of all papers) goes under the artifact, the kind and scale under the
# status: eight columns do not fit a laptop's page
show(card.assign(
    artifact=[linked(check.artifact) + (small(papers.paper(key).caption) if paper is None else "")
              for (check, _), key in zip(evaluated, card["paper"], strict=True)],
    check=[f"{breakable(description)}{small(id_)}" + (f"<br><em>Our finding:</em> {breakable(note)}"
                                                    if note else "")
           for description, id_, note in zip(card["description"], card["check"], card["note"],
                                             strict=True)],
    status=[f'<span style="color: {STATUS_COLOURS.get(status, "darkorange")}">'
            f"{STATUS_WORDS[status]}</span>{small(f'{kind}, {scale}')}"
            for status, kind, scale in zip(card["status"], card["kind"], card["scale"],
                                           strict=True)],
    observed=card["observed"].map(breakable),
    expected=card["expected"].map(breakable),
    data=card["data"].map(breakable),
)[["artifact", "check", "status", "observed", "expected", "data"]])
