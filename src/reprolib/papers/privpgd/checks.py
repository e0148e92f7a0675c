"""The checks of our PrivPGD re-runs against the paper's claims, tables and data sizes.

The paper's numbers live in :mod:`reprolib.papers.privpgd.reported`. Offline, every dataset is a
named stand-in, so the band checks (our numbers against the tables) and the data-size checks
apply only to runs on the paper's own data; on stand-ins they report ``not-applicable`` with the
reason, visibly, instead of passing.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable

import numpy as np
import pandas as pd

from reprolib.experiments._checks import (
    GEM_ACROSS_CPUS,
    TRAINED_ACROSS_CPUS,
    Check,
    CheckContext,
    Kind,
    MissingResults,
    Outcome,
    most,
    regression_check,
    tally_in_words,
)
from reprolib.experiments._scales import Scale
from reprolib.mechanisms.particles.privpgd import PrivPGDConfig
from reprolib.papers.privpgd.setup import PROFILES

DATA = "named stand-ins (offline; listed on each page)"
SCALE: Scale = "small"
COMPARISONS = ("privpgd-fig1", "privpgd-fig4", "privpgd-fig5")
ALL_RUNS = (*COMPARISONS, "privpgd-fig3")
QUERY_ERRORS = ("covariance_error", "counting_error", "thresholding_error")
ALL_ERRORS = ("downstream_error", *QUERY_ERRORS, "sw1", "l1")  # the paper's six
_SMALL, _PAPER = PROFILES[SCALE].privpgd, PrivPGDConfig()  # settings the deviation note quotes
_UNEQUAL = (
    f"At {SCALE} scale PrivPGD is cut ({_SMALL['n_particles']} particles and {_SMALL['epochs']} "
    f"epochs; the paper: {_PAPER.n_particles} and {_PAPER.epochs}) while the baselines run the "
    f"paper's settings ({PROFILES[SCALE].pgm_iters} Private-PGM iterations, AIM at "
    f"{PROFILES[SCALE].max_model_size_mb:g} MB), on stand-in data: an unequal comparison; the "
    "paper-scale SW1 check sets PrivPGD's GPU runs at the paper's settings against them.")


LOWEST_SW1_AT_PAPER_SETTINGS = (
    "Not reproduced with PrivPGD at the paper's settings either: on the same stand-in data and "
    "seeds, the lowest mean SW1 is {leaders} (the observed column gives the seeds compared, one "
    "to three GPU runs a dataset). Our Private GSD is untuned, at one point of the paper's "
    "tuning grid, and stopped early. PrivPGD at the paper's settings is below PGM+AIM on "
    "{below_aim} of the {datasets} datasets, so the gap to the paper is Private GSD's: the paper "
    "tuned it per dataset and still reports PrivPGD ahead. Ours is not a stronger Private GSD than the authors': side by side with their code "
    "in the paper's one-shot setting on adult (the Figures 2, 6 and 7 pages, two seeds each), "
    "ours ends 3 % above theirs in 2-way total variation distance at rho = 0.005, level at "
    "0.05 and 8 % below at 0.5, stopping early in seconds where theirs was cut off after 10 "
    "minutes. Open: the paper's data, more seeds.")

#: How :func:`tally_in_words` names the lowest mechanism per dataset ("Private GSD's on 7
#: datasets (blackfriday, ...), PGM+AIM's on 2 (medical, taxi)").
LEADERS = "{label}'s on {count} dataset{s} ({members})"


def _means(ctx: CheckContext, artifact: str, metric: str) -> pd.DataFrame:
    """Mean of ``metric`` over runs: one row per dataset, one column per mechanism."""
    rows = ctx.results(artifact, SCALE)
    means = rows.pivot_table(index="dataset", columns="mechanism", values=f"metric.{metric}")
    absent = [m for m in PROFILES[SCALE].mechanisms if m not in means.columns]
    if absent:
        raise MissingResults(f"no runs of {absent} recorded; run `reprolib run {artifact} "
                             f"--scale {SCALE}`")
    return means


def _share(wins: pd.Series | np.ndarray, label: str) -> Outcome:
    """Passes when ``wins`` holds in most (more than half) of the ``label``."""
    wins = np.asarray(wins, dtype=bool)
    share = float(wins.mean()) if wins.size else 0.0
    return Outcome("pass" if most(int(wins.sum()), wins.size) else "fail",
                   f"{int(wins.sum())}/{wins.size} {label} ({share:.0%})",
                   f"more than half of {label.split(' ', 1)[-1]}")


def _budget(ctx: CheckContext, scale: str = SCALE,
            artifacts: tuple[str, ...] = ALL_RUNS) -> Outcome:
    rows = pd.concat([ctx.results(a, scale) for a in artifacts])
    exact = np.isclose(rows["metric.spent_rho"], rows["metric.budget_rho"], rtol=1e-9, atol=0)
    bounded = rows["metric.relation"] == "replace-one"
    bad = rows.loc[~(exact & bounded), ["artifact", "mechanism", "dataset", "seed"]]
    return Outcome("pass" if bad.empty else "fail",
                   f"{len(rows) - len(bad)}/{len(rows)} runs spent exactly rho under replace-one"
                   + (f"; not: {bad.to_dict('records')[:3]}" if len(bad) else ""),
                   "every run: spent rho = budget rho (rel. 1e-9), replace-one accounting")


def _on_paper_data(ctx: CheckContext, artifact: str) -> tuple[pd.DataFrame, str]:
    """The runs of ``artifact`` on the paper's own data, and, if there are none, why."""
    rows = ctx.results(artifact, SCALE)
    real = rows[~rows["metric.substituted"].astype(bool)]
    return real, f"all {rows['dataset'].nunique()} datasets ran on stand-ins" if real.empty else ""


