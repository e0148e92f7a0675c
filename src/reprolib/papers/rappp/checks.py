"""The RAP++ checks: Tables 1-4, the annealing study, the comparison figures and Figure 3.

Table 1's feature counts are exact facts about the rebuilt Table 4; its row counts are exact
only where the paper's ACS files ran (not offline, where the stand-ins' rows are counted
instead). Table 2's input types are read from our mechanisms. Table 3's claims (numbers matter
for income, not for every target) are tested on the stand-ins' multitask data.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from reprolib.experiments._checks import (
    TRAINED_ACROSS_CPUS,
    Check,
    CheckContext,
    Outcome,
    most,
    regression_check,
    tally_in_words,
)
from reprolib.experiments._scales import Scale
from reprolib.papers.rappp.annealing import ANNEALED, FIXED
from reprolib.papers.rappp.comparison import ORIGINAL, focus_state
from reprolib.papers.rappp.figures import annealing_summary
from reprolib.papers.rappp.reported import TABLE_1
from reprolib.papers.rappp.summaries import error_summary, f1_summary, sensitivity_summary

PAPER_TABLE_2 = {"PGM": "Categorical", "DP-MERF": "Numerical", "DP-CTGAN": "Mixed-Type",
                 "RAP": "Categorical", "RAP++": "Mixed-Type"}
NO_DATA = "the paper's Table 4 rebuilt (no data)"
RDP_SPEND_RTOL = 1e-6  # DP-MERF's sigma is bisected from above to the budget (rel. 1e-10)
STAND_INS = "SDNist 2018 excerpts standing in for the paper's states (multitask stand-in)"


def _feature_counts(ctx: CheckContext, scale: str) -> Outcome:
    rows = ctx.results("rappp-tab4", scale).set_index("dataset")
    wrong = []
    for task, (categorical, numerical, _) in TABLE_1.items():
        got = (len(rows.at[task, "metric.categorical"]) + len(rows.at[task, "metric.targets"]),
               len(rows.at[task, "metric.numerical"]))
        if got != (categorical, numerical):
            wrong.append(f"{task} {got}")
    return Outcome("fail" if wrong else "pass",
                   f"{len(TABLE_1) - len(wrong)}/{len(TABLE_1)} tasks match" +
                   (f"; off: {', '.join(wrong)}" if wrong else ""),
                   "Table 1's (categorical incl. label, numerical) for all five tasks")


def _row_counts(ctx: CheckContext, scale: str) -> Outcome:
    rows = ctx.results("rappp-tab1", scale)
    paper = rows[~rows["metric.stand_in"].astype(bool)]
    if paper.empty:
        return Outcome("not-applicable", "only stand-ins ran (the paper's ACS files are not "
                       "offline)", "Table 1's rows per task and state")
    wrong = [f"{r.dataset}: {r['metric.records']}" for _, r in paper.iterrows()
             if TABLE_1.get(r.dataset.split("/")[0], (0, 0, {}))[2].get(r.dataset.split("/")[1])
             != r["metric.records"]]
    return Outcome("fail" if wrong else "pass", f"{len(paper) - len(wrong)}/{len(paper)} match",
                   "Table 1's rows per task and state")


def _input_types(ctx: CheckContext, scale: str) -> Outcome:
    rows = ctx.results("rappp-tab2", scale)
    rerun = rows[rows["metric.rerun"].astype(bool)]
    wrong = [f"{r.mechanism}: {r['metric.input']}" for _, r in rerun.iterrows()
             if PAPER_TABLE_2[r.mechanism] != r["metric.input"]]
    return Outcome("fail" if wrong or rerun.empty else "pass",
                   f"{len(rerun) - len(wrong)}/{len(rerun)} re-run mechanisms match"
                   + (f"; off: {', '.join(wrong)}" if wrong else ""),
                   "the input data type of Table 2 for every re-run mechanism")


def importance_gains(frame: pd.DataFrame) -> pd.Series:
    """Mean F1 gain of adding the numerical columns, per target, over states and seeds."""
    gains = {}
    for column in frame.columns:
        if column.startswith("metric.f1_all."):
            target = column.removeprefix("metric.f1_all.")
            gains[target] = float(np.mean(frame[column] - frame[f"metric.f1_categorical.{target}"]))
    return pd.Series(gains).sort_values(ascending=False)


def _per_state(ctx: CheckContext, scale: str) -> dict[str, pd.Series]:
    """Each state's gains: Table 3 is one state's table (ACS-NY), so claims hold per state."""
    frame = ctx.results("rappp-tab3", scale)
    return {dataset.split("/")[1]: importance_gains(rows)
            for dataset, rows in frame.groupby("dataset")}


def _income_gains_most(ctx: CheckContext, scale: str) -> Outcome:
    gains = _per_state(ctx, scale)
    leaders = {state: g.index[0] for state, g in gains.items()}
    observed = "; ".join(f"{state}: {g.index[0]} {g.iloc[0]:+.3f}" for state, g in gains.items())
    return Outcome("pass" if set(leaders.values()) == {"income"} else "fail",
                   f"largest gain per state: {observed}",
                   "in every state income's F1 gains most from the numerical columns")


def _some_target_gains_nothing(ctx: CheckContext, scale: str) -> Outcome:
    gains = _per_state(ctx, scale)
    smallest = {state: (g.abs().idxmin(), float(g.abs().min())) for state, g in gains.items()}
    ok = all(value <= 0.01 for _, value in smallest.values())
    return Outcome("pass" if ok else "fail",
                   "smallest |gain| per state: " + "; ".join(
                       f"{state}: {target} {value:.3f}" for state, (target, value)
                       in smallest.items()),
                   "in every state some target's F1 moves by at most 0.01 (the paper, ACS-NY: "
                   "employment 0, travel and mobility 0.01)")


def _exact_checks(scale: str) -> list[Check]:
    return [
        Check(id=f"rappp-table1-features-{scale}", artifact="rappp-tab4", kind="exact",
              scale=scale, data=NO_DATA,
              description="the rebuilt feature lists have Table 1's numbers of categorical and "
                          "numerical features",
              evaluate=lambda ctx: _feature_counts(ctx, scale)),
        Check(id=f"rappp-table1-rows-{scale}", artifact="rappp-tab1", kind="exact", scale=scale,
              data="the paper's ACS files where present", description="rows per task and state "
              "equal Table 1 (2014, 1-Year person records)",
              evaluate=lambda ctx: _row_counts(ctx, scale)),
        Check(id=f"rappp-table2-inputs-{scale}", artifact="rappp-tab2", kind="exact",
              scale=scale, data="the mechanisms' declared traits",
              description="the mechanisms re-run read the input type Table 2 gives them",
              evaluate=lambda ctx: _input_types(ctx, scale)),
    ]


def _claims(scale: str, data: str) -> list[Check]:
    """Table 3's claims, where the design holds (every stand-in state, four seeds)."""
    return [
        Check(id=f"rappp-table3-income-{scale}", artifact="rappp-tab3", kind="claim",
              scale=scale, data=data,
              description="numerical features matter most for income (Table 3), in every "
                          "stand-in state",
              evaluate=lambda ctx: _income_gains_most(ctx, scale)),
        Check(id=f"rappp-table3-flat-{scale}", artifact="rappp-tab3", kind="claim",
              scale=scale, data=data,
              description="for some target the numerical features add (almost) nothing, in "
                          "every stand-in state (Table 3: employment 1.00 with or without them)",
              evaluate=lambda ctx: _some_target_gains_nothing(ctx, scale)),
    ]


