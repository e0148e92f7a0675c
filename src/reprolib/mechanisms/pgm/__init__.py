"""The Private-PGM engine (mbi 2.0 and our NumPy mirror descent): measuring marginals, fitting the
graphical model, reading its marginals, generating records, and the junction-tree size (JT-SIZE),
all in float64 (:func:`float64` scopes JAX's x64 mode; nothing is configured at import).
"""

from reprolib.mechanisms.pgm._float64 import float64  # first: it imports mbi (see its docstring)
from reprolib.mechanisms.pgm._jtsize import junction_tree_size_mb
from reprolib.mechanisms.pgm._mirror_descent import (
    POTENTIALS,
    STEP_RULES,
    Potentials,
    StepRule,
    mirror_descent,
)
from reprolib.mechanisms.pgm._model import (
    LOSS_WEIGHTINGS,
    Clique,
    LossWeighting,
    NoisyMarginal,
    downward_closure,
    estimated_total,
    fit_model,
    loss_measurements,
    measure_marginal,
    model_marginals,
    synthetic_dataset,
)

__all__ = [
    "LOSS_WEIGHTINGS",
    "POTENTIALS",
    "STEP_RULES",
    "Clique",
    "LossWeighting",
    "NoisyMarginal",
    "Potentials",
    "StepRule",
    "downward_closure",
    "estimated_total",
    "fit_model",
    "float64",
    "junction_tree_size_mb",
    "loss_measurements",
    "measure_marginal",
    "mirror_descent",
    "model_marginals",
    "synthetic_dataset",
]
