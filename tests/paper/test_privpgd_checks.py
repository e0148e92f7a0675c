"""PrivPGD checks: they hold on the committed results and fail when a recorded number is wrong."""

import shutil

from reprolib._paths import repo_root
from reprolib.experiments import checks_of, evaluate_checks, scorecard_frame
from reprolib.papers.privpgd.checks import ALL_ERRORS

COMMITTED = repo_root() / "results"


def _errors_times(factor, of):
    """A ``metrics_changed`` change: the paper's six errors times ``factor`` in the rows of the
    mechanisms ``of(mechanism)`` selects."""
    def change(values, row):
        if of(row["mechanism"]):
            for metric in ALL_ERRORS:
                values[metric] *= factor
    return change


def _statuses(root):
    checks = [c for c in checks_of("privpgd") if c.kind != "regression"]  # regression: test_regression_checks.py
    card = scorecard_frame(evaluate_checks(checks, root))
    return dict(zip(card["check"], card["status"], strict=False))


def test_committed_results_fail_no_privpgd_check():
    statuses = _statuses(COMMITTED)
    assert statuses and set(statuses.values()) <= {"pass", "not-applicable", "deviation"}, statuses
    # the documented findings: Private GSD (and PGM+AIM on two datasets) has the lowest SW1, at
    # small scale and against PrivPGD's paper-setting runs; the constraint costs utility;
    # PGM+MST's downstream error is the lower on five of the nine datasets, and its query errors
    # in more than the one (dataset, error) pair the paper allows; Private GSD's errors are the
    # lower in most pairs at small scale and in half of them against PrivPGD's paper-setting runs
    assert sorted(c for c, s in statuses.items() if s == "deviation") == [
        "privpgd-beats-gsd", "privpgd-beats-gsd-paper", "privpgd-beats-mst",
        "privpgd-constraint-keeps-utility", "privpgd-downstream",
        "privpgd-edge-shrinks", "privpgd-lowest-sw1", "privpgd-lowest-sw1-paper"]
    assert statuses["privpgd-budget-paper"] == statuses["privpgd-beats-gem-rap-paper"] == "pass"
    # offline, every dataset is a stand-in: comparisons with the paper's tables do not apply
    assert statuses["privpgd-band-eps2.5"] == statuses["privpgd-data-sizes"] == "not-applicable"


def test_an_overspent_run_fails_the_budget_check(copy_of_results, tamper, metrics_changed):
    def change(values, row):
        if row["mechanism"] == "PGM+AIM":
            values["spent_rho"] *= 1.001

    tamper(copy_of_results, "privpgd-fig4", "small", metrics_changed(change))
    assert _statuses(copy_of_results)["privpgd-budget"] == "fail"


def test_add_remove_accounting_fails_the_budget_check(copy_of_results, tamper, metrics_changed):
    def change(values, row):
        values["relation"] = "add-remove"

    tamper(copy_of_results, "privpgd-fig3", "small", metrics_changed(change))
    assert _statuses(copy_of_results)["privpgd-budget"] == "fail"


def test_real_data_of_the_wrong_size_fails_and_bands_apply(copy_of_results, tamper, metrics_changed):
    def change(values, row):
        values["substituted"] = False

    tamper(copy_of_results, "privpgd-fig1", "small", metrics_changed(change))
    statuses = _statuses(copy_of_results)
    assert statuses["privpgd-data-sizes"] == "fail"  # stand-ins do not have the paper's (n, d)
    assert statuses["privpgd-band-eps2.5"] in {"pass", "fail"}


def test_claims_fail_when_privpgd_loses(copy_of_results, tamper, metrics_changed):
    def change(values, row):
        if row["mechanism"] == "PrivPGD":
            for metric in ("sw1", "covariance_error", "counting_error", "thresholding_error"):
                values[metric] *= 100.0

    tamper(copy_of_results, "privpgd-fig1", "small", metrics_changed(change))
    statuses = _statuses(copy_of_results)
    assert statuses["privpgd-lowest-sw1"] == "deviation"  # documented: it keeps failing
    assert statuses["privpgd-sw1-not-tv"] == "fail"
    assert statuses["privpgd-beats-mst"] == "deviation"  # documented: it keeps failing


def test_the_mst_deviation_goes_stale_when_privpgd_wins_all_but_one_pair(copy_of_results, tamper,
                                                                         metrics_changed):
    def change(values, row):
        if row["mechanism"] == "PrivPGD" and row["dataset"] != "diabetes":
            for metric in ("covariance_error", "counting_error", "thresholding_error"):
                values[metric] /= 1000.0
        elif row["mechanism"] == "PrivPGD":  # the paper's one exception
            values["covariance_error"] /= 1000.0
            values["counting_error"] /= 1000.0

    tamper(copy_of_results, "privpgd-fig1", "small", metrics_changed(change))
    assert _statuses(copy_of_results)["privpgd-beats-mst"] == "fail"


