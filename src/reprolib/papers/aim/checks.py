"""The AIM paper's reported numbers (as data) and the checks of our re-runs against them."""

from __future__ import annotations

import itertools
from functools import partial

import numpy as np
import pandas as pd

from reprolib.experiments._checks import (
    GEM_ACROSS_CPUS,
    TRAINED_ACROSS_CPUS,
    Check,
    CheckContext,
    Outcome,
    listed_in_words,
    most,
    regression_check,
    tally_in_words,
)

DATA = "the AIM benchmark datasets (the paper's own files)"
# a few cheap cells of the small Figures 1-3 grids that the regression checks recompute beside
# the smoke grid: the smallest and the largest epsilon, where the engine's corner cases live
# (a Private-PGM change once moved AIM's small cells at epsilon 0.01 and no smoke cell)
SMALL_SPOTS = {"datasets": ("titanic",), "mechanisms": ("AIM",), "epsilons": (0.01, 100.0),
               "trials": 1}

# Table 1, reconstructed from the paper's Section 3.3 prose (the text extraction lost the column
# placement; see notes): (workload-aware, data-aware, budget-aware, efficiency-aware).
PAPER_TABLE1 = {
    "Independent": (False, False, False, True),
    "Gaussian": (True, False, False, False),
    "PrivBayes+PGM": (False, True, True, True),
    "MWEM+PGM": (True, True, False, False),
    "MST": (False, True, False, True),
    "GEM": (True, True, False, True),
    "PrivMRF": (False, True, True, True),
    "AIM": (True, True, True, True),
}
# Table 2: records, attributes, smallest and largest attribute domain.
PAPER_TABLE2 = {
    "adult": (48842, 15, 2, 42), "salary": (135727, 9, 3, 501), "msnbc": (989818, 16, 18, 18),
    "fire": (305119, 15, 2, 46), "nltcs": (21574, 16, 2, 2), "titanic": (1304, 9, 2, 91),
}
# Table 3 (fire, all-3way): workload error of AIM without and with structural zeros.
PAPER_TABLE3 = pd.DataFrame({
    "epsilon": [0.01, 10**-1.5, 0.1, 10**-0.5, 1.0, 10**0.5, 10.0, 10**1.5, 100.0],
    "AIM": [0.613, 0.303, 0.141, 0.087, 0.052, 0.044, 0.038, 0.029, 0.025],
    "AIM+SZ": [0.542, 0.263, 0.153, 0.077, 0.053, 0.045, 0.032, 0.026, 0.025],
    "ratio": [1.130, 1.151, 0.924, 1.124, 0.979, 0.964, 1.170, 1.149, 1.004],
}).assign(epsilon=lambda f: f["epsilon"].round(12))


def _rows_differing(rows: pd.DataFrame, paper: dict[str, tuple], columns: list[str],
                    cast: type) -> list[str]:
    """The keys of ``paper`` whose recorded metrics (``columns``, cast) are missing or differ."""
    return [key for key, expected in paper.items()
            if key not in rows.index
            or tuple(cast(rows.loc[key, f"metric.{c}"]) for c in columns) != expected]


def _table1(ctx: CheckContext, scale: str) -> Outcome:
    rows = ctx.results("aim-tab1", scale).set_index("mechanism")
    differ = _rows_differing(rows, PAPER_TABLE1, ["workload_aware", "data_aware", "budget_aware",
                                                  "efficiency_aware"], bool)
    return Outcome("pass" if not differ else "fail",
                   f"{len(PAPER_TABLE1) - len(differ)}/{len(PAPER_TABLE1)} rows as the paper"
                   + (f"; differ: {differ}" if differ else ""), "every re-run mechanism's row")


def _table2(ctx: CheckContext, scale: str) -> Outcome:
    rows = ctx.results("aim-tab2", scale).set_index("dataset")
    differ = _rows_differing(rows, PAPER_TABLE2, ["records", "attributes", "min_domain",
                                                  "max_domain"], int)
    return Outcome("pass" if not differ else "fail",
                   f"{len(PAPER_TABLE2) - len(differ)}/6 datasets match"
                   + (f"; differ: {differ}" if differ else ""),
                   "records, attributes, min and max domain size of all six datasets")


def _absent(rows: pd.DataFrame, mechanisms: tuple[str, ...]) -> str:
    """A note naming the compared mechanisms that did not run on every dataset, or ""."""
    from reprolib.papers.aim.figures import absent_runs

    absent = absent_runs(rows, mechanisms)
    return f" (judged without those missing: {absent})" if absent else ""


# Section 6.2, finding (3), all-3way: the share of settings in which AIM has the lowest error
# among the workload-aware mechanisms
PAPER_AIM_BEST = 0.85
SHARE_P = 0.05  # one-sided level of the binomial test that our share is below the paper's


def _aim_wins(ctx: CheckContext, artifact: str, scale: str) -> Outcome:
    """AIM's share of the settings it wins among the workload-aware mechanisms. The paper gives
    a number for Figure 1 only (85 %; Figures 2 and 3 "support" the finding): there the share
    must not be significantly below 85 %, counting each setting as a draw (one-sided binomial
    test); everywhere it must be most settings.
    """
    from scipy.stats import binomtest

    from reprolib.papers.aim.figures import winners
    from reprolib.papers.aim.pages import compared_workload_aware

    rows = ctx.results(artifact, scale)
    aware = compared_workload_aware(rows["mechanism"])
    best = winners(rows, aware)["mechanism"]
    wins, settings = int((best == "AIM").sum()), len(best)
    found = (f"AIM lowest mean error in {wins}/{settings} settings ({wins / max(settings, 1):.0%}) "
             f"among {', '.join(aware)}")
    if artifact != "aim-fig1":
        return Outcome("pass" if most(wins, settings) else "fail", found + _absent(rows, aware),
                       "more than half")
    p_value = binomtest(wins, settings, PAPER_AIM_BEST, alternative="less").pvalue if settings else 0
    return Outcome("pass" if most(wins, settings) and p_value >= SHARE_P else "fail",
                   f"{found}, one-sided binomial p = {p_value:.2g} against "
                   f"{PAPER_AIM_BEST:.0%}" + _absent(rows, aware),
                   f"more than half, and not significantly below the paper's {PAPER_AIM_BEST:.0%} "
                   f"(p >= {SHARE_P})")


