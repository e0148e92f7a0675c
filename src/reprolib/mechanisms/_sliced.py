"""One-dimensional optimal transport along random directions (the sliced distances of PrivPGD).

Conventions: every function works on batches; the last axis indexes support points (cells or
particles), the axis before it indexes directions. Directions are unit vectors, so a projected
distance is in the units of the embedding [0, 1]^p.

* W1 between two finite (possibly signed) measures on common support points uses the CDF form
  ``W1 = integral |F_u - F_v|`` (Vallender 1974), the identity by which PrivPGD extends SW1 to the
  signed noisy marginals (paper, Eq. 3). The integral runs over the hull of the support, where the
  CDFs are piecewise constant; outside it the difference is 0 for measures of equal mass.
* W2^2 between two empirical measures of m points each is ``mean_i (x_(i) - y_(i))^2`` over the
  sorted points (paper, Eq. 8).
"""

from __future__ import annotations

import torch


def random_directions(
    shape: tuple[int, ...], dim: int, *, generator: torch.Generator, device: str
) -> torch.Tensor:
    """Directions drawn uniformly from the unit sphere S^(dim-1): a tensor of ``shape + (dim,)``."""
    theta = torch.randn((*shape, dim), generator=generator, device=device)
    return theta / theta.norm(dim=-1, keepdim=True)


def w1_cdf(positions: torch.Tensor, u: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """W1 between ``u`` and ``v`` placed at ``positions``, by ``integral |F_u - F_v|``.

    Args:
        positions: ``[..., C]`` real support points (any order; ties allowed).
        u, v: ``[..., C]`` masses at those points (signed allowed), broadcastable to ``positions``.

    Returns:
        ``[...]``: the sum over consecutive sorted points of ``|F_u - F_v| * gap``.
    """
    ordered, order = torch.sort(positions, dim=-1)
    u_sorted = torch.gather(u.expand_as(positions), -1, order)
    v_sorted = torch.gather(v.expand_as(positions), -1, order)
    cdf_gap = torch.cumsum(u_sorted - v_sorted, dim=-1)[..., :-1]
    return (cdf_gap.abs() * torch.diff(ordered, dim=-1)).sum(dim=-1)


def sliced_w1(
    centres: torch.Tensor, u: torch.Tensor, v: torch.Tensor, directions: torch.Tensor
) -> torch.Tensor:
    """Monte Carlo SW1 between measures ``u`` and ``v`` on the points ``centres``.

    Args:
        centres: ``[M, C, p]`` support points of M problems.
        u, v: ``[M, C]`` masses (zero on padding cells).
        directions: ``[M, L, p]`` unit directions.

    Returns:
        ``[M]``: the mean over the L directions of the projected W1.
    """
    positions = torch.einsum("mcp,mlp->mlc", centres, directions)
    return w1_cdf(positions, u[:, None, :], v[:, None, :]).mean(dim=-1)


def sorted_quantised_projection(
    positions: torch.Tensor, counts: torch.Tensor, m: int
) -> torch.Tensor:
    """The sorted projections of a quantised target of m points, from its cell counts.

    A target that places ``counts[c]`` of its m points at cell c has, along a direction, sorted
    projections ``y_(i) = F^{-1}((i + 1/2) / m)``, the quantile function of the projected cell
    measure. Repeating each sorted cell position by its count gives exactly these values without
    materialising the m points.

    Args:
        positions: ``[B, L, C]`` projected cell positions.
        counts: ``[B, C]`` non-negative integer counts; every row sums to ``m``.
        m: the number of target points.

    Returns:
        ``[B, L, m]`` sorted target projections.
    """
    batch, n_dirs, _ = positions.shape
    ordered, order = torch.sort(positions, dim=-1)
    repeats = torch.gather(counts[:, None, :].expand_as(positions), -1, order)
    flat = torch.repeat_interleave(ordered.reshape(-1), repeats.reshape(-1),
                                   output_size=batch * n_dirs * m)
    return flat.reshape(batch, n_dirs, m)


def sw2_gradient(
    projections: torch.Tensor, targets_sorted: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """W2^2 along each direction and its gradient with respect to every projected particle.

    Args:
        projections: ``[B, L, m]`` particle projections, in particle order.
        targets_sorted: ``[B, L, m]`` sorted target projections (same m).

    Returns:
        ``(w2sq, grad)``: ``w2sq`` is ``[B]``, the mean over directions of
        ``mean_i (x_(i) - y_(i))^2``; ``grad`` is ``[B, L, m]`` in particle order, the per-particle
        derivative ``2 (x_(i) - y_(i))`` of ``sum_i (x_(i) - y_(i))^2`` (m times the derivative of
        the mean, i.e. without the 1/m of Eq. 8).
    """
    ordered, order = torch.sort(projections, dim=-1)
    diff = ordered - targets_sorted
    w2sq = diff.square().mean(dim=-1).mean(dim=-1)
    grad = torch.empty_like(projections).scatter_(-1, order, 2.0 * diff)
    return w2sq, grad