CHECKS: list[Check] = [
    *(check for scale in ("smoke", "small") for check in _exact_checks(scale)),
    *_claims("small", STAND_INS),
    regression_check("rappp-tab3", ["f1_all.income", "f1_categorical.income"], rtol=1e-9,
                     cross_cpu_rtol=TRAINED_ACROSS_CPUS, data=STAND_INS),
]


def _annealing_beats_fixed(ctx: CheckContext, artifact: str, scale: str) -> Outcome:
    """On every dataset, the annealed fit's mean (over seeds) max and mean errors are below
    those of every fixed sigma.
    """
    summary = annealing_summary(ctx.results(artifact, scale))
    worse = []
    for dataset, rows in summary.groupby("dataset"):
        annealed = rows[rows["mechanism"] == ANNEALED].iloc[0]
        fixed = rows[rows["mechanism"] == FIXED]
        for metric in ("max_error", "mean_error"):
            best = fixed.loc[fixed[f"{metric} mean"].idxmin()]
            if annealed[f"{metric} mean"] >= best[f"{metric} mean"]:
                worse.append(f"{dataset} {metric}: annealed {annealed[f'{metric} mean']:.4f} vs "
                             f"sigma={best['sigma']:g} {best[f'{metric} mean']:.4f}")
    datasets = summary["dataset"].nunique()
    return Outcome("fail" if worse else "pass",
                   f"annealing below every fixed sigma on {datasets - len({w.split()[0] for w in worse})}"
                   f"/{datasets} datasets" + (f"; not on: {'; '.join(worse)}" if worse else ""),
                   "annealing's mean over seeds below the best fixed sigma's, max and mean error")