def _winners_in_words(best: pd.DataFrame) -> str:
    """Per dataset, which mechanism has the lowest mean error at which epsilons, a run of
    consecutive epsilons given by its ends ("salary: MST at 0.01 to 0.0316, ...").
    """
    datasets = []
    for dataset, rows in best.sort_values("epsilon").groupby("dataset"):
        spans: list[list] = []  # [mechanism, first epsilon, last epsilon]
        for mechanism, epsilon in zip(rows["mechanism"], rows["epsilon"], strict=True):
            if spans and spans[-1][0] == mechanism:
                spans[-1][2] = epsilon
            else:
                spans.append([mechanism, epsilon, epsilon])
        datasets.append(f"{dataset}: " + ", ".join(
            f"{m} at {a:.3g}" + (f" to {b:.3g}" if b != a else "") for m, a, b in spans))
    return "; ".join(datasets)


def _privmrf_best_before_aim(ctx: CheckContext, artifact: str, scale: str) -> Outcome:
    """The paper's PrivMRF findings (Sections 6.2-6.4): without AIM, PrivMRF has the lowest
    error (Figure 1: of every mechanism; Figure 2: of PrivMRF and the workload-aware ones), and
    on the skewed workload everywhere but salary, where it "did not score well".
    """
    from reprolib.papers.aim.figures import best_share, winners
    from reprolib.papers.aim.pages import compared_workload_aware

    rows = ctx.results(artifact, scale)
    if "PrivMRF" not in set(rows["mechanism"]):
        return Outcome("fail", "no PrivMRF runs recorded", "PrivMRF's runs beside the others'")
    # a claim about PrivMRF is judged where PrivMRF ran; the datasets left out are named
    ran = set(rows.loc[rows["mechanism"] == "PrivMRF", "dataset"])
    left_out = [d for d in dict.fromkeys(rows["dataset"]) if d not in ran]
    rows = rows[rows["dataset"].isin(ran)]
    unjudged = (f"; {listed_in_words(left_out)} left out: PrivMRF not run there yet"
                if left_out else "")
    rivals = (tuple(m for m in compared_workload_aware(rows["mechanism"]) if m != "AIM")
              if artifact == "aim-fig2" else
              tuple(m for m in dict.fromkeys(rows["mechanism"]) if m not in ("AIM", "PrivMRF")))
    compared = ("PrivMRF", *rivals)
    best = winners(rows, compared)
    figures: dict[str, object] = {"settings": len(best), "by_dataset": _winners_in_words(best)}
    if artifact == "aim-fig1":
        share = best_share(rows, compared)
        figures |= {"share": float(share["PrivMRF"]), "others": tally_in_words(
            best["mechanism"][best["mechanism"] != "PrivMRF"], "{label} {share:.0%}", of=len(best))}
        return Outcome("pass" if most(share["PrivMRF"]) else "fail",
                       f"PrivMRF lowest mean error in {share['PrivMRF']:.0%} of settings among "
                       f"{', '.join(compared)}{_absent(rows, compared)}{unjudged}",
                       "more than half of the settings", figures)
    if artifact == "aim-fig2":  # "outperforms all workload-aware mechanisms": on every dataset
        by_dataset = (best["mechanism"] == "PrivMRF").groupby(best["dataset"]).mean()
        weak = by_dataset[~by_dataset.map(most)]
        figures |= {"weak": listed_in_words([f"{d} ({v:.0%} of its ε)" for d, v in weak.items()]),
                    "by_dataset_share": ", ".join(f"{d} {v:.0%}" for d, v in by_dataset.items())}
        return Outcome("pass" if weak.empty else "fail",
                       f"PrivMRF lowest mean error among {', '.join(compared)} in most ε on "
                       f"{len(by_dataset) - len(weak)} of {len(by_dataset)} datasets "
                       f"({figures['by_dataset_share']}){_absent(rows, compared)}{unjudged}",
                       "more than half of the ε on every dataset", figures)
    salary = rows["dataset"] == "salary"
    elsewhere = float(best_share(rows[~salary], compared)["PrivMRF"])
    on_salary = float(best_share(rows[salary], compared)["PrivMRF"]) if salary.any() else 0.0
    return Outcome("pass" if most(elsewhere) and on_salary < 0.5 else "fail",
                   f"PrivMRF lowest mean error among {', '.join(compared)} in {elsewhere:.0%} of "
                   f"the settings outside salary and {on_salary:.0%} on salary"
                   + _absent(rows, compared) + unjudged,
                   "more than half outside salary, under half on salary",
                   figures | {"elsewhere": elsewhere, "on_salary": on_salary,
                              "ratios": _privmrf_to_best_other(rows[~salary], rivals)})


def _privmrf_to_best_other(rows: pd.DataFrame, rivals: tuple[str, ...]) -> str:
    """Per dataset, the median over epsilon of PrivMRF's mean error over the lowest of the
    ``rivals``' ("1.8 (adult), 1.4 (titanic)").
    """
    from reprolib.papers.aim.figures import summarise, winners

    privmrf = summarise(rows[rows["mechanism"] == "PrivMRF"]).set_index(["dataset", "epsilon"])
    best = winners(rows, rivals).set_index(["dataset", "epsilon"])
    ratio = (privmrf["mean"] / best["mean"]).dropna().groupby(level="dataset").median()
    return ", ".join(f"{value:.1f} ({dataset})" for dataset, value in ratio.items())


