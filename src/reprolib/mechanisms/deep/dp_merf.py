"""DP-MERF (Harder, Adamczewski, Park; AISTATS 2021): one noisy release of the data's
class-conditional mean embedding in random Fourier features, then a generator trained to match it.

The embedding (the paper's Section 3, Eq. 5-7) is

    Phi = (1/n) sum_i z(x_i) e_{y_i}^T,    z(x) = [cos(W x), sin(W x)] / sqrt(D/2),

with D/2 frequencies W ~ N(0, I / l^2) (the Gaussian kernel of length scale l, "sphere" features
of the authors' code: every z has norm 1) and e_y the one-hot label. Replacing one record moves
Phi by at most 2/n in Frobenius norm, so ``fit`` releases Phi + N(0, sigma^2) once through
:func:`reprolib.privacy.gaussian_mechanism` with sensitivity 2/n, on a Rényi ledger (the slicing
family's, so the budgets of the methods that Figure 1 of the slicing paper compares convert alike),
sigma the smallest that spends the budget. Training is post-processing: a conditional generator
(the authors' code for balanced labelled data: a code of 5 Gaussian coordinates beside the one-hot
label, labels drawn uniformly, Adam at 0.01 decayed by 0.9 per epoch, batches of 500) minimises
the squared distance between the released embedding and its own batch's.

Records are the data's one-hot categorical blocks (without the label) and its numbers, in the
[0, 1] coding of the :class:`~reprolib.data.MixedDataset`, taken as public (for images: pixel
intensities); the generator outputs one softmax per block and a sigmoid per number. Two
generators, the authors' two (``code_balanced/models_gen.py``), selected by ``generator``:
``"fc"``, their ``FCCondGen`` (two hidden layers with batch normalisation), for any records, and
``"conv"``, their ``ConvCondGen``, which their labelled-data script uses for every image set
(MNIST, Fashion-MNIST): records that are square greyscale images. The labels of the synthetic
records are uniform, as the authors' balanced code draws them: class sizes are not released.

:data:`TABULAR` switches to the authors' code for tabular data (``code_tab``): the class
proportions are released too (sensitivity sqrt(2)/n, the same noise multiplier as the
embedding's, the two releases spending the budget together) and labels are drawn from them; the
label features are the one-hot label divided by the noisy proportions, so every class weighs
alike in the loss; the embedding is "mixed": Fourier features of the numbers beside the one-hot
blocks divided by sqrt(blocks), so a record's features have norm up to sqrt(2) and the
embedding's sensitivity is 2 sqrt(2)/n; 2,000 features, a code of 10, hidden widths 4 and 2 times
the record's width, one Adam step at 0.01 per epoch on a batch of 10 % of the records, 200
epochs. Theirs sets the kernel's width by the median distance of held-out records; ours, which
reads no record, is the typical distance sqrt(p / 6) of points uniform in [0, 1]^p.
"""

from __future__ import annotations

import dataclasses
import math
import time
from fractions import Fraction
from typing import Any, Literal

import numpy as np
import pandas as pd
import torch

from reprolib._device import resolve_device
from reprolib.data import Dataset, MixedDataset
from reprolib.mechanisms._base import (
    MechanismTraits,
    SynthesisResult,
    check_mixed_inputs,
    open_rdp_ledger,
    seed_from,
)
from reprolib.mechanisms._mixed_output import mixed_rows
from reprolib.privacy import (
    NeighbourRelation,
    PrivacyBudget,
    gaussian_mechanism,
    remaining_gaussian_sigma,
)
from reprolib.privacy._exact import round_up, sqrt_up

CHUNK = 1024
"""Records embedded at a time (bounds the memory of the n x D feature matrix)."""

