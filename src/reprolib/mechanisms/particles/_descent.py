"""PrivPGD's optimisation step: particle gradient descent on sliced W2^2 (Eq. 7-8, Algorithm 3).

Particles are an ``[m, d]`` float32 tensor in [0, 1]^d (the embedding of Eq. 4). A 2-way marginal
is a pair of attribute indices with its quantised target (cell counts summing to m, see
``_privpgd_projection.quantise``). Inside the loop they are held transposed, as ``[d, m]``
coordinate rows, so that a marginal's two coordinates are contiguous rows.

Units of the objective: the data term is ``m * sum_S SW2^2(mu_S[Z], mu_hat_S)``, i.e. each
particle's gradient is ``2 (x_(i) - y_(i)) theta`` averaged over directions, without the 1/m of
Eq. (8), as in the authors' code. The regulariser enters as ``strength * R_hat(Z)``, so
``strength`` is the authors' ``scale_reg`` and equals m times the lambda of Eq. (7) written with
the 1/m. Adam is invariant to a common rescaling of the gradient (up to its epsilon), so the
authors' extra factor 100 on both terms is left out.
"""

from __future__ import annotations

import dataclasses

import torch

from reprolib.transport._torch import random_directions, sorted_quantised_projection, sw2_gradient

# Eq. (12): R_hat(Z) = NUMERATOR / (OFFSET + (s(Z) - s_hat)^2).
PENALTY_NUMERATOR = 0.01
PENALTY_OFFSET = 1e-4


class LazyAdam:
    """Adam that updates only the entries selected at each step (``torch.optim.SparseAdam``'s rule).

    Selected entries update their moments and move by
    ``lr * sqrt(1 - beta2^t) / (1 - beta1^t) * m1 / (sqrt(m2) + eps)``, where t counts all steps
    (not per entry); unselected entries keep their value and their moments. The authors pass
    SparseAdam a sparse gradient holding the non-zero unmasked entries; a boolean mask on dense
    tensors gives the same arithmetic. Only the selected entries are touched (about a fifth of
    the touched coordinates at the paper's 80 % mask).
    """

    def __init__(self, like: torch.Tensor, *, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8) -> None:
        self.first = torch.zeros_like(like, memory_format=torch.contiguous_format)
        self.second = torch.zeros_like(like, memory_format=torch.contiguous_format)
        self.beta1, self.beta2 = betas
        self.eps = eps
        self.steps = 0

    def step(self, params: torch.Tensor, grad: torch.Tensor, active: torch.Tensor,
             lr: float) -> None:
        """Update ``params`` (contiguous) in place on the ``active`` entries with ``grad``."""
        self.steps += 1
        index = active.reshape(-1).nonzero().squeeze(1)
        g = grad.reshape(-1)[index]
        first = self.first.view(-1)[index].lerp_(g, 1.0 - self.beta1)
        second = self.second.view(-1)[index].lerp_(g.square_(), 1.0 - self.beta2)
        self.first.view(-1)[index] = first
        self.second.view(-1)[index] = second
        scale = lr * (1.0 - self.beta2**self.steps) ** 0.5 / (1.0 - self.beta1**self.steps)
        params.view(-1).index_add_(0, index, first / second.sqrt_().add_(self.eps), alpha=-scale)


def smooth_threshold(points: torch.Tensor, theta: torch.Tensor, threshold: float,
                     sharpness: float) -> torch.Tensor:
    """App. B's smooth thresholding statistic: mean_i sigmoid(sharpness (<theta, z_i> - threshold))."""
    return torch.sigmoid(sharpness * (points @ theta - threshold)).mean()


@dataclasses.dataclass(frozen=True)
class ThresholdPenalty:
    """``strength * R_hat(Z)`` of Eq. (12), pushing the smooth statistic away from its DP estimate.

    Attributes:
        theta: ``[d]`` direction in the embedding space (device tensor, float32).
        threshold: b in sigmoid(sharpness (<theta, z> - b)).
        sharpness: the sigmoid's s (paper: 5.0).
        estimate: the DP estimate of the statistic on the private data.
        strength: the regularisation weight (the authors' ``scale_reg``).
    """

    theta: torch.Tensor
    threshold: float
    sharpness: float
    estimate: float
    strength: float

    def gradient(self, particles: torch.Tensor) -> torch.Tensor:
        """``strength * dR_hat/dZ``, an ``[m, d]`` tensor (closed form)."""
        sig = torch.sigmoid(self.sharpness * (particles @ self.theta - self.threshold))
        gap = sig.mean() - self.estimate
        d_penalty = -2.0 * PENALTY_NUMERATOR * gap / (PENALTY_OFFSET + gap.square()).square()
        d_stat = self.sharpness * sig * (1.0 - sig) / particles.shape[0]
        return (self.strength * d_penalty * d_stat)[:, None] * self.theta[None, :]