def _rap_never_best_before_aim(ctx: CheckContext, scale: str) -> Outcome:
    """Section 6.2, observation 3: before AIM, the best workload-aware mechanism on all-3way was
    MWEM+PGM in 65 % of the settings, GEM in 35 % and RAP in none. Judged once each of the three
    ran somewhere; a setting one of them lacks is judged without it, and the outcome says so.
    """
    from reprolib.papers.aim.figures import best_share, summarise, winners
    from reprolib.papers.aim.setup import PRIOR_WORKLOAD_AWARE

    expected = "RAP best in 0 % of settings (MWEM+PGM 65 %, GEM 35 %)"
    rows = ctx.results("aim-fig1", scale)
    missing = [m for m in PRIOR_WORKLOAD_AWARE if m not in set(rows["mechanism"])]
    if missing:
        return Outcome("not-applicable", f"{', '.join(missing)} not run at this scale: the paper "
                       f"ranks {', '.join(PRIOR_WORKLOAD_AWARE)} together", expected)
    share = best_share(rows, PRIOR_WORKLOAD_AWARE)
    means = summarise(rows).set_index(["dataset", "epsilon", "mechanism"])["mean"]
    rap_best = winners(rows, PRIOR_WORKLOAD_AWARE).query("mechanism == 'RAP'")
    where = [f"{d} at ε = {e:.3g}: {means[d, e, 'RAP']:.2f} against " + " and ".join(
        f"{m}'s {means[d, e, m]:.2f}" for m in PRIOR_WORKLOAD_AWARE
        if m != "RAP" and (d, e, m) in means.index)
        for d, e in zip(rap_best["dataset"], rap_best["epsilon"], strict=True)]
    return Outcome("pass" if share["RAP"] == 0 else "fail",
                   "best of " + ", ".join(f"{m} {share[m]:.0%}" for m in PRIOR_WORKLOAD_AWARE)
                   + _absent(rows, PRIOR_WORKLOAD_AWARE), expected,
                   {"rap_best": "; ".join(where), "settings": len(where)})


def _error_falls_with_epsilon(ctx: CheckContext, artifact: str, scale: str) -> Outcome:
    rows = ctx.results(artifact, scale)
    aim = rows[rows["mechanism"] == "AIM"].groupby(["dataset", "epsilon"])
    errors, rounds = aim["metric.workload_error"], aim["metric.rounds"]
    means, lows, highs = errors.mean(), errors.min(), errors.max()
    rises: list[str] = []  # where the mean error rises, with the trials' ranges
    risen: dict[str, list[str]] = {}  # the same per dataset, for the deviation's text
    for dataset, series in means.groupby(level="dataset"):
        epsilons = series.index.get_level_values("epsilon")
        for (a, b), step in zip(itertools.pairwise(epsilons), np.diff(series.to_numpy()),
                                strict=True):
            if step >= 0:
                apart = lows[dataset, b] > highs[dataset, a]
                rises.append(f"{dataset} ε = {a:.3g} → {b:.3g}: {means[dataset, a]:.3f} → "
                             f"{means[dataset, b]:.3f} (trials {lows[dataset, a]:.3f}–"
                             f"{highs[dataset, a]:.3f} and {lows[dataset, b]:.3f}–"
                             f"{highs[dataset, b]:.3f})")
                steps = pd.concat([rounds.get_group((dataset, a)), rounds.get_group((dataset, b))])
                risen.setdefault(f"{dataset}_rises", []).append(
                    f"from {means[dataset, a]:.4f} at ε = {a:.3g} to {means[dataset, b]:.4f} at "
                    f"{b:.3g} (the trials' ranges {lows[dataset, a]:.4f}–{highs[dataset, a]:.4f} "
                    f"and {lows[dataset, b]:.4f}–{highs[dataset, b]:.4f}, "
                    f"{'apart' if apart else 'overlapping'}; "
                    + (f"{steps.min():.0f} to " if steps.min() < steps.max() else "")
                    + f"{steps.max():.0f} rounds a run)")
                risen.setdefault(f"{dataset}_rounds", []).append(
                    f"{rounds.get_group((dataset, a)).mean():.0f} rounds on average at ε = "
                    f"{a:.3g}, {rounds.get_group((dataset, b)).mean():.0f} at {b:.3g}")
    datasets = means.index.get_level_values("dataset").nunique()
    falling = datasets - len({key.removesuffix("_rises") for key in risen
                              if key.endswith("_rises")})
    figures = {key: "; ".join(v) for key, v in risen.items()}
    seed0 = rows[(rows["mechanism"] == "AIM") & (rows["seed"] == 0)].groupby(
        ["dataset", "epsilon"])["metric.workload_error"].mean()
    for dataset, of_seed0 in seed0.groupby(level="dataset"):  # at its three largest epsilon
        last = [f"{e:.3f}" for e in of_seed0.sort_index().iloc[-3:]]
        figures[f"{dataset}_seed0_last"] = listed_in_words(last)
    return Outcome("pass" if datasets and not rises else "fail",
                   f"AIM's mean error decreases with ε on {falling}/{datasets} datasets"
                   + (f"; rises: {'; '.join(rises)}" if rises else ""),
                   "on every dataset", figures)


def _spends_budget(ctx: CheckContext, artifact: str, scale: str) -> Outcome:
    rows = ctx.results(artifact, scale)
    ratio = rows["metric.spent_rho"] / rows["metric.budget_rho"]
    ok = bool(np.allclose(ratio, 1.0, rtol=1e-9, atol=0.0))
    return Outcome("pass" if ok else "fail",
                   f"spent/budget in [{ratio.min():.12f}, {ratio.max():.12f}] over {len(rows)} runs",
                   "every run spends exactly its budget")


