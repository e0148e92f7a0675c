"""Directed rounding of exact rationals to floats, and budget splits that never overspend.

Every charge is a float, so the exact (real) total of a list of charges is a rational number that
Python's ``fractions.Fraction`` represents without error. Rounding that total, or a share of it,
to the nearest float can move it up by half an ulp; the helpers here round in the direction that
keeps the accounting conservative instead.

Formulas with logarithms or square roots (the conversions to (epsilon, delta)) are evaluated in
:data:`PRECISE`, 60-digit decimal arithmetic whose ``ln``, ``exp`` and ``sqrt`` are correctly
rounded (Python ``decimal``, General Decimal Arithmetic spec), so each operation errs by at most
5e-60 relative; :func:`upper_float` adds a margin of 1e-50 times the sum of the magnitudes of the
terms, which dominates the accumulated error of a few such operations with room to spare, and
rounds up to a float.

Rényi curves are evaluated in floating point instead (they are needed at hundreds of orders, many
times over while noise is calibrated), and then bounded from above with :func:`inflate`: each
curve's module bounds the relative error of its own evaluation, by a forward error analysis in
units of :data:`UNIT_ROUNDOFF`, and charges the value times 1 + :data:`CURVE_SLACK` times that
many units. The tests hold every curve, so inflated, above its closed form evaluated in 60
digits, across regimes chosen to provoke cancellation.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction

import numpy as np

from reprolib.privacy import _validate

#: The arithmetic in which conversions evaluate their formulas (see the module docstring).
PRECISE = decimal.Context(prec=60, rounding=decimal.ROUND_HALF_EVEN, Emin=-999_999,
                          Emax=999_999)
_MARGIN = Decimal("1e-50")  # >> the relative error (about 1e-58) of a few 60-digit operations

#: The unit roundoff of IEEE double precision: a correctly rounded operation errs by at most this
#: much, relative.
UNIT_ROUNDOFF = 2.0**-53

#: How many times a forward error bound :func:`inflate` charges. The bounds count operations, each
#: off by at most one unit; library functions (``gammaln``, ``log1p``, ``logsumexp``) are accurate
#: to a few units rather than one, which this factor covers many times over.
CURVE_SLACK = 2.0**10


def round_up(value: Fraction) -> float:
    """The smallest float >= ``value`` (``float(Fraction)`` rounds to nearest, then we correct)."""
    nearest = float(value)
    return math.nextafter(nearest, math.inf) if Fraction(nearest) < value else nearest


def round_down(value: Fraction) -> float:
    """The largest float <= ``value``."""
    nearest = float(value)
    return math.nextafter(nearest, -math.inf) if Fraction(nearest) > value else nearest


def sqrt_up(value: Fraction | int) -> float:
    """The smallest float >= sqrt(``value``), for a sensitivity such as sqrt(2k) or sqrt(2k)/n.

    ``math.sqrt`` rounds to nearest, hence below the root for about half of the integers, and a
    sensitivity rounded down makes the charge Delta^2 / (2 sigma^2) fall short of the real cost.
    """
    value = Fraction(value)
    if value < 0:
        raise ValueError(f"sqrt_up needs a non-negative value, got {value}")
    if value == 0:
        return 0.0
    root = math.sqrt(float(value))
    while Fraction(root) ** 2 < value:
        root = math.nextafter(root, math.inf)
    while Fraction(below := math.nextafter(root, 0.0)) ** 2 >= value:
        root = below
    return root


def upper_float(value: Decimal, magnitude: Decimal) -> float:
    """The smallest float >= value + margin * magnitude, an upper bound on the exact quantity
    that ``value`` approximates when ``magnitude`` bounds the sizes of the terms it was built from.
    """
    with decimal.localcontext(PRECISE):
        bound = value + _MARGIN * magnitude
    return round_up(Fraction(bound))


def inflate(values: np.ndarray | float, units: np.ndarray | float) -> np.ndarray:
    """Upper bounds on the quantities that the floats ``values`` approximate to within ``units``
    units of roundoff (relative, elementwise): values * (1 + CURVE_SLACK * units * UNIT_ROUNDOFF),
    rounded up. Infinite values stay infinite.
    """
    values = np.asarray(values, dtype=float)
    factor = 1.0 + CURVE_SLACK * UNIT_ROUNDOFF * np.asarray(units, dtype=float)
    return np.nextafter(values * np.nextafter(factor, np.inf), np.inf)


def exact_sum(values: Sequence[float]) -> Fraction:
    """The exact real sum of floats (no rounding at all)."""
    return sum(map(Fraction, values), Fraction(0))


def split_budget(rho: float, weights: Sequence[float]) -> tuple[float, ...]:
    """Split ``rho`` into parts proportional to ``weights`` whose exact sum is at most ``rho``.

    Part i < n is fl(rho * w_i / W) (W the sum of the weights); the last part is the exact
    remainder rho - sum_{i<n} part_i rounded *down* to a float. Floating-point shares need this:
    each fl(rho * w_i / W) is rounded to nearest, so n of them can add up to up to n/2 ulps more
    than rho (e.g. three shares of 1/3 each), which a ledger that accepts no total above its
    budget would refuse. The parts therefore sum to rho minus less than one ulp of the last part.

    Args:
        rho: the budget to split, > 0.
        weights: positive, finite relative shares (they need not sum to one).

    Returns:
        one positive part per weight, in order.
    """
    rho = _validate.positive("rho", rho)
    if not weights:
        raise ValueError("weights must name at least one share")
    weights = [_validate.positive(f"weights[{i}]", w) for i, w in enumerate(weights)]
    total = math.fsum(weights)
    parts = [rho * (w / total) for w in weights[:-1]]
    last = round_down(Fraction(rho) - exact_sum(parts))
    if last <= 0.0:
        raise ValueError(f"the last weight {weights[-1]!r} is too small a share of {total!r} to "
                         "receive any budget after rounding; merge it with another share")
    return (*parts, last)