def _annealing_checks(scale: str) -> list[Check]:
    data = {"rappp-fig1": "SDNist national 2018, income stand-in (exact answers)",
            "rappp-fig6": "SDNist national 2018, the five stand-in tasks (exact answers)"}
    return [Check(id=f"{artifact}-annealing-{scale}", artifact=artifact, kind="claim",
                  scale=scale, data=data[artifact],
                  description="annealing the temperature fits 2-way mixed marginals better than "
                              "every fixed temperature (Figures 1 and 6)",
                  evaluate=partial(_annealing_beats_fixed, artifact=artifact, scale=scale))
            for artifact in ("rappp-fig1", "rappp-fig6")]


CHECKS += [*_annealing_checks("small"),
           regression_check("rappp-fig1", ["max_error", "mean_error"], rtol=1e-5,
                            cross_cpu_rtol=TRAINED_ACROSS_CPUS,
                            data="SDNist Massachusetts 2018, income stand-in (exact answers)")]


# ---- the comparison figures (2-5, 7-9) and Figure 3's sweep ----

COMPARISON_DATA = "SDNist 2018 excerpts standing in for the paper's states (single-task stand-ins)"
# small cells recomputed beside the smoke grid by the Figure 8 regression check: the smoke grid
# stops RAP++ after 30 steps a pass and PGM after 20 iterations, so a change to the annealing's
# later passes or to the rounding at 500 relaxed rows would move the small grid alone
SMALL_SPOTS = {"datasets": ("income/ma2018",), "mechanisms": ("RAP++", "RAP", "PGM"),
               "epsilons": (0.15,), "trials": 1}
NOISE = ("{within_noise} of these gaps within twice the standard error of the "
         "difference (the seeds' standard errors); ")
AT_SMALL_SCALE = ("on the offline stand-ins the check's data names, at reduced compute (500 "
                  "relaxed rows, 500 steps a pass, 20,000 thresholds; PGM 100 Private-PGM "
                  "iterations a round)")
F1_TOLERANCE = 0.05  # "not much worse": at most this much macro-F1 below the best other mechanism
CM_FACTOR_LOG2 = 0.5  # "comparable": RAP++'s CM error within 2^0.5 of PGM's, on average


def _means(summary: pd.DataFrame, index: list[str]) -> pd.DataFrame:
    """Mechanisms as columns of the summary's means."""
    return summary.pivot_table(index=index, columns="mechanism", values="mean")


def _ledger(ctx: CheckContext, artifact: str, scale: str) -> Outcome:
    runs = ctx.results(artifact, scale)
    runs = runs[runs["mechanism"] != ORIGINAL]
    exact = np.isclose(runs["metric.spent_rho"], runs["metric.budget_rho"], rtol=1e-9, atol=0)
    if "metric.spent_epsilon" in runs:  # DP-MERF's, DP-CTGAN's Rényi ledgers: noise bisected
        spent, budget = runs["metric.spent_epsilon"], runs["metric.budget_epsilon"]
        exact |= (spent <= budget) & np.isclose(spent, budget, rtol=RDP_SPEND_RTOL, atol=0)
    delta = np.isclose(runs["metric.delta"], 1.0 / runs["metric.train_records"] ** 2,
                       rtol=1e-12, atol=0)
    bounded = runs["metric.relation"] == "replace-one"
    bad = runs.loc[~(exact & delta & bounded), ["mechanism", "dataset", "epsilon", "seed"]]
    return Outcome("pass" if bad.empty and len(runs) else "fail",
                   f"{len(runs) - len(bad)}/{len(runs)} runs spent exactly their budget at "
                   "delta = 1/n^2 under replace-one"
                   + (f"; not: {bad.to_dict('records')[:3]}" if len(bad) else ""),
                   "every private run: spent rho = budget rho (rel. 1e-9; DP-MERF and "
                   "DP-CTGAN, which account in Rényi DP: spent epsilon at most the budget's, "
                   f"within rel. {RDP_SPEND_RTOL:g}), delta = 1/n^2 (n the training records), replace-one "
                   "neighbours")


def _ledger_checks(scale: str) -> list[Check]:
    return [Check(id=f"{artifact}-ledger-{scale}", artifact=artifact, kind="exact", scale=scale,
                  data=STAND_INS if artifact == "rappp-fig9" else COMPARISON_DATA,
                  description="each recorded private run spent its whole budget, "
                              "no more, at the paper's delta and neighbouring relation",
                  evaluate=partial(_ledger, artifact=artifact, scale=scale))
            for artifact in ("rappp-fig8", "rappp-fig9", "rappp-fig3")]


