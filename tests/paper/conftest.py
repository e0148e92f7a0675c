"""Fixtures of the check tests: a scratch copy of the committed results (``tamper`` and
``metrics_changed``, which falsify it, are in the top-level conftest)."""

import shutil

import pytest

from reprolib._paths import repo_root


@pytest.fixture
def copy_of_results(tmp_path):
    shutil.copytree(repo_root() / "results", tmp_path / "results")
    return tmp_path / "results"
