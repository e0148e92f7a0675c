"""Where the repository, the results and the generated notebooks live."""

from __future__ import annotations

import os
from pathlib import Path

RESULTS_ENV = "REPROLIB_RESULTS_DIR"


def repo_root() -> Path:
    """The checkout this package was installed from (editable install), else the working directory.

    Results, notebooks and the book are part of the repository, so the CLI works from any folder.
    """
    candidate = Path(__file__).resolve().parents[2]
    if (candidate / "pyproject.toml").is_file() and (candidate / "notebooks").is_dir():
        return candidate
    return Path.cwd()


def results_dir() -> Path:
    """The results store's root: ``$REPROLIB_RESULTS_DIR`` if set, else ``<repo>/results``."""
    override = os.environ.get(RESULTS_ENV)
    return Path(override).expanduser().resolve() if override else repo_root() / "results"


def generated_dir() -> Path:
    """Where papermill writes executed notebooks for the book (git-ignored)."""
    return repo_root() / "book" / "generated"