def test_a_flat_protected_error_fails_the_constraint_claim(copy_of_results, tamper, metrics_changed):
    def change(values, row):
        values["protected_abs_error"] = 0.1

    tamper(copy_of_results, "privpgd-fig3", "small", metrics_changed(change))
    assert _statuses(copy_of_results)["privpgd-protected-query"] == "fail"


def test_a_documented_deviation_that_stops_failing_turns_into_a_failure(copy_of_results, tamper, metrics_changed):
    def change(values, row):  # every lambda as good as lambda = 0: the claim would now hold
        for metric in ("downstream_error", "counting_abs_error", "thresholding_abs_error"):
            values[metric] = 0.1

    tamper(copy_of_results, "privpgd-fig3", "small", metrics_changed(change))
    assert _statuses(copy_of_results)["privpgd-constraint-keeps-utility"] == "fail"


def test_the_downstream_deviation_goes_stale_when_privpgd_wins_downstream(
        copy_of_results, tamper, metrics_changed):
    def change(values, row):
        if row["mechanism"] == "PrivPGD":
            values["downstream_error"] = 0.0

    assert _statuses(copy_of_results)["privpgd-downstream"] == "deviation"
    tamper(copy_of_results, "privpgd-fig1", "small", metrics_changed(change))
    assert _statuses(copy_of_results)["privpgd-downstream"] == "fail"


def test_the_edge_deviation_goes_stale_when_privpgd_leads_more_at_large_epsilon(
        copy_of_results, tamper, metrics_changed):
    tamper(copy_of_results, "privpgd-fig1", "small",
           metrics_changed(_errors_times(100.0, lambda m: m != "PrivPGD")))
    assert _statuses(copy_of_results)["privpgd-edge-shrinks"] == "fail"


def test_bands_compare_with_the_tables_where_the_paper_data_ran(copy_of_results, tamper,
                                                                metrics_changed):
    def real_and_as_printed(values, row):  # as if the paper's data ran and matched Table 1
        values["substituted"] = False
        if row["mechanism"] == "PrivPGD":
            values["sw1"], values["l1"] = 0.00043, 0.028  # Table 1, income, PrivPGD

    def real_and_far_off(values, row):
        real_and_as_printed(values, row)
        if row["mechanism"] == "PrivPGD":
            values["sw1"] *= 4.0

    only_income = copy_of_results.parent / "only-income"
    for change, expected in ((real_and_as_printed, "pass"), (real_and_far_off, "fail")):
        shutil.rmtree(only_income, ignore_errors=True)
        shutil.copytree(copy_of_results, only_income)
        tamper(only_income, "privpgd-fig1", "small",
               lambda frame, change=change: metrics_changed(change)(
                   frame[frame["dataset"] == "income"]))
        assert _statuses(only_income)["privpgd-band-eps2.5"] == expected


def test_the_lowest_sw1_deviation_goes_stale_when_privpgd_leads(copy_of_results, tamper, metrics_changed):
    def change(values, row):
        if row["mechanism"] == "PrivPGD":
            values["sw1"] *= 0.01

    tamper(copy_of_results, "privpgd-fig1", "small", metrics_changed(change))
    assert _statuses(copy_of_results)["privpgd-lowest-sw1"] == "fail"


def test_privpgd_losing_to_gem_at_small_scale_fails(copy_of_results, tamper, metrics_changed):
    for artifact in ("privpgd-fig1", "privpgd-fig4", "privpgd-fig5"):
        tamper(copy_of_results, artifact, "small",
               metrics_changed(_errors_times(100.0, lambda m: m == "PrivPGD")))
    assert _statuses(copy_of_results)["privpgd-beats-gem-rap"] == "fail"


def test_privpgd_at_the_paper_settings_losing_to_gem_fails(copy_of_results, tamper,
                                                           metrics_changed):
    tamper(copy_of_results, "privpgd-fig1", "paper",
           metrics_changed(_errors_times(100.0, lambda m: m == "PrivPGD")))
    assert _statuses(copy_of_results)["privpgd-beats-gem-rap-paper"] == "fail"


def test_the_private_gsd_deviation_goes_stale_when_privpgd_wins_at_epsilon_2_5(copy_of_results,
                                                                               tamper,
                                                                               metrics_changed):
    def change(values, row):
        if row["mechanism"] == "PrivPGD":
            for metric in ("downstream_error", "covariance_error", "counting_error",
                           "thresholding_error", "sw1", "l1"):
                values[metric] /= 1000.0

    assert _statuses(copy_of_results)["privpgd-beats-gsd"] == "deviation"
    tamper(copy_of_results, "privpgd-fig1", "small", metrics_changed(change))
    assert _statuses(copy_of_results)["privpgd-beats-gsd"] == "fail"
