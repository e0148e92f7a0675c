"""Synthetic-data mechanisms, all behind the :class:`Synthesizer` interface."""

from reprolib.mechanisms._base import (
    MechanismTraits,
    SynthesisResult,
    Synthesizer,
    open_ledger,
    require_workload,
    seed_from,
)

__all__ = [
    "MechanismTraits",
    "SynthesisResult",
    "Synthesizer",
    "open_ledger",
    "require_workload",
    "seed_from",
]
