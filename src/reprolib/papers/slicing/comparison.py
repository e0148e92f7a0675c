"""Tables 1 and 3 of the slicing paper: Algorithm 1 against SliceWass on the five ACS tasks, at
the reported (amplified) epsilon 5.1 and 8.1, scored with SDMetrics.

Each cell is one (task, mechanism, seed). The mechanism runs on a Poisson sample at rate 0.25
(Appendix C) whose budget amplifies to the reported epsilon; delta is ours (1e-5 after
amplification: the paper gives none). Its synthetic records, as many as the task has, are scored
against the whole task (the paper does not say which real records it scored against). MERF is
DP-MERF with its authors' tabular code's settings (:data:`reprolib.mechanisms.deep.dp_merf.TABULAR`)
on the whole task at the reported epsilon: it needs no sample, and the class proportions it
releases come out of the same budget. DP-SGD, the paper's GAN trained with DP-SGD from the
SmartNoise library, is DP-CTGAN (:mod:`reprolib.mechanisms.deep.dp_ctgan`: SmartNoise's
``DPCTGAN`` settings, ``gan_epochs`` epochs with the noise calibrated to them) on the whole task
at the reported epsilon, counting everything. The paper spends an uncounted epsilon = 0.5 on
preprocessing (Appendix C) and does not say how its baselines' budgets were handled;
``gan_free_epsilon`` gives DP-CTGAN the RAP++ paper's convention (its category frequencies on a
separate, uncounted ledger of that epsilon, the steps the whole reported one). PATE, the paper's
PATE-GAN from the same library, is our PATE-GAN (:mod:`reprolib.mechanisms.deep.pate_gan`:
SmartNoise's ``PATEGAN`` settings, run until the budget is spent, with the data-independent
accounting; ``pate_iterations`` instead calibrates the noise to that many iterations) on the whole
task at the reported epsilon (it has no preprocessing: only its votes read the records).

``paper`` runs the paper's records (folktables CA 2018), 5 seeds (ours) and the paper's 200
epochs with our m' = 500 released projections; ``small`` runs the stand-ins with 3 seeds, 20
epochs and m' = 100 (k = 2, m = 50 for Algorithm 1; m = 100 for SliceWass), the paper's learning
rate and batch kept, and DP-CTGAN with 30 epochs of SmartNoise's 300 (the same tenth: 30 take
about 5 minutes a run on income's 25,000 records, on one shared core of our 2-core VM); ``smoke``
one task, one seed, one epoch, m' = 20.
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np

from reprolib.experiments._experiment import Experiment
from reprolib.experiments._scales import Scale
from reprolib.experiments._store import Cell
from reprolib.papers.slicing.data import TASKS, Source, load_table
from reprolib.papers.slicing.metrics import slicing_scores

MECHANISMS = ("Slicing", "SliceWass", "DP-MERF", "DP-CTGAN", "PATE-GAN")
SLICING = ("Slicing", "SliceWass")
TABLE_EPSILONS = {"slicing-tab1": 5.1, "slicing-tab3": 8.1}
DELTA = 1e-5  # after amplification (ours: the paper gives none)
SAMPLING_RATE = 0.25  # Appendix C


@dataclasses.dataclass(frozen=True, kw_only=True)
class ComparisonSettings:
    """One table's grid.

    Attributes:
        tasks: the paper's tasks (``reprolib.papers.slicing.data.TASKS``).
        mechanisms: of ``MECHANISMS``.
        seeds: runs per task and mechanism (the paper reports mean and std of an unstated count).
        source: ``"stand-in"`` (offline) or ``"paper"`` (folktables CA 2018).
        projections: m' = m k, the released projections (Algorithm 1: k = 2; SliceWass: k = 1).
        epochs: Algorithm 1's training epochs (the paper: 200).
        learning_rate: Adam's (the paper: 2e-5).
        gan_epochs: DP-CTGAN's epochs (SmartNoise: 300).
        gan_free_epsilon: DP-CTGAN's uncounted preprocessing epsilon, which funds its
            category frequencies (RAP++'s convention: 5; ours, and this paper's text: 0).
        pate_iterations: PATE-GAN's iterations, its vote noise calibrated to them; None:
            SmartNoise's noise (Laplace scale 1,000) until the budget is spent (729
            iterations, 27 CPU-seconds, on the mobility stand-in at epsilon 5.1).
    """

    tasks: tuple[str, ...] = tuple(TASKS)
    mechanisms: tuple[str, ...] = MECHANISMS
    seeds: int = 3
    source: Source = "stand-in"
    projections: int = 500
    epochs: int = 200
    learning_rate: float = 2e-5
    gan_epochs: int = 300
    gan_free_epsilon: float = 0.0
    pate_iterations: int | None = None


SETTINGS: dict[Scale, ComparisonSettings] = {
    "smoke": ComparisonSettings(tasks=("mobility",), seeds=1, projections=20, epochs=1,
                                gan_epochs=2, pate_iterations=3),
    "small": ComparisonSettings(projections=100, epochs=20, gan_epochs=30),
    "paper": ComparisonSettings(source="paper", seeds=5),
}


def pending_mechanisms(scale: Scale) -> tuple[str, ...]:
    """The re-implemented mechanisms of Tables 1 and 3 not run yet at ``scale``."""
    return tuple(m for m in MECHANISMS if m not in SETTINGS[scale].mechanisms)


def _cells(artifact: str):
    def cells(scale: Scale, settings: ComparisonSettings) -> list[Cell]:
        del scale
        params = {"source": settings.source, "projections": settings.projections,
                  "epochs": settings.epochs, "learning_rate": settings.learning_rate,
                  "sampling_rate": SAMPLING_RATE}
        gan: dict[str, object] = {"source": settings.source,
                                  "gan_free_epsilon": settings.gan_free_epsilon}
        by_mechanism = {"DP-CTGAN": {**gan, "gan_epochs": settings.gan_epochs},
                        "PATE-GAN": {**gan, "pate_iterations": settings.pate_iterations}}
        return [Cell(artifact=artifact, mechanism=mechanism, dataset=task,
                     epsilon=TABLE_EPSILONS[artifact], delta=DELTA, seed=seed,
                     params=by_mechanism.get(mechanism, params))
                for task, mechanism, seed in itertools.product(
                    settings.tasks, settings.mechanisms, range(settings.seeds))]
    return cells


def mechanism_config(mechanism: str, params: dict) -> dict[str, object]:
    """The registry overrides of a cell: m' split into slices of the mechanism's k; DP-MERF's
    tabular settings; DP-CTGAN's epochs, its noise calibrated to them; PATE-GAN's defaults or
    its iterations, its noise calibrated to them.
    """
    if mechanism == "DP-MERF":
        from reprolib.mechanisms.deep.dp_merf import TABULAR

        return dict(TABULAR)
    if mechanism == "DP-CTGAN":
        return {"epochs": int(params["gan_epochs"]), "noise_multiplier": None,
                "uncounted_preprocessing_epsilon": float(params.get("gan_free_epsilon", 0.0))}
    if mechanism == "PATE-GAN":
        iterations = params["pate_iterations"]
        return {} if iterations is None else {"inverse_scale": None,
                                              "iterations": int(iterations)}
    slice_dim = 2 if mechanism == "Slicing" else 1
    return {"slices": int(params["projections"]) // slice_dim,
            "sampling_rate": float(params["sampling_rate"]),
            "training": {"epochs": int(params["epochs"]),
                         "learning_rate": float(params["learning_rate"])}}


def unread_params(mechanism: str) -> frozenset[str]:
    """The cell parameters :func:`mechanism_config` does not read for ``mechanism``: DP-MERF's
    cells carry the slicing methods' knobs, and run its authors' tabular settings instead.
    """
    if mechanism == "DP-MERF":
        return frozenset({"projections", "epochs", "learning_rate", "sampling_rate"})
    return frozenset()


def _run(cell: Cell, device: str) -> dict[str, object]:
    from reprolib.mechanisms import build
    from reprolib.privacy import PrivacyBudget

    assert cell.epsilon is not None and cell.delta is not None
    table = load_table(cell.dataset, cell.params["source"])
    mechanism = build(cell.mechanism, {**mechanism_config(cell.mechanism, dict(cell.params)),
                                       "device": device})
    budget = PrivacyBudget.from_epsilon_delta(cell.epsilon, cell.delta,
                                              relation=mechanism.traits.relation)
    result = mechanism.fit(table.data, budget, np.random.default_rng(cell.seed))
    diagnostics = result.diagnostics
    common = {**slicing_scores(table.data, result.synthetic, target="label"),
              "stand_in": table.source == "stand-in", "records": table.data.records,
              "training_seconds": diagnostics["training_seconds"],
              "device": diagnostics["device"]}
    if cell.mechanism == "PATE-GAN":  # Laplace votes, not a Gaussian release
        return {**common, "spent_epsilon": result.ledger.spent_epsilon(),
                "encoded_columns": diagnostics["encoded_columns"],
                **{k: diagnostics[k] for k in ("teachers", "iterations", "votes",
                                               "inverse_scale", "last_inverse_scale")}}
    common = {**common, "sigma": diagnostics["sigma"], "steps": diagnostics["steps"],
              "final_loss": diagnostics["epoch_losses"][-1]}
    if cell.mechanism not in SLICING:
        return {**common, "spent_epsilon": result.ledger.spent_epsilon(),
                "encoded_columns": diagnostics["encoded_columns"]}
    return {**common, "base_epsilon": diagnostics["base_epsilon"],
            "base_delta": diagnostics["base_delta"],
            "typical_sample_size": diagnostics["typical_sample_size"],
            "spent_base_epsilon": result.ledger.spent_epsilon(),
            "budget_base_epsilon": result.ledger.budget.epsilon,
            "sample_records": diagnostics["sample_records"],
            "encoded_columns": diagnostics["encoded_columns"]}


TABLE_1, TABLE_3 = (
    Experiment(artifact=artifact, settings=ComparisonSettings, defaults=SETTINGS.__getitem__,
               cells=_cells(artifact), compute=_run)
    for artifact in TABLE_EPSILONS)