Labels = Literal["uniform", "private"]
Embedding = Literal["rff", "mixed"]
Generator = Literal["fc", "conv"]
SMALLEST_WEIGHT = 1e-3
"""A noisy class proportion below this is raised to it (the authors' code)."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class DPMERFConfig:
    """DP-MERF's settings: the authors' code's defaults for labelled data (``code_balanced``);
    :data:`TABULAR` holds their tabular code's.

    Attributes:
        features: D, the random Fourier features (the authors: 10,000).
        length_scale: l, the Gaussian kernel's length scale in the [0, 1] coding; the authors'
            MNIST value is sqrt(105) (their ``rff_sigma`` 105 is l squared). None: sqrt(p / 6)
            for the p columns it applies to (ours).
        code: Gaussian inputs of the generator beside the one-hot label (the authors: 5).
        generator: ``"fc"`` (fully connected, any records) or ``"conv"`` (the authors' image
            generator: records must be square greyscale images whose side is a multiple of 4).
        hidden: the generator's hidden widths. ``"fc"``: two (the authors: 200 for their
            ``gen_spec``; a second width is ours, as wide as the first; None: 4 and 2 times the
            width of a record, their tabular code). ``"conv"``: the first is the width of its
            one hidden layer (the authors: 200).
        channels, kernels: ``"conv"``'s feature maps: the channels of the map the hidden layer
            is reshaped to and of the first convolution's output, and the two convolutions'
            kernel sizes (the authors: 16, 8 and 5, 5).
        batch_size, epochs, learning_rate, decay: Adam on batches of generated records, n //
            batch_size steps per epoch, the rate times ``decay`` after each epoch (the
            authors: 500, 5, 0.01, 0.9).
        batch_fraction: if set, one step per epoch on a batch of this share of the records
            (their tabular code: 0.1) instead of ``batch_size``.
        labels: ``"uniform"`` (balanced, class sizes not released) or ``"private"`` (the class
            proportions released beside the embedding and the labels drawn from them).
        embedding: ``"rff"``: Fourier features of the whole record (one-hot blocks and
            numbers); ``"mixed"``: Fourier features of the numbers beside the one-hot blocks.
        n_synthetic: records released (None: as many as the data has).
        device: where the generator trains: ``"auto"``, ``"cpu"`` or ``"cuda"``.
    """

    features: int = 10_000
    length_scale: float | None = math.sqrt(105.0)
    code: int = 5
    generator: Generator = "fc"
    hidden: tuple[int, int] | None = (200, 200)
    channels: tuple[int, int] = (16, 8)
    kernels: tuple[int, int] = (5, 5)
    batch_size: int = 500
    epochs: int = 5
    learning_rate: float = 0.01
    decay: float = 0.9
    batch_fraction: float | None = None
    labels: Labels = "uniform"
    embedding: Embedding = "rff"
    n_synthetic: int | None = None
    device: str = "auto"

    def __post_init__(self) -> None:
        if self.features < 2 or self.features % 2:
            raise ValueError(f"features must be an even number of at least 2 (cosines and "
                             f"sines), got {self.features!r}")
        if self.length_scale is not None and not self.length_scale > 0:
            raise ValueError(f"length_scale must be positive or None, got {self.length_scale!r}")
        for name in ("code", "batch_size", "epochs"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)!r}")
        if self.hidden is not None and (len(self.hidden) != 2 or min(self.hidden) < 1):
            raise ValueError(f"hidden must be two positive widths or None, got {self.hidden!r}")
        if self.batch_fraction is not None and not 0 < self.batch_fraction <= 1:
            raise ValueError(f"batch_fraction must lie in (0, 1], got {self.batch_fraction!r}")
        if self.labels not in ("uniform", "private"):
            raise ValueError(f"labels must be 'uniform' or 'private', got {self.labels!r}")
        if self.embedding not in ("rff", "mixed"):
            raise ValueError(f"embedding must be 'rff' or 'mixed', got {self.embedding!r}")
        if self.generator not in ("fc", "conv"):
            raise ValueError(f"generator must be 'fc' or 'conv', got {self.generator!r}")
        if self.generator == "conv" and self.hidden is None:
            raise ValueError("the conv generator needs its hidden width (hidden)")
        if min(self.channels) < 1 or min(self.kernels) < 1 or not all(k % 2 for k in self.kernels):
            raise ValueError(f"channels must be positive and kernels positive odd sizes, got "
                             f"{self.channels!r} and {self.kernels!r}")


TABULAR: dict[str, Any] = {"features": 2000, "code": 10, "hidden": None, "epochs": 200,
                           "batch_fraction": 0.1, "learning_rate": 0.01, "decay": 1.0,
                           "labels": "private", "embedding": "mixed", "length_scale": None}
"""The overrides of the authors' tabular code (``code_tab/single_generator_priv_all.py``)."""


_TRAITS = MechanismTraits(workload_aware=False, data_aware=False, budget_aware=False,
                          efficiency_aware=False, relation=NeighbourRelation.REPLACE_ONE,
                          data_kind="mixed")


