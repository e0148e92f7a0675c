"""Small real datasets shared by the mechanism tests (skipped with a message without shared data;
the mixed-type one, ``small_mixed``, is in tests/conftest.py)."""

import pytest

from reprolib.data import DataError, load_dataset


@pytest.fixture(scope="session")
def titanic():
    """The AIM benchmark's titanic table (1,304 records, 9 attributes)."""
    try:
        return load_dataset("aim/titanic")
    except DataError as error:
        pytest.skip(f"shared data folder not available: {error}")


@pytest.fixture(scope="session")
def small_titanic(titanic):
    """Five attributes of titanic with small domains: fast Private-PGM fits."""
    return titanic.project(["Survived", "Pclass", "Sex", "SibSp", "Embarked"])
