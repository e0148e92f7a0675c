"""Figure 2 of the slicing paper: unsupervised domain adaptation between MNIST and USPS with the
target domain protected by the slicing mechanism.

The task (the paper's Section 4.3, after Rakotomamonjy and Ralaivola's DP-SWD): a feature
extractor and a classifier learn from labelled source images and unlabelled target images; after
``align_from`` epochs of source-only training, each step also pulls the source features towards
the target's, measured on noisy random projections. The target images are the private data. Each
step releases, through :class:`reprolib.privacy.SlicingStream`, the slicing projections (U,
Phi(X_B) U + V) of the current features Phi of a fresh batch B of target images (drawn without
replacement), and the alignment term compares those released numbers with the source features
projected on the same U plus smoothing noise of the same sigma: Algorithm 1's sliced
f-divergence (the paper's method) or, for SliceWass, DP-SWD's alignment term, the root of the
mean squared gap between sorted projections, on the features' own scale (times sqrt(320)). No
gradient passes through the target's features, so everything but the releases is
post-processing.

Ours where the paper is silent (DP-SWD's public code otherwise): the extractor and classifier of
DP-SWD's MNIST-USPS experiment, its optimiser, rates and alignment weights, 100 projections for
both methods (one-dimensional slices), features scaled by the fixed 1/sqrt(320) (sigmoid features
lie in (0, 1)^320, so every row has norm below 1; DP-SWD divides by twice the batch's largest
norm, which depends on the private data), and ``epochs`` far below DP-SWD's 100 at ``small``.

Data, offline: MNIST is its test set. MNIST -> USPS trains on all 10,000 MNIST test images as
the labelled source, releases USPS training images (7,291) and scores on the USPS test set
(2,007). USPS -> MNIST trains on the USPS training set, releases the private half of the MNIST
test set's fixed split (:func:`reprolib.papers.slicing.digits.mnist_halves`) and scores on the
other half. USPS's 16 x 16 images are resized to 28 x 28 (bilinear).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import time
from collections.abc import Callable
from typing import TypedDict

import numpy as np
import torch
from torch import nn
from torch.nn import functional

from reprolib._device import one_cpu_thread
from reprolib.data import ImageSet
from reprolib.experiments._experiment import Experiment
from reprolib.experiments._scales import Scale
from reprolib.experiments._store import Cell
from reprolib.mechanisms.slicing.training import TrainingSettings, projection_loss
from reprolib.papers.slicing.digits import load_images, mnist_halves
from reprolib.privacy import (
    NeighbourRelation,
    RdpBudget,
    RdpLedger,
    SlicingStream,
    remaining_stream_sigma,
)

MECHANISMS = ("Slicing", "SliceWass")
SOURCE_ONLY = "Source only"
LOSSES: dict[str, str | None] = {"Slicing": "sliced-f", "SliceWass": "sliced-wasserstein",
                                 SOURCE_ONLY: None}
FEATURES = 320
DELTA = 1e-5  # ours: the paper gives none
SIDE = 28
Features = Callable[[np.ndarray], np.ndarray]
Release = Callable[[Features, np.random.Generator], tuple[np.ndarray, np.ndarray]]


@dataclasses.dataclass(frozen=True)
class Direction:
    """One adaptation task: DP-SWD's learning rate and alignment weight for it."""

    name: str
    source: str
    target: str
    learning_rate: float
    alignment_weight: float


DIRECTIONS = {
    "mnist-usps": Direction("mnist-usps", "MNIST", "USPS", 5e-4, 0.05),
    "usps-mnist": Direction("usps-mnist", "USPS", "MNIST", 5e-3, 1.0),
}


@dataclasses.dataclass(frozen=True, kw_only=True)
class AdaptationSettings:
    """Figure 2's grid.

    Attributes:
        epsilons: the budgets (the paper's grid is not recoverable; ours).
        directions: of :data:`DIRECTIONS`.
        mechanisms: of :data:`MECHANISMS`.
        non_private: also run, with epsilon None, each mechanism with no noise (the ceiling)
            and :data:`SOURCE_ONLY`, the same training without alignment (the floor).
        seeds: runs per cell.
        epochs: training epochs, each as many steps as the source has batches.
        align_from: the epoch at which alignment (and the releases) start.
        projections: m', the random directions of every release.
        batch_size: source and target rows per step (the target's sampling rate is
            batch_size / target records).
    """

    epsilons: tuple[float, ...] = (3.0, 10.0, 100.0)
    directions: tuple[str, ...] = tuple(DIRECTIONS)
    mechanisms: tuple[str, ...] = MECHANISMS
    non_private: bool = True
    seeds: int = 3
    epochs: int = 8
    align_from: int = 3
    projections: int = 100
    batch_size: int = 128


SETTINGS: dict[Scale, AdaptationSettings] = {
    "smoke": AdaptationSettings(epsilons=(10.0,), directions=("mnist-usps",), non_private=False,
                                seeds=1, epochs=2, align_from=1, projections=10),
    "small": AdaptationSettings(),
    "paper": AdaptationSettings(seeds=5, epochs=100, align_from=10),
}