def _mm_below_pgm(ctx: CheckContext, scale: str) -> Outcome:
    means = _means(error_summary(ctx.results("rappp-fig8", scale), "mm_mean_error"),
                   ["task", "epsilon"])
    above = means[means["RAP++"] >= means["PGM"]]
    return Outcome("pass" if above.empty else "fail",
                   f"RAP++ below PGM at {len(means) - len(above)}/{len(means)} (task, ε)" +
                   ("; not at " + ", ".join(f"{t} ε={e:g} ({r['RAP++']:.4f} vs {r['PGM']:.4f})"
                                           for (t, e), r in above.iterrows())
                    if len(above) else ""),
                   "RAP++'s mean MM error below PGM's for every task and ε (means over states "
                   "and seeds)")


def _mm_gap_widest_at_small_epsilon(ctx: CheckContext, scale: str) -> Outcome:
    means = _means(error_summary(ctx.results("rappp-fig8", scale), "mm_mean_error"),
                   ["task", "epsilon"])
    ratio = np.log2(means["PGM"] / means["RAP++"]).groupby("epsilon").mean()
    smallest, largest = ratio.index.min(), ratio.index.max()
    return Outcome("pass" if ratio[smallest] > ratio[largest] else "fail",
                   f"mean log2(PGM / RAP++) MM error over tasks: {ratio[smallest]:+.2f} at "
                   f"ε={smallest:g}, {ratio[largest]:+.2f} at ε={largest:g}",
                   "RAP++'s relative advantage on MM largest at the smallest ε (larger than at "
                   "the largest ε)")


def _cm_comparable(ctx: CheckContext, scale: str) -> Outcome:
    means = _means(error_summary(ctx.results("rappp-fig8", scale), "cm_mean_error"),
                   ["task", "epsilon"])
    ratio = np.log2(means["RAP++"] / means["PGM"])
    return Outcome("pass" if abs(ratio.mean()) <= CM_FACTOR_LOG2 else "fail",
                   f"mean log2(RAP++ / PGM) CM error {ratio.mean():+.2f} over {len(ratio)} "
                   f"(task, ε), from {ratio.min():+.2f} to {ratio.max():+.2f}",
                   f"RAP++'s CM error within a factor 2^{CM_FACTOR_LOG2:g} of PGM's on average "
                   "(mean of log2 ratios over tasks and ε)",
                   {"low": 2 ** ratio.min(), "high": 2 ** ratio.max(), "mean": 2 ** ratio.mean(),
                    "above": int((ratio > 0).sum()), "pairs": len(ratio)})


def _f1_of_private_runs(ctx: CheckContext, artifact: str, scale: str,
                        states: tuple[str, ...] | None, targets: tuple[str, ...] | None = None
                        ) -> pd.DataFrame:
    """:func:`f1_summary` of the private runs (of ``states`` and ``targets``, None: all)."""
    frame = ctx.results(artifact, scale)
    if states is not None:
        frame = frame[frame["dataset"].str.split("/").str[1].isin(states)]
    summary = f1_summary(frame, by_state=False)
    summary = summary[summary["mechanism"] != ORIGINAL]
    return summary if targets is None else summary[summary["target"].isin(targets)]


def _f1_means(ctx: CheckContext, artifact: str, scale: str, states: tuple[str, ...] | None
              ) -> pd.DataFrame:
    return _means(_f1_of_private_runs(ctx, artifact, scale, states), ["target", "epsilon"])


