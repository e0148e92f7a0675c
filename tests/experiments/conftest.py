"""Fixtures of the experiments' tests."""

import subprocess

import pytest


@pytest.fixture
def history(tmp_path):
    """A git repository (its folder) with three empty commits: before, change, after."""
    repository = tmp_path / "repository"
    repository.mkdir()

    def git(*arguments: str) -> str:
        return subprocess.run(["git", *arguments], cwd=repository, check=True, text=True,
                              capture_output=True).stdout.strip()

    git("init", "-q")
    commits = []
    for message in ("before", "change", "after"):
        git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty",
            "-m", message)
        commits.append(git("rev-parse", "HEAD"))
    return repository, commits
