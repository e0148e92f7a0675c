"""Grids on a SLURM or PBS cluster, through dask-jobqueue.

:func:`jobqueue_cluster` asks dask-jobqueue for ``jobs`` batch jobs. A CPU job runs one
single-threaded worker process per core, as ``--workers`` does on one machine. A GPU job
(``gpus_per_job``) requests the GPUs and runs one worker with one thread, so cells take the GPU
one at a time, and the worker's ``device="auto"`` finds it. What dask-jobqueue reads from its own
configuration (``~/.config/dask/jobqueue.yaml``: cores, memory, walltime, queue, account,
interface) stays there; this module adds only what reprolib needs: the GPU request, the workers'
Python, and the data and results folders exported to the jobs. The driver that holds the cluster
writes the stores, as with any Dask cluster (:func:`~reprolib.experiments.compute_on_cluster`).
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Mapping
from typing import Any, Literal, get_args

from reprolib._paths import GENERATED_ENV, RESULTS_ENV
from reprolib.data import DATA_DIR_ENV

JobSystem = Literal["slurm", "pbs"]
EXPORTED = (DATA_DIR_ENV, RESULTS_ENV, GENERATED_ENV)
"""Environment variables passed on to the workers when set here."""


def jobqueue_cluster(system: JobSystem, jobs: int, *, gpus_per_job: int = 0,
                     python: str | None = None, environment: Mapping[str, str] | None = None,
                     **job_options: Any) -> Any:
    """A dask-jobqueue cluster of ``jobs`` batch jobs (one worker each) on ``system``.

    Args:
        system: ``"slurm"`` (``SLURMCluster``) or ``"pbs"`` (``PBSCluster``).
        jobs: batch jobs to request now (0: none yet; ``cluster.scale`` later).
        gpus_per_job: GPUs each job requests (SLURM ``--gres=gpu:N``, PBS ``ngpus=N``).
        python: the workers' Python (default: this one, so a shared checkout's ``.venv``).
        environment: variables exported in each job (default: the reprolib folders set here).
        job_options: passed to the dask-jobqueue class (``cores``, ``memory``, ``walltime``,
            ``queue``, ``account``, ...), over its configuration file.
    """
    import dask
    from dask_jobqueue import PBSCluster, SLURMCluster

    if system not in get_args(JobSystem):
        raise ValueError(f"system must be one of {get_args(JobSystem)}, got {system!r}")
    if gpus_per_job < 0 or jobs < 0:
        raise ValueError("jobs and gpus_per_job cannot be negative")
    exported = dict(environment if environment is not None else
                    {name: os.environ[name] for name in EXPORTED if name in os.environ})
    if gpus_per_job:
        job_options.setdefault("cores", 1)
    cores = int(job_options.get("cores") or dask.config.get(f"jobqueue.{system}.cores") or 1)
    options: dict[str, Any] = {
        "processes": 1 if gpus_per_job else cores, "python": python or sys.executable,
        "job_script_prologue": [f"export {name}={shlex.quote(value)}"
                                for name, value in exported.items()],
        "scheduler_options": {"dashboard_address": ":0"}, **job_options}
    if gpus_per_job:
        if system == "slurm":
            options.setdefault("job_extra_directives", []).append(f"--gres=gpu:{gpus_per_job}")
        else:  # PBS Pro's chunk syntax, with the cores and memory of the job
            memory = options.get("memory") or dask.config.get("jobqueue.pbs.memory")
            options.setdefault("resource_spec",
                               f"select=1:ncpus={cores}:ngpus={gpus_per_job}:mem={memory}")
    cluster_class = SLURMCluster if system == "slurm" else PBSCluster
    cluster = cluster_class(**options)
    if jobs:
        cluster.scale(jobs=jobs)
    return cluster