def particle_descent(
    particles: torch.Tensor,
    pairs: torch.Tensor,
    centres: torch.Tensor,
    counts: torch.Tensor,
    *,
    epochs: int,
    batch_size: int,
    n_directions: int,
    lr: float,
    lr_step: int,
    lr_gamma: float,
    mask_fraction: float,
    generator: torch.Generator,
    penalty: ThresholdPenalty | None = None,
) -> torch.Tensor:
    """Run Algorithm 3's loop in place on ``particles``; return the per-epoch loss.

    Each epoch visits the M marginals in a fresh random order, in batches of ``batch_size``; each
    batch is one LazyAdam step on the summed SW2^2 gradients (``n_directions`` new directions per
    marginal) plus the penalty's gradient, after zeroing each gradient entry independently with
    probability ``mask_fraction``; particles are then clamped to [0, 1]. The learning rate is
    ``lr * lr_gamma ** (epoch // lr_step)``. Without a penalty only the batch's attributes can
    have a non-zero gradient, so the mask is drawn, and Adam and the clamp applied, on those
    coordinates alone: the same update, in law, as masking all m x d entries, but a different
    random stream.

    Args:
        particles: ``[m, d]`` float32, modified in place.
        pairs: ``[M, 2]`` int64 attribute indices of the marginals.
        centres: ``[M, C, 2]`` embedded cell centres (padded).
        counts: ``[M, C]`` int64 quantised targets, rows summing to m.

    Returns:
        ``[epochs]`` float32: after each epoch, the sum over marginals of their latest SW2^2
        estimate (the authors' logged loss).
    """
    m, d = particles.shape
    n_marginals = pairs.shape[0]
    device = particles.device
    coordinates = particles.T.contiguous()  # [d, m]
    grad = torch.zeros_like(coordinates)
    optimiser = LazyAdam(coordinates)
    latest = torch.zeros(n_marginals, device=device)
    history = torch.zeros(epochs, device=device)
    everything = torch.arange(d, device=device)
    for epoch in range(epochs):
        rate = lr * lr_gamma ** (epoch // lr_step)
        order = torch.randperm(n_marginals, generator=generator, device=device)
        for start in range(0, n_marginals, batch_size):
            batch = order[start : start + batch_size]
            # the attributes that can have a non-zero gradient (all of them with a penalty)
            rows = everything if penalty is not None else torch.unique(pairs[batch])
            grad[rows] = 0.0
            latest[batch] = add_sw2_gradient(grad, coordinates, pairs[batch], centres[batch],
                                             counts[batch], n_directions=n_directions,
                                             generator=generator)
            if penalty is not None:
                grad += penalty.gradient(coordinates.T).T
            # each entry is kept with probability 1 - mask_fraction; the other rows are zero
            active = torch.zeros_like(coordinates, dtype=torch.bool)
            active[rows] = ((torch.rand((len(rows), m), generator=generator, device=device)
                             >= mask_fraction) & (grad[rows] != 0))
            optimiser.step(coordinates, grad, active, rate)
            coordinates[rows] = coordinates[rows].clamp_(0.0, 1.0)
        history[epoch] = latest.sum()
    particles.copy_(coordinates.T)
    return history


def add_sw2_gradient(
    grad: torch.Tensor,
    coordinates: torch.Tensor,
    pairs: torch.Tensor,
    centres: torch.Tensor,
    counts: torch.Tensor,
    *,
    n_directions: int,
    generator: torch.Generator,
) -> torch.Tensor:
    """Add the data-term gradient of B marginals to ``grad``; return their SW2^2.

    Args:
        grad: ``[d, m]`` gradient rows (one per attribute), added to in place.
        coordinates: ``[d, m]`` the particles' coordinates, one row per attribute.
        pairs: ``[B, 2]`` attribute indices of the marginals.
        centres: ``[B, C, 2]`` their embedded cell centres (padded).
        counts: ``[B, C]`` their quantised targets, rows summing to m.
        n_directions: fresh random directions per marginal.
        generator: the source of the directions.

    All B marginals and ``n_directions`` directions are handled in one batched sort of shape
    ``[B, n_directions, m]``. Returns ``[B]`` Monte Carlo SW2^2 estimates.
    """
    m = coordinates.shape[1]
    theta = random_directions((pairs.shape[0], n_directions), 2, generator=generator,
                              device=str(coordinates.device))  # [B, L, 2]
    projections = torch.bmm(theta, coordinates[pairs])  # [B, L, m]
    targets = sorted_quantised_projection(torch.bmm(theta, centres.transpose(1, 2)), counts, m)
    w2sq, per_particle = sw2_gradient(projections, targets)
    along = torch.bmm(theta.transpose(1, 2), per_particle).div_(n_directions)  # [B, 2, m]
    grad.index_add_(0, pairs.reshape(-1), along.view(-1, m))
    return w2sq