def _workload_checks(artifact: str, scale: str) -> list[Check]:
    checks = [
        Check(id=f"{artifact}-budget-{scale}", artifact=artifact, kind="exact", scale=scale,
              data=DATA, description="every mechanism's ledger total equals its zCDP budget",
              evaluate=lambda ctx: _spends_budget(ctx, artifact, scale)),
    ]
    if scale == "small":
        checks += [
            Check(id=f"{artifact}-aim-best-{scale}", artifact=artifact, kind="claim", scale=scale,
                  data=DATA, description="AIM is the best of the workload-aware mechanisms "
                                         "(MWEM+PGM, GEM, RAP and AIM) in most settings (the "
                                         "paper, all-3way: in 85 % of them, which Figure 1's "
                                         "share must not be significantly below)",
                  evaluate=lambda ctx: _aim_wins(ctx, artifact, scale),
                  ),
            Check(id=f"{artifact}-privmrf-before-aim-{scale}", artifact=artifact, kind="claim",
                  scale=scale, data=DATA,
                  description={"aim-fig1": "before AIM, PrivMRF was the best mechanism",
                               "aim-fig2": "PrivMRF beats every workload-aware mechanism but AIM",
                               "aim-fig3": "PrivMRF is the best mechanism but AIM, except on "
                                           "salary"}[artifact],
                  evaluate=lambda ctx: _privmrf_best_before_aim(ctx, artifact, scale),
                  deviation={"aim-fig1": PRIVMRF_NOT_BEST, "aim-fig2": PRIVMRF_TARGET_NOT_EVERYWHERE,
                             "aim-fig3": PRIVMRF_SKEWED}[artifact]),
            Check(id=f"{artifact}-aim-falls-{scale}", artifact=artifact, kind="claim",
                  scale=scale, data=DATA, description="AIM's error falls as ε grows",
                  evaluate=lambda ctx: _error_falls_with_epsilon(ctx, artifact, scale),
                  deviation={"aim-fig1": f"{SMALLEST_EPSILONS_NOISE} {ADULT_CAPACITY_RISE} "
                                         f"{SALARY_PLATEAU}",
                             "aim-fig2": f"{MSNBC_FEWER_ROUNDS} {SALARY_PLATEAU}",
                             "aim-fig3": f"{SMALLEST_EPSILONS_NOISE} {MSNBC_FEWER_ROUNDS}"}
                  [artifact]),
        ]
    if scale == "small" and artifact == "aim-fig1":
        checks.append(Check(
            id=f"{artifact}-rap-never-best-{scale}", artifact=artifact, kind="claim", scale=scale,
            data=DATA, description="before AIM, RAP was never the best workload-aware mechanism",
            evaluate=lambda ctx: _rap_never_best_before_aim(ctx, scale),
            deviation=RAP_PUBLIC_N))
    return checks


PRIVMRF_CAVEATS = (
    "Two things may weigh against PrivMRF here. The capacity cut: 1 MB caps its largest clique "
    "at 131,072 cells where the paper allowed 1e7. And our re-implementation: side by side with "
    "the authors' code on nltcs at equal noise (benchmarks/privmrf_reference.py, three seeds, in "
    "results/aim/benchmarks/privmrf-reference.csv), fitting every iteration, our mean error is "
    "5 % lower at epsilon 0.1 and 12 to 26 % higher at 0.4 to 3.2, with the same number of "
    "marginals and the same noise. Their fits stop after about 50 "
    "mirror-descent steps, once the loss is below 1.2 times its expected value under the noise "
    "(0.7 times for the last); with that rule, our default and these grids' "
    "(PrivMRFConfig.stop_ratio = 1.2), ours is 7 % lower at 0.1 and 4 to 7 % higher at 0.4 to "
    "3.2, and faster than theirs. On these grids, at 100 iterations a fit, the rule costs "
    "PrivMRF 4 to 9 % of mean error against fitting every iteration (geometric means by "
    "dataset and figure, the runs committed before it became the default) and saves 40 % of "
    "its time.")
ZEROS_HURT = (
    "At the small scale's 10 MB and 100 iterations on fire the zeros hurt at every epsilon "
    "above {hurt_above}. "
    "Part of it is the setting: at epsilon 10 the authors' 2022 AIM, run beside ours "
    "(benchmarks/aim_reference.py --table-3; results/aim/benchmarks/aim-reference-zeros.csv, on "
    "the Table 3 page), is hurt alike (AIM / AIM+SZ over seeds 0-2: 0.62, ours {ratio_10:.2f}). "
    "The zero "
    "pairs cost capacity: they are cliques of the model and link the geographic attributes in "
    "cycles, so in the final model of a diagnostic AIM+SZ run (seed 0, epsilon 10, not stored) "
    "any 3-way marginal on Battalion and "
    "Neighborhoods needs a junction tree of 43 MB or more (8 MB in the AIM model) and is never "
    "measured; those 100-odd workload marginals keep an error near 0.35 (0.03 without zeros). "
    "In one-off diagnostic runs (seed 0, not stored) 80 MB gives 0.81 and 1000 iterations at "
    "10 MB 0.51. At epsilon 1 the zeros help the "
    "reference (AIM / AIM+SZ over seeds 0-2: 1.17) and hurt our default ({ratio_1:.2f}) "
    "because of one "
    "difference of the Private-PGM engines: the 2022 library keeps its potentials on junction-tree "
    "cliques and each round's warm start drops those a new triangulation no longer holds, so its "
    "fits move the model more, it anneals less and runs more rounds (AIM+SZ: 35.3 on average "
    "against our default's {sz_rounds_1:.1f}). Replayed on the same measurements, our fit with "
    "potentials='junction-tree-2022' matches the reference's to 1e-11 in every round, with and "
    "without zeros (benchmarks/aim_fit_replay.py; the runtime page), and AIM / AIM+SZ with it is "
    "{home_ratio_1:.2f} over seeds 0-2 ({home_sz_rounds_1:.1f} rounds). At epsilon 10 every "
    "engine is hurt (2022 home {home_ratio_10:.2f}, its AIM+SZ {home_sz_range_10} over the "
    "seeds, the reference's 0.085-0.129), likely because a drop late "
    "in a run leaves the final model poorly fitted at 100 iterations: replayed at epsilon 10 "
    "(AIM+SZ, seed 0; the runtime page), the 2022 fit, equal to the reference's to 1e-11, last drops "
    "potentials in round 22 of 28 and ends at 1.85 times our default's loss (2.9 in the epsilon 1 "
    "replay). This check judges our default's runs. Table 3's small grid under the home "
    "potentials='{home}' (up to epsilon {home_up_to}; the Table 3 page) gives AIM / AIM+SZ a "
    "{home_ratio}, where our default's runs at the same epsilons give a {default_alike}. "
    "Beyond epsilon 10 it is not run: its "
    "capacity filter, like the authors' script's, sizes the junction tree of the model's cliques "
    "rather than of the measured sets and so admits selections whose fits need 128 and 557 MB "
    "at 10 MB (epsilon 31.6, seed 0 of 3, and 100, every seed; benchmarks/aim_capacity_2022.py). "
    "Not run: "
    "80 MB with 1000 iterations, and the paper's own zero pairs, which it does not list (ours: "
    "2,030 zeros, the paper's 2,696).")
