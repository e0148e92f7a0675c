"""The one exception type of the data layer."""

from __future__ import annotations

__all__ = ["DataError"]


class DataError(ValueError):
    """Bad or missing input data: a missing file, a wrong checksum, values outside a domain.

    Subclasses ``ValueError`` so callers that already catch ``ValueError`` keep working. Every
    message names the file, column or value at fault and says what to do about it.
    """