def _rappp_best(summary: pd.DataFrame, tolerance: float, what: str) -> Outcome:
    """RAP++'s mean F1 at least every other mechanism's minus ``tolerance`` at every (target,
    epsilon) of an F1 summary; the observation names every miss, or where none, the row where
    RAP++ is furthest behind; the figures weigh each miss against the seeds' standard errors.
    """
    means = _means(summary, ["target", "epsilon"])
    errors = _means(summary.assign(mean=summary["std"] / np.sqrt(summary["seeds"])),
                    ["target", "epsilon"])
    others = means.drop(columns="RAP++")
    short = means["RAP++"] - others.max(axis=1)
    misses = short[short < -tolerance]
    ahead = others.idxmax(axis=1)[misses.index]
    noise = [2 * np.hypot(errors.at[row, "RAP++"], errors.at[row, ahead[row]])
             for row in misses.index]
    figures = {
        "misses": len(misses), "pairs": len(short),
        "by_target": tally_in_words(misses.index.get_level_values("target")),
        "by_rival": tally_in_words(ahead),
        "within_noise": int(sum(-gap <= bound for gap, bound in zip(misses, noise, strict=True))),
        "behind": "; ".join(
            f"at ε = {epsilon:g} {ahead[(target, epsilon)]}'s "
            f"{means.at[(target, epsilon), ahead[(target, epsilon)]]:.3f} (standard error "
            f"{errors.at[(target, epsilon), ahead[(target, epsilon)]]:.3f}) against RAP++'s "
            f"{means.at[(target, epsilon), 'RAP++']:.3f} "
            f"({errors.at[(target, epsilon), 'RAP++']:.3f})"
            for target, epsilon in misses.index)}

    def behind(target: str, epsilon: float, gap: float) -> str:
        return f"{target} ε={epsilon:g} by {-gap:.3f} ({others.loc[(target, epsilon)].idxmax()})"

    observed = (f"RAP++ within {tolerance:g} of the best at {len(short) - len(misses)}/"
                f"{len(short)} (target, ε)")
    if len(misses):
        observed += "; behind at " + ", ".join(behind(t, e, v) for (t, e), v in misses.items())
    elif short.min() < 0:
        target, epsilon = short.idxmin()
        observed += "; furthest behind at " + behind(target, epsilon, short.min())
    return Outcome("pass" if misses.empty else "fail", observed, what, figures)


def _pgm_primary(ctx: CheckContext, scale: str) -> Outcome:
    """PGM against each other baseline: (task, epsilon) pairs where its mean MM error is lower
    and its mean F1 at least as high; a majority of both for every baseline passes.
    """
    runs = ctx.results("rappp-fig8", scale)
    errors = _means(error_summary(runs, "mm_mean_error"), ["task", "epsilon"])
    categorical = _means(error_summary(runs, "cm_mean_error"), ["task", "epsilon"])
    f1 = _f1_means(ctx, "rappp-fig8", scale, None)
    verdicts, holds, fails = [], [], []
    for rival in [m for m in ("RAP", "DP-MERF", "DP-CTGAN") if m in errors]:
        lower = int((errors["PGM"] < errors[rival]).sum())
        higher = int((f1["PGM"] >= f1[rival]).sum())
        verdict = (f"lower MM error at {lower}/{len(errors)}, F1 at least as high at "
                   f"{higher}/{len(f1)} (task, ε)")
        verdicts.append(f"against {rival}: {verdict}")
        if most(lower, len(errors)) and most(higher, len(f1)):
            holds.append(f"{rival} ({verdict})")
        else:
            above_pgm = f1.index[f1[rival] > f1["PGM"]]
            fails.append(
                f"{rival}'s mean mixed-marginal error is the lower at {len(errors) - lower} of "
                f"the {len(errors)} (task, epsilon) pairs ({_span(errors[rival])} against PGM's "
                f"{_span(errors['PGM'])}; below RAP++'s at "
                f"{int((errors[rival] < errors['RAP++']).sum())}), its F1 the higher at "
                f"{len(f1) - higher} ({tally_in_words(above_pgm.get_level_values(0))}), PGM's "
                "categorical-marginal error the lower at "
                f"{int((categorical['PGM'] < categorical[rival]).sum())}")
    return Outcome("pass" if verdicts and not fails else "fail", "; ".join(verdicts),
                   "PGM's mean MM error below, and its mean F1 at least, each other re-run "
                   "baseline's in most (task, ε) pairs",
                   {"holds": " and ".join(holds) or "none", "fails": "; ".join(fails)})


def _span(values: pd.Series) -> str:
    """The range of ``values`` in words: "0.020 to 0.081"."""
    return f"{values.min():.3f} to {values.max():.3f}"


