"""Algorithm 1 of the slicing paper: train a generator on a sliced release, as post-processing.

:func:`train` reads nothing but a :class:`SlicedRelease` (the released directions U and noisy
projections XU + V, with the noise scale sigma that the mechanism published alongside), so no
privacy is spent however long it trains. Each step takes a batch of b released rows with all
their m slices, projects b generated rows on the same directions, adds fresh smoothing noise of
the same sigma, and descends the loss: the sliced f-divergence of Eq. 5 (the paper's method,
any k) or the smoothed sliced Wasserstein distance (SliceWass, k = 1).
"""

from __future__ import annotations

import dataclasses
import math
import time
from typing import Literal

import numpy as np
import torch

from reprolib.mechanisms.slicing.divergences import (
    Divergence,
    sliced_f_divergence,
    sliced_wasserstein,
)
from reprolib.mechanisms.slicing.generator import Generator

Loss = Literal["sliced-f", "sliced-wasserstein"]


@dataclasses.dataclass(frozen=True, eq=False)
class SlicedRelease:
    """What the slicing mechanism publishes: U (d x m'), XU + V (n x m'), sigma and k."""

    directions: np.ndarray
    projections: np.ndarray
    sigma: float
    slice_dim: int

    def __post_init__(self) -> None:
        columns = self.directions.shape[1]
        if self.projections.shape[1] != columns or columns % self.slice_dim:
            raise ValueError(f"{columns} released projections do not split into slices of "
                             f"{self.slice_dim}, or do not match outputs {self.projections.shape}")

    @property
    def slices(self) -> int:
        """m: the number of k-dimensional slices."""
        return self.directions.shape[1] // self.slice_dim


@dataclasses.dataclass(frozen=True, kw_only=True)
class TrainingSettings:
    """Algorithm 1's knobs: the paper's batch size, learning rate and epochs; ours where it
    gives none (optimiser Adam, f = Pearson chi^2, tau, the bandwidth ensemble, SliceWass' p).
    """

    loss: Loss = "sliced-f"
    divergence: Divergence = "pearson"
    tau: float = 1e-3
    multipliers: tuple[float, ...] = (0.5, 1.0, 2.0)
    wasserstein_p: float = 2.0
    batch_size: int = 128
    learning_rate: float = 2e-5
    epochs: int = 200


@dataclasses.dataclass(frozen=True)
class TrainingLog:
    """Mean loss per epoch, steps taken and the seconds they took."""

    epoch_losses: tuple[float, ...]
    steps: int
    seconds: float


def batch_loss(generator: Generator, release_rows: torch.Tensor, directions: torch.Tensor,
               release: SlicedRelease, settings: TrainingSettings,
               noise: torch.Generator) -> torch.Tensor:
    """The loss of one batch: ``release_rows`` (b x m') against as many generated rows."""
    synthetic = generator.sample(release_rows.shape[0], noise)
    return projection_loss(release_rows, synthetic, directions, sigma=release.sigma,
                           slice_dim=release.slice_dim, settings=settings, noise=noise)


def projection_loss(release_rows: torch.Tensor, rows: torch.Tensor, directions: torch.Tensor,
                    *, sigma: float, slice_dim: int, settings: TrainingSettings,
                    noise: torch.Generator) -> torch.Tensor:
    """The settings' loss between released rows (b x m') and ``rows`` (b' x d) projected on
    the same directions (d x m') plus fresh smoothing noise of the release's sigma; m' splits
    into slices of ``slice_dim`` columns.
    """
    projected = rows @ directions
    projected = projected + sigma * torch.randn(projected.shape, generator=noise,
                                                device=projected.device)
    m = directions.shape[1] // slice_dim
    real = release_rows.reshape(release_rows.shape[0], m, slice_dim).transpose(0, 1)
    fake = projected.reshape(projected.shape[0], m, slice_dim).transpose(0, 1)
    if settings.loss == "sliced-wasserstein":
        return sliced_wasserstein(real, fake, p=settings.wasserstein_p)
    return sliced_f_divergence(real, fake, divergence=settings.divergence, tau=settings.tau,
                               multipliers=settings.multipliers)


def train(generator: Generator, release: SlicedRelease, settings: TrainingSettings, *,
          seed: int, device: str = "cpu") -> TrainingLog:
    """Fit ``generator`` (in place) to ``release``; batches of b rows without replacement each
    epoch (a last batch of fewer than two rows is dropped), Adam at the settings' rate.
    """
    if settings.loss == "sliced-wasserstein" and release.slice_dim != 1:
        raise ValueError("SliceWass' loss compares 1-D slices: release with k = 1")
    generator.to(device)
    rows = torch.as_tensor(release.projections, dtype=torch.float32, device=device)
    directions = torch.as_tensor(release.directions, dtype=torch.float32, device=device)
    order = np.random.default_rng(seed)
    noise = torch.Generator(device=device).manual_seed(seed)
    optimiser = torch.optim.Adam(generator.parameters(), lr=settings.learning_rate)
    started, losses, steps = time.perf_counter(), [], 0
    for _ in range(settings.epochs):
        permutation = torch.as_tensor(order.permutation(len(rows)), device=device)
        total, batches = torch.zeros((), device=device), 0
        for start in range(0, len(rows), settings.batch_size):
            index = permutation[start:start + settings.batch_size]
            if len(index) < 2:
                continue
            loss = batch_loss(generator, rows[index], directions, release, settings, noise)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total, batches, steps = total + loss.detach(), batches + 1, steps + 1
        losses.append(float(total) / max(batches, 1))  # one host synchronisation an epoch
        if not math.isfinite(losses[-1]):
            raise FloatingPointError(f"the training loss of epoch {len(losses)} is "
                                     f"{losses[-1]}: lower the learning rate or raise tau")
    return TrainingLog(tuple(losses), steps, time.perf_counter() - started)
