"""Float64 for Private-PGM, scoped to the engine instead of switched on for the whole process.

mbi warns that its estimators can stall or diverge in float32 on large datasets, so every entry
point of this package computes inside :func:`float64` (JAX's ``enable_x64`` context): the arrays
it creates are float64 and its programs are traced in x64 mode, while JAX's configuration outside
is left as it was. Models keep float64 arrays; work on them outside the context (``model.project``)
runs in the process's default precision, so do it inside ``with float64():``.

mbi is imported here first (the package imports this module before any other), without its import
warnings about float32 mode (irrelevant: mbi runs in float64 here) and about JAX's persistent
compilation cache (relevant only when a cache directory is configured: then it is shown).
"""

from __future__ import annotations

import contextlib
import functools
import warnings
from collections.abc import Callable, Iterator
from typing import ParamSpec, TypeVar

import jax

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", "JAX is running in float32 mode", UserWarning)
    if not jax.config.jax_compilation_cache_dir:  # type: ignore[attr-defined]
        warnings.filterwarnings("ignore", "JAX persistent compilation cache", UserWarning)
    import mbi  # noqa: F401

_P = ParamSpec("_P")
_R = TypeVar("_R")


@contextlib.contextmanager
def float64() -> Iterator[None]:
    """Run the block with JAX in x64 mode (float64 arrays and programs); restored on exit."""
    with jax.enable_x64(True):
        yield


def in_float64(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """``function`` run inside :func:`float64`."""

    @functools.wraps(function)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with float64():
            return function(*args, **kwargs)

    return wrapper
