"""SLURM and PBS clusters through dask-jobqueue: the batch scripts their jobs would run (no job
is submitted; building a cluster starts only its local scheduler)."""

import sys

import pytest

from reprolib.cli import main
from reprolib.experiments import jobqueue_cluster

FOLDERS = {"REPROLIB_DATA_DIR": "/shared/my data", "REPROLIB_RESULTS_DIR": "/shared/results"}


def _script(system, **options):
    cluster = jobqueue_cluster(system, 0, environment=FOLDERS, **options)
    try:
        return cluster.job_script()
    finally:
        cluster.close()


def test_a_gpu_job_on_slurm_is_one_single_threaded_worker_with_its_gpu():
    script = _script("slurm", gpus_per_job=1, memory="16GB", walltime="01:00:00", queue="gpu")
    assert "#SBATCH --gres=gpu:1" in script and "#SBATCH -p gpu" in script
    assert "#SBATCH --cpus-per-task=1" in script and "--nthreads 1" in script
    assert "export REPROLIB_DATA_DIR='/shared/my data'" in script
    assert "export REPROLIB_RESULTS_DIR=/shared/results" in script
    assert f"{sys.executable} -m distributed.cli.dask_worker" in script


def test_a_cpu_job_runs_one_single_threaded_worker_per_core():
    script = _script("slurm", cores=8, memory="32GB", walltime="01:00:00")
    assert "--gres" not in script and "#SBATCH --cpus-per-task=8" in script
    assert "--nworkers 8" in script and "--nthreads 1" in script


def test_a_gpu_job_on_pbs_asks_for_its_gpu_in_the_chunk():
    script = _script("pbs", gpus_per_job=2, memory="16GB", walltime="01:00:00")
    assert "#PBS -l select=1:ncpus=1:ngpus=2:mem=16GB" in script


def test_unknown_systems_and_malformed_requests_are_refused(capsys):
    with pytest.raises(ValueError, match="slurm"):
        jobqueue_cluster("lsf", 0)
    assert main(["batch", "--paper", "aim", "--scale", "smoke", "--jobqueue", "slurm",
                 "many"]) == 2
    assert "a system (slurm or pbs) and a number of jobs" in capsys.readouterr().err