PRIVMRF_NOT_BEST = (
    "Not seen at small scale: AIM aside, PrivMRF has the lowest mean error in {share:.0%} of the "
    "{settings} settings ({others}). The lowest by dataset and epsilon: {by_dataset}. Salary's "
    "runs fit at the paper's 1000 Private-PGM iterations, PrivMRF's as the others'. "
    f"{PRIVMRF_CAVEATS}")
PRIVMRF_TARGET_NOT_EVERYWHERE = (
    "Not on every dataset at small scale: on the target workload PrivMRF has the lowest mean "
    "error of itself and the workload-aware mechanisms in most ε on every dataset but {weak} "
    "(by dataset: {by_dataset_share}). The lowest by dataset and epsilon: {by_dataset}. GEM's "
    "rows are still to be re-run, and to run on salary, so the count may move. "
    f"{PRIVMRF_CAVEATS}")
PRIVMRF_SKEWED = (
    "Not seen at small scale, in either direction: on the skewed workload PrivMRF has the lowest "
    "mean error of the mechanisms other than AIM in {elsewhere:.0%} of the settings outside "
    "salary, and on salary, where the paper finds it scoring poorly, in {on_salary:.0%}. The "
    "lowest by dataset and epsilon: {by_dataset}. Outside salary PrivMRF's median error (over "
    "epsilon) is {ratios} times the lowest of the others'. "
    f"{PRIVMRF_CAVEATS}")
RAP_PUBLIC_N = (
    "Not seen at small scale: RAP's mean error (three trials) is the lowest of MWEM+PGM, GEM "
    "and RAP in {settings} settings ({rap_best}), in no other. On titanic at the smallest ε, "
    "most of the gap is the record count, which Definition 2's error counts: RAP and "
    "GEM, as their authors' code, take N as public and release exactly N records, while "
    "MWEM+PGM's synthetic data has its model's total, estimated from the noisy measurements, "
    "which at these ε lands anywhere from almost no records (error 1.0) to many times N. Twenty "
    "trials of the same cells (benchmarks/aim_more_trials.py; "
    "results/aim/benchmarks/more-trials.csv): MWEM+PGM's mean error 4.43 at ε = 0.01 (standard "
    "error 1.21, median 2.31, one trial 21.3) and 2.21 at 0.0316 (0.25, median 2.09), RAP's 1.69 "
    "at both (0.01). In the total-variation variant, which compares the distributions and not "
    "the sizes, RAP and MWEM+PGM are within 0.04 of one another, RAP lower at ε = 0.01 (0.847 "
    "and 0.882, 1.5 standard errors of the difference) and higher at 0.0316 (0.846 and 0.829, "
    "0.8), and AIM is below both (0.836, 0.783). GEM was not run beyond "
    "the grid's three trials (eight minutes a run here).")
ADULT_CAPACITY_RISE = (
    "On adult, the largest domain run at 1 MB and 100 Private-PGM iterations a round (the "
    "paper: 80 MB, 1000, and 2500 for the final fit), AIM's all-3way error rises {adult_rises}. "
    "The AIM speed benchmark's capacity runs (benchmarks/aim_speed.py on "
    "adult, all-3way, seed 0, 100 iterations; results/aim/benchmarks/aim-speed.csv, on the "
    "Figure 6 page) lower the error with capacity, 0.0935, 0.0774 and 0.0743 at epsilon 10 for "
    "1, 8 and 80 MB. The step from epsilon 10 to 31.6 still rises at 8 MB (0.0774 to 0.0799) but "
    "falls at the paper's 80 MB (0.0743 to 0.0698): the capacity cut is the likely cause, on "
    "one seed per setting. The per-round iterations are not: at the paper's 1000 (1 MB, seed 0; "
    "results/aim/benchmarks/more-trials.csv) the all-3way error is 0.092, 0.090 and 0.095 at "
    "epsilon 10, 31.6 and 100, against {adult_seed0_last} at 100 iterations, for some 20 "
    "times the run time.")
SALARY_PLATEAU = (
    "On salary, run at 1 MB and the paper's 1000 Private-PGM iterations a round, AIM's mean "
    "error falls with epsilon except where it rises, {salary_rises}. The check compares means strictly, so a flat "
    "step counts against it, one within the trials' spread too. At 100 iterations a round, "
    "which these cells ran with until the 1000-iteration grid replaced them, the error rose "
    "beyond the spread (all-3way 0.147 at epsilon 10 and 0.158 at 31.6; target 0.249 at 1 and "
    "0.269 at 3.16; skewed 0.235 at 10 and 0.274 at 31.6): AIM's under-fitted model barely moved "
    "after a measurement, so it annealed early and ran fewer rounds (all-3way at epsilon 31.6: 12 "
    "on average, 19 at 1000), as on msnbc and fire. At 1000 AIM's mean error "
    "is lower at every epsilon from 1 on for all-3way and target and at 4 of those 5 for skewed "
    "(at epsilon 10: 0.260, against 0.235 at 100 iterations), with geometric-mean ratios of "
    "0.87, 0.89 and 0.97 over the nine epsilon.")
