"""Shared fixtures: scratch results and generated-notebook folders, so tests never touch the repo's."""

import pytest


@pytest.fixture
def scratch_dirs(tmp_path, monkeypatch):
    """Point the results store and papermill's output at temporary folders."""
    results = tmp_path / "results"
    generated = tmp_path / "generated"
    monkeypatch.setenv("REPROLIB_RESULTS_DIR", str(results))
    monkeypatch.setenv("REPROLIB_GENERATED_DIR", str(generated))
    return results, generated