@dataclasses.dataclass(frozen=True, eq=False)
class Domains:
    """The three image sets of a direction, as (n, 1, 28, 28) tensors scaled to [-1, 1]."""

    source: ImageSet
    target: ImageSet
    evaluation: ImageSet

    def tensors(self, images: ImageSet) -> torch.Tensor:
        """``images`` as a float32 (n, 1, 28, 28) batch in [-1, 1], resized if needed."""
        pixels = torch.as_tensor(images.features, dtype=torch.float32)
        pixels = pixels.reshape(-1, 1, *images.image_shape)
        if images.image_shape != (SIDE, SIDE):
            pixels = functional.interpolate(pixels, size=(SIDE, SIDE), mode="bilinear",
                                            align_corners=False).clamp(0.0, 1.0)
        return pixels * 2.0 - 1.0


def domains(direction: str) -> Domains:
    """The labelled source, the private target pool and the evaluation set of ``direction``."""
    if direction == "mnist-usps":
        return Domains(load_images("mnist/test"), load_images("usps/train"),
                       load_images("usps/test"))
    if direction == "usps-mnist":
        pool, held_out = mnist_halves()
        return Domains(load_images("usps/train"), pool, held_out)
    raise ValueError(f"unknown direction {direction!r}; choose from {list(DIRECTIONS)}")


def feature_extractor() -> nn.Module:
    """DP-SWD's MNIST-USPS extractor: 320 sigmoid features of a 28 x 28 image."""
    return nn.Sequential(nn.Conv2d(1, 32, 5), nn.MaxPool2d(2), nn.ReLU(),
                         nn.Conv2d(32, 20, 5), nn.Dropout2d(), nn.MaxPool2d(2), nn.Sigmoid(),
                         nn.Flatten())


def classifier() -> nn.Module:
    """DP-SWD's classifier on the 320 features."""
    return nn.Sequential(nn.Linear(FEATURES, 100), nn.ReLU(), nn.Dropout(), nn.Linear(100, 10))


def accuracy(extractor: nn.Module, head: nn.Module, images: torch.Tensor,
             labels: np.ndarray) -> float:
    """Share of ``images`` the model labels correctly (evaluation mode)."""
    extractor.eval()
    head.eval()
    with torch.no_grad():
        predictions = torch.cat([head(extractor(chunk)).argmax(dim=1).cpu()
                                 for chunk in images.split(1024)])
    extractor.train()
    head.train()
    return float((predictions.numpy() == labels).mean())


@dataclasses.dataclass(frozen=True, kw_only=True)
class Adaptation:
    """One run's recipe: the direction, the alignment loss (None: no alignment), and the
    stream's noise (None: no noise and no privacy, the ceiling).
    """

    direction: Direction
    loss: str | None
    sigma: float | None
    epochs: int
    align_from: int
    projections: int
    batch_size: int


def adapt(recipe: Adaptation, data: Domains, *, seed: int, device: str = "cpu",
          release: Release | None = None) -> dict[str, float]:
    """Train extractor and classifier; return source-only and final target accuracies.

    ``release(features, rng) -> (U, O)`` makes one release of the target batch's features
    (a :meth:`reprolib.privacy.SlicingStream.release`); without it (``sigma`` None) the
    target's features are projected without noise, which is not private. Torch's global
    random state (dropout, initial weights) is seeded inside and restored on return; on the CPU
    the run uses one thread (:func:`reprolib._device.one_cpu_thread`).
    """
    with one_cpu_thread(device), torch.random.fork_rng(devices=[] if device == "cpu" else None):
        torch.manual_seed(seed)
        return _adapt(recipe, data, seed=seed, device=device, release=release)


