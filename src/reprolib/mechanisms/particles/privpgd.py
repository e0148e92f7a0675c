"""PrivPGD (Donhauser, Abad, Hulkund, Yang, ICML 2024): all 2-way marginals + particle descent.

Pipeline (paper, Algorithm 1 with Algorithm 3 as the generator):

1. measure every 2-way marginal's counts with one Gaussian mechanism (replace-one neighbours:
   L2 sensitivity sqrt(2) per marginal, sqrt(2 * C(d, 2)) for the concatenation), and, with a
   :class:`ThresholdConstraint`, one smooth thresholding statistic (sensitivity 1/n);
2. projection (Eq. 5): each noisy marginal, divided by the public n, becomes the probability
   vector closest to it in SW1; quantisation (Eq. 6) turns it into m points;
3. optimisation (Eq. 7): m particles, uniform in [0, 1]^d, follow the SW2^2 gradients;
4. finalisation: every coordinate goes to the nearest bin centre, giving m records.

Only step 1 touches the data; the rest is post-processing (paper, Lemma 3.2).
"""

from __future__ import annotations

import dataclasses
import math
import time
from fractions import Fraction
from typing import TYPE_CHECKING, ClassVar, Literal

import numpy as np
import pandas as pd
import torch

from reprolib._device import resolve_device
from reprolib.data import Dataset, embed
from reprolib.mechanisms._base import (
    MechanismTraits,
    SynthesisResult,
    check_inputs,
    open_ledger,
    seed_from,
)
from reprolib.mechanisms._two_way import Pair, all_pairs, measure_pairs
from reprolib.mechanisms.particles._descent import (
    ThresholdPenalty,
    particle_descent,
    smooth_threshold,
)
from reprolib.mechanisms.particles._projection import (
    padded_grid,
    project_to_probabilities,
    quantise,
)
from reprolib.privacy import (
    Ledger,
    NeighbourRelation,
    PrivacyBudget,
    eps_to_rho,
    gaussian_mechanism,
    gaussian_sigma,
    marginal_l2_sensitivity,
    split_budget,
)
from reprolib.privacy._exact import round_up

if TYPE_CHECKING:
    from reprolib.queries import Workload

Calibration = Literal["paper", "code"]
CALIBRATIONS: tuple[Calibration, ...] = ("paper", "code")


@dataclasses.dataclass(frozen=True, kw_only=True)
class ThresholdConstraint:
    """Section 4.4 / App. B: keep the synthetic data away from one thresholding statistic.

    The statistic is ``mean_i sigmoid(sharpness * (<theta, Emb(x_i)> - threshold))`` in the
    embedding space; its DP estimate enters the penalty of Eq. (12) with weight ``strength``.

    Attributes:
        theta: one weight per attribute, in domain order.
        threshold: b (the authors' tau).
        strength: the regularisation weight (the authors' ``scale_reg``; paper sweep 1e-2..10).
        sharpness: the sigmoid's s (paper: 5.0).
        budget_fraction: share of (epsilon, delta) for the statistic; the paper gives it
            (0.5, 2e-6) of (2.5, 1e-5), i.e. 0.2 of each.
    """

    theta: tuple[float, ...]
    threshold: float
    strength: float
    sharpness: float = 5.0
    budget_fraction: float = 0.2

    def __post_init__(self) -> None:
        if not 0.0 < self.budget_fraction < 1.0:
            raise ValueError(f"budget_fraction must be in (0, 1), got {self.budget_fraction}")
        if self.strength < 0.0 or self.sharpness <= 0.0:
            raise ValueError("strength must be >= 0 and sharpness > 0")


