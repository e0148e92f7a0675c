"""Synthetic-data mechanisms in families, behind one registry and the :class:`Synthesizer` interface.

Families: :mod:`~reprolib.mechanisms.pgm` (the Private-PGM engine), ``marginal`` (AIM, MST,
MWEM+PGM, Independent, Gaussian, PrivBayes+PGM), ``relaxed`` (relaxed projection, MWEM+RP, GEM,
RAP++, RAP), ``particles`` (PrivPGD), ``slicing`` (the slicing mechanism and SliceWass) and ``deep``
(DP-MERF, DP-CTGAN). ``get(name)`` returns a mechanism's class, ``available()`` lists the names,
``build(name, overrides)`` makes one from its typed config. Mechanism classes and their
configs are also attributes of this package (``from reprolib.mechanisms import AIM``), imported on
first use, so importing this package loads neither torch nor JAX.
"""

from __future__ import annotations

import importlib

from reprolib.mechanisms._base import (
    MechanismTraits,
    SynthesisResult,
    Synthesizer,
    check_inputs,
    check_mixed_inputs,
    open_ledger,
    open_rdp_ledger,
    require_workload,
    seed_from,
)
from reprolib.mechanisms._registry import (
    REGISTRATIONS,
    Registration,
    available,
    build,
    config_class,
    get,
    make_config,
    registration,
)

# attribute -> module, for the lazy attributes (every registered class and config)
_LAZY = {name: entry.module for entry in REGISTRATIONS
         for name in (entry.cls, entry.config) if name is not None}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])


__all__ = [  # noqa: PLE0604 (lazy names resolve through __getattr__)
    "REGISTRATIONS",
    "MechanismTraits",
    "Registration",
    "SynthesisResult",
    "Synthesizer",
    "available",
    "build",
    "check_inputs",
    "check_mixed_inputs",
    "config_class",
    "get",
    "make_config",
    "open_ledger",
    "open_rdp_ledger",
    "registration",
    "require_workload",
    "seed_from",
    *_LAZY,
]
