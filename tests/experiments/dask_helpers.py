"""Remote functions for tests/experiments/test_distributed.py that break on purpose; the test's
cluster puts this folder on its workers' path so they import them by name."""

import os

from reprolib.experiments import compute_cell


def fails_at(fields, device, *, epsilon):
    """Raise for the cells at ``epsilon``; compute the others."""
    if fields["epsilon"] == epsilon:
        raise ValueError("a broken cell")
    return compute_cell(fields, device)


def dies_once(fields, device, *, marker, epsilon):
    """Kill the worker process on the first cell at ``epsilon`` (``marker`` records it)."""
    if fields["epsilon"] == epsilon and not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(1)
    return compute_cell(fields, device)
