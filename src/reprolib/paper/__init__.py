"""Each paper's reported numbers and claims as data, the reproduction checks, and the scorecard."""

from reprolib.paper import aim, preliminaries, privpgd
from reprolib.paper._checks import (
    Check,
    CheckContext,
    MissingResults,
    Outcome,
    evaluate_checks,
    regression_check,
    scorecard_frame,
)

ALL_CHECKS: tuple[Check, ...] = (*preliminaries.CHECKS, *aim.CHECKS, *privpgd.CHECKS)


def checks_of(paper: str | None = None) -> list[Check]:
    """All checks, or those of one paper."""
    return [check for check in ALL_CHECKS if paper is None or check.paper == paper]


__all__ = [
    "ALL_CHECKS",
    "Check",
    "CheckContext",
    "MissingResults",
    "Outcome",
    "checks_of",
    "evaluate_checks",
    "regression_check",
    "scorecard_frame",
]