def _adapt(recipe: Adaptation, data: Domains, *, seed: int, device: str,
           release: Release | None) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    noise = torch.Generator(device=device).manual_seed(seed)
    extractor, head = feature_extractor().to(device), classifier().to(device)
    source, target = data.tensors(data.source).to(device), data.tensors(data.target).to(device)
    evaluation = data.tensors(data.evaluation).to(device)
    source_labels = torch.as_tensor(data.source.labels, dtype=torch.long, device=device)
    parameters = [*extractor.parameters(), *head.parameters()]
    optimiser = torch.optim.Adam(parameters, lr=recipe.direction.learning_rate,
                                 betas=(0.5, 0.999))
    settings = TrainingSettings(loss=recipe.loss)  # type: ignore[arg-type]
    sigma = 0.0 if recipe.sigma is None else recipe.sigma

    def target_features(batch: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            rows = extractor(target[torch.as_tensor(batch, device=device)])
            return (rows / math.sqrt(FEATURES)).cpu().numpy()

    def noiseless(features: Features, generator: np.random.Generator
                  ) -> tuple[np.ndarray, np.ndarray]:  # the ceiling, not private: (U, Phi U)
        batch = generator.choice(len(target), size=recipe.batch_size, replace=False)
        directions = generator.normal(0.0, 1.0 / math.sqrt(FEATURES),
                                      size=(FEATURES, recipe.projections))
        return directions, features(batch) @ directions

    release = release if release is not None else noiseless
    started, source_only, steps = time.perf_counter(), float("nan"), 0
    for epoch in range(recipe.epochs):
        if epoch == recipe.align_from:
            source_only = accuracy(extractor, head, evaluation, data.evaluation.labels)
        order = torch.as_tensor(rng.permutation(len(source)), device=device)
        for batch in order.split(recipe.batch_size):
            if len(batch) < recipe.batch_size:
                continue  # the two samples of every loss have the same size
            features = extractor(source[batch])
            loss = functional.cross_entropy(head(features), source_labels[batch])
            if recipe.loss is not None and epoch >= recipe.align_from:
                directions, released = release(target_features, rng)
                gap = projection_loss(
                    torch.as_tensor(released, dtype=torch.float32, device=device),
                    features / math.sqrt(FEATURES),
                    torch.as_tensor(directions, dtype=torch.float32, device=device), sigma=sigma,
                    slice_dim=1, settings=settings, noise=noise)
                if recipe.loss == "sliced-wasserstein":  # DP-SWD's SW_2 on the features' scale
                    gap = gap.clamp_min(1e-12).sqrt() * math.sqrt(FEATURES)
                loss = loss + recipe.direction.alignment_weight * gap
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            steps += 1
    return {"accuracy": accuracy(extractor, head, evaluation, data.evaluation.labels),
            "source_only_accuracy": source_only, "steps": steps,
            "training_seconds": time.perf_counter() - started}


def alignment_steps(epochs: int, align_from: int, source_records: int,
                    batch_size: int) -> int:
    """The releases a run makes: one per full source batch from epoch ``align_from`` on."""
    return (epochs - align_from) * (source_records // batch_size)


def _params(settings: AdaptationSettings) -> dict[str, object]:
    return {"epochs": settings.epochs, "align_from": settings.align_from,
            "projections": settings.projections, "batch_size": settings.batch_size}


def _cells(scale: Scale, settings: AdaptationSettings) -> list[Cell]:
    del scale
    runs: list[tuple[str, float | None, float | None]] = [
        (mechanism, epsilon, DELTA)
        for epsilon, mechanism in itertools.product(settings.epsilons, settings.mechanisms)]
    if settings.non_private:
        runs += [(mechanism, None, None) for mechanism in (*settings.mechanisms, SOURCE_ONLY)]
    return [Cell(artifact="slicing-fig2", mechanism=mechanism, dataset=direction,
                 epsilon=epsilon, delta=delta, seed=seed, params=_params(settings))
            for direction, (mechanism, epsilon, delta), seed in itertools.product(
                settings.directions, runs, range(settings.seeds))]


class _StreamShape(TypedDict):
    """The settings that :func:`remaining_stream_sigma` and :class:`SlicingStream` share."""

    records: int
    dim: int
    batch_size: int
    steps: int
    projections: int
    row_norm: float


def _run(cell: Cell, device: str) -> dict[str, object]:
    params: dict = dict(cell.params)
    data = domains(cell.dataset)
    recipe = Adaptation(direction=DIRECTIONS[cell.dataset], loss=LOSSES[cell.mechanism],
                        sigma=None, epochs=int(params["epochs"]),
                        align_from=int(params["align_from"]),
                        projections=int(params["projections"]),
                        batch_size=int(params["batch_size"]))
    steps = alignment_steps(recipe.epochs, recipe.align_from, len(data.source.labels),
                            recipe.batch_size)
    if cell.epsilon is None:
        releases = 0 if recipe.loss is None else steps
        return {**adapt(recipe, data, seed=cell.seed, device=device), "releases": releases,
                "stand_in": True, "private": False}
    assert cell.delta is not None
    ledger = RdpLedger(RdpBudget(epsilon=cell.epsilon, delta=cell.delta,
                                 relation=NeighbourRelation.REPLACE_ONE))
    shape = _StreamShape(records=len(data.target.labels), dim=FEATURES,
                         batch_size=recipe.batch_size, steps=steps,
                         projections=recipe.projections, row_norm=1.0)
    sigma = remaining_stream_sigma(ledger, **shape)
    stream = SlicingStream(**shape, sigma=sigma, ledger=ledger,
                           label=f"{data_name(cell.dataset)}: target features, every step")
    metrics = adapt(dataclasses.replace(recipe, sigma=sigma), data, seed=cell.seed,
                    device=device, release=stream.release)
    if stream.remaining:
        raise RuntimeError(f"{stream.remaining} of the {steps} releases charged were not made")
    return {**metrics, "releases": steps, "stand_in": True, "private": True, "sigma": sigma,
            "spent_epsilon": ledger.spent_epsilon(), "budget_epsilon": ledger.budget.epsilon}


def data_name(direction: str) -> str:
    """``"MNIST -> USPS"`` for ``"mnist-usps"``."""
    task = DIRECTIONS[direction]
    return f"{task.source} -> {task.target}"


ADAPTATION = Experiment(artifact="slicing-fig2", settings=AdaptationSettings,
                        defaults=SETTINGS.__getitem__, cells=_cells, compute=_run)
