"""Figure 1 of the slicing paper: digits generated per class under the slicing mechanism, scored by
the accuracy of a classifier trained on them and tested on real digits.

The paper trains one generator per MNIST class on a random 10 % of that class's training images
(about 600) and tests on the MNIST test set. Offline only the test set exists, so it stands in
for both: a fixed split (seed :data:`SPLIT_SEED`, the same for every run) keeps half of it as the
private pool and half for evaluation. Each run releases, per class, ``per_class`` images of the
pool (a uniform sample of a public size, 400 by default: the pool's classes have 438 to 586
images), every image scaled to the unit norm times the mechanism's row norm, and trains one
generator on each class's release (:class:`reprolib.mechanisms.slicing.mechanism.SlicingConfig`,
``per_class``). The classifier is multinomial logistic regression (ours: the paper names none),
trained on ``per_class`` synthetic images of every class; the same classifier trained on the
pool's real images gives the non-private ceiling. MERF, the paper's third curve, is DP-MERF
(:mod:`reprolib.mechanisms.deep.dp_merf`) at its authors' defaults for images on the whole pool
(their convolutional generator, which their script uses for every image set), its class sizes
public as in their code; it releases as many synthetic images as the slicing methods.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import cast

import numpy as np
import pandas as pd

from reprolib.data import Dataset, Domain, ImageSet, MixedDataset, load_dataset
from reprolib.experiments._experiment import Experiment
from reprolib.experiments._scales import Scale
from reprolib.experiments._store import Cell

MECHANISMS = ("Slicing", "SliceWass", "DP-MERF")
SPLIT_SEED = 0
DATASET = "mnist-test-halves"
DELTA = 1e-5  # ours: the paper gives none
LABEL = "digit"


@dataclasses.dataclass(frozen=True, kw_only=True)
class DigitsSettings:
    """Figure 1's grid.

    Attributes:
        epsilons: the budgets (the paper's grid is not recoverable; ours).
        mechanisms: of ``MECHANISMS``.
        seeds: runs per epsilon and mechanism.
        per_class: images released per class (the paper: 10 % of a class, about 600).
        projections: m' = m k (Algorithm 1: k = 2; SliceWass: k = 1).
        epochs, learning_rate: the slicing generators' training (ours: the paper gives none
            for images); DP-MERF trains at its authors' defaults.
        merf_generator: DP-MERF's generator, ``"conv"`` (its authors' for images) or ``"fc"``.
    """

    epsilons: tuple[float, ...] = (1.0, 10.0, 100.0)
    mechanisms: tuple[str, ...] = MECHANISMS
    seeds: int = 3
    per_class: int = 400
    projections: int = 100
    epochs: int = 100
    learning_rate: float = 1e-3
    merf_generator: str = "conv"


SETTINGS: dict[Scale, DigitsSettings] = {
    "smoke": DigitsSettings(epsilons=(10.0,), seeds=1, per_class=20, projections=10, epochs=1),
    "small": DigitsSettings(),
    "paper": DigitsSettings(seeds=5, projections=500, epochs=200),
}


def load_images(name: str) -> ImageSet:
    """The registered image set ``name`` (a dataset of kind ``"images"``)."""
    return cast(ImageSet, load_dataset(name))


def mnist_halves() -> tuple[ImageSet, ImageSet]:
    """The MNIST test set split in two fixed halves: (private pool, evaluation)."""
    images = load_images("mnist/test")
    order = np.random.default_rng(SPLIT_SEED).permutation(len(images.labels))
    pool, held_out = np.sort(order[: len(order) // 2]), np.sort(order[len(order) // 2:])
    return (ImageSet(images.features[pool], images.labels[pool], images.image_shape),
            ImageSet(images.features[held_out], images.labels[held_out], images.image_shape))


def as_mixed(images: ImageSet) -> MixedDataset:
    """Images as mixed-type records: the label a categorical target, one number per pixel."""
    classes = int(images.labels.max()) + 1
    labels = Dataset(pd.DataFrame({LABEL: images.labels}), Domain((LABEL,), (classes,)), "digits")
    pixels = tuple(f"pixel{i}" for i in range(images.features.shape[1]))
    return MixedDataset(labels, images.features.astype(np.float64), pixels, (LABEL,), "digits")


def unit_rows(features: np.ndarray) -> np.ndarray:
    """Every image scaled to L2 norm 1 (a blank image stays blank)."""
    norms = np.linalg.norm(features, axis=1, keepdims=True)
    return features / np.maximum(norms, np.finfo(np.float64).tiny)


def classifier_accuracy(train: ImageSet, test: ImageSet) -> float:
    """Test accuracy of multinomial logistic regression trained on ``train`` (unit rows)."""
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(max_iter=500).fit(unit_rows(train.features), train.labels)
    return float(model.score(unit_rows(test.features), test.labels))


def _params(mechanism: str, settings: DigitsSettings) -> dict[str, object]:
    """The settings a cell of ``mechanism`` records (DP-MERF's training is its own)."""
    if mechanism == "DP-MERF":
        return {"per_class": settings.per_class, "generator": settings.merf_generator}
    return {"per_class": settings.per_class, "projections": settings.projections,
            "epochs": settings.epochs, "learning_rate": settings.learning_rate}


def _cells(scale: Scale, settings: DigitsSettings) -> list[Cell]:
    del scale
    return [Cell(artifact="slicing-fig1", mechanism=mechanism, dataset=DATASET, epsilon=epsilon,
                 delta=DELTA, seed=seed, params=_params(mechanism, settings))
            for epsilon, mechanism, seed in itertools.product(
                settings.epsilons, settings.mechanisms, range(settings.seeds))]


def mechanism_config(mechanism: str, params: dict) -> dict[str, object]:
    """The registry overrides of a cell: 10 ``per_class`` synthetic images in all; for the
    slicing methods one generator per digit on public pixel bounds and unit rows.
    """
    per_class = int(params["per_class"])
    if mechanism == "DP-MERF":
        return {"n_synthetic": 10 * per_class, "generator": params["generator"]}
    slice_dim = 2 if mechanism == "Slicing" else 1
    return {"slices": int(params["projections"]) // slice_dim, "per_class": per_class,
            "numerical_bounds": "public", "row_scaling": "unit", "n_synthetic": 10 * per_class,
            "training": {"epochs": int(params["epochs"]),
                         "learning_rate": float(params["learning_rate"])}}


def _run(cell: Cell, device: str) -> dict[str, object]:
    from reprolib.mechanisms import build
    from reprolib.privacy import PrivacyBudget

    assert cell.epsilon is not None and cell.delta is not None
    params: dict = dict(cell.params)
    pool, held_out = mnist_halves()
    mechanism = build(cell.mechanism, {**mechanism_config(cell.mechanism, params),
                                       "device": device})
    budget = PrivacyBudget.from_epsilon_delta(cell.epsilon, cell.delta,
                                              relation=mechanism.traits.relation)
    result = mechanism.fit(as_mixed(pool), budget, np.random.default_rng(cell.seed))
    synthetic = ImageSet(result.synthetic.numerical, result.synthetic.column(LABEL),
                         pool.image_shape)
    per_class = int(params["per_class"])
    real = np.concatenate([np.flatnonzero(pool.labels == c)[:per_class] for c in range(10)])
    diagnostics = result.diagnostics
    return {"accuracy": classifier_accuracy(synthetic, held_out),
            "real_accuracy": classifier_accuracy(
                ImageSet(pool.features[real], pool.labels[real], pool.image_shape), held_out),
            "stand_in": True, "sigma": diagnostics["sigma"],
            "spent_epsilon": result.ledger.spent_epsilon(),
            "budget_epsilon": result.ledger.budget.epsilon, "steps": diagnostics["steps"],
            "final_loss": diagnostics["epoch_losses"][-1],
            "training_seconds": diagnostics["training_seconds"], "device": diagnostics["device"]}


DIGITS = Experiment(artifact="slicing-fig1", settings=DigitsSettings,
                    defaults=SETTINGS.__getitem__, cells=_cells, compute=_run)
