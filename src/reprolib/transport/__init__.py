"""Sliced optimal transport shared by the mechanisms and the metrics.

NumPy functions (imported here, no torch): :func:`unit_directions` and :func:`sliced_w1`. The
batched torch versions that PrivPGD differentiates through live in
:mod:`reprolib.transport._torch` (imported explicitly, because it imports torch).
"""

from reprolib.transport._numpy import sliced_w1, unit_directions

__all__ = ["sliced_w1", "unit_directions"]
