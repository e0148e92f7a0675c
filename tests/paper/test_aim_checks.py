"""AIM checks pass on the committed results and fail when a recorded number is wrong."""

import json

import numpy as np
import pandas as pd

from reprolib._paths import repo_root
from reprolib.experiments import checks_of, evaluate_checks, scorecard_frame
from reprolib.papers.aim.checks import (
    _aim_wins,
    _privmrf_best_before_aim,
    _rap_never_best_before_aim,
    _winners_in_words,
)
from reprolib.papers.aim.figures import absent_runs, best_share
from reprolib.papers.aim.setup import pending_runs

COMMITTED = repo_root() / "results"


def _statuses(root):
    checks = [c for c in checks_of("aim") if c.kind != "regression"]  # regression: test_regression_checks.py
    card = scorecard_frame(evaluate_checks(checks, root))
    return dict(zip(card["check"], card["status"], strict=False))


def test_committed_results_fail_no_aim_check():
    statuses = _statuses(COMMITTED)
    # GEM's small grid waits on salary and msnbc, PrivMRF's on msnbc; the settings there are
    # judged without them
    assert pending_runs("small") == {"GEM": ("salary", "msnbc"), "PrivMRF": ("msnbc",)}
    assert statuses and set(statuses.values()) <= {"pass", "deviation"}, statuses
    # the documented findings at small scale: between the two smallest ε titanic's trial means
    # rise, within the trials' spread; at large ε adult's rises beyond it and salary's is flat
    # (a flat step of the means counts as a rise, within the trials' spread); msnbc's rises
    # from ε 3.16 to 10 on the target and skewed workloads, with fewer rounds; PrivMRF
    # is not the best mechanism before AIM on the all-3way and skewed workloads, and on the target
    # workload leads the workload-aware mechanisms in most ε on every dataset but salary; on fire the
    # structural zeros hurt AIM on average at the small scale's settings, the authors' code's too;
    # RAP, which takes N as public, beats MWEM+PGM and GEM at titanic's two smallest ε;
    # MWEM+RP beats MWEM+PGM at three small-ε settings of Figure 7
    assert sorted(c for c, s in statuses.items() if s == "deviation") == [
        "aim-fig1-aim-falls-small", "aim-fig1-privmrf-before-aim-small",
        "aim-fig1-rap-never-best-small", "aim-fig2-aim-falls-small",
        "aim-fig2-privmrf-before-aim-small", "aim-fig3-aim-falls-small",
        "aim-fig3-privmrf-before-aim-small", "aim-fig5-grows-small",
        "aim-fig7-pgm-wins-small", "aim-tab3-zeros-help-small"]


class _Recorded:
    """A check context holding one made-up Figure 1 frame."""

    def __init__(self, frame):
        self.frame = frame

    def results(self, artifact, scale):
        return self.frame


def _figure1(errors):
    """Rows of two settings, ``errors[mechanism] = (error at epsilon 1, error at epsilon 10)``."""
    return pd.DataFrame([{"dataset": "nltcs", "mechanism": m, "epsilon": e, "seed": 0,
                          "metric.workload_error": error}
                         for m, pair in errors.items() for e, error in zip((1.0, 10.0), pair,
                                                                           strict=True)])


def test_rap_never_best_is_judged_once_mwem_gem_and_rap_all_ran():
    never = _figure1({"MWEM+PGM": (0.2, 0.1), "GEM": (0.1, 0.2), "RAP": (0.3, 0.3)})
    once = _figure1({"MWEM+PGM": (0.2, 0.1), "GEM": (0.1, 0.2), "RAP": (0.3, 0.05)})
    outcome = _rap_never_best_before_aim(_Recorded(never), "small")
    assert outcome.status == "pass" and "MWEM+PGM 50%, GEM 50%, RAP 0%" in outcome.observed
    outcome = _rap_never_best_before_aim(_Recorded(once), "small")
    assert outcome.status == "fail" and "RAP 50%" in outcome.observed
    assert outcome.figures == {  # the settings RAP wins, for the deviation's text
        "settings": 1, "rap_best": "nltcs at ε = 10: 0.05 against MWEM+PGM's 0.10 and GEM's 0.20"}
    without_gem = once[once["mechanism"] != "GEM"]
    assert _rap_never_best_before_aim(_Recorded(without_gem), "small").status == "not-applicable"