class DPMERF:
    """DP-MERF on labelled mixed-type records (the label: the data's first target)."""

    name = "DP-MERF"
    traits = _TRAITS

    def __init__(self, config: DPMERFConfig | None = None) -> None:
        self.config = config or DPMERFConfig()

    def fit(self, data: MixedDataset, budget: PrivacyBudget, rng: np.random.Generator, *,
            workload: Any = None) -> SynthesisResult:
        """Synthetic labelled records of ``data``; the mechanism answers no workload."""
        ledger = open_rdp_ledger(self, budget)
        check_mixed_inputs(self, data, workload,
                           no_workload="fits the whole distribution and answers no workload")
        if not data.targets:
            raise ValueError("DP-MERF embeds labelled records: the data has no target attribute "
                             "(MixedDataset.targets)")
        config, device = self.config, resolve_device(self.config.device)
        target = data.targets[0]
        classes = data.domain.categorical.size(target)
        blocks = tuple(data.domain.categorical.size(a)
                       for a in data.domain.categorical.attributes if a != target)
        numbers = len(data.numerical_names)
        width = sum(blocks) + numbers
        if config.generator == "conv":
            _image_side(blocks, numbers)  # refuse records that are not images before any release
        features = FeatureMap.draw(blocks, numbers, config, rng)
        labels = data.column(target)
        weights = None
        if config.labels == "private":  # the proportions, at the embedding's noise multiplier
            multiplier = remaining_gaussian_sigma(ledger, sqrt_up(2))  # two releases' worth
            sensitivity = sqrt_up(Fraction(2, data.records**2))
            weights = gaussian_mechanism(
                np.bincount(labels, minlength=classes) / data.records,
                sigma=round_up(Fraction(multiplier) * Fraction(sensitivity)),
                sensitivity=sensitivity, rng=rng, ledger=ledger, label="class proportions")
            weights = np.maximum(weights, SMALLEST_WEIGHT)
        embedding = features.mean_embedding(_rows(data, target), labels, classes)
        sensitivity = round_up(2 * Fraction(features.largest_norm) / data.records)
        sigma = remaining_gaussian_sigma(ledger, sensitivity)
        released = gaussian_mechanism(embedding, sigma=sigma, sensitivity=sensitivity, rng=rng,
                                      ledger=ledger, label="mean embedding")
        count = config.n_synthetic or data.records
        generator, log = _train(released, features, weights, blocks, numbers, classes,
                                data.records, config, seed_from(rng), device)
        if weights is None:
            synthetic_labels = np.arange(count) % classes
        else:
            synthetic_labels = rng.choice(classes, size=count, p=weights / weights.sum())
        rows = _generate(generator, synthetic_labels, classes, config.code, seed_from(rng),
                         device)
        diagnostics = {"sigma": sigma, "features": config.features, "encoded_columns": width,
                       "spent_epsilon": ledger.spent_epsilon(), **log, "device": device}
        return SynthesisResult(synthetic=_decode(rows, synthetic_labels, blocks, data, target),
                               ledger=ledger, diagnostics=diagnostics)