MSNBC_FEWER_ROUNDS = (
    "On msnbc, run at 10 MB and the paper's 1000 Private-PGM iterations a round (the paper: "
    "80 MB, and 2500 iterations for the final fit), AIM's mean error rises {msnbc_rises}, and "
    "AIM runs fewer rounds at the larger ε ({msnbc_rounds}), where more budget should buy more. "
    "Our first suspect is the capacity cut, as on fire (the runtime page): a model held to 10 MB "
    "cannot take the larger marginals a larger budget favours, so AIM anneals sooner. It is not "
    "tested yet; the test is a spot run at the paper's 80 MB at ε = 3.16 and 10.")
SMALLEST_EPSILONS_NOISE = (
    "Not seen on titanic at small scale: AIM's mean error over three trials rises "
    "{titanic_rises}, and falls at every other step. At these ε AIM runs few rounds on "
    "1,304 records and the error is dominated by the noise draw. Twenty trials "
    "of the same cells (benchmarks/aim_more_trials.py; results/aim/benchmarks/more-trials.csv, "
    "whose first three seeds are the grid's) are consistent with noise: the all-3way mean goes "
    "from 1.41 to 1.51, 1.1 standard errors of the difference, the skewed mean falls (1.59 to "
    "1.57), and both fall from 0.0316 to 0.1 by about 2.7 standard errors. The paper "
    "averages five trials; its figures are not in the text we have, so its titanic panel cannot "
    "be read off.")


def _falls_with_capacity(ctx: CheckContext, scale: str) -> Outcome:
    rows = ctx.results("aim-fig4ab", scale)
    largest = rows[rows["epsilon"] == rows["epsilon"].max()]
    means = largest.groupby("param.max_model_size_mb")["metric.workload_error"].mean()
    ratio = float(means.iloc[-1] / means.iloc[0])
    return Outcome("pass" if ratio < 1.0 else "fail",
                   f"error at the largest / smallest capacity: {ratio:.2f} at ε = "
                   f"{largest['epsilon'].iloc[0]:g}", "< 1 at the largest ε (paper: error "
                   "decreases with capacity; at small ε both curves level off)")


def _zeros_help_on_average(ctx: CheckContext, scale: str) -> Outcome:
    def summary(ratio: pd.Series) -> str:
        geometric_mean = float(np.exp(np.log(ratio).mean()))
        return (f"geometric mean {geometric_mean:.3f}, the zeros help at {int((ratio > 1).sum())} "
                f"of {len(ratio)} ε")

    def ratios(rows: pd.DataFrame) -> pd.Series:
        means = rows.groupby(["epsilon", "mechanism"])["metric.workload_error"].mean().unstack()
        return means["AIM"] / means["AIM+SZ"]

    rows = ctx.results("aim-tab3", scale)
    potentials = rows.get("param.potentials", pd.Series(index=rows.index, dtype=object))
    ratio = ratios(rows[potentials.isna()])  # recorded only off the default home
    helped = ratio.index[ratio > 1]  # the zeros hurt at every epsilon above the last of these
    figures = {"hurt_above": f"{helped.max():.3g}" if len(helped) else "none",
               **_per_epsilon(rows[potentials.isna()], ratio, "")}
    if potentials.notna().any():  # the runs under another home, beside the default's alike
        other = ratios(rows[potentials.notna()]).dropna()
        figures |= {"home": potentials.dropna().iloc[0], "home_ratio": summary(other),
                    "home_up_to": f"{other.index.max():g}",
                    "default_alike": summary(ratio[other.index]),
                    **_per_epsilon(rows[potentials.notna()], other, "home_")}
    return Outcome("pass" if float(np.log(ratio).mean()) > 0.0 else "fail",
                   f"AIM / AIM+SZ error: {summary(ratio)}",
                   f"geometric mean > 1 (paper, Appendix D.1: {summary(PAPER_TABLE3['ratio'])}; "
                   "'on average' an improvement, 'not universal')", figures)


def _per_epsilon(rows: pd.DataFrame, ratio: pd.Series, prefix: str) -> dict[str, object]:
    """Table 3's figures at each epsilon e, named with it ("ratio_1", "ratio_0_316"): AIM /
    AIM+SZ (``ratio``), AIM+SZ's mean rounds ("sz_rounds_1") and its trials' range of errors
    ("sz_range_10"), each name led by ``prefix``.
    """
    zeros = rows[rows["mechanism"] == "AIM+SZ"].groupby("epsilon")
    error, rounds = zeros["metric.workload_error"], zeros["metric.rounds"].mean()
    low, high = error.min(), error.max()
    figures: dict[str, object] = {}
    for epsilon in ratio.dropna().index:  # where both AIM and AIM+SZ ran
        at = f"{epsilon:.3g}".replace(".", "_")
        figures |= {f"{prefix}ratio_{at}": ratio[epsilon],
                    f"{prefix}sz_rounds_{at}": rounds[epsilon],
                    f"{prefix}sz_range_{at}": f"{low[epsilon]:.3f}-{high[epsilon]:.3f}"}
    return figures


def _runtime_ratios(rows: pd.DataFrame, by: str, along: str) -> dict:
    """Per value of ``by``: mean runtime at the largest ``along`` over that at the smallest."""
    means = rows.groupby([by, along])["metric.seconds"].mean()
    return {key: float(series.iloc[-1] / series.iloc[0])
            for key, series in means.groupby(level=by)}


def _slower_with_capacity(ctx: CheckContext, scale: str) -> Outcome:
    ratios = _runtime_ratios(ctx.results("aim-fig4ab", scale), "epsilon", "param.max_model_size_mb")
    ok = bool(ratios) and all(r > 1.0 for r in ratios.values())
    return Outcome("pass" if ok else "fail",
                   "runtime at the largest / smallest capacity: "
                   + ", ".join(f"{r:.1f}× at ε = {e:g}" for e, r in ratios.items()),
                   "> 1 at every ε (paper: runtime increases with capacity)")


