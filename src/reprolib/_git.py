"""git, asked by the provenance of a run and by the check of which stored rows are outdated."""

from __future__ import annotations

import subprocess
from pathlib import Path

_GIT_TIMEOUT_S = 10.0


def git(arguments: list[str], *, cwd: Path) -> str | None:
    """Run git and return its standard output, or None when git is missing or fails."""
    try:
        completed = subprocess.run(
            ["git", *arguments],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=_GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if completed.returncode != 0:
        return None
    return completed.stdout
