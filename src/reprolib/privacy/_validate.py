"""Argument checks shared by the privacy functions; each error names the argument and the fix."""

from __future__ import annotations

import math


def _as_float(name: str, value: object) -> float:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a real number, got {value!r}") from None
    if math.isnan(number):
        raise ValueError(f"{name} must be a number, got NaN")
    return number


def positive(name: str, value: object) -> float:
    """Return ``value`` as a float, raising ``ValueError`` unless it is finite and > 0."""
    number = _as_float(name, value)
    if not (0.0 < number < math.inf):
        raise ValueError(f"{name} must be finite and > 0, got {number!r}")
    return number


def non_negative(name: str, value: object) -> float:
    """Return ``value`` as a float, raising ``ValueError`` unless it is finite and >= 0."""
    number = _as_float(name, value)
    if not (0.0 <= number < math.inf):
        raise ValueError(f"{name} must be finite and >= 0, got {number!r}")
    return number


def probability(name: str, value: object) -> float:
    """Return ``value`` as a float, raising ``ValueError`` unless it lies in the open interval (0, 1)."""
    number = _as_float(name, value)
    if not (0.0 < number < 1.0):
        raise ValueError(
            f"{name} must lie strictly between 0 and 1, got {number!r} "
            "(typical choices are 1e-5 or 1e-9, well below 1/n)"
        )
    return number


def unit_interval(name: str, value: object) -> float:
    """Return ``value`` as a float, raising ``ValueError`` unless it lies in [0, 1]."""
    number = _as_float(name, value)
    if not (0.0 <= number <= 1.0):
        raise ValueError(f"{name} must lie in [0, 1], got {number!r}")
    return number
