"""Shared fixtures: scratch results and generated-notebook folders, so tests never touch the repo's,
the SDNist data folder, a small real mixed-type table, a way to falsify a results store, and a
small git history."""

import json
import os
import subprocess

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from reprolib.data import DataError, MixedCoding, RawTable, data_dir, load_dataset
from reprolib.experiments import store_path


@pytest.fixture
def scratch_dirs(tmp_path, monkeypatch):
    """Point the results store and papermill's output at temporary folders."""
    results = tmp_path / "results"
    generated = tmp_path / "generated"
    monkeypatch.setenv("REPROLIB_RESULTS_DIR", str(results))
    monkeypatch.setenv("REPROLIB_GENERATED_DIR", str(generated))
    return results, generated


class _RecordedRows:
    """A stand-in check context whose every artifact and scale has the rows ``frame``."""

    def __init__(self, frame):
        self.frame = frame

    def results(self, artifact, scale):
        return self.frame


@pytest.fixture
def recorded_rows():
    """``recorded_rows(frame)``: a check context that reads ``frame`` for any artifact."""
    return _RecordedRows


@pytest.fixture(scope="session")
def sdnist_root():
    """The data directory, when it holds the SDNist excerpts (skipped with a message if not)."""
    root = data_dir()
    if not (root / "sdnist-acs" / "data_dictionary.json").is_file():
        pytest.skip(f"shared data folder not available: no SDNist excerpts under {root}")
    return root


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


@pytest.fixture
def tamper():
    """``tamper(root, artifact, scale, change)`` rewrites a store's rows as ``change(frame)``."""

    def rewrite(root, artifact, scale, change):
        path = store_path(artifact, scale, root)
        table = pq.read_table(path)
        frame = change(table.to_pandas())
        pq.write_table(pa.Table.from_pandas(frame, preserve_index=False).replace_schema_metadata(
            table.schema.metadata), path)

    return rewrite


@pytest.fixture
def metrics_changed():
    """``metrics_changed(change)``: a frame rewrite for ``tamper`` that applies
    ``change(metrics, row)`` to every row's metrics."""

    def changed(change):
        def rewrite(frame):
            metrics = []
            for _, row in frame.iterrows():
                values = json.loads(row["metrics_json"])
                change(values, row)
                metrics.append(json.dumps(values))
            return frame.assign(metrics_json=metrics)

        return rewrite

    return changed


@pytest.fixture
def history(tmp_path):
    """A git repository (its folder) with three empty commits: before, change, after."""
    repository = tmp_path / "repository"
    repository.mkdir()

    alone = {name: value for name, value in os.environ.items() if not name.startswith("GIT_")}

    def git(*arguments: str) -> str:
        return subprocess.run(["git", *arguments], cwd=repository, check=True, text=True,
                              capture_output=True, env=alone).stdout.strip()

    git("init", "-q")
    commits = []
    for message in ("before", "change", "after"):
        git("-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false",
            "-c", "core.hooksPath=/dev/null", "commit", "-q", "--allow-empty", "-m", message)
        commits.append(git("rev-parse", "HEAD"))
    return repository, commits