@dataclasses.dataclass(frozen=True, eq=False)
class FeatureMap:
    """z(x) of an encoded record (one-hot blocks, then numbers): ``"rff"`` maps the whole
    record to D/2 cosines and sines over sqrt(D/2) (norm 1); ``"mixed"`` maps the numbers so and
    appends the blocks over sqrt(number of blocks) (norm 1 each part).
    """

    frequencies: np.ndarray
    mode: Embedding
    block_width: int
    blocks: int

    @classmethod
    def draw(cls, blocks: tuple[int, ...], numbers: int, config: DPMERFConfig,
             rng: np.random.Generator) -> FeatureMap:
        """Frequencies W ~ N(0, I / l^2) over the columns the Fourier features read."""
        inputs = sum(blocks) + numbers if config.embedding == "rff" else numbers
        scale = config.length_scale or math.sqrt(max(inputs, 1) / 6.0)
        frequencies = rng.normal(0.0, 1.0 / scale, size=(config.features // 2, inputs))
        return cls(frequencies, config.embedding, sum(blocks), len(blocks))

    @property
    def largest_norm(self) -> float:
        """The largest norm of z(x): 1, or sqrt(2), rounded up, for mixed records with both parts."""
        if self.mode == "rff":
            return 1.0
        return sqrt_up((self.frequencies.shape[1] > 0) + (self.blocks > 0))

    def __call__(self, rows: torch.Tensor) -> torch.Tensor:
        """Z of each row of ``rows`` (records x encoded width)."""
        frequencies = torch.as_tensor(self.frequencies, dtype=rows.dtype, device=rows.device)
        fourier = rows if self.mode == "rff" else rows[:, self.block_width:]
        parts = []
        if fourier.shape[1]:
            phase = fourier @ frequencies.T
            parts.append(torch.cat([torch.cos(phase), torch.sin(phase)], dim=1)
                         / math.sqrt(len(self.frequencies)))
        if self.mode == "mixed" and self.blocks:
            parts.append(rows[:, :self.block_width] / math.sqrt(self.blocks))
        return torch.cat(parts, dim=1)

    def mean_embedding(self, rows: np.ndarray, labels: np.ndarray, classes: int) -> np.ndarray:
        """Phi (features x classes): the mean over records of z(x) e_y^T, summed in chunks in
        float64 and scaled once at the end.
        """
        fourier = rows if self.mode == "rff" else rows[:, self.block_width:]
        parts = []
        if fourier.shape[1]:
            total = np.zeros((2 * len(self.frequencies), classes))
            for start in range(0, len(rows), CHUNK):
                phase = fourier[start:start + CHUNK] @ self.frequencies.T
                total += np.concatenate([np.cos(phase), np.sin(phase)], axis=1).T \
                    @ np.eye(classes)[labels[start:start + CHUNK]]
            parts.append(total / (math.sqrt(len(self.frequencies)) * len(rows)))
        if self.mode == "mixed" and self.blocks:
            one_hot = rows[:, :self.block_width].T @ np.eye(classes)[labels]
            parts.append(one_hot / (math.sqrt(self.blocks) * len(rows)))
        return np.concatenate(parts, axis=0)


class _ConditionalGenerator(torch.nn.Module):
    """The authors' ``FCCondGen``: [code, one-hot label] -> two hidden layers with batch
    normalisation and ReLU -> one softmax per block, a sigmoid per number.
    """

    def __init__(self, code: int, classes: int, hidden: tuple[int, int],
                 blocks: tuple[int, ...], numbers: int) -> None:
        super().__init__()
        self.blocks = blocks
        self.network = torch.nn.Sequential(
            torch.nn.Linear(code + classes, hidden[0]), torch.nn.BatchNorm1d(hidden[0]),
            torch.nn.ReLU(), torch.nn.Linear(hidden[0], hidden[1]),
            torch.nn.BatchNorm1d(hidden[1]), torch.nn.ReLU(),
            torch.nn.Linear(hidden[1], sum(blocks) + numbers))

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        return mixed_rows(self.network(inputs), self.blocks)


class _ConvConditionalGenerator(torch.nn.Module):
    """The authors' ``ConvCondGen`` for side x side greyscale images: [code, one-hot label] ->
    a hidden layer (batch normalisation, ReLU) -> a linear layer with batch normalisation,
    reshaped to ``channels[0]`` maps of side / 4 -> bilinear upsampling x2, a convolution to
    ``channels[1]`` maps, ReLU -> upsampling x2, a convolution to one map -> a sigmoid per pixel.
    The convolutions pad to keep their input's size.
    """

    def __init__(self, code: int, classes: int, hidden: int, side: int,
                 channels: tuple[int, int], kernels: tuple[int, int]) -> None:
        super().__init__()
        self.channels, self.quarter = channels[0], side // 4
        maps = channels[0] * self.quarter ** 2
        self.dense = torch.nn.Sequential(
            torch.nn.Linear(code + classes, hidden), torch.nn.BatchNorm1d(hidden),
            torch.nn.ReLU(), torch.nn.Linear(hidden, maps), torch.nn.BatchNorm1d(maps))
        self.image = torch.nn.Sequential(
            torch.nn.UpsamplingBilinear2d(scale_factor=2),
            torch.nn.Conv2d(channels[0], channels[1], kernels[0], padding=kernels[0] // 2),
            torch.nn.ReLU(), torch.nn.UpsamplingBilinear2d(scale_factor=2),
            torch.nn.Conv2d(channels[1], 1, kernels[1], padding=kernels[1] // 2))

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        maps = self.dense(inputs).reshape(-1, self.channels, self.quarter, self.quarter)
        return torch.sigmoid(self.image(maps).flatten(start_dim=1))


def _image_side(blocks: tuple[int, ...], numbers: int) -> int:
    """The side of the square images the conv generator emits; refuses records that are not."""
    side = math.isqrt(numbers)
    if blocks or side * side != numbers or side % 4:
        raise ValueError(f"the conv generator emits square greyscale images whose side is a "
                         f"multiple of 4; these records have {len(blocks)} categorical "
                         f"attribute(s) beside the label and {numbers} numbers: use "
                         "generator='fc'")
    return side


def _build_generator(blocks: tuple[int, ...], numbers: int, classes: int,
                     config: DPMERFConfig) -> torch.nn.Module:
    """The configured generator for records of ``blocks`` one-hot blocks and ``numbers`` numbers."""
    if config.generator == "conv":
        assert config.hidden is not None  # checked by the config
        return _ConvConditionalGenerator(config.code, classes, config.hidden[0],
                                         _image_side(blocks, numbers), config.channels,
                                         config.kernels)
    width = sum(blocks) + numbers
    hidden = config.hidden or (4 * width, 2 * width)
    return _ConditionalGenerator(config.code, classes, hidden, blocks, numbers)


def _rows(data: MixedDataset, target: str) -> np.ndarray:
    """One-hot blocks of every categorical attribute but ``target``, then the numbers."""
    codes = data.categorical.frame
    parts = [np.eye(data.domain.categorical.size(a))[codes[a].to_numpy()]
             for a in data.domain.categorical.attributes if a != target]
    return np.concatenate([*parts, data.numerical], axis=1)


def _inputs(labels: torch.Tensor, classes: int, code: int, noise: torch.Generator
            ) -> torch.Tensor:
    latent = torch.randn(len(labels), code, generator=noise, device=labels.device)
    return torch.cat([latent, torch.nn.functional.one_hot(labels, classes).float()], dim=1)


def _train(released: np.ndarray, features: FeatureMap, weights: np.ndarray | None,
           blocks: tuple[int, ...], numbers: int, classes: int, records: int,
           config: DPMERFConfig, seed: int, device: str
           ) -> tuple[torch.nn.Module, dict[str, Any]]:
    """The generator whose batches' embeddings match ``released`` (post-processing only); with
    ``weights`` (released proportions) labels are drawn from them and both embeddings' label
    columns are divided by them.
    """
    with torch.random.fork_rng(devices=[]):  # seeded initial weights, global state untouched
        torch.manual_seed(seed)
        generator = _build_generator(blocks, numbers, classes, config).to(device)
    scale = torch.ones(classes, device=device) if weights is None else \
        torch.as_tensor(weights, dtype=torch.float32, device=device)
    target = torch.as_tensor(released, dtype=torch.float32, device=device) / scale
    noise = torch.Generator(device=device).manual_seed(seed)
    optimiser = torch.optim.Adam(generator.parameters(), lr=config.learning_rate)
    schedule = torch.optim.lr_scheduler.StepLR(optimiser, step_size=1, gamma=config.decay)
    if config.batch_fraction is None:
        batch, steps = config.batch_size, max(records // config.batch_size, 1)
    else:
        batch, steps = max(round(config.batch_fraction * records), 2), 1
    started, losses = time.perf_counter(), []
    for _ in range(config.epochs):
        for _ in range(steps):
            if weights is None:
                labels = torch.randint(classes, (batch,), generator=noise, device=device)
            else:
                labels = torch.multinomial(scale, batch, replacement=True, generator=noise)
            rows = generator(_inputs(labels, classes, config.code, noise))
            one_hot = torch.nn.functional.one_hot(labels, classes).float() / scale
            loss = ((target - features(rows).T @ one_hot / len(labels)) ** 2).sum()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
        losses.append(float(loss.detach()))
        schedule.step()
    return generator, {"epoch_losses": losses, "steps": steps * config.epochs,
                       "training_seconds": time.perf_counter() - started}


def _generate(generator: torch.nn.Module, labels: np.ndarray, classes: int, code: int,
              seed: int, device: str) -> np.ndarray:
    generator.eval()
    noise = torch.Generator(device=device).manual_seed(seed)
    with torch.no_grad():
        given = torch.as_tensor(labels, device=device)
        return generator(_inputs(given, classes, code, noise)).cpu().numpy().astype(float)


def _decode(rows: np.ndarray, labels: np.ndarray, blocks: tuple[int, ...], like: MixedDataset,
            target: str) -> MixedDataset:
    """Records of ``like``'s domain: each block's largest entry, the numbers clipped to [0, 1]."""
    codes, start = {target: labels}, 0
    others = [a for a in like.domain.categorical.attributes if a != target]
    for attribute, size in zip(others, blocks, strict=True):
        codes[attribute] = rows[:, start:start + size].argmax(axis=1)
        start += size
    frame = pd.DataFrame({a: codes[a].astype(np.int64)
                          for a in like.domain.categorical.attributes})
    return MixedDataset(Dataset(frame, like.domain.categorical, "DP-MERF synthetic"),
                        np.clip(rows[:, start:], 0.0, 1.0), like.numerical_names, like.targets,
                        "DP-MERF synthetic")
