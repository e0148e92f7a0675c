"""Small real datasets shared by the mechanism tests (skipped with a message without shared data)."""

import pytest

from reprolib.data import DataError, MixedCoding, RawTable, load_dataset


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


MIXED_COLUMNS = ("SEX", "MSP", "EDU", "RAC1P", "AGEP", "PINCP", "POVPIP")


@pytest.fixture(scope="session")
def small_mixed():
    """1,500 SDNist Massachusetts 2018 persons: four categorical columns (target SEX) and three
    numerical ones (age, income, poverty ratio), for the mechanisms that read mixed types."""
    try:
        table = load_dataset("sdnist/ma2018")
    except DataError as error:
        pytest.skip(f"shared data folder not available: {error}")
    frame = table.frame[list(MIXED_COLUMNS)].dropna().iloc[:1500].reset_index(drop=True)
    raw = RawTable(frame, {c: table.kinds[c] for c in MIXED_COLUMNS}, target="SEX")
    return MixedCoding.fit(raw, bounds={"AGEP": (0, 99), "PINCP": (-20_000, 1_500_000),
                                        "POVPIP": (0, 501)}).encode(raw)