def _data_sizes(ctx: CheckContext) -> Outcome:
    from reprolib.papers.privpgd.data import privpgd_data_claims

    real, why_not = _on_paper_data(ctx, "privpgd-fig1")
    if why_not:
        return Outcome("not-applicable", why_not,
                       "the paper's (n, d) wherever its data ran (needs folktables/OpenML)")
    real = real.drop_duplicates("dataset")
    claims = privpgd_data_claims()
    differ = [d for d, n, k in zip(real["dataset"], real["metric.records"],
                                   real["metric.attributes"], strict=True)
              if (int(n), int(k)) != claims[d]]
    return Outcome("pass" if not differ else "fail",
                   f"{len(real) - len(differ)}/{len(real)} real datasets match"
                   + (f"; differ: {differ}" if differ else ""), "the paper's (n, d)")


def _bands(epsilon: float, artifact: str):
    def evaluate(ctx: CheckContext) -> Outcome:
        from reprolib.papers.privpgd.reported import reported_results

        real, why_not = _on_paper_data(ctx, artifact)
        if why_not:
            return Outcome("not-applicable", why_not,
                           "PrivPGD's SW1 and L1 within a factor 2 of the paper's, on its data")
        paper = reported_results()
        paper = paper[(paper["epsilon"] == epsilon) & (paper["mechanism"] == "PrivPGD")]
        paper = paper.set_index("dataset")
        ours = real[real["mechanism"] == "PrivPGD"].groupby("dataset")[
            ["metric.sw1", "metric.l1"]].mean()
        ratio = np.abs(np.log2(ours.to_numpy() / paper.loc[ours.index, ["sw1", "l1"]].to_numpy()))
        return Outcome("pass" if (ratio <= 1).all() else "fail",
                       f"largest |log2(ours / paper)| = {ratio.max():.2f} on {len(ours)} datasets",
                       "<= 1 (a factor 2)")
    return evaluate


def _beats_mst_on_queries(ctx: CheckContext) -> Outcome:
    """The paper's wording: better in every (dataset, error) pair but one (Diabetes'
    thresholding error).
    """
    losses = [f"{dataset} ({metric.removesuffix('_error')})" for metric in QUERY_ERRORS
              for dataset, row in _means(ctx, "privpgd-fig1", metric).iterrows()
              if not row["PrivPGD"] < row["PGM+MST"]]
    pairs = len(QUERY_ERRORS) * len(_means(ctx, "privpgd-fig1", QUERY_ERRORS[0]))
    return Outcome("pass" if len(losses) <= 1 else "fail",
                   f"PrivPGD's mean below PGM+MST's in {pairs - len(losses)}/{pairs} (dataset, "
                   "error) pairs", "every pair but at most one",
                   {"losses": ", ".join(losses), "count": len(losses)})