def _single_task_claims(scale: Scale) -> list[Check]:
    state = focus_state(scale)
    return [
        Check(id=f"rappp-fig2-mm-below-pgm-{scale}", artifact="rappp-fig2", kind="claim",
              scale=scale, data=COMPARISON_DATA,
              description="RAP++ answers mixed marginals better than PGM at every ε (Figure 2: "
                          "'consistently achieves lower error')",
              evaluate=lambda ctx: _mm_below_pgm(ctx, scale)),
        Check(id=f"rappp-fig2-mm-gap-{scale}", artifact="rappp-fig2", kind="claim",
              scale=scale, data=COMPARISON_DATA,
              description="RAP++'s advantage on mixed marginals is largest at small ε (Figure 2: "
                          "'especially at small ε')",
              deviation=("RAP++'s relative advantage on mixed marginals grows with epsilon instead of shrinking: PGM's bins cost it little where the noise dominates, " + AT_SMALL_SCALE),
              evaluate=lambda ctx: _mm_gap_widest_at_small_epsilon(ctx, scale)),
        Check(id=f"rappp-fig2-pgm-primary-{scale}", artifact="rappp-fig2", kind="claim",
              scale=scale, data=COMPARISON_DATA,
              description="PGM is the most accurate of the baselines tried, DP-MERF, DP-CTGAN "
                          "and RAP among them (Section 5.2: 'the most performant of the various "
                          "approaches we tried')",
              deviation=("it holds against {holds}, but not against every baseline: {fails}. "
                         "DP-MERF runs with its authors' tabular settings; the paper tuned it and "
                         "reports no numbers for it, " + AT_SMALL_SCALE),
              evaluate=lambda ctx: _pgm_primary(ctx, scale)),
        Check(id=f"rappp-fig7-cm-comparable-{scale}", artifact="rappp-fig7", kind="claim",
              scale=scale, data=COMPARISON_DATA,
              description="RAP++ and PGM answer categorical marginals comparably (Figure 7)",
              deviation=("RAP++'s mean categorical-marginal error is {low:.1f} to {high:.1f} "
                         "times PGM's ({mean:.1f} times on average, in the geometric mean), "
                         "above it at {above} of the {pairs} (task, epsilon) pairs, "
                         + AT_SMALL_SCALE),
              evaluate=lambda ctx: _cm_comparable(ctx, scale)),
        Check(id=f"rappp-fig4-best-{scale}", artifact="rappp-fig4", kind="claim", scale=scale,
              data=f"{COMPARISON_DATA}; {state} for the paper's New York",
              description="on one state RAP++ has the best F1 on every task and ε (Figure 4: "
                          "'clearly outperforms every other benchmark')",
              deviation=("another mechanism's mean F1 is above RAP++'s at {misses} of the "
                         "{pairs} (target, epsilon) pairs (the observed column gives each "
                         "margin): by target {by_target}; the mechanism ahead is {by_rival}; "
                         + NOISE + AT_SMALL_SCALE),
              evaluate=lambda ctx: _rappp_best(
                  _f1_of_private_runs(ctx, "rappp-fig4", scale, (state,)), 0.0,
                  "RAP++'s mean F1 at least every other mechanism's, every task and ε")),
        Check(id=f"rappp-fig8-income-best-{scale}", artifact="rappp-fig8", kind="claim",
              scale=scale, data=COMPARISON_DATA,
              description="RAP++ has the best F1 on income, where numbers matter most (Figure 8)",
              deviation=("another mechanism's mean F1 on income (over the states, then the "
                         "seeds) is above RAP++'s at {misses} of the {pairs} epsilons: "
                         "{behind}; " + NOISE + "RAP++ best at the other epsilons, "
                         + AT_SMALL_SCALE)
              if scale == "small" else None,
              evaluate=lambda ctx: _rappp_best(
                  _f1_of_private_runs(ctx, "rappp-fig8", scale, None, ("income",)), 0.0,
                  "RAP++'s mean F1 (over states) at least every other's on income, every ε")),
        Check(id=f"rappp-fig8-not-much-worse-{scale}", artifact="rappp-fig8", kind="claim",
              scale=scale, data=COMPARISON_DATA,
              description="RAP++ is better or not much worse than every other mechanism on every "
                          "task (Figure 8)",
              evaluate=lambda ctx: _rappp_best(
                  _f1_of_private_runs(ctx, "rappp-fig8", scale, None), F1_TOLERANCE,
                  f"RAP++'s mean F1 within {F1_TOLERANCE} of the best other mechanism's, every "
                  "task and ε")),
    ]


def _multitask_income(ctx: CheckContext, scale: str) -> Outcome:
    every = _f1_means(ctx, "rappp-fig9", scale, None)
    gaps = (every["RAP++"] - every["PGM"]).groupby(level="target").mean()
    means = every.loc["income"]
    behind = means[means["RAP++"] <= means["PGM"]]
    largest = str(gaps.idxmax())
    return Outcome("pass" if behind.empty and largest == "income" else "fail",
                   f"RAP++ above PGM on income at {len(means) - len(behind)}/{len(means)} ε; "
                   "mean gap by target: " + ", ".join(f"{t} {g:+.3f}" for t, g in gaps.items()),
                   "on the multitask data RAP++'s income F1 above PGM's at every ε, and its mean "
                   "gap over PGM the largest on income ('most significantly')")


