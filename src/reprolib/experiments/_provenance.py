"""Provenance of a run: device, library versions, git revision, host and time.

The versions and the git revision are looked up once per process (they cannot change while it
runs, and asking git costs a subprocess); the time stamp is fresh on every call.
"""

from __future__ import annotations

import functools
import importlib.metadata
import platform
import socket
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from reprolib._git import git as _git
from reprolib.experiments._staleness import rerun_summary

#: Distributions whose versions every result records ("python" is the interpreter).
TRACKED_DISTRIBUTIONS = ("numpy", "pandas", "scipy", "torch", "jax", "mbi", "reprolib")

#: Folder, relative to the repository root, whose changes do not make the code "dirty": it holds
#: the committed results that a grid itself writes.
RESULTS_FOLDER = "results"


def collect_provenance(device: str) -> dict:
    """Describe where and with what a result is being computed.

    Args:
        device: The device the computation runs on, in words, e.g. ``"cpu"`` or
            ``"cuda:0 (NVIDIA H100)"``; recorded as given.

    Returns:
        A new dict with keys ``device``, ``versions`` (distribution name to version string,
        ``"absent"`` when not installed), ``git_revision`` (the commit of the checkout holding
        this package, with ``"-dirty"`` appended when tracked files outside ``results/`` or
        untracked files differ from it; ``"unknown"`` when the package is not in a git
        checkout), ``hostname`` and ``created_at`` (UTC, ISO 8601).
    """
    return {
        "device": device,
        "versions": dict(_versions()),
        "git_revision": _git_revision(),
        "hostname": socket.gethostname(),
        "created_at": datetime.now(UTC).isoformat(),
    }


@functools.cache
def _versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in TRACKED_DISTRIBUTIONS:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "absent"
    return versions


@functools.cache
def _git_revision() -> str:
    package_dir = Path(__file__).resolve().parent
    if "site-packages" in package_dir.parts:
        # An installed copy: any repository around it (a .venv inside a checkout) is not its source.
        return "unknown"
    top_and_head = _git(["rev-parse", "--show-toplevel", "HEAD"], cwd=package_dir)
    if top_and_head is None:
        return "unknown"
    toplevel, revision = top_and_head.splitlines()
    status = _git(
        ["status", "--porcelain", "--", ".", f":(exclude){RESULTS_FOLDER}"], cwd=Path(toplevel)
    )
    if status is None:
        return "unknown"
    return revision + ("-dirty" if status.strip() else "")


#: how a row stored before ``describe_device`` named a CPU's model (its device: ``cpu``) is shown
UNNAMED_CPU = "cpu (model not recorded)"


def device_labels(devices: pd.Series) -> pd.Series:
    """Stored devices as the pages show them: a bare ``cpu`` becomes :data:`UNNAMED_CPU`."""
    return devices.replace("cpu", UNNAMED_CPU)


def short_revisions(revisions: pd.Series) -> pd.Series:
    """Git revisions as tables show them: each full commit hash cut to its first 7 characters
    (``-dirty`` and surrounding words kept).
    """
    return revisions.astype(str).str.replace(r"\b([0-9a-f]{7})[0-9a-f]{33}\b", r"\1", regex=True)


def benchmark_rows(path: Path, columns: Sequence[str], *,
                   revision: str = "git_revision") -> pd.DataFrame | None:
    """A benchmark CSV's ``columns``, the ``revision`` column's commit hashes cut to 7
    characters (:func:`short_revisions`), or None where the benchmark has not been run.
    """
    if not path.is_file():
        return None
    rows = pd.read_csv(path)[list(columns)]
    return rows.assign(**{revision: short_revisions(rows[revision])})


def compute_summary(results: pd.DataFrame) -> str:
    """What produced the stored rows ``results``, in one sentence: how many runs, their summed
    wall time in hours, the devices, the dates they were recorded on and, where a later change
    of code moved their mechanism's runs, how many of them the current code does not reproduce
    (:func:`~reprolib.experiments._staleness.rerun_summary`).
    """
    if results.empty:
        return "no runs recorded"
    hours = float(results["wall_time_s"].sum()) / 3600.0
    devices = ", ".join(sorted(set(device_labels(results["device"]))))
    days = pd.to_datetime(results["created_at"], utc=True).dt.date
    first, last = days.min(), days.max()
    when = f"on {first}" if first == last else f"from {first} to {last}"
    return (f"{len(results)} runs, {hours:.2f} hours of compute in all (the sum of their wall "
            f"times), on {devices}, recorded {when}{rerun_summary(results)}")
