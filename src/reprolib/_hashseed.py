"""A fixed Python hash seed, so that runs are bitwise reproducible across processes.

mbi 2.0's record sampler (``MarkovRandomField.synthetic_data``) iterates over Python sets of
attribute names, whose order follows the per-process string hash seed; with the same seed for our
generators, two processes still draw different records unless ``PYTHONHASHSEED`` is fixed. The CLI
re-executes itself with the seed below, notebooks' kernels inherit it, and ``make test`` exports it.
"""

from __future__ import annotations

import os

HASH_SEED = "0"


def hash_seed_is_fixed() -> bool:
    """Whether this process runs with ``PYTHONHASHSEED`` set to :data:`HASH_SEED`."""
    return os.environ.get("PYTHONHASHSEED") == HASH_SEED


def fix_hash_seed_for_children() -> None:
    """Make processes started from now on (notebook kernels) use :data:`HASH_SEED`."""
    os.environ["PYTHONHASHSEED"] = HASH_SEED