def _within_capacity(ctx: CheckContext, scale: str) -> Outcome:
    rows = ctx.results("aim-fig4ab", scale)
    used = rows["metric.model_size_mb"] / rows["param.max_model_size_mb"]
    return Outcome("pass" if bool((used <= 1.0).all()) else "fail",
                   f"final model size / capacity at most {used.max():.3f} over {len(rows)} runs",
                   "<= 1 in every run (the JT-SIZE filter)")


def _bounds_cover(ctx: CheckContext, scale: str) -> Outcome:
    from reprolib.papers.aim.pages import marginal_errors

    covered = marginal_errors(ctx.results("aim-fig4c", scale))["covered"]
    share = float(covered.mean()) if len(covered) else 0.0
    return Outcome("pass" if len(covered) and share >= 0.95 else "fail",
                   f"{share:.1%} of {len(covered)} marginals within their bound",
                   ">= 95 % (paper: all of them)")


def _supported_tighter(ctx: CheckContext, scale: str) -> Outcome:
    from reprolib.papers.aim.pages import marginal_errors

    expected = ("lower median error, bound and bound / error for supported marginals (paper, "
                "Section 6.6: supported marginals have lower errors and lower, tighter bounds)")
    medians = marginal_errors(ctx.results("aim-fig4c", scale)).groupby("supported")[
        ["error", "bound", "ratio"]].median()
    if set(medians.index) != {True, False}:
        return Outcome("not-applicable", "the runs bound marginals of one kind only", expected)
    supported, unsupported = medians.loc[True], medians.loc[False]
    return Outcome("pass" if bool((supported < unsupported).all()) else "fail",
                   "medians, supported / unsupported: "
                   f"error {supported['error']:.4g} / {unsupported['error']:.4g}, bound "
                   f"{supported['bound']:.4g} / {unsupported['bound']:.4g}, bound / error "
                   f"{supported['ratio']:.2f} / {unsupported['ratio']:.2f}", expected)


def _fraction_grows(ctx: CheckContext, scale: str) -> Outcome:
    rows = ctx.results("aim-fig5", scale).sort_values("epsilon")
    pairs = rows.groupby(["dataset", "param.workload"])
    found = {(dataset, workload, a, b, x, y) for (dataset, workload), group in pairs
             for (a, x), (b, y) in itertools.pairwise(
                 zip(group["epsilon"], group["metric.matching_fraction"], strict=True))
             if y < x}
    dropping = len({drop[:2] for drop in found})
    drops = [f"{d} {w} ε = {a:.3g} → {b:.3g}: {x:.4f} → {y:.4f}"
             for d, w, a, b, x, y in sorted(found)]
    return Outcome("pass" if len(pairs) and not drops else "fail",
                   f"matching fraction non-decreasing in ε for {len(pairs) - dropping}/"
                   f"{len(pairs)} (dataset, workload) pairs"
                   + (f"; drops: {'; '.join(drops)}" if drops else ""),
                   "all pairs (paper: larger fractions at larger ε)",
                   {"drops": len(found),
                    "where": "; ".join(f"{d} {w} from ε = {a:.3g} to {b:.3g}"
                                       for d, w, a, b, _, _ in sorted(found)),
                    "with_rise": sum(_aim_error_rises(ctx, scale, *drop[:4]) for drop in found)})


def _aim_error_rises(ctx: CheckContext, scale: str, dataset: str, workload: str,
                     low: float, high: float) -> bool:
    """Whether AIM's mean error on ``dataset`` and ``workload`` (Figures 1-3) is no lower at
    epsilon ``high`` than at ``low``.
    """
    from reprolib.papers.aim.experiments import FIGURE_WORKLOADS

    artifact = next(a for a, w in FIGURE_WORKLOADS.items() if w == workload)
    rows = ctx.results(artifact, scale)
    aim = rows[(rows["mechanism"] == "AIM") & (rows["dataset"] == dataset)]
    means = aim.groupby("epsilon")["metric.workload_error"].mean()
    return bool(means[high] >= means[low])


TREND_P = 0.05  # one-sided level of Kendall's test that runtime rises with epsilon


def _runtime_grows(ctx: CheckContext, scale: str) -> Outcome:
    """Per dataset, the trend of AIM's mean runtime over the whole ε grid (Kendall's tau, one
    sided), not only its endpoints; the observation names each dataset's largest fall between
    neighbouring ε, so a dip the trend tolerates stays visible.
    """
    from scipy.stats import kendalltau

    means = ctx.results("aim-fig6", scale).groupby(["dataset", "epsilon"])["metric.seconds"].mean()
    found, ok = [], not means.empty
    for dataset, series in means.groupby(level="dataset"):
        seconds = series.droplevel("dataset")
        ratio = float(seconds.iloc[-1] / seconds.iloc[0])
        test = kendalltau(seconds.index, seconds.to_numpy(), alternative="greater")
        ok &= ratio > 1.0 and test.pvalue < TREND_P
        falls = seconds.diff()
        worst = falls.idxmin()
        fall = (f"largest fall {seconds.shift().at[worst]:.3g} s to {seconds.at[worst]:.3g} s "
                f"at ε = {worst:.3g}" if falls.min() < 0 else "never falls")
        found.append(f"{dataset}: {ratio:.1f}×, tau {test.statistic:.2f} "
                     f"(p = {test.pvalue:.1g}), {fall}")
    return Outcome("pass" if ok else "fail",
                   "runtime at the largest / smallest ε, Kendall's tau of runtime on ε: "
                   + "; ".join(found),
                   f"on every dataset the runtime at the largest ε above the smallest's and a "
                   f"rising trend over the grid (Kendall's tau > 0, one-sided p < {TREND_P}); "
                   "the paper: 'runtime increases drastically with the privacy parameter'")


