"""The slicing checks on what is re-run so far: the noise calibration (closed forms), the tasks'
sizes (Table 2), Algorithm 1 against SliceWass, both slicing methods against DP-MERF and the GANs
(Tables 1 and 3), the digits of Figure 1 and the domain adaptation of Figure 2.

Exact: the paper's reported budgets invert to the base budget that Lemma 1 amplifies back to
them; every calibrated sigma meets its base budget and is the smallest that does (to 1e-6).
Claim: the released random projections need less noise than fixed ones (Theorem 1 against
Proposition 3, the paper's discussion after Theorem 1), and the exact curve less than Lemma 2.
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
from reprolib.papers.slicing.calibration import ARTIFACT, CURVES

CLOSED_FORMS = "closed forms (no data)"


def _rows(ctx: CheckContext, scale: str) -> pd.DataFrame:
    return ctx.results(ARTIFACT, scale)


def _inversion(ctx: CheckContext, scale: str) -> Outcome:
    rows = _rows(ctx, scale)
    rate = rows["param.rate"]
    base = np.log1p(np.expm1(rows["epsilon"]) / rate)  # Lemma 1 solved for the base epsilon
    amplified = np.log1p(rate * np.expm1(rows["metric.base_epsilon"]))
    ok = (np.isclose(rows["metric.base_epsilon"], base, rtol=1e-12, atol=0)
          & np.isclose(amplified, rows["epsilon"], rtol=1e-12, atol=0)
          & np.isclose(rows["metric.base_delta"], rows["delta"] / rate, rtol=1e-12, atol=0))
    shown = rows.drop_duplicates("epsilon").set_index("epsilon")["metric.base_epsilon"]
    return Outcome("pass" if ok.all() else "fail",
                   f"{int(ok.sum())}/{len(rows)} rows; base epsilon "
                   + ", ".join(f"{e:g} -> {b:.4f}" for e, b in shown.items()),
                   "epsilon_0 = log(1 + (e^epsilon - 1)/q) amplifies back to epsilon "
                   "(rel. 1e-12), delta_0 = delta/q")


def _tight(ctx: CheckContext, scale: str) -> Outcome:
    rows = _rows(ctx, scale)
    spent, target = rows["metric.spent_base_epsilon"], rows["metric.base_epsilon"]
    meets = spent <= target
    tight = spent >= target * (1 - 1e-6)
    return Outcome("pass" if (meets & tight).all() else "fail",
                   f"{int((meets & tight).sum())}/{len(rows)} sigmas meet their base epsilon "
                   f"within a relative {float(((target - spent) / target).max()):.1e}",
                   "every calibrated sigma spends at most its base epsilon, and at least "
                   "(1 - 1e-6) of it")


def _ordering(ctx: CheckContext, scale: str) -> Outcome:
    sigma = _rows(ctx, scale).pivot_table(index=["epsilon", "param.dim", "param.projections"],
                                          columns="mechanism", values="metric.sigma")
    random_wins = sigma["theorem-1"] < sigma["proposition-3"]
    exact_wins = sigma["exact"] <= sigma["theorem-1"]
    fixed, exact = (sigma["proposition-3"] / sigma["theorem-1"],
                    sigma["exact"] / sigma["theorem-1"])
    return Outcome("pass" if (random_wins & exact_wins).all() else "fail",
                   f"Proposition 3 needs {fixed.min():.1f} to {fixed.max():.1f} times Theorem "
                   f"1's sigma; the exact curve {exact.min():.3f} to {exact.max():.3f} times it",
                   "at every budget and size: sigma(exact) <= sigma(Theorem 1) < sigma(Prop. 3)")


def _checks(scale: str) -> list[Check]:
    return [
        Check(id=f"slicing-amplification-{scale}", artifact=ARTIFACT, kind="exact",
              scale=scale, data=CLOSED_FORMS,
              description="the reported epsilons 5.1 and 8.1 invert to the base budget that "
                          "Poisson subsampling at rate 0.25 amplifies back to them (Lemma 1)",
              evaluate=lambda ctx: _inversion(ctx, scale)),
        Check(id=f"slicing-calibration-{scale}", artifact=ARTIFACT, kind="exact", scale=scale,
              data=CLOSED_FORMS,
              description="each sigma is the smallest meeting its base budget under its curve "
                          f"({', '.join(CURVES)})",
              evaluate=lambda ctx: _tight(ctx, scale)),
    ]


MOBILITY_SPLIT = (
    "Table 2 gives mobility 2 numerical columns, but four of its folktables features are "
    "quantities (AGEP, WKHP, JWMNP, PINCP) and ours codes all four as numbers: its split is "
    "not compared")


def _table_2(ctx: CheckContext) -> Outcome:
    from reprolib.papers.slicing.datasets import ARTIFACT as TABLE_2_ARTIFACT
    from reprolib.papers.slicing.reported import TABLE_2, TABLE_2_COLUMNS

    rows = ctx.results(TABLE_2_ARTIFACT, "small")
    real = rows[~rows["metric.stand_in"].astype(bool)]
    if real.empty:
        return Outcome("not-applicable", f"all {len(rows)} tasks ran on their SDNist stand-ins",
                       "Table 2's counts wherever the paper's CA 2018 records ran")
    differ = []
    for task, row in real.set_index("dataset").iterrows():
        compared = 2 if task == "mobility" else 4  # see MOBILITY_SPLIT
        ours = tuple(int(row[f"metric.{c}"]) for c in TABLE_2_COLUMNS[:compared])
        if ours != TABLE_2[str(task)][:compared]:
            differ.append(task)
    return Outcome("pass" if not differ else "fail",
                   f"{len(real) - len(differ)}/{len(real)} tasks match"
                   + (f"; differ: {differ}" if differ else ""),
                   "Table 2's records, columns, categorical and numerical columns (mobility: "
                   "records and columns)")


COMPARISONS = ("slicing-tab1", "slicing-tab3")
STAND_INS = "SDNist stand-ins of the five ACS tasks (offline)"


def _budgets(ctx: CheckContext, artifact: str, scale: str) -> Outcome:
    from reprolib.privacy import poisson_same_size_amplified

    every = ctx.results(artifact, scale)
    rows = every[every["mechanism"].isin(("Slicing", "SliceWass"))]
    spent, base = rows["metric.spent_base_epsilon"], rows["metric.budget_base_epsilon"]
    amplified = [poisson_same_size_amplified(e, d, rate=r, records=int(n), size=int(s))
                 for e, d, r, n, s in zip(rows["metric.base_epsilon"], rows["metric.base_delta"],
                                          rows["param.sampling_rate"], rows["metric.records"],
                                          rows["metric.typical_sample_size"], strict=True)]
    reaches = np.array([(e <= target and e >= target * (1 - 1e-9) and d <= target_delta)
                        for (e, d), target, target_delta in zip(
                            amplified, rows["epsilon"], rows["delta"], strict=True)], dtype=bool)
    exact = (spent <= base) & (spent >= base * (1 - 1e-6))
    ok = exact.to_numpy() & reaches
    whole = every[~every.index.isin(rows.index)]
    whole_ok = ((whole["metric.spent_epsilon"] <= whole["epsilon"])
                & (whole["metric.spent_epsilon"] >= whole["epsilon"] * (1 - 1e-6))).to_numpy()
    merf = (f"; {int(whole_ok.sum())}/{len(whole)} runs of "
            f"{' and '.join(sorted(set(whole['mechanism'])))} spent the reported epsilon on "
            "the whole task" if len(whole) else "")
    return Outcome("pass" if ok.all() and whole_ok.all() else "fail",
                   f"{int(ok.sum())}/{len(rows)} slicing runs spent their base epsilon "
                   f"{rows['metric.base_epsilon'].min():.4f}-{rows['metric.base_epsilon'].max():.4f}"
                   f" (bounds and release on one Renyi ledger), which amplifies to "
                   f"{rows['epsilon'].iloc[0]:g}{merf}",
                   "spent = base epsilon (rel. 1e-6) and the same-size amplification of the base "
                   "(epsilon, delta) within the reported (epsilon, delta), epsilon to rel. 1e-9; "
                   "DP-MERF and the GANs: spent = epsilon")


NAMES = {"Slicing": "Algorithm 1", "SliceWass": "SliceWass"}


def _wins(ctx: CheckContext, artifact: str, rival: str, consistently: bool = False,
          champion: str = "Slicing") -> Outcome:
    """``champion``'s mean score (Algorithm 1 unless told) against ``rival``'s over the (task,
    score) pairs: a pair counts as a win when the champion's mean is above by more than the
    larger of the two mechanisms' standard deviations over the seeds, so that ties within the
    seeds' spread count for neither. ``consistently`` (the paper's word for the slicing methods
    against the other baselines) also fails the claim on any pair where the rival is ahead by
    more than the spread. The figures set both beside the paper's printed rows on Income and
    count the champion's wins by score.
    """
    from reprolib.papers.slicing.reported import SCORES, TABLE_2

    rows = ctx.results(artifact, "small")
    by_run = rows.groupby(["dataset", "mechanism"])[[f"metric.{s}" for s in SCORES]]
    means, spreads = by_run.mean(), by_run.std(ddof=0)
    name = NAMES[champion]
    tasks = [t for t in means.index.get_level_values(0).unique()
             if {(t, champion), (t, rival)} <= set(means.index)]
    expected = ("more than half of the pairs, each by more than the larger of the two "
                "mechanisms' standard deviations over the seeds"
                + (", and no pair the other way" if consistently else ""))
    if not tasks:
        return Outcome("missing", f"no task has runs of both {champion} and {rival}", expected)
    pairs = [(task, score) for task in tasks for score in SCORES
             if not np.isnan(means.loc[(task, champion), f"metric.{score}"])]
    gaps = {(t, s): means.loc[(t, champion), f"metric.{s}"] - means.loc[(t, rival), f"metric.{s}"]
            for t, s in pairs}
    spread = {(t, s): max(spreads.loc[(t, m), f"metric.{s}"] for m in (champion, rival))
              for t, s in pairs}
    ahead = [p for p in pairs if gaps[p] > 0]
    clear = [p for p in pairs if gaps[p] > spread[p]]
    behind = [p for p in pairs if -gaps[p] > spread[p]]
    records = (rows.groupby("dataset")["metric.records"].first() if "metric.records" in rows
               else pd.Series(dtype=float))
    ratios = [TABLE_2[task][0] / n for task, n in records.items() if task in TABLE_2]
    figures = {"epsilon": ", ".join(f"{e:g}" for e in sorted(rows["epsilon"].unique())),
               "name": name, "won": len(ahead), "clear": len(clear), "pairs": len(pairs),
               "behind": len(behind), "behind_pairs": ", ".join(f"{t} {m}" for t, m in behind)
               or "none",
               "within_spread": sum(abs(gaps[p]) <= spread[p] for p in pairs),
               "record_ratio": f"{min(ratios):.1f} to {max(ratios):.1f}" if ratios else "more",
               "won_by_score": tally_in_words(pd.Series([s for _, s in ahead], dtype=object)),
               **{f"{key}_on_income": _beside_the_table(means, artifact, mechanism)
                  for key, mechanism in (("rival", rival), ("slicing", champion))}}
    holds = most(len(clear), len(pairs)) and not (consistently and behind)
    return Outcome("pass" if holds else "fail",
                   f"{name}'s mean above {rival}'s by more than the seeds' spread in "
                   f"{len(clear)}/{len(pairs)} (task, score) pairs over {len(tasks)} tasks "
                   f"(above at all in {len(ahead)}; below by more than the spread in "
                   f"{len(behind)})", expected, figures)


def _beside_the_table(means: pd.DataFrame, artifact: str, mechanism: str) -> str:
    """Our mean Income scores of ``mechanism`` beside the paper's printed ones ("KSComp 0.77
    (printed 0.29), ..."), where both exist (CorrSim needs two numerical columns).
    """
    from reprolib.papers.slicing.reported import PRINTED_AS, SCORES, TABLE_1, TABLE_3

    printed = (TABLE_1 if artifact == "slicing-tab1" else TABLE_3)[
        ("income", PRINTED_AS.get(mechanism, mechanism))]
    if ("income", mechanism) not in means.index:
        return "not run on Income"
    ours = means.loc[("income", mechanism)]
    return ", ".join(f"{score} {ours[f'metric.{score}']:.2f} (printed {paper[0]:.2f})"
                     for score, paper in zip(SCORES, printed, strict=True)
                     if paper is not None and not np.isnan(ours[f"metric.{score}"]))


TIED_AT_SMALL = (
    "On the stand-ins at small scale (20 epochs, m' = 100, 3 seeds) Algorithm 1 and SliceWass "
    "cannot be told apart: Algorithm 1's mean is higher in {won} of the {pairs} (task, score) "
    "pairs, but {within_spread} of the {pairs} gaps are within the larger of the two mechanisms' "
    "standard deviations over the seeds (the page shows both), and it is ahead by more than that "
    "in {clear}. The paper trains 200 epochs on {record_ratio} times more records per task; "
    "whether its margin appears with that compute is a question for the paper-scale run, which "
    "needs a GPU (about 0.5 s per step on a CPU).")
# the comparison claims our small runs contradict (None: expected to hold)
CLAIM_DEVIATIONS: dict[str, str | None] = {"slicing-tab1": TIED_AT_SMALL,
                                           "slicing-tab3": TIED_AT_SMALL}
MERF_AHEAD_AT_SMALL = (
    "Not seen at small scale on the stand-ins: DP-MERF, run with its authors' tabular settings, "
    "is ahead of {name} by more than the seeds' spread in {behind} of the {pairs} (task, "
    "score) pairs and {name} ahead of it in {clear} (the observed column; "
    "the page gives every mean). The budgets are equal: every run is (epsilon, 1e-5)-DP for "
    "replace-one neighbours, DP-MERF on the whole task with its class proportions paid from the "
    "budget, the slicing methods on a sample at rate 0.25 with their numerical bounds paid. On "
    "Income at epsilon {epsilon} our DP-MERF's mean scores beside the paper's MERF row: "
    "{rival_on_income}; our {name}'s beside the paper's: {slicing_on_income}. What "
    "differs from the paper: the stand-in data; "
    "the slicing methods' compute (20 of the paper's 200 epochs, m' = 100); DP-MERF's settings, "
    "which the paper does not give (ours are the authors' tabular defaults, with a kernel "
    "width read from no record and a softmax per categorical attribute). Whether 200 epochs "
    "close a gap this wide is a question for the paper-scale run, which needs a GPU.")
MERF_DEVIATIONS: dict[str, str | None] = {"slicing-tab1": MERF_AHEAD_AT_SMALL,
                                          "slicing-tab3": MERF_AHEAD_AT_SMALL}
GAN_AHEAD_AT_SMALL = (
    "Not seen at small scale on the stand-ins: our DP-CTGAN (the paper's DP-SGD row: "
    "SmartNoise's DPCTGAN settings, 30 epochs with the noise that spends exactly the reported "
    "epsilon on the whole task, nothing left uncounted) is ahead of {name} by more than the "
    "seeds' spread in {behind} of the {pairs} (task, score) pairs and {name} ahead of it in {clear} "
    "(the observed column; the page gives every mean). On Income "
    "at epsilon {epsilon} its mean scores beside the paper's DP-SGD row: {rival_on_income}. "
    "{name} is ahead in the pairs of {won_by_score}. What differs from the "
    "paper: the stand-in data; the slicing methods' compute (20 of the paper's 200 epochs, "
    "m' = 100); the GAN's epochs and noise, which the paper does not give (SmartNoise's "
    "default is 300 epochs; its Income LogitRegression of 0.00 +- 0.00 in Table 1 suggests a "
    "generator that gave every record one class). As for DP-MERF, whether 200 epochs close the "
    "gap is a question for the paper-scale run, which needs a GPU.")
# the claims against the GAN baselines our small runs contradict (None: expected to hold)
PATE_NOT_CONSISTENTLY = (
    "Not consistently at small scale on the stand-ins: {name} is ahead of our PATE-GAN by "
    "more than the seeds' spread in {clear} of the {pairs} (task, score) pairs, within it in "
    "{within_spread}, and behind by more than it in {behind} ({behind_pairs}). On Income at "
    "epsilon {epsilon} PATE-GAN's mean scores beside the paper's PATE row: {rival_on_income}. "
    "What differs from the paper: the stand-in data; the slicing methods' compute (20 of the "
    "paper's 200 epochs, m' = 100); PATE-GAN's settings, SmartNoise's defaults, with its "
    "data-independent accounting, while the paper does not give its settings.")
# keyed by (table, slicing method, rival); SliceWass's rows are the same claim's other half
GAN_DEVIATIONS: dict[tuple[str, str, str], str | None] = {
    **{(table, champion, "DP-CTGAN"): GAN_AHEAD_AT_SMALL
       for table in ("slicing-tab1", "slicing-tab3") for champion in NAMES},
    **{("slicing-tab1", champion, "PATE-GAN"): PATE_NOT_CONSISTENTLY for champion in NAMES},
    **{("slicing-tab3", champion, "PATE-GAN"): None for champion in NAMES}}


def _comparison_checks(artifact: str) -> list[Check]:
    table = {"slicing-tab1": "Table 1", "slicing-tab3": "Table 3"}[artifact]
    return [
        *(Check(id=f"{artifact}-budget-{scale}", artifact=artifact, kind="exact", scale=scale,
                data=STAND_INS,
                description=f"every {table} run spends exactly its base budget, which Poisson "
                            "sampling at rate 0.25 amplifies to the reported epsilon",
                evaluate=partial(_budgets, artifact=artifact, scale=scale))
          for scale in ("smoke", "small")),
        Check(id=f"{artifact}-slicing-beats-slicewass", artifact=artifact, kind="claim",
              scale="small", data=STAND_INS,
              description=f"Algorithm 1 scores above SliceWass in most settings ({table}; the "
                          "paper's Section 4.1)",
              evaluate=lambda ctx: _wins(ctx, artifact, "SliceWass"),
              deviation=CLAIM_DEVIATIONS[artifact]),
        *(Check(id=f"{artifact}-{champion.lower()}-beats-merf", artifact=artifact,
                kind="claim", scale="small", data=STAND_INS,
                description=f"the slicing methods outperform MERF, which is ahead only in a few "
                            f"instances ({table}; the paper's Section 4.1): {name} above "
                            "DP-MERF in most (task, score) pairs",
                evaluate=partial(_wins, artifact=artifact, rival="DP-MERF", champion=champion),
                deviation=MERF_DEVIATIONS[artifact])
          for champion, name in NAMES.items()),
        *(Check(id=f"{artifact}-{champion.lower()}-beats-{short}", artifact=artifact,
                kind="claim", scale="small", data=STAND_INS,
                description=f"{name} consistently outperforms {row} ({table}; the paper's "
                            "Section 4.1: the two slicing methods 'consistently outperform the "
                            f"other baselines'): ahead of our {rival} in most (task, score) "
                            "pairs and behind in none",
                evaluate=partial(_wins, artifact=artifact, rival=rival, consistently=True,
                                 champion=champion),
                deviation=GAN_DEVIATIONS[artifact, champion, rival])
          for short, row, rival in (("pate", "PATE", "PATE-GAN"),
                                    ("dpsgd", "DP-SGD", "DP-CTGAN"))
          for champion, name in NAMES.items()),
        regression_check(artifact, ["sigma", "spent_base_epsilon", "TVComp", "ContSim"],
                         rtol=1e-5, cross_cpu_rtol=TRAINED_ACROSS_CPUS,
                         data="SDNist mobility stand-in, one epoch (smoke)"),
    ]


DIGITS = "slicing-fig1"
DIGITS_DATA = "MNIST test set halves (a private pool and an evaluation set; offline stand-in)"


def _digits_budgets(ctx: CheckContext, scale: str) -> Outcome:
    rows = ctx.results(DIGITS, scale)
    spent, target = rows["metric.spent_epsilon"], rows["epsilon"]
    ok = (spent <= target) & (spent >= target * (1 - 1e-6))
    return Outcome("pass" if ok.all() else "fail",
                   f"{int(ok.sum())}/{len(rows)} runs spent their epsilon "
                   f"({', '.join(f'{e:g}' for e in sorted(target.unique()))}) on one Renyi "
                   "ledger (the slicing methods' ten class releases charged as two, DP-MERF's "
                   "one embedding)",
                   "spent = epsilon (rel. 1e-6)")


def _digits_improve(ctx: CheckContext) -> Outcome:
    means = ctx.results(DIGITS, "small").groupby(["mechanism", "epsilon"])[
        "metric.accuracy"].mean()
    expected = "each slicing method's mean accuracy higher at the largest epsilon than at the " \
               "smallest"
    shown, ok = [], True
    for mechanism in ("Slicing", "SliceWass"):
        if mechanism not in means.index.get_level_values(0):
            return Outcome("missing", f"no {mechanism} runs", expected)
        curve = means.loc[mechanism]
        ok &= bool(curve.iloc[-1] > curve.iloc[0])
        shown.append(f"{mechanism} {curve.iloc[0]:.3f} at {curve.index[0]:g} -> "
                     f"{curve.iloc[-1]:.3f} at {curve.index[-1]:g}")
    return Outcome("pass" if ok else "fail", "; ".join(shown), expected)


def _merf_crossover(ctx: CheckContext) -> Outcome:
    rows = ctx.results(DIGITS, "small")
    means = rows.groupby(["epsilon", "mechanism"])["metric.accuracy"].mean().unstack()
    expected = "MERF ahead of both slicing methods at the smallest epsilon, behind both at the " \
               "largest"
    if not {"DP-MERF", "Slicing", "SliceWass"} <= set(means):
        return Outcome("missing", f"runs of {sorted(set(means))} only", expected)
    low, high = means.iloc[0], means.iloc[-1]
    ok = (low["DP-MERF"] > low[["Slicing", "SliceWass"]]).all() and \
        (high["DP-MERF"] < high[["Slicing", "SliceWass"]]).all()
    def shown(row: pd.Series) -> str:
        return ", ".join(f"{m} {v:.3f}" for m, v in row.items())

    slicing = rows[rows["mechanism"] == "Slicing"].groupby("epsilon")
    return Outcome("pass" if ok else "fail", f"at epsilon {means.index[0]:g}: {shown(low)}; at "
                   f"{means.index[-1]:g}: {shown(high)}", expected,
                   {"epsilons": ", ".join(f"{e:g}" for e in means.index),
                    "merf_ahead": int((means["DP-MERF"]
                                       > means[["Slicing", "SliceWass"]].max(axis=1)).sum()),
                    "runs": len(means),
                    "slicing_low": low[["Slicing", "SliceWass"]].max(),
                    "slicing_high": high[["Slicing", "SliceWass"]].max(),
                    "low": means.index[0], "high": means.index[-1],
                    "real": rows["metric.real_accuracy"].mean(),
                    "sigma_at_10": slicing["metric.sigma"].mean().get(10.0, float("nan"))})


MERF_AHEAD_ON_DIGITS = (
    "Not seen at small scale on the MNIST test-set halves: MERF (DP-MERF at its authors' "
    "defaults for images, their convolutional generator) is ahead of both slicing methods at "
    "{merf_ahead} of the {runs} epsilons run, {epsilons} (the observed column gives the means "
    "at the ends), while the slicing "
    "methods climb from at most {slicing_low:.2f} at {low:g} to {slicing_high:.2f} at {high:g}, "
    "against {real:.2f} for the classifier trained on the real images. The generator does not "
    "decide it: with the authors' fully "
    "connected one the means over three seeds were 0.72, 0.78 and 0.78 (0.71, 0.74 and 0.75 with "
    "the convolutional one, run beside it), and at 600 training steps (their count on the 60,000 "
    "MNIST training images; the 5,000-image pool gives 50) one run at epsilon 10 reached 0.79 "
    "with either (seed 0; benchmarks/merf_digits_variants.py, rows in "
    "results/slicing/benchmarks/merf-variants.csv). The slicing methods release each image "
    "once, with noise of standard deviation {sigma_at_10:.2f} per projection at epsilon 10 "
    "against a "
    "projected signal of about 0.5/28 (rows of norm 1/2, directions N(0, 1/784)), so their "
    "generators see little more than each class's coarse shape from 400 images; DP-MERF's one "
    "mean embedding has noise that shrinks with the number of records. What differs from the "
    "paper: 400 images per class instead of about 600, our MLP generator for the slicing "
    "methods (the paper gives no architecture), 100 epochs on a CPU, and an epsilon grid of our "
    "choosing (the paper's figure and grid are not in the text, so where its crossing lies "
    "cannot be read off). Whether more projections, epochs or a convolutional generator for the "
    "slicing methods move the crossing into range is a question for a GPU run.")

DIGITS_CHECKS: list[Check] = [
    *(Check(id=f"slicing-fig1-budget-{scale}", artifact=DIGITS, kind="exact", scale=scale,
            data=DIGITS_DATA,
            description="every Figure 1 run spends exactly its budget (the slicing methods: "
                        "one release per class, accounted as two, since a relabelled record "
                        "touches two classes)",
            evaluate=partial(_digits_budgets, scale=scale))
      for scale in ("smoke", "small")),
    Check(id="slicing-fig1-improves-with-epsilon", artifact=DIGITS, kind="claim", scale="small",
          data=DIGITS_DATA,
          description="the slicing methods' digits get better with the budget (implied by "
                      "Figure 1's caption: they overtake MERF at higher budgets)",
          evaluate=_digits_improve),
    Check(id="slicing-fig1-merf-crossover", artifact=DIGITS, kind="claim", scale="small",
          data=DIGITS_DATA,
          description="MERF is better at low epsilon and both slicing methods at higher "
                      "epsilon (the paper's Section 4.2)",
          evaluate=_merf_crossover, deviation=MERF_AHEAD_ON_DIGITS),
    regression_check(DIGITS, ["sigma", "spent_epsilon", "accuracy"], rtol=1e-5,
                     cross_cpu_rtol=TRAINED_ACROSS_CPUS,
                     data="MNIST test halves, 20 images per class, one epoch (smoke)"),
]


ADAPTATION = "slicing-fig2"
ADAPTATION_DATA = ("MNIST test set and USPS (offline stand-in for the MNIST training set; "
                   "the MNIST target is the private half of the test set)")


def _adaptation_budgets(ctx: CheckContext, scale: str) -> Outcome:
    rows = ctx.results(ADAPTATION, scale)
    rows = rows[rows["epsilon"].notna()]
    spent, target = rows["metric.spent_epsilon"], rows["epsilon"]
    ok = (spent <= target) & (spent >= target * (1 - 1e-6))
    steps = sorted(rows["metric.releases"].astype(int).unique())
    return Outcome("pass" if len(rows) and ok.all() else "fail",
                   f"{int(ok.sum())}/{len(rows)} private runs spent their epsilon "
                   f"({', '.join(f'{e:g}' for e in sorted(target.unique()))}) over "
                   f"{', '.join(map(str, steps))} releases of target batches, each amplified "
                   "by sampling without replacement (Wang, Balle, Kasiviswanathan 2019, "
                   "Theorem 9) and composed on one Renyi ledger",
                   "spent = epsilon (rel. 1e-6)")


def adaptation_means(rows: pd.DataFrame) -> pd.DataFrame:
    """Per direction, budget (inf for the non-private runs) and mechanism: the mean target
    accuracy over seeds and its standard error (columns ``mean``, ``error``).
    """
    rows = rows.assign(budget=rows["epsilon"].fillna(float("inf")))
    groups = rows.groupby(["dataset", "budget", "mechanism"])["metric.accuracy"]
    return pd.DataFrame({"mean": groups.mean(), "error": groups.sem(ddof=1).fillna(0.0)})


def _adaptation_wins(ctx: CheckContext, scale: str) -> Outcome:
    rows = ctx.results(ADAPTATION, scale)
    summary = adaptation_means(rows)
    expected = ("Algorithm 1's mean target accuracy above SliceWass's by more than the standard "
                "error of the difference, at most (direction, epsilon) pairs")
    means, errors = summary["mean"].unstack(), summary["error"].unstack()
    if not {"Slicing", "SliceWass"} <= set(means):
        return Outcome("missing", f"runs of {sorted(set(means))} only", expected)
    private = np.isfinite(means.index.get_level_values("budget"))
    gap = (means["Slicing"] - means["SliceWass"])[private]
    error = np.sqrt(errors["Slicing"] ** 2 + errors["SliceWass"] ** 2)[private]
    wins = gap > error
    shown = "; ".join(f"{direction} at {budget:g}: {means.loc[(direction, budget), 'Slicing']:.3f}"
                      f" vs {means.loc[(direction, budget), 'SliceWass']:.3f} (± {e:.3f})"
                      for (direction, budget), e in error.items())
    return Outcome("pass" if wins.sum() * 2 > len(wins) else "fail",
                   f"{int(wins.sum())}/{len(wins)} pairs clearly ahead (Algorithm 1 vs "
                   f"SliceWass, ± the standard error of the gap): {shown}", expected,
                   {"clear": int(wins.sum()), "pairs": len(wins),
                    "sigma": f"{rows['metric.sigma'].min():.2g} to {rows['metric.sigma'].max():.2g}",
                    **_alignment_figures(means, private)})


def _alignment_figures(means: pd.DataFrame, private: np.ndarray) -> dict[str, object]:
    """Per direction: the largest gap between Algorithm 1's and SliceWass's private means, the
    non-private runs' means, and how many private means stay below the source-only training's
    (none where the non-private runs are not stored).
    """
    def per_direction(values: pd.Series) -> str:
        return ", ".join(f"{direction} {value:.3f}"
                         for direction, value in values.groupby(level="dataset").max().items())

    gap = (means["Slicing"] - means["SliceWass"])[private].abs()
    figures: dict[str, object] = {"largest_gap": per_direction(gap)}
    if {"Source only"} <= set(means) and not private.all():
        nonprivate = means[~private].droplevel("budget")
        below = means[private][["Slicing", "SliceWass"]].lt(
            nonprivate["Source only"], axis=0, level="dataset")
        figures |= {"source_only": per_direction(nonprivate["Source only"]),
                    "below_source": int(below.to_numpy().sum()), "private_runs": below.size,
                    **{f"{m.lower()}_without_noise": per_direction(nonprivate[m])
                       for m in ("Slicing", "SliceWass")}}
    return figures


NO_ALIGNMENT_GAIN_AT_SMALL = (
    "Not seen at small scale: Algorithm 1 is clearly ahead of SliceWass in {clear} of the "
    "{pairs} (direction, epsilon) pairs, and the two trade places within the seeds' spread in "
    "the others "
    "(the observed column; the largest gap by direction: {largest_gap}). Alignment itself does "
    "not help at this compute, private or not: the same training without alignment (the page's "
    "dotted line) reaches {source_only}, above {below_source} of the {private_runs} private "
    "means; without noise SliceWass reaches {slicewass_without_noise} and Algorithm 1, at "
    "DP-SWD's USPS -> MNIST weight of 1, {slicing_without_noise}. Two one-off diagnostics (one "
    "seed each, MNIST -> USPS, not in the store) point to compute rather than privacy: "
    "DP-SWD's own non-private path, with the alignment gradient also passing through the "
    "target's features, matched the source-only accuracy at our 8 epochs (0.706), and "
    "SliceWass without noise at 20 epochs (15 of alignment) reached 0.740 against 0.747 "
    "without alignment. The releases are also very noisy: sigma is {sigma} per projection "
    "against a projected signal of about 0.03. What differs from the paper: 8 epochs with 5 of "
    "alignment instead of DP-SWD's 100 with 90; the MNIST test set as MNIST; gradients through "
    "the source features only, which the target's privacy requires; DP-SWD's alignment "
    "weights used for Algorithm 1's differently scaled loss (the paper gives none). Whether "
    "the paper's gains appear with its compute: see the paper-scale check, where they do not.")

NO_ALIGNMENT_GAIN_AT_PAPER = (
    "Not seen at the paper profile's settings either (DP-SWD's 100 epochs, which the paper does "
    "not give; alignment from the 11th, 5 seeds, run on an H200): Algorithm 1 is clearly "
    "ahead of SliceWass in {clear} of the {pairs} (direction, epsilon) pairs (the observed "
    "column; the largest gap by direction: {largest_gap}). Alignment still does not help: the "
    "same training without it reaches {source_only}, above {below_source} of the "
    "{private_runs} private means; without noise Algorithm 1 reaches {slicing_without_noise} "
    "and SliceWass {slicewass_without_noise}. So the small-scale finding is not an artefact of "
    "8 epochs. What still differs from the paper: the MNIST test set as MNIST; gradients "
    "through the source features only, which the target's privacy requires; and DP-SWD's "
    "alignment weights, tuned for its Wasserstein term, used for Algorithm 1's differently "
    "scaled loss (the paper gives none).")

ADAPTATION_CHECKS: list[Check] = [
    *(Check(id=f"slicing-fig2-budget-{scale}", artifact=ADAPTATION, kind="exact", scale=scale,
            data=ADAPTATION_DATA,
            description="every private Figure 2 run spends exactly its budget over all its "
                        "per-step releases",
            evaluate=partial(_adaptation_budgets, scale=scale))
      for scale in ("smoke", "small", "paper")),
    *(Check(id=f"slicing-fig2-slicing-beats-slicewass{suffix}", artifact=ADAPTATION,
            kind="claim", scale=scale, data=ADAPTATION_DATA,
            description="Algorithm 1 with 100 slices improves on SliceWass in domain "
                        "adaptation (the paper's Section 4.3)",
            evaluate=partial(_adaptation_wins, scale=scale), deviation=deviation)
      for suffix, scale, deviation in (("", "small", NO_ALIGNMENT_GAIN_AT_SMALL),
                                       ("-paper", "paper", NO_ALIGNMENT_GAIN_AT_PAPER))),
    # the adapted classifier's accuracy moved by 1.6e-2 (0.610 to 0.620) on an AVX2 EPYC
    # against the AVX-512 Xeon that recorded it
    regression_check(ADAPTATION, ["sigma", "spent_epsilon", "accuracy"], rtol=1e-5,
                     cross_cpu_rtol=5 * TRAINED_ACROSS_CPUS,
                     data="MNIST -> USPS, two epochs, 10 projections (smoke)"),
]


CHECKS: list[Check] = [
    *DIGITS_CHECKS,
    *ADAPTATION_CHECKS,
    *(check for artifact in COMPARISONS for check in _comparison_checks(artifact)),
    Check(id="slicing-tab2-counts", artifact="slicing-tab2", kind="exact", scale="small",
          data="the paper's CA 2018 records where present, else SDNist stand-ins",
          description="the records and columns of the five tasks counted from the data equal "
                      f"Table 2's. {MOBILITY_SPLIT}",
          evaluate=_table_2),
    *_checks("smoke"), *_checks("small"),
    Check(id="slicing-random-projections-small", artifact=ARTIFACT, kind="claim", scale="small",
          data=CLOSED_FORMS,
          description="releasing random projections needs less noise than fixed orthonormal "
                      "ones (Theorem 1 against Proposition 3), and the exact curve less still",
          evaluate=lambda ctx: _ordering(ctx, "small")),
    regression_check(ARTIFACT, ["sigma", "base_epsilon"], rtol=1e-12, data=CLOSED_FORMS),
]