@dataclasses.dataclass(frozen=True, kw_only=True)
class PrivPGDConfig:
    """PrivPGD's settings; the defaults are the paper's (Section 4.1, "Implementation").

    Attributes:
        n_particles: m, the number of particles and of synthetic records (paper: 100k).
        epochs: passes over all marginals (paper: 1000).
        batch_size: marginals per gradient step (paper: 5).
        n_directions: random directions per marginal per step for SW2^2 (paper: N_MC = 10).
        lr, lr_step, lr_gamma: particle learning rate lr * lr_gamma ** (epoch // lr_step)
            (paper: 0.1, 50, 0.75).
        mask_fraction: share of gradient entries zeroed at random each step (paper: 0.8).
        projection_iterations: Adam steps of the projection (paper: 1750).
        projection_directions: directions per projection step for SW1 (paper: 200).
        projection_lr, projection_lr_step, projection_lr_gamma: the projection's learning rate
            schedule, per iteration (paper: 0.1, 100, 0.8).
        calibration: ``"paper"`` calibrates the noise from the budget's rho, spending it exactly
            (the paper states (epsilon, delta)-DP but no formula; the budget's conversion is CKS
            by default). ``"code"`` reproduces the authors' released noise: the sensitivity-1
            sigma (sqrt(2L + 2 eps) + sqrt(2L)) / (2 eps), L = ln(1/delta), which is rho-zCDP
            with the Bun-Steinke conversion; it adds more noise and leaves the rest of a CKS
            budget unspent (reported in ``diagnostics["rho_unspent"]``).
        constraint: the optional domain-specific penalty of Section 4.4.
        device: ``"auto"``, ``"cpu"`` or ``"cuda"``.
    """

    n_particles: int = 100_000
    epochs: int = 1000
    batch_size: int = 5
    n_directions: int = 10
    lr: float = 0.1
    lr_step: int = 50
    lr_gamma: float = 0.75
    mask_fraction: float = 0.8
    projection_iterations: int = 1750
    projection_directions: int = 200
    projection_lr: float = 0.1
    projection_lr_step: int = 100
    projection_lr_gamma: float = 0.8
    calibration: Calibration = "paper"
    constraint: ThresholdConstraint | None = None
    device: str = "auto"

    def __post_init__(self) -> None:
        positive = ("n_particles", "batch_size", "n_directions", "projection_directions",
                    "lr_step", "projection_lr_step")
        for name in positive:
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        for name in ("epochs", "projection_iterations"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")
        if self.lr <= 0 or self.projection_lr <= 0:
            raise ValueError("learning rates must be > 0")
        if not (0 < self.lr_gamma <= 1 and 0 < self.projection_lr_gamma <= 1):
            raise ValueError("learning-rate decay factors must be in (0, 1]")
        if not 0.0 <= self.mask_fraction < 1.0:
            raise ValueError(f"mask_fraction must be in [0, 1), got {self.mask_fraction}")
        if self.calibration not in CALIBRATIONS:
            raise ValueError(f"calibration must be one of {CALIBRATIONS}, "
                             f"got {self.calibration!r}")


@dataclasses.dataclass(frozen=True, kw_only=True)
class Allocation:
    """The zCDP spend of each release and the (epsilon, delta) conversion it was derived with."""

    rho_marginals: float
    rho_constraint: float | None
    bound: str


@dataclasses.dataclass(frozen=True, kw_only=True)
class PrivPGDLog:
    """What a run released and built, for audits and plots.

    Attributes:
        pairs: the measured attribute pairs, in measurement order.
        noisy: noisy counts of each pair (shaped like ``Dataset.marginal``).
        projected: each pair's projected probability vector (same shape).
        loss_history: per epoch, the sum over marginals of the latest SW2^2 estimate.
        constraint_estimate: the DP estimate of the constraint's statistic, if any.
    """

    pairs: tuple[Pair, ...]
    noisy: dict[Pair, np.ndarray]
    projected: dict[Pair, np.ndarray]
    loss_history: np.ndarray
    constraint_estimate: float | None = None


def allocate(budget: PrivacyBudget, calibration: Calibration,
             constraint_fraction: float | None = None) -> Allocation:
    """Split ``budget`` between the marginals and the optional constraint statistic.

    ``"paper"`` spends ``budget.rho`` exactly; with a constraint, the two releases get rho in the
    ratio of their (epsilon, delta) shares, converted with the budget's bound (zCDP composition is
    tighter than the paper's basic composition, so both get more than their share alone), split by
    :func:`reprolib.privacy.split_budget` so the two never add up to more than rho; the
    constraint, released second, then spends what the ledger has left.
    ``"code"`` spends rho_BS(epsilon, delta) (or rho_BS of each share), the authors' calibration.
    """
    if calibration == "paper" and constraint_fraction is None:
        return Allocation(rho_marginals=budget.rho, rho_constraint=None, bound=budget.bound)
    if budget.epsilon is None or budget.delta is None:
        raise ValueError("this split needs the budget's (epsilon, delta); build it with "
                         "PrivacyBudget.from_epsilon_delta")
    bound = budget.bound if calibration == "paper" else "bun-steinke"
    eps, delta = budget.epsilon, budget.delta
    if constraint_fraction is None:  # "code" without a constraint
        return Allocation(rho_marginals=eps_to_rho(eps, delta, bound=bound), rho_constraint=None,
                          bound=bound)
    share = constraint_fraction
    rho_c = eps_to_rho(share * eps, share * delta, bound=bound)
    rho_m = eps_to_rho((1 - share) * eps, (1 - share) * delta, bound=bound)
    if calibration == "code":
        return Allocation(rho_marginals=rho_m, rho_constraint=rho_c, bound=bound)
    rho_marginals, rho_constraint = split_budget(budget.rho, (rho_m, rho_c))
    return Allocation(rho_marginals=rho_marginals, rho_constraint=rho_constraint, bound=bound)


def nearest_codes(particles: np.ndarray, sizes: tuple[int, ...]) -> np.ndarray:
    """Finalisation: each coordinate z goes to the nearest bin centre, code min(floor(z k), k-1)."""
    k = np.asarray(sizes)
    return np.minimum(np.floor(particles * k), k - 1).clip(min=0).astype(np.int64)


class PrivPGD:
    """PrivPGD with all 2-way marginals (the paper's experimental setting).

    Traits: it measures the same marginals whatever the workload, the data and the budget (not
    workload-, data- or budget-aware). It is efficiency-aware: its model is m particles, whose
    size does not grow with the measured marginals' domains, and each step costs
    O(batch * N_MC * m log m) (Section 3.3), so it stays tractable where a graphical model's
    junction tree would not.
    """

    name: ClassVar[str] = "PrivPGD"
    traits: ClassVar[MechanismTraits] = MechanismTraits(
        workload_aware=False, data_aware=False, budget_aware=False, efficiency_aware=True,
        relation=NeighbourRelation.REPLACE_ONE,
    )

    def __init__(self, config: PrivPGDConfig | None = None) -> None:
        self.config = config or PrivPGDConfig()

    def fit(
        self,
        data: Dataset,
        budget: PrivacyBudget,
        rng: np.random.Generator,
        *,
        workload: Workload | None = None,
    ) -> SynthesisResult:
        """Release ``data``'s 2-way marginals and return ``n_particles`` synthetic records."""
        check_inputs(self, data, workload)
        cfg = self.config
        if len(data.domain) < 2:
            raise ValueError("PrivPGD needs at least 2 attributes (it measures 2-way marginals)")
        if cfg.constraint is not None and len(cfg.constraint.theta) != len(data.domain):
            raise ValueError(f"constraint.theta has {len(cfg.constraint.theta)} weights for "
                             f"{len(data.domain)} attributes")
        ledger = open_ledger(self, budget)
        device = resolve_device(cfg.device)
        fraction = None if cfg.constraint is None else cfg.constraint.budget_fraction
        allocation = allocate(budget, cfg.calibration, fraction)
        clock = time.perf_counter()
        pairs = all_pairs(data)
        noisy, sigma = measure_pairs(data, pairs, rho=allocation.rho_marginals, rng=rng,
                                     ledger=ledger)
        penalty, estimate, sigma_c = None, None, None
        if cfg.constraint is not None:
            rho_c = (ledger.remaining_rho if cfg.calibration == "paper"
                     else allocation.rho_constraint)
            assert rho_c is not None, "a constraint's share is allocated whenever there is one"
            penalty, estimate, sigma_c = _measure_constraint(
                data, cfg.constraint, rng=rng, ledger=ledger, rho=rho_c, device=device)
        seconds_measure = time.perf_counter() - clock

        generator = torch.Generator(device=device).manual_seed(seed_from(rng))
        index = {name: i for i, name in enumerate(data.domain.attributes)}
        grid = padded_grid([m.shape for m in noisy], device)
        signed = torch.zeros(grid.valid.shape, dtype=torch.float32, device=device)
        for row, marginal in enumerate(noisy):
            signed[row, : marginal.size] = torch.from_numpy(marginal.ravel() / data.records)
        clock = _synchronised_clock(device)
        projected = project_to_probabilities(
            signed, grid, iterations=cfg.projection_iterations,
            n_directions=cfg.projection_directions, lr=cfg.projection_lr,
            lr_step=cfg.projection_lr_step, lr_gamma=cfg.projection_lr_gamma, generator=generator)
        counts = quantise(projected, cfg.n_particles, generator)
        seconds_projection = _synchronised_clock(device) - clock

        particles = torch.rand((cfg.n_particles, len(data.domain)), generator=generator,
                               device=device)
        pair_index = torch.tensor([[index[a], index[b]] for a, b in pairs], device=device)
        clock = _synchronised_clock(device)
        history = particle_descent(
            particles, pair_index, grid.centres, counts, epochs=cfg.epochs,
            batch_size=cfg.batch_size, n_directions=cfg.n_directions, lr=cfg.lr,
            lr_step=cfg.lr_step, lr_gamma=cfg.lr_gamma, mask_fraction=cfg.mask_fraction,
            generator=generator, penalty=penalty)
        seconds_descent = _synchronised_clock(device) - clock

        codes = nearest_codes(particles.cpu().numpy(), data.domain.sizes)
        frame = pd.DataFrame(codes, columns=list(data.domain.attributes))
        steps = cfg.epochs * math.ceil(len(pairs) / cfg.batch_size)
        projected_np = projected.cpu().numpy()
        log = PrivPGDLog(
            pairs=pairs,
            noisy=dict(zip(pairs, noisy, strict=True)),
            projected={p: projected_np[i, : m.size].reshape(m.shape)
                       for i, (p, m) in enumerate(zip(pairs, noisy, strict=True))},
            loss_history=history.cpu().numpy(),
            constraint_estimate=estimate,
        )
        diagnostics = {
            "calibration": cfg.calibration,
            "bound": allocation.bound,
            "n_marginals": len(pairs),
            "sensitivity": marginal_l2_sensitivity(ledger.relation, len(pairs)),
            "sigma": sigma,
            "sigma_frequency": sigma / data.records,
            "rho_marginals": allocation.rho_marginals,
            "rho_constraint": allocation.rho_constraint,
            "sigma_constraint": sigma_c,
            "rho_spent": ledger.spent_rho,
            "rho_unspent": ledger.remaining_rho,
            "device": device,
            "n_particles": cfg.n_particles,
            "epochs": cfg.epochs,
            "steps": steps,
            "final_loss": float(history[-1]) if cfg.epochs else None,
            "seconds_measure": seconds_measure,
            "seconds_projection": seconds_projection,
            "seconds_descent": seconds_descent,
            "particle_updates_per_second": (cfg.n_particles * steps / seconds_descent
                                            if steps else None),
            "particle_marginal_updates_per_second": (
                cfg.n_particles * cfg.epochs * len(pairs) / seconds_descent if steps else None),
        }
        synthetic = Dataset(frame, data.domain)
        return SynthesisResult(synthetic=synthetic, ledger=ledger, diagnostics=diagnostics,
                               log=log)


def _measure_constraint(data: Dataset, constraint: ThresholdConstraint, *, rho: float,
                        rng: np.random.Generator, ledger: Ledger,
                        device: str) -> tuple[ThresholdPenalty, float, float]:
    """Release the smooth statistic (replace-one sensitivity 1/n) and build the penalty."""
    theta = torch.tensor(constraint.theta, dtype=torch.float64)
    exact = smooth_threshold(torch.from_numpy(embed(data)), theta,
                             constraint.threshold, constraint.sharpness)
    sensitivity = round_up(Fraction(1, data.records))
    sigma = gaussian_sigma(rho, sensitivity)
    estimate = float(gaussian_mechanism(np.array([float(exact)]), sigma=sigma,
                                        sensitivity=sensitivity, rng=rng, ledger=ledger,
                                        label="smooth thresholding statistic")[0])
    penalty = ThresholdPenalty(theta=theta.to(device=device, dtype=torch.float32),
                               threshold=constraint.threshold, sharpness=constraint.sharpness,
                               estimate=estimate, strength=constraint.strength)
    return penalty, estimate, sigma


def _synchronised_clock(device: str) -> float:
    """``time.perf_counter()`` after the device has finished its queued work."""
    if device == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter()
