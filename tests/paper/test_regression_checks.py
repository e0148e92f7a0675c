"""Every paper's smoke grid, recomputed on this machine's CPU, matches its committed rows: bit for
bit where this kind of CPU recorded them, within the check's cross-CPU tolerance elsewhere."""

import pytest

from reprolib._paths import repo_root
from reprolib.experiments import checks_of, evaluate_checks

REGRESSIONS = [check for check in checks_of() if check.kind == "regression"]


def test_every_paper_has_a_regression_check():
    assert {check.paper for check in REGRESSIONS} == {c.paper for c in checks_of()}


@pytest.mark.parametrize("check", REGRESSIONS, ids=[check.id for check in REGRESSIONS])
def test_recomputed_smoke_grid_matches_the_committed_rows(check):
    [(_, outcome)] = evaluate_checks([check], repo_root() / "results")
    assert outcome.status == "pass", f"{outcome.observed}; expected {outcome.expected}"
