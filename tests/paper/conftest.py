"""Fixtures of the check tests: a scratch copy of the committed results, and a way to falsify it."""

import json
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from reprolib._paths import repo_root
from reprolib.experiments import store_path


@pytest.fixture
def copy_of_results(tmp_path):
    shutil.copytree(repo_root() / "results", tmp_path / "results")
    return tmp_path / "results"


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
