"""Grids on a Dask LocalCluster of two worker processes: the same rows as the serial run, a
failed cell named while the others are stored, a killed worker that loses nothing."""

import functools
import importlib
import sys
from pathlib import Path

import pytest
from distributed import Client, LocalCluster

from reprolib import cli
from reprolib.experiments import (
    OutputChange,
    catalogue,
    collect_provenance,
    compute_on_cluster,
    get_experiment,
    open_store,
    run_experiment,
)

HERE = str(Path(__file__).parent)


@pytest.fixture(scope="module")
def helpers():
    """tests/experiments/dask_helpers, imported by name here and on the workers."""
    sys.path.insert(0, HERE)
    try:
        yield importlib.import_module("dask_helpers")
    finally:
        sys.path.remove(HERE)


@pytest.fixture(scope="module")
def client(helpers):
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                      env={"PYTHONPATH": HERE}) as cluster, Client(cluster) as dask_client:
        yield dask_client


def _rows(artifact, scale, root):
    """Each stored run's metrics by key (timings aside: they differ from run to run)."""
    frame = open_store(artifact, scale, root).frame().set_index("key").sort_index()
    metrics = frame.filter(like="metric.").drop(columns=["metric.seconds"], errors="ignore")
    return metrics.to_json(orient="index")


def _same_as_serial(artifacts, scale, cluster_root, serial_root):
    for artifact in artifacts:
        run_experiment(artifact, scale=scale, device="cpu", progress=False,
                       results_root=serial_root)
        assert _rows(artifact, scale, cluster_root) == _rows(artifact, scale, serial_root), artifact


def test_aims_smoke_grids_give_the_serial_rows(client, tmp_path):
    """Figures 5 and 6 list their cells from Figure 1's runs: they run in a second wave."""
    artifacts = list(catalogue().paper("aim").experiments)
    assert compute_on_cluster(client, artifacts, "smoke", device="cpu", progress=False,
                              results_root=tmp_path / "cluster") == []
    _same_as_serial(artifacts, "smoke", tmp_path / "cluster", tmp_path / "serial")


def test_a_failed_cell_is_named_the_others_are_stored_and_a_rerun_completes(client, helpers,
                                                                            tmp_path):
    failures = compute_on_cluster(client, ["prelim-conversions"], "smoke", device="cpu",
                                  progress=False, results_root=tmp_path,
                                  remote=functools.partial(helpers.fails_at, epsilon=1.0))
    assert failures and all("epsilon=1.0" in f and "a broken cell" in f for f in failures)
    stored = len(open_store("prelim-conversions", "smoke", tmp_path))
    wanted = len(run_experiment("prelim-conversions", scale="smoke", device="cpu",
                                progress=False, results_root=tmp_path / "serial"))
    assert stored == wanted - len(failures)
    assert compute_on_cluster(client, ["prelim-conversions"], "smoke", device="cpu",
                              progress=False, results_root=tmp_path) == []
    assert len(open_store("prelim-conversions", "smoke", tmp_path)) == wanted


def test_a_killed_worker_loses_no_row_and_the_batch_completes(client, helpers, tmp_path):
    marker = tmp_path / "died"
    failures = compute_on_cluster(client, ["prelim-conversions"], "smoke", device="cpu",
                                  progress=False, results_root=tmp_path / "cluster",
                                  remote=functools.partial(helpers.dies_once, marker=str(marker),
                                                           epsilon=1.0))
    assert marker.exists() and failures == []
    _same_as_serial(["prelim-conversions"], "smoke", tmp_path / "cluster", tmp_path / "serial")


def test_outdated_rows_are_rerun_on_the_cluster_in_their_place(client, history, monkeypatch,
                                                                tmp_path):
    from reprolib.experiments import _staleness

    repository, (before, change, _) = history
    monkeypatch.setattr(_staleness, "repo_root", lambda: repository)
    experiment = get_experiment("prelim-conversions")
    cells = experiment.cells("smoke", experiment.settings_at("smoke"))
    store = open_store("prelim-conversions", "smoke", tmp_path / "results")
    for index, cell in enumerate(cells):  # the first one outdated, every one's metrics wrong
        store.append(cell, scale="smoke", metrics={"wrong": 1.0}, wall_time_s=0.0,
                     provenance={**collect_provenance("old"),
                                 "git_revision": before if index == 0 else change})
    changes = (OutputChange(change, "2000-01-01T00:00:00+00:00", (cells[0].mechanism,), "a fix"),)
    assert compute_on_cluster(client, ["prelim-conversions"], "smoke", device="cpu",
                              progress=False, results_root=tmp_path / "results",
                              outdated=changes) == []
    frame = open_store("prelim-conversions", "smoke", tmp_path / "results").frame()
    assert frame["key"].tolist() == [cell.key for cell in cells]
    assert (frame["device"] == "old").tolist() == [False] + [True] * (len(cells) - 1)
    assert store.get(cells[0]) == experiment.compute_on(cells[0], "cpu")


def test_the_batch_command_computes_on_workers_then_renders(scratch_dirs):
    results, generated = scratch_dirs
    assert cli.main(["batch", "--paper", "preliminaries", "--scale", "smoke", "--device", "cpu",
                     "--workers", "2"]) == 0
    assert len(open_store("prelim-conversions", "smoke", results)) > 0
    assert (generated / "preliminaries" / "conversions.ipynb").is_file()