def _downstream_vs_mst(ctx: CheckContext) -> Outcome:
    means = _means(ctx, "privpgd-fig1", "downstream_error")
    at_most = means["PrivPGD"] <= means["PGM+MST"]
    outcome = _share(at_most, "datasets where PrivPGD <= PGM+MST")
    return dataclasses.replace(outcome, figures={
        "at_most": ", ".join(means.index[at_most]) or "no dataset",
        "above": ", ".join(means.index[~at_most]) or "no dataset"})


def _lowest_sw1(ctx: CheckContext) -> Outcome:
    means = _means(ctx, "privpgd-fig1", "sw1")
    outcome = _share(means.idxmin(axis=1) == "PrivPGD",
                     "datasets where PrivPGD has the lowest SW1")
    leaders = tally_in_words(means.idxmin(axis=1), LEADERS)
    return dataclasses.replace(outcome, figures={"leaders": leaders})


def _at_paper_settings(ctx: CheckContext) -> tuple[pd.DataFrame, pd.Series]:
    """PrivPGD's Figure 1 runs at the paper's settings (``paper`` store) and the baselines'
    ``small`` runs, which are at the paper's settings too, on the datasets and seeds both have;
    and the number of PrivPGD runs per dataset.
    """
    privpgd = ctx.results("privpgd-fig1", "paper")
    privpgd = privpgd[privpgd["mechanism"] == "PrivPGD"]
    baselines = ctx.results("privpgd-fig1", SCALE)
    baselines = baselines[baselines["mechanism"] != "PrivPGD"]
    shared = privpgd.merge(baselines[["dataset", "seed"]].drop_duplicates(),
                           on=["dataset", "seed"])
    both = pd.concat([shared, baselines.merge(shared[["dataset", "seed"]],
                                              on=["dataset", "seed"])])
    return both, shared.groupby("dataset").size()


def _lowest_sw1_at_paper_settings(ctx: CheckContext) -> Outcome:
    both, runs = _at_paper_settings(ctx)
    means = both.pivot_table(index="dataset", columns="mechanism", values="metric.sw1")
    outcome = _share(means.idxmin(axis=1) == "PrivPGD",
                     "datasets where PrivPGD at the paper's settings has the lowest SW1")
    best = means.idxmin(axis=1)
    return dataclasses.replace(outcome, observed=f"{outcome.observed}; lowest: " + ", ".join(
        f"{d} {best[d]} ({runs[d]} seed{'s' if runs[d] > 1 else ''})" for d in means.index),
        figures={"leaders": tally_in_words(best, LEADERS), "datasets": len(means),
                 "below_aim": int((means["PrivPGD"] < means["PGM+AIM"]).sum())})


def _sw1_favours_privpgd_more_than_l1(ctx: CheckContext) -> Outcome:
    """Per dataset: log2(PGM+AIM / PrivPGD) is larger for SW1 than for L1."""
    sw1, l1 = (_means(ctx, "privpgd-fig1", m) for m in ("sw1", "l1"))
    wins = (np.log2(sw1["PGM+AIM"] / sw1["PrivPGD"]) > np.log2(l1["PGM+AIM"] / l1["PrivPGD"]))
    return _share(wins, "datasets where PrivPGD's edge over PGM+AIM is larger in SW1 than in L1")


def _edge_shrinks(ctx: CheckContext) -> Outcome:
    """Mean over datasets, baselines and the six errors of log2(baseline / PrivPGD)."""
    def edge(artifact: str) -> float:
        logs = [np.log2(means.drop(columns="PrivPGD").div(means["PrivPGD"], axis=0))
                for means in (_means(ctx, artifact, m) for m in ALL_ERRORS)]
        return float(np.nanmean(pd.concat(logs).to_numpy()))

    high, low = edge("privpgd-fig1"), edge("privpgd-fig5")
    return Outcome("pass" if low < high else "fail",
                   f"mean log2(baseline / PrivPGD): {high:+.2f} at ε = 2.5, {low:+.2f} at ε = 0.2",
                   "smaller at ε = 0.2 than at ε = 2.5", {"high": high, "low": low})