def _pgm_beats_rp(ctx: CheckContext, scale: str) -> Outcome:
    from reprolib.papers.aim.pages import mwem_best

    best = mwem_best(ctx.results("aim-fig7", scale))
    wins, losses = best["pgm_better"], best[~best["pgm_better"]]
    where = "; ".join(f"{d} at ε = {e:.3g} ({row['error, MWEM+PGM']:.3f} against "
                      f"{row['error, MWEM+RP']:.3f})" for (d, e), row in losses.iterrows())
    epsilons = best.index.get_level_values("epsilon")
    above = [e for e in sorted(set(epsilons)) if wins[epsilons >= e].all()]
    return Outcome("pass" if len(wins) and wins.all() else "fail",
                   f"MWEM+PGM's best-over-T error at most MWEM+RP's in {int(wins.sum())}/"
                   f"{len(wins)} settings", "every setting (the paper: 'across every dataset "
                   "and privacy level considered')",
                   {"wins": int(wins.sum()), "settings": len(wins), "where": where,
                    "from": f"{above[0]:.3g}" if above else "no ε"})


def _study_checks(scale: str) -> list[Check]:
    def claim(artifact: str, name: str, description: str, evaluate) -> Check:
        return Check(id=f"{artifact}-{name}-{scale}", artifact=artifact, kind="claim",
                     scale=scale, data=DATA, description=description,
                     evaluate=lambda ctx: evaluate(ctx, scale))

    return [
        Check(id=f"aim-fig4ab-within-capacity-{scale}", artifact="aim-fig4ab", kind="exact",
              scale=scale, data=DATA, description="the final model never exceeds the capacity",
              evaluate=lambda ctx: _within_capacity(ctx, scale)),
        *(Check(id=f"{a}-budget-{scale}", artifact=a, kind="exact", scale=scale, data=DATA,
                description="every run's ledger total equals its zCDP budget",
                evaluate=partial(_spends_budget, artifact=a, scale=scale))
          for a in ("aim-fig4ab", "aim-fig4c", "aim-fig7")),
        Check(id=f"aim-tab3-zeros-help-{scale}", artifact="aim-tab3", kind="claim", scale=scale,
              data=DATA, description="structural zeros lower AIM's error on average over ε",
              evaluate=lambda ctx: _zeros_help_on_average(ctx, scale), deviation=ZEROS_HURT),
        claim("aim-fig4ab", "capacity", "AIM's error falls as model capacity grows",
              _falls_with_capacity),
        claim("aim-fig4ab", "slower", "AIM's runtime grows with model capacity",
              _slower_with_capacity),
        claim("aim-fig4c", "coverage", "the Section 5 bounds hold for at least 95 % of marginals",
              _bounds_cover),
        claim("aim-fig4c", "supported-tighter",
              "supported marginals have lower errors and lower, tighter bounds",
              _supported_tighter),
        Check(id=f"aim-fig5-grows-{scale}", artifact="aim-fig5", kind="claim", scale=scale,
              data=DATA, description="the subsampling fraction matching AIM grows with ε",
              evaluate=lambda ctx: _fraction_grows(ctx, scale),
              deviation="Where the fraction drops ({where}), AIM's mean error rises at the same "
              "step in {with_rise} of the {drops} cases (Figures 1-3; their aim-falls checks): "
              "the fraction that matches a larger error is smaller. Elsewhere it grows at every "
              "step."),
        claim("aim-fig6", "runtime", "AIM's runtime grows with ε", _runtime_grows),
        Check(id=f"aim-fig7-pgm-wins-{scale}", artifact="aim-fig7", kind="claim", scale=scale,
              data=DATA, description="MWEM+PGM beats MWEM+relaxed projection at every dataset "
                                     "and ε (Appendix F: 'consistently outperforms')",
              evaluate=lambda ctx: _pgm_beats_rp(ctx, scale),
              deviation="Not at every setting at small scale: MWEM+PGM's best-over-T error is "
              "the lower in {wins} of the {settings} settings; MWEM+RP's is lower at {where}. "
              "From ε = {from} up MWEM+PGM is the lower everywhere, as the paper found; below, "
              "three trials of noise-dominated runs decide. The paper's five trials and its "
              "datasets beyond titanic and nltcs are GPU work (the Figure 7 page)."),
    ]


CHECKS: list[Check] = [
    Check(id="aim-tab1-taxonomy", artifact="aim-tab1", kind="exact", scale="small",
          data="the mechanisms' declared traits",
          description="each re-run mechanism's Table 1 row equals the paper's",
          evaluate=lambda ctx: _table1(ctx, "small")),
    Check(id="aim-tab2-statistics", artifact="aim-tab2", kind="exact", scale="small", data=DATA,
          description="Table 2's statistics recomputed from the data equal the paper's",
          evaluate=lambda ctx: _table2(ctx, "small")),
    *(check for artifact in ("aim-fig1", "aim-fig2", "aim-fig3") for scale in ("smoke", "small")
      for check in _workload_checks(artifact, scale)),
    *_study_checks("small"),
    *(regression_check(artifact, ["workload_error"], rtol=1e-6,
                       cross_cpu_rtol=TRAINED_ACROSS_CPUS, data="titanic, five attributes (smoke)")
      for artifact in ("aim-fig4ab", "aim-fig4c", "aim-fig7")),
    # their smoke grids run GEM (which moved by 1.0e-2 on an AVX2 EPYC)
    *(regression_check(artifact, ["workload_error"], rtol=1e-6,
                       cross_cpu_rtol=GEM_ACROSS_CPUS, small_spots=SMALL_SPOTS,
                       data="titanic, five attributes (smoke); titanic (small spots)")
      for artifact in ("aim-fig1", "aim-fig2", "aim-fig3")),
    regression_check("aim-fig5", ["matching_fraction"], rtol=1e-9,
                     cross_cpu_rtol=TRAINED_ACROSS_CPUS,
                     data="titanic, five attributes (smoke), from the recorded Figures 1-3"),
]
