"""Where the repository, the results and the generated notebooks live."""

from __future__ import annotations

import os
from pathlib import Path

RESULTS_ENV = "REPROLIB_RESULTS_DIR"
GENERATED_ENV = "REPROLIB_GENERATED_DIR"


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
    """Where papermill writes executed notebooks: ``$REPROLIB_GENERATED_DIR`` or ``<repo>/book/generated``.

    The book renders ``<repo>/book/generated`` (git-ignored); the override is for tests and scratch runs.
    """
    override = os.environ.get(GENERATED_ENV)
    return Path(override).expanduser().resolve() if override else repo_root() / "book" / "generated"


def shown(path: Path) -> str:
    """``path`` relative to the repository when it lies inside it, for messages."""
    try:
        return str(path.resolve().relative_to(repo_root()))
    except ValueError:
        return str(path)