Means = Callable[[str], pd.DataFrame]  # a metric's mean per dataset (rows) and mechanism


def _wins(means: Means, baseline: str) -> tuple[int, int]:
    """How often PrivPGD's mean error is below ``baseline``'s: the wins and the (dataset, error)
    pairs compared.
    """
    wins = pd.concat([m["PrivPGD"] < m[baseline] for m in map(means, ALL_ERRORS)])
    return int(wins.sum()), len(wins)


def _beats(means: Means, baselines: tuple[str, ...]) -> Outcome:
    """Passes when PrivPGD's mean error at epsilon = 2.5 (Section 4.3 discusses Figure 1) is the
    lower in most (dataset, error) pairs against each of ``baselines``.
    """
    shares = {b: _wins(means, b) for b in baselines}
    return Outcome("pass" if all(most(w, n) for w, n in shares.values()) else "fail",
                   "; ".join(f"PrivPGD lower than {b} in {w}/{n} (dataset, error) pairs "
                             f"({w / n:.0%})" for b, (w, n) in shares.items()),
                   "more than half against each of " + " and ".join(baselines)
                   + ", over the six errors and every dataset",
                   {"wins": "; ".join(f"{w} of the {n} (dataset, error) pairs against {b}"
                                      for b, (w, n) in shares.items())})


def _beats_small(baselines: tuple[str, ...]):
    return lambda ctx: _beats(functools.partial(_means, ctx, "privpgd-fig1"), baselines)


def _beats_at_paper_settings(baselines: tuple[str, ...]):
    def evaluate(ctx: CheckContext) -> Outcome:
        both, _ = _at_paper_settings(ctx)
        return _beats(lambda metric: both.pivot_table(index="dataset", columns="mechanism",
                                                      values=f"metric.{metric}"), baselines)
    return evaluate


GSD_AHEAD = (
    "Not reproduced at {scale}: at ε = 2.5 PrivPGD's mean error is the lower in {wins}, where "
    "the paper has Private GSD only occasionally ahead. Private GSD runs "
    "untuned, at its authors' settings, on the stand-ins; the paper tuned it per dataset on the "
    "private data, which should only help it. ")


def _by_strength(ctx: CheckContext, metric: str) -> pd.DataFrame:
    """Figure 3's mean of ``metric`` over runs: one row per lambda (ascending), one column per
    dataset.
    """
    return ctx.results("privpgd-fig3", SCALE).pivot_table(
        index="param.strength", columns="dataset", values=f"metric.{metric}")


def _protected_error_rises(ctx: CheckContext) -> Outcome:
    means = _by_strength(ctx, "protected_abs_error")
    rises = means.iloc[-1] > means.iloc[0]
    return Outcome("pass" if rises.all() else "fail",
                   "; ".join(f"{d}: {means[d].iloc[0]:.4f} at λ = 0, {means[d].iloc[-1]:.4f} at "
                             f"λ = {means.index[-1]:g}" for d in means.columns),
                   "larger at the largest λ than at λ = 0 on every dataset")


# "comparable to the unregularised case": downstream error at most 2 points above, random-query
# errors at most 1.5 times those at lambda = 0 (our reading of the word)
DOWNSTREAM_SLACK, QUERY_FACTOR = 0.02, 1.5


def _other_errors_stay_comparable(ctx: CheckContext) -> Outcome:
    downstream = _by_strength(ctx, "downstream_error")
    excesses = downstream - downstream.iloc[0]  # lambda x dataset
    ratios = [m / m.iloc[0] for m in (_by_strength(ctx, "counting_abs_error"),
                                      _by_strength(ctx, "thresholding_abs_error"))]
    excess = excesses.max()
    factors = pd.concat([r.max() for r in ratios], axis=1)
    ok = (excess <= DOWNSTREAM_SLACK).all() and (factors.max(axis=1) <= QUERY_FACTOR).all()
    beyond = (excesses > DOWNSTREAM_SLACK) | (ratios[0] > QUERY_FACTOR) | (ratios[1] > QUERY_FACTOR)
    first = {d: beyond.index[beyond[d]].min() for d in beyond.columns if beyond[d].any()}
    return Outcome("pass" if ok else "fail",
                   "; ".join(f"{d}: downstream +{excess[d]:.3f}, query errors x"
                             f"{factors.loc[d].max():.2f} at worst" for d in excess.index),
                   f"downstream <= +{DOWNSTREAM_SLACK} and query errors <= x{QUERY_FACTOR} of "
                   "λ = 0 at every λ",
                   {"beyond_from": ", ".join(f"on {d} from λ = {strength:g}"
                                             for d, strength in first.items()) or "nowhere"})


