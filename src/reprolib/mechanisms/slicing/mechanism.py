"""The slicing mechanism and SliceWass as synthesizers: private preprocessing, one sliced release,
then a generator trained on the release alone (Greenewald, Yu, Wang, Xu; NeurIPS 2024).

``fit`` touches the records in two releases, both charged to a Rényi-DP ledger: the numerical
columns' bounds (:func:`~reprolib.mechanisms.slicing.encoding.private_bounds`) and the k-slicing
release (U, XU + V) of the encoded rows (Definition 5, :func:`reprolib.privacy.slicing_release`),
whose sigma is the smallest that fits what the bounds left of the (epsilon, delta) target
(Theorem 1 composed in RDP with the bounds' zCDP curve). Everything after is post-processing of
the release: Algorithm 1 (the sliced f-divergence of Eq. 5) for the slicing mechanism, the
smoothed sliced Wasserstein distance with k = 1 for SliceWass, then records decoded from the
generator's rows. The paper spends epsilon = 0.5 on preprocessing and does not count it; here it
is counted unless ``count_preprocessing=False``, which charges it to a separate ledger reported
in the diagnostics. With ``sampling_rate`` below 1 the mechanism runs on a Poisson sample in uniformly
random order, as the paper does (rate 0.25), and the ledger holds the base budget that amplifies to the target:
by default through the sample's size, which is valid for this release's same-size neighbours
(:func:`reprolib.privacy.poisson_same_size_base`, proved on the book's slicing privacy page); the
paper's Lemma 1, stated for add/remove neighbours, is the switch ``amplification="lemma-1"``.
With ``per_class`` set, each class of the data's target gets its own release and generator, as
the paper's MNIST experiment trains one generator per digit
(:func:`reprolib.privacy.per_class_slicing_release` accounts for it).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal, get_args

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
from reprolib.mechanisms.slicing.encoding import RowEncoding, RowScaling, private_bounds
from reprolib.mechanisms.slicing.generator import Generator
from reprolib.mechanisms.slicing.training import (
    SlicedRelease,
    TrainingLog,
    TrainingSettings,
    train,
)
from reprolib.privacy import (
    NeighbourRelation,
    PrivacyBudget,
    RdpLedger,
    SlicingCurve,
    eps_to_rho,
    per_class_slicing_release,
    poisson_base,
    poisson_same_size_base,
    remaining_sigma,
    slicing_release,
)

Amplification = Literal["same-size", "lemma-1"]
NumericalBounds = Literal["private", "public"]


@dataclasses.dataclass(frozen=True, kw_only=True)
class SlicingConfig:
    """The slicing mechanism's settings; the paper's where it gives them, ours (marked) where not.

    Attributes:
        slice_dim: k, the dimension of each slice (ours: 2; the paper finds small k > 1 best).
        slices: m; the release has m' = m k projections (ours: m' = 500).
        curve: the Rényi curve accounted: ``"lemma-2"`` (Theorem 1, the paper) or ``"exact"``.
        row_norm: every encoded row's L2 norm is at most this; 0.5 makes same-size neighbours'
            rows at most C = 1 apart, the paper's Definition 1.
        preprocessing_share: the bounds' budget as a share of the target epsilon: their
            release alone is (share * epsilon, delta)-DP (ours: 0.1; the paper spends 0.5 on
            preprocessing beside 5.1 and 8.1).
        count_preprocessing: True (ours): the bounds are paid from the budget; False (the
            paper's convention): they are charged to a separate ledger against the same target,
            whose spend the diagnostics report, and the run as a whole is then not
            (epsilon, delta)-DP for the budget given.
        bounds_bins: bins of each numerical column's private histogram (ours).
        numerical_bounds: ``"private"`` (ours, the paper's preprocessing): the numbers are
            rescaled between differentially private bounds; ``"public"``: their [0, 1] coding
            is public knowledge (pixel intensities, a codebook's range) and is kept, nothing
            spent on bounds.
        row_scaling: ``"columns"`` (the paper's): rows times ``row_norm / sqrt(columns)``;
            ``"unit"``: numbers-only rows (images) scaled to norm ``row_norm`` exactly
            (:class:`~reprolib.mechanisms.slicing.encoding.RowEncoding`).
        per_class: None: one release and one generator for all records (the paper's tables).
            An integer s: one release and one generator per class of the data's first target,
            each on a uniform sample of exactly s records of its class (the paper's Figure 1
            trains one generator per MNIST digit); s is public and should be below every
            class's size (a smaller class is padded with zero rows), and each release is
            calibrated so that two of them (a record that changes label touches its old and
            its new class) spend the budget.
        training: Algorithm 1's settings (the paper's batch, learning rate and epochs).
        latent, hidden: the generator's Gaussian latents and hidden ReLU layers (ours).
        n_synthetic: records released; None: as many as the data has (with ``per_class``,
            split equally over the classes, whose sizes are private).
        sampling_rate: the Poisson sampling rate (1: the whole data; the paper: 0.25).
        amplification: how a sample's budget amplifies: ``"same-size"`` (ours, valid for
            replace-one neighbours) or ``"lemma-1"`` (the paper's, stated for add/remove; it
            does not carry over to this release, so the epsilon it reports is the paper's
            claim, not a proven guarantee: the book's slicing privacy page, erratum 3).
        device: where the generator trains: ``"auto"``, ``"cpu"`` or ``"cuda"``.
    """

    slice_dim: int = 2
    slices: int = 250
    curve: SlicingCurve = "lemma-2"
    row_norm: float = 0.5
    preprocessing_share: float = 0.1
    count_preprocessing: bool = True
    bounds_bins: int = 32
    numerical_bounds: NumericalBounds = "private"
    row_scaling: RowScaling = "columns"
    per_class: int | None = None
    training: TrainingSettings = dataclasses.field(default_factory=TrainingSettings)
    latent: int = 64
    hidden: tuple[int, ...] = (256, 256)
    n_synthetic: int | None = None
    sampling_rate: float = 1.0
    amplification: Amplification = "same-size"
    device: str = "auto"

    def __post_init__(self) -> None:
        for name in ("slice_dim", "slices", "bounds_bins", "latent"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if not self.row_norm > 0:
            raise ValueError(f"row_norm must be positive, got {self.row_norm!r}")
        if not 0 < self.preprocessing_share < 1:
            raise ValueError(f"preprocessing_share must be in (0, 1), got "
                             f"{self.preprocessing_share!r}")
        if not 0 < self.sampling_rate <= 1:
            raise ValueError(f"sampling_rate must be in (0, 1], got {self.sampling_rate!r}")
        if self.amplification not in get_args(Amplification):
            raise ValueError(f"amplification must be one of {get_args(Amplification)}, got "
                             f"{self.amplification!r}")
        if self.n_synthetic is not None and self.n_synthetic < 1:
            raise ValueError(f"n_synthetic must be positive or None, got {self.n_synthetic!r}")
        if self.numerical_bounds not in get_args(NumericalBounds):
            raise ValueError(f"numerical_bounds must be one of {get_args(NumericalBounds)}, got "
                             f"{self.numerical_bounds!r}")
        if self.per_class is not None:
            if isinstance(self.per_class, bool) or not isinstance(self.per_class, int) \
                    or self.per_class < 2:
                raise ValueError(f"per_class must be an integer of at least 2 or None, got "
                                 f"{self.per_class!r}")
            if self.sampling_rate != 1:
                raise ValueError("per_class samples a fixed number of records of each class; "
                                 "leave sampling_rate at 1")
        self._check_loss()

    def _check_loss(self) -> None:
        if self.training.loss != "sliced-f":
            raise ValueError("the slicing mechanism trains on the sliced f-divergence; "
                             "use SliceWass for the sliced Wasserstein loss")


@dataclasses.dataclass(frozen=True, kw_only=True)
class SliceWassConfig(SlicingConfig):
    """SliceWass' settings: the slicing mechanism's with one-dimensional slices (m' = 500) and
    the smoothed sliced Wasserstein loss, as the paper runs it.
    """

    slice_dim: int = 1
    slices: int = 500
    training: TrainingSettings = dataclasses.field(
        default_factory=lambda: TrainingSettings(loss="sliced-wasserstein"))

    def _check_loss(self) -> None:
        if self.slice_dim != 1 or self.training.loss != "sliced-wasserstein":
            raise ValueError("SliceWass compares one-dimensional slices with the sliced "
                             "Wasserstein loss: keep slice_dim=1 and "
                             "training.loss='sliced-wasserstein'")


_TRAITS = MechanismTraits(workload_aware=False, data_aware=False, budget_aware=False,
                          efficiency_aware=False, relation=NeighbourRelation.REPLACE_ONE,
                          data_kind="mixed")


class SlicingMechanism:
    """Algorithm 1 on the k-slicing release of privately encoded records."""

    name = "Slicing"
    traits = _TRAITS

    def __init__(self, config: SlicingConfig | None = None) -> None:
        self.config = config or SlicingConfig()

    def fit(self, data: MixedDataset, budget: PrivacyBudget, rng: np.random.Generator, *,
            workload: Any = None) -> SynthesisResult:
        """Synthetic records of ``data``; the mechanism answers no workload (pass None)."""
        ledger = open_rdp_ledger(self, budget)
        check_mixed_inputs(self, data, workload,
                           no_workload="fits the whole distribution and answers no workload")
        config, device = self.config, resolve_device(self.config.device)
        count = config.n_synthetic or data.records
        per_class = config.per_class
        target = None if per_class is None else _class_attribute(data)
        data, ledger, sampling = _poisson_sample(data, config, ledger, rng)
        features = data if target is None else _without(data, target)
        encoding, uncounted = _private_encoding(features, config, ledger, rng)
        rows = encoding.encode(features)
        projections = config.slices * config.slice_dim
        sigma = remaining_sigma(ledger, dim=rows.shape[1], projections=projections,
                                row_norm=config.row_norm, curve=config.curve,
                                touched=1 if target is None else 2)
        label = f"{projections} projections"
        if per_class is None or target is None:
            releases = [slicing_release(rows, projections=projections, sigma=sigma,
                                        row_norm=config.row_norm, rng=rng, ledger=ledger,
                                        label=label, curve=config.curve)]
        else:
            releases = per_class_slicing_release(
                rows, data.column(target), classes=data.domain.categorical.size(target),
                per_class=per_class, projections=projections, sigma=sigma,
                row_norm=config.row_norm, rng=rng, ledger=ledger,
                label=f"{label} per class, {per_class} records each", curve=config.curve)
        del rows  # from here on only the releases are read
        parts, logs = [], []
        for (directions, outputs), size in zip(releases, _shares(count, len(releases)),
                                               strict=True):
            release = SlicedRelease(directions, outputs, sigma, config.slice_dim)
            sampled, log = self._generate(encoding, release, size, rng, device)
            parts.append(encoding.decode(sampled, features))
            logs.append(log)
        synthetic = parts[0] if target is None else _with_classes(parts, data, target)
        diagnostics = {"sigma": sigma, "projections": projections,
                       "encoded_columns": encoding.layout.width,
                       "spent_epsilon": ledger.spent_epsilon(),
                       "uncounted_preprocessing_epsilon": uncounted, **sampling,
                       "generators": len(logs),
                       "epoch_losses": [float(np.mean(e)) for e in
                                        zip(*(log.epoch_losses for log in logs), strict=True)],
                       "steps": sum(log.steps for log in logs),
                       "training_seconds": sum(log.seconds for log in logs), "device": device}
        return SynthesisResult(synthetic=synthetic, ledger=ledger, diagnostics=diagnostics)

    def _generate(self, encoding: RowEncoding, release: SlicedRelease, count: int,
                  rng: np.random.Generator, device: str) -> tuple[np.ndarray, TrainingLog]:
        """``count`` encoded rows of a generator trained on ``release`` (post-processing)."""
        config = self.config
        with torch.random.fork_rng(devices=[]):  # seeded initial weights, global state untouched
            torch.manual_seed(seed_from(rng))
            generator = Generator(encoding.layout, latent=config.latent, hidden=config.hidden)
        log = train(generator, release, config.training, seed=seed_from(rng), device=device)
        with torch.no_grad():
            sampled = generator.sample(count, torch.Generator(device=device).manual_seed(
                seed_from(rng))).cpu().numpy()
        return sampled, log


class SliceWass(SlicingMechanism):
    """The smoothed sliced Wasserstein generator on the same release with k = 1 (the paper's
    re-implementation of Rakotomamonjy and Ralaivola's method, with its Theorem 1 accounting).
    """

    name = "SliceWass"

    def __init__(self, config: SliceWassConfig | None = None) -> None:
        super().__init__(config or SliceWassConfig())


def _poisson_sample(data: MixedDataset, config: SlicingConfig, ledger: RdpLedger,
                    rng: np.random.Generator) -> tuple[MixedDataset, RdpLedger, dict[str, Any]]:
    """The records the mechanism runs on, the ledger of their base budget, and what the
    diagnostics report of the sampling: the whole data and ``ledger`` at rate 1; else a Poisson
    sample, its records in uniformly random order, and a fresh ledger whose budget amplifies to
    ``ledger``'s. The release has one row per record, so the amplification's proof needs the
    order: a drawn record swapped for an undrawn one must take its row (the book's slicing
    privacy page, the Poisson sampling theorem).
    """
    if config.sampling_rate == 1:
        return data, ledger, {}
    target, rate = ledger.budget, config.sampling_rate
    if config.amplification == "same-size":
        epsilon, delta, size = poisson_same_size_base(target.epsilon, target.delta, rate=rate,
                                                      records=data.records)
        facts: dict[str, Any] = {"typical_sample_size": size}
    else:
        (epsilon, delta), facts = poisson_base(target.epsilon, target.delta, rate), {}
    drawn = np.flatnonzero(rng.random(data.records) < rate)
    sample = data.take(rng.permutation(drawn))
    base = RdpLedger(dataclasses.replace(target, epsilon=epsilon, delta=delta))
    return sample, base, {"sample_records": sample.records, "base_epsilon": epsilon,
                          "base_delta": delta, "amplification": config.amplification, **facts}


def _private_encoding(data: MixedDataset, config: SlicingConfig, ledger: RdpLedger,
                      rng: np.random.Generator) -> tuple[RowEncoding, float]:
    """The row encoding with private (or, if the config says so, public) numerical bounds, and
    the epsilon of the bounds left uncounted (0 when they are paid from the ledger, public, or
    there are no numbers).
    """
    columns = len(data.numerical_names)
    lower, upper = np.zeros(columns), np.ones(columns)
    uncounted = 0.0
    if columns and config.numerical_bounds == "private":
        # rho whose curve rho * alpha is (share * epsilon, delta)-DP by the ledger's (classic)
        # conversion, optimised over continuous orders
        target = ledger.budget
        rho = eps_to_rho(config.preprocessing_share * target.epsilon, target.delta,
                         bound="bun-steinke")
        bounds_ledger = ledger if config.count_preprocessing else RdpLedger(ledger.budget)
        lower, upper = private_bounds(data.numerical, rho=rho, bins=config.bounds_bins, rng=rng,
                                      ledger=bounds_ledger)
        uncounted = 0.0 if config.count_preprocessing else bounds_ledger.spent_epsilon()
    return (RowEncoding(data.domain.categorical.sizes, lower, upper, config.row_norm,
                        config.row_scaling), uncounted)


def _class_attribute(data: MixedDataset) -> str:
    """The attribute whose classes get a generator each: the data's first target."""
    if not data.targets:
        raise ValueError("per_class needs labelled records: the data has no target attribute "
                         "(MixedDataset.targets); set per_class=None for one generator")
    return data.targets[0]


def _without(data: MixedDataset, attribute: str) -> MixedDataset:
    """``data`` without the categorical ``attribute``."""
    kept = [a for a in data.domain.categorical.attributes if a != attribute]
    return MixedDataset(data.categorical.project(kept), data.numerical, data.numerical_names,
                        (), data.source)


def _shares(count: int, parts: int) -> list[int]:
    """``count`` split into ``parts`` near-equal shares, the larger ones first."""
    return [count // parts + (i < count % parts) for i in range(parts)]


def _with_classes(parts: list[MixedDataset], like: MixedDataset, target: str) -> MixedDataset:
    """One dataset of ``like``'s domain from each class's records (class c = ``parts[c]``)."""
    frames = [part.categorical.frame.assign(**{target: c}) for c, part in enumerate(parts)]
    frame = pd.concat(frames, ignore_index=True)[list(like.domain.categorical.attributes)]
    return MixedDataset(Dataset(frame.astype(np.int64), like.domain.categorical,
                                "slicing synthetic"),
                        np.concatenate([part.numerical for part in parts]), like.numerical_names,
                        like.targets, "slicing synthetic")