def _multitask_flat_target(ctx: CheckContext, scale: str) -> Outcome:
    gains = importance_gains(ctx.results("rappp-tab3", scale))
    flat = str(gains.abs().idxmin())
    means = _f1_means(ctx, "rappp-fig9", scale, None).loc[flat]
    gap = float((means["PGM"] - means["RAP++"]).mean())
    return Outcome("pass" if gap >= 0 else "fail",
                   f"{flat} (numbers' Table 3 gain {gains[flat]:+.3f}): mean PGM - RAP++ F1 "
                   f"over ε {gap:+.3f}",
                   "on the target numbers help least (Table 3 re-run), PGM's mean F1 over ε at "
                   "least RAP++'s")


def _multitask_claims(scale: str) -> list[Check]:
    data = "SDNist 2018 excerpts standing in for the paper's states (multitask stand-in)"
    return [
        Check(id=f"rappp-fig9-income-{scale}", artifact="rappp-fig9", kind="claim", scale=scale,
              data=data, description="on multitask data RAP++ beats PGM on income (Figures 5 "
                                     "and 9: 'most significantly outperforms')",
              evaluate=lambda ctx: _multitask_income(ctx, scale)),
        Check(id=f"rappp-fig9-flat-target-{scale}", artifact="rappp-fig9", kind="claim",
              scale=scale, data=data,
              description="where numbers carry no information PGM does at least as well "
                          "(Figures 5 and 9, employment: 'PGM does slightly better')",
              evaluate=lambda ctx: _multitask_flat_target(ctx, scale)),
    ]


def _sweep(ctx: CheckContext, scale: str) -> pd.DataFrame:
    return sensitivity_summary(ctx.results("rappp-fig3", scale))


def _less_sensitive(ctx: CheckContext, scale: str) -> Outcome:
    summary = _sweep(ctx, scale)
    ranges = summary.groupby(["task", "state", "epsilon", "mechanism"])["f1 mean"].agg(
        lambda f1: f1.max() - f1.min()).unstack("mechanism")
    spread = ranges.mean()
    by_epsilon = []
    for epsilon, rows in ranges.groupby("epsilon"):
        calmer = int((rows["RAP++"] < rows["PGM"]).sum())
        by_epsilon.append(
            f"at {epsilon:g} RAP++ is the less sensitive on {calmer} of {len(rows)} tasks ("
            + ", ".join(f"{task} {r['RAP++']:.3f} against {r['PGM']:.3f}"
                        for (task, _, _), r in rows.iterrows()) + ")")
    task, state, epsilon = (ranges["RAP++"] - ranges["PGM"]).idxmax()
    rappp = summary[(summary["task"] == task) & (summary["state"] == state)
                    & (summary["epsilon"] == epsilon) & (summary["mechanism"] == "RAP++")
                    ].sort_values("knob")
    first, last = rappp.iloc[0], rappp.iloc[-1]
    knobs = summary.groupby("mechanism")["knob"].unique()
    return Outcome("pass" if spread["RAP++"] < spread["PGM"] else "fail",
                   f"mean F1 range: RAP++ over T_LT {spread['RAP++']:.3f}, PGM over bins "
                   f"{spread['PGM']:.3f}",
                   "RAP++'s F1 varies less over T_LT than PGM's over its bins (mean over "
                   "datasets and ε of max - min)",
                   {"by_epsilon": "; ".join(by_epsilon),
                    "t_lt": ", ".join(str(k) for k in sorted(knobs["RAP++"])),
                    "bins": ", ".join(str(k) for k in sorted(knobs["PGM"])),
                    "widest": f"{task} at epsilon {epsilon:g}, where RAP++'s F1 goes from "
                              f"{first['f1 mean']:.3f} at T_LT = {first['knob']} to "
                              f"{last['f1 mean']:.3f} at {last['knob']}"})


