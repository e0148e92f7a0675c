"""Fixtures of the data tests: the shared data directory, skipped cleanly where it is absent."""

from pathlib import Path

import pytest

from reprolib.data import data_dir


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The data directory holding the offline data files; skips the test if it lacks them."""
    root = data_dir()
    if not (root / "aim-benchmark" / "adult.csv").is_file():
        pytest.skip(
            f"shared data files not found in {root}; set REPROLIB_DATA_DIR to the folder"
            " described in data/PROVENANCE.md to run the dataset tests"
        )
    return root