def _check(id_: str, artifact: str, kind: Kind, description: str, evaluate,
           deviation: str | None = None) -> Check:
    return Check(id=id_, artifact=artifact, kind=kind, scale=SCALE, data=DATA,
                 description=description, evaluate=evaluate, deviation=deviation)


CHECKS: tuple[Check, ...] = (
    _check("privpgd-budget", "privpgd-fig1", "exact",
           "every run (Figures 1, 3, 4, 5) spends exactly its zCDP budget under replace-one",
           _budget),
    Check(id="privpgd-budget-paper", artifact="privpgd-fig1", kind="exact", scale="paper",
          data=DATA, description="every run at the paper's settings (Figure 1's GPU runs) "
                                 "spends exactly its zCDP budget under replace-one",
          evaluate=lambda ctx: _budget(ctx, "paper", ("privpgd-fig1",))),
    _check("privpgd-data-sizes", "privpgd-fig1", "exact",
           "records and attributes of each dataset equal the paper's (n, d), where its data ran",
           _data_sizes),
    *[_check(f"privpgd-band-eps{eps}", artifact, "band",
             f"PrivPGD's SW1 and L1 at ε = {eps} within a factor 2 of Tables 1-6, on the paper's data",
             _bands(eps, artifact))
      for eps, artifact in zip((2.5, 1.0, 0.2), COMPARISONS, strict=True)],
    _check("privpgd-beats-mst", "privpgd-fig1", "claim",
           "Section 4.3: at ε = 2.5 PrivPGD has lower covariance and query errors than PGM+MST "
           "(paper: every dataset but one error)", _beats_mst_on_queries,
           deviation=f"Not reproduced at {SCALE} scale: PrivPGD's mean error is at or above "
           "PGM+MST's in {count} pairs: {losses} (the Figure 1 page). "
           f"{_UNEQUAL}"),
    _check("privpgd-downstream", "privpgd-fig1", "claim",
           "Section 4.3: PrivPGD's downstream error is consistently better than PGM+MST's",
           _downstream_vs_mst,
           deviation=f"Not reproduced at {SCALE} scale: PrivPGD's mean downstream error is at "
           "most PGM+MST's on {at_most} and above it on {above} (the Figure 1 page). "
           f"{_UNEQUAL}"),
    _check("privpgd-lowest-sw1", "privpgd-fig2", "claim",
           "Figure 2: at ε = 2.5 PrivPGD has the lowest average SW1 on most datasets",
           _lowest_sw1,
           deviation=f"Not reproduced at {SCALE} scale: the lowest mean SW1 is {{leaders}}. "
           f"{_UNEQUAL} Under mbi 2.0's step rule, which fitted the baselines worse, PrivPGD led "
           "PGM+AIM and PGM+MST (the small results committed before the 2022 rule became the "
           "default, without Private GSD)."),
    Check(id="privpgd-lowest-sw1-paper", artifact="privpgd-fig2", kind="claim", scale="paper",
          data=DATA, description="Figure 2 with PrivPGD at the paper's settings (its GPU runs) "
                                 "against the baselines' small runs, also at the paper's "
                                 "settings, on the same datasets and seeds: PrivPGD has the "
                                 "lowest average SW1 on most datasets",
          evaluate=_lowest_sw1_at_paper_settings, deviation=LOWEST_SW1_AT_PAPER_SETTINGS),
    _check("privpgd-sw1-not-tv", "privpgd-fig2", "claim",
           "Section 4.3 on Figure 2: PrivPGD minimises SW1 while PGM targets TV, so at ε = 2.5 "
           "PrivPGD's edge over PGM+AIM is larger in SW1 than in TV (L1) on most datasets",
           _sw1_favours_privpgd_more_than_l1),
    _check("privpgd-beats-gem-rap", "privpgd-fig1", "claim",
           "Section 4.3: PrivPGD is the preferred method against the query-based baselines, "
           "especially GEM and RAP: at ε = 2.5 it has the lower mean error in most (dataset, "
           "error) pairs against each", _beats_small(("GEM", "RAP"))),
    Check(id="privpgd-beats-gem-rap-paper", artifact="privpgd-fig1", kind="claim", scale="paper",
          data=DATA, description="Section 4.3 with PrivPGD at the paper's settings (Figure 1's "
                                 "GPU runs, ε = 2.5) against GEM's and RAP's small runs, at "
                                 "their authors' settings, on the same datasets and seeds: "
                                 "PrivPGD has the lower mean error in most (dataset, error) "
                                 "pairs against each",
          evaluate=_beats_at_paper_settings(("GEM", "RAP"))),
    _check("privpgd-beats-gsd", "privpgd-fig1", "claim",
           "Section 4.3: Private GSD 'occasionally surpasses' PrivPGD, which 'usually emerges as "
           "the best-performing method': at ε = 2.5 PrivPGD has the lower mean error in most "
           "(dataset, error) pairs", _beats_small(("Private GSD",)),
           deviation=GSD_AHEAD.format(scale=f"{SCALE} scale", wins="{wins}") + _UNEQUAL),
    Check(id="privpgd-beats-gsd-paper", artifact="privpgd-fig1", kind="claim", scale="paper",
          data=DATA, description="Section 4.3 with PrivPGD at the paper's settings (Figure 1's "
                                 "GPU runs, ε = 2.5) against Private GSD's small runs, at its "
                                 "authors' settings, on the same datasets and seeds: PrivPGD "
                                 "has the lower mean error in most (dataset, error) pairs",
          evaluate=_beats_at_paper_settings(("Private GSD",)),
          deviation=GSD_AHEAD.format(scale="the paper's settings either", wins="{wins}")
          + "Here PrivPGD's runs are its GPU runs at the paper's settings, so its cut does "
          "not explain it."),
    _check("privpgd-edge-shrinks", "privpgd-fig5", "claim",
           "Appendix C: PrivPGD's advantage over the baselines shrinks from ε = 2.5 to ε = 0.2",
           _edge_shrinks,
           deviation=f"Not reproduced at {SCALE} scale: the mean log2 ratio of the baselines' "
           "errors to PrivPGD's is {high:+.2f} at ε = 2.5 and {low:+.2f} at ε = 0.2 (negative "
           "where the baselines lead): PrivPGD's standing is no worse at ε = 0.2 than at 2.5. "
           f"{_UNEQUAL}"),
    _check("privpgd-protected-query", "privpgd-fig3", "claim",
           "Figure 3: the protected query's error grows with the constraint strength λ",
           _protected_error_rises),
    _check("privpgd-constraint-keeps-utility", "privpgd-fig3", "claim",
           "Figure 3: with the penalty, the downstream error and the random counting and "
           "thresholding errors stay comparable to the unregularised run",
           _other_errors_stay_comparable,
           deviation=f"Not reproduced at {SCALE} scale ({_SMALL['n_particles']} particles, "
           f"{_SMALL['epochs']} epochs, stand-in data): the downstream error or a random-query "
           "error leaves the check's bounds {beyond_from} (Figure 3 page). The paper ran "
           f"{_PAPER.epochs} epochs with {_PAPER.n_particles} particles; whether they absorb the "
           "penalty is open until a paper-scale run."),
    *[regression_check(a, ["sw1", "l1", "covariance_error", "counting_error",
                           "downstream_error"], cross_cpu_rtol=GEM_ACROSS_CPUS, data=DATA)
      for a in COMPARISONS],
    regression_check("privpgd-fig3", ["protected_abs_error", "sw1"],
                     cross_cpu_rtol=TRAINED_ACROSS_CPUS, data=DATA),
)