def _better_and_faster(ctx: CheckContext, scale: str) -> Outcome:
    summary = _sweep(ctx, scale)
    results, pgm_seconds, rappp_seconds, pgm_ahead = [], [], [], 0
    for (task, state, epsilon), rows in summary.groupby(["task", "state", "epsilon"]):
        pgm = rows[rows["mechanism"] == "PGM"]
        best = pgm.loc[pgm["f1 mean"].idxmax()]
        rappp = rows[(rows["mechanism"] == "RAP++") & (rows["knob"] == 50)].iloc[0]
        ok = bool(rappp["f1 mean"] >= best["f1 mean"]
                  and rappp["seconds mean"] <= best["seconds mean"])
        pgm_ahead += int(best["f1 mean"] > rappp["f1 mean"])
        pgm_seconds.append(best["seconds mean"])
        rappp_seconds.append(rappp["seconds mean"])
        text = (f"{task}/{state} ε={epsilon:g}: RAP++ F1 {rappp['f1 mean']:.3f} in "
                f"{rappp['seconds mean']:.0f} s, PGM {best['knob']:g} bins "
                f"{best['f1 mean']:.3f} in {best['seconds mean']:.0f} s")
        results.append((ok, text))
    return Outcome("pass" if all(ok for ok, _ in results) else "fail",
                   "; ".join(text for _, text in results),
                   "RAP++ at T_LT = 50 reaches at least the F1 of PGM's best bin count in no more "
                   "time, on every dataset and ε",
                   {"pgm_ahead": pgm_ahead, "pairs": len(results),
                    "pgm_seconds": f"{min(pgm_seconds):.0f} to {max(pgm_seconds):.0f}",
                    "rappp_seconds": f"{min(rappp_seconds):.0f} to {max(rappp_seconds):.0f}"})


LESS_SENSITIVE_AT_SMALL = (
    "Not seen at small scale on the three stand-in tasks (income, owner and hispanic, "
    "Massachusetts 2018): averaged over the tasks and both epsilon, RAP++'s F1 range over T_LT "
    "in {{{t_lt}}} exceeds PGM's over its bins {{{bins}}} (the observed column). By epsilon: "
    "{by_epsilon}. RAP++'s range exceeds PGM's most on {widest}. Our small cuts (500 synthetic "
    "rows and 500 Adam steps a round for RAP++, 100 Private-PGM iterations for PGM) may move "
    "this; the paper's datasets for Figure 3 are not named.")


def _sensitivity_claims(scale: str) -> list[Check]:
    data = "SDNist Massachusetts 2018 excerpt, three stand-in tasks; all runs on our CPU"
    return [
        Check(id=f"rappp-fig3-less-sensitive-{scale}", artifact="rappp-fig3", kind="claim",
              scale=scale, data=data,
              description="RAP++ is less sensitive to T_LT than PGM to its bins (Figure 3)",
              deviation=LESS_SENSITIVE_AT_SMALL if scale == "small" else None,
              evaluate=lambda ctx: _less_sensitive(ctx, scale)),
        Check(id=f"rappp-fig3-better-faster-{scale}", artifact="rappp-fig3", kind="claim",
              scale=scale, data=data,
              description="RAP++ reaches better accuracy in less runtime than PGM (Figure 3)",
              deviation=("on our CPU PGM's best bin count reaches a higher F1 than RAP++ at "
                         "T_LT = 50 in {pgm_ahead} of the {pairs} (task, epsilon) pairs (the "
                         "observed column gives each), PGM in {pgm_seconds} seconds, RAP++ in "
                         "{rappp_seconds}: PGM runs 100 Private-PGM iterations a round here "
                         "against the 1,000 of the code's default, and RAP++'s JAX steps run on "
                         "the CPU where the paper used a GPU; measured on the three stand-in "
                         "tasks of Massachusetts 2018 (income, owner, hispanic)"),
              evaluate=lambda ctx: _better_and_faster(ctx, scale)),
    ]


CHECKS += [
    *(check for scale in ("smoke", "small") for check in _ledger_checks(scale)),
    *_single_task_claims("small"),
    *_multitask_claims("small"),
    *_sensitivity_claims("small"),
    # RAP++'s small spot (500 relaxed rows trained with JAX) moved by 9.3e-2 (its mean marginal
    # error) on an AVX2 EPYC against the AVX-512 Xeon that recorded it; its smoke cells by 4.3e-3
    regression_check("rappp-fig8", ["cm_mean_error", "mm_mean_error", "f1.income"], rtol=1e-5,
                     cross_cpu_rtol=15 * TRAINED_ACROSS_CPUS, small_spots=SMALL_SPOTS,
                     data="SDNist Massachusetts 2018, income stand-in"),
    regression_check("rappp-fig9", ["cm_mean_error", "f1.income", "f1.hispanic"], rtol=1e-5,
                     cross_cpu_rtol=TRAINED_ACROSS_CPUS,
                     data="SDNist Massachusetts 2018, multitask stand-in"),
    regression_check("rappp-fig3", ["f1.income"], rtol=1e-5,
                     cross_cpu_rtol=TRAINED_ACROSS_CPUS,
                     data="SDNist Massachusetts 2018, income stand-in"),
]