def _settings_won_by_aim(won, of):
    """``of`` settings (one dataset each, two ε) in ``won`` of which AIM beats MWEM+PGM."""
    return pd.concat([_figure1({"AIM": (0.1, 0.1), "MWEM+PGM": (0.2, 0.2) if i < won / 2 else
                                (0.05, 0.05)}).assign(dataset=f"d{i}") for i in range(of // 2)])


def test_figure_1s_share_of_aim_wins_is_held_to_the_papers_85_percent():
    # 28 of 40 (70 %) is most settings but significantly below 85 % (binomial p = 0.01)
    rows = _settings_won_by_aim(28, 40)
    fig1, fig2 = (_aim_wins(_Recorded(rows), a, "small") for a in ("aim-fig1", "aim-fig2"))
    assert fig1.status == "fail" and "28/40 settings (70%)" in fig1.observed
    assert "p = 0.01" in fig1.observed
    assert fig2.status == "pass"  # the paper gives no share for Figures 2 and 3
    assert _aim_wins(_Recorded(_settings_won_by_aim(32, 40)), "aim-fig1", "small").status == "pass"
    assert _aim_wins(_Recorded(_settings_won_by_aim(20, 40)), "aim-fig2", "small").status == "fail"


def test_the_lowest_mechanism_per_setting_is_told_in_spans_of_epsilon():
    rows = pd.DataFrame({"dataset": ["salary"] * 4, "epsilon": [0.01, 0.0316, 0.1, 1.0],
                         "mechanism": ["MST", "MST", "MWEM+PGM", "MST"]})
    assert _winners_in_words(rows.iloc[::-1]) == (
        "salary: MST at 0.01 to 0.0316, MWEM+PGM at 0.1, MST at 1")


def test_a_setting_without_one_mechanism_is_judged_among_the_others_and_said_so():
    adult = _figure1({"MWEM+PGM": (0.2, 0.1), "GEM": (0.1, 0.2), "RAP": (0.3, 0.3)})
    salary = _figure1({"MWEM+PGM": (0.4, 0.3), "RAP": (0.2, 0.5)}).assign(dataset="salary")
    rows = pd.concat([adult.assign(dataset="adult"), salary])
    assert absent_runs(rows, ("MWEM+PGM", "GEM", "RAP")) == "GEM not run on salary"
    assert absent_runs(adult, ("MWEM+PGM", "GEM", "RAP")) == ""
    assert best_share(rows, ("MWEM+PGM", "GEM", "RAP")).to_dict() == {
        "MWEM+PGM": 0.5, "GEM": 0.25, "RAP": 0.25}
    outcome = _rap_never_best_before_aim(_Recorded(rows), "small")
    assert outcome.status == "fail" and "RAP 25%" in outcome.observed
    assert outcome.observed.endswith("(judged without those missing: GEM not run on salary)")


def test_a_setting_where_only_one_of_the_compared_ran_is_no_comparison():
    adult = _figure1({"MWEM+PGM": (0.2, 0.1), "GEM": (0.1, 0.2), "RAP": (0.3, 0.3)})
    msnbc = _figure1({"RAP": (0.2, 0.5)}).assign(dataset="msnbc")
    rows = pd.concat([adult.assign(dataset="adult"), msnbc])
    assert best_share(rows, ("MWEM+PGM", "GEM", "RAP")).to_dict() == {
        "MWEM+PGM": 0.5, "GEM": 0.5, "RAP": 0.0}
    assert _rap_never_best_before_aim(_Recorded(rows), "small").status == "pass"


def test_a_claim_about_privmrf_leaves_out_the_datasets_it_did_not_run_on():
    nltcs = _figure1({"PrivMRF": (0.1, 0.1), "MST": (0.2, 0.2), "RAP": (0.3, 0.3)})
    msnbc = _figure1({"MST": (0.2, 0.2), "RAP": (0.3, 0.3)}).assign(dataset="msnbc")
    outcome = _privmrf_best_before_aim(_Recorded(pd.concat([nltcs, msnbc])), "aim-fig1", "small")
    assert outcome.status == "pass" and "in 100% of settings" in outcome.observed
    assert outcome.observed.endswith("; msnbc left out: PrivMRF not run there yet")
    target = _privmrf_best_before_aim(_Recorded(pd.concat([nltcs, msnbc])), "aim-fig2", "small")
    assert target.status == "pass" and "on 1 of 1 datasets" in target.observed


def test_wrong_dataset_statistics_fail(copy_of_results, tamper):
    def change(frame):
        frame["metrics_json"] = frame["metrics_json"].str.replace('"records": 1304',
                                                                  '"records": 1305')
        return frame

    tamper(copy_of_results, "aim-tab2", "small", change)
    assert _statuses(copy_of_results)["aim-tab2-statistics"] == "fail"


def _with_metrics(metrics_json, **changes):
    metrics = json.loads(metrics_json)
    metrics.update({name: change(metrics[name]) for name, change in changes.items()})
    return json.dumps(metrics)


def test_overspent_budget_and_an_error_that_no_longer_rises_fail(copy_of_results, tamper):
    def change(frame):
        aim = frame["mechanism"] == "AIM"
        frame.loc[aim, "metrics_json"] = [
            _with_metrics(m, spent_rho=lambda rho: rho * 1.001,
                          workload_error=lambda error, e=e: 1.0 / e)  # now falls with epsilon
            for m, e in zip(frame.loc[aim, "metrics_json"], frame.loc[aim, "epsilon"],
                            strict=True)]
        return frame

    tamper(copy_of_results, "aim-fig2", "small", change)
    statuses = _statuses(copy_of_results)
    assert statuses["aim-fig2-budget-small"] == "fail"
    # the committed rises are a documented deviation (see the test above); once AIM's error
    # falls at every step, the claim holds and the stale deviation fails
    assert statuses["aim-fig2-aim-falls-small"] == "fail"


def test_loose_capacity_wrong_bounds_and_losing_pgm_fail(copy_of_results, tamper):
    def bigger_model(frame):
        frame["metrics_json"] = [_with_metrics(m, model_size_mb=lambda size: size * 1e6)
                                 for m in frame["metrics_json"]]
        return frame

    def bounds_below_errors(frame):
        frame["metrics_json"] = [_with_metrics(m, bound=lambda b: [0.0] * len(b))
                                 for m in frame["metrics_json"]]
        return frame

    def pgm_better_everywhere(frame):  # the deviation's finding gone: it must be revised
        pgm = frame["mechanism"] == "MWEM+PGM"
        frame.loc[pgm, "metrics_json"] = [_with_metrics(m, workload_error=lambda e: e / 100.0)
                                          for m in frame.loc[pgm, "metrics_json"]]
        return frame

    tamper(copy_of_results, "aim-fig4ab", "small", bigger_model)
    tamper(copy_of_results, "aim-fig4c", "small", bounds_below_errors)
    tamper(copy_of_results, "aim-fig7", "small", pgm_better_everywhere)
    statuses = _statuses(copy_of_results)
    assert statuses["aim-fig4ab-within-capacity-small"] == "fail"
    assert statuses["aim-fig4c-coverage-small"] == "fail"
    assert statuses["aim-fig7-pgm-wins-small"] == "fail"


def test_structural_zeros_that_help_contradict_the_documented_deviation(copy_of_results, tamper):
    # on fire at small scale the zeros hurt on average: a documented deviation. With AIM+SZ's
    # errors halved they help at every ε, the deviation is no longer observed, and the check
    # fails so that its note gets revised
    def zeros_help(frame):
        zeros = frame["mechanism"] == "AIM+SZ"
        frame.loc[zeros, "metrics_json"] = [_with_metrics(m, workload_error=lambda e: 0.5 * e)
                                            for m in frame.loc[zeros, "metrics_json"]]
        return frame

    assert _statuses(copy_of_results)["aim-tab3-zeros-help-small"] == "deviation"
    tamper(copy_of_results, "aim-tab3", "small", zeros_help)
    assert _statuses(copy_of_results)["aim-tab3-zeros-help-small"] == "fail"


def test_structural_zeros_check_reads_the_default_potentials_runs_only(copy_of_results, tamper):
    # runs with the 2022 home of the potentials (recorded as a parameter) in which the zeros help
    # sit beside the default runs in the store; the check judges the default runs alone
    def with_2022_runs_that_help(frame):
        other = frame.copy()
        other["params_json"] = [json.dumps({**json.loads(p), "potentials": "junction-tree-2022"})
                                for p in other["params_json"]]
        other["key"] = other["key"].str[::-1]
        zeros = other["mechanism"] == "AIM+SZ"
        other.loc[zeros, "metrics_json"] = [_with_metrics(m, workload_error=lambda e: 0.5 * e)
                                            for m in other.loc[zeros, "metrics_json"]]
        return pd.concat([frame, other], ignore_index=True)

    tamper(copy_of_results, "aim-tab3", "small", with_2022_runs_that_help)
    assert _statuses(copy_of_results)["aim-tab3-zeros-help-small"] == "deviation"


def test_supported_bounds_looser_than_unsupported_ones_fail(copy_of_results, tamper):
    def loosened(metrics_json):
        """Supported marginals' bounds made 100 times looser."""
        metrics = json.loads(metrics_json)
        metrics["bound"] = [b * 100.0 if supported else b
                            for b, supported in zip(metrics["bound"], metrics["supported"],
                                                    strict=True)]
        return json.dumps(metrics)

    def loose_when_supported(frame):
        frame["metrics_json"] = [loosened(m) for m in frame["metrics_json"]]
        return frame

    assert _statuses(copy_of_results)["aim-fig4c-supported-tighter-small"] == "pass"
    tamper(copy_of_results, "aim-fig4c", "small", loose_when_supported)
    assert _statuses(copy_of_results)["aim-fig4c-supported-tighter-small"] == "fail"


def test_error_rising_and_runtime_falling_with_capacity_or_epsilon_and_a_stale_deviation_fail(copy_of_results, tamper):
    def rising_with_capacity(frame):
        """The error rises and the runtime falls with the capacity."""
        sizes = [json.loads(p)["max_model_size_mb"] for p in frame["params_json"]]
        frame["metrics_json"] = [_with_metrics(m, workload_error=lambda e, s=s: e + 100.0 * s,
                                               seconds=lambda t, s=s: 1.0 / s)
                                 for m, s in zip(frame["metrics_json"], sizes, strict=True)]
        return frame

    def falling_with_epsilon(metric):
        def change(frame):
            frame["metrics_json"] = [_with_metrics(m, **{metric: lambda v, e=e: v / e**2})
                                     for m, e in zip(frame["metrics_json"], frame["epsilon"],
                                                     strict=True)]
            return frame
        return change

    def growing_with_epsilon(metric):
        def change(frame):
            frame["metrics_json"] = [_with_metrics(m, **{metric: lambda v, e=e: e})
                                     for m, e in zip(frame["metrics_json"], frame["epsilon"],
                                                     strict=True)]
            return frame
        return change

    tamper(copy_of_results, "aim-fig4ab", "small", rising_with_capacity)
    tamper(copy_of_results, "aim-fig5", "small", growing_with_epsilon("matching_fraction"))
    tamper(copy_of_results, "aim-fig6", "small", falling_with_epsilon("seconds"))
    statuses = _statuses(copy_of_results)
    assert statuses["aim-fig4ab-capacity-small"] == "fail"
    assert statuses["aim-fig4ab-slower-small"] == "fail"
    # a documented deviation that no longer shows fails, so that its note is revised
    assert statuses["aim-fig5-grows-small"] == "fail"
    assert statuses["aim-fig6-runtime-small"] == "fail"


def test_a_runtime_above_its_start_only_at_the_largest_epsilon_is_no_rising_trend(copy_of_results,
                                                                                  tamper):
    def falling_after_a_jump(frame):
        """1 s at the smallest epsilon, then falling from 100 s to 2 s at the largest."""
        smallest, largest = frame["epsilon"].min(), frame["epsilon"].max()
        frame["metrics_json"] = [
            _with_metrics(m, seconds=lambda t, e=e: 1.0 if e == smallest
                          else 2.0 + 98.0 * np.log(largest / e) / np.log(largest / smallest))
            for m, e in zip(frame["metrics_json"], frame["epsilon"], strict=True)]
        return frame

    assert _statuses(copy_of_results)["aim-fig6-runtime-small"] == "pass"
    tamper(copy_of_results, "aim-fig6", "small", falling_after_a_jump)
    assert _statuses(copy_of_results)["aim-fig6-runtime-small"] == "fail"


def test_privmrf_must_lead_the_target_workload_on_every_dataset():
    leads = _figure1({"PrivMRF": (0.1, 0.1), "MWEM+PGM": (0.2, 0.2), "GEM": (0.3, 0.3)})
    other = leads.assign(dataset="salary")
    other.loc[other["mechanism"] == "PrivMRF", "metric.workload_error"] = 0.5  # behind there
    assert _privmrf_best_before_aim(_Recorded(leads), "aim-fig2", "small").status == "pass"
    outcome = _privmrf_best_before_aim(_Recorded(pd.concat([leads, other])), "aim-fig2", "small")
    assert outcome.status == "fail" and outcome.figures["weak"] == "salary (0% of its ε)"
