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

Sorting dominates both PrivPGD steps, so :func:`argsort_rows` replaces ``torch.sort`` on the CPU by
numpy's merge sort, preceded for unstructured values by a radix sort of 16-bit buckets: the same
stable order, about twice as fast as torch's comparison sort.
"""

from __future__ import annotations

import math

import numpy as np
import torch

# Buckets of argsort_rows' first pass: 16-bit keys, which numpy sorts by radix sort.
SORT_BUCKETS = 2**16


def random_directions(
    shape: tuple[int, ...], dim: int, *, generator: torch.Generator, device: str
) -> torch.Tensor:
    """Directions drawn uniformly from the unit sphere S^(dim-1): a tensor of ``shape + (dim,)``."""
    theta = torch.randn((*shape, dim), generator=generator, device=device)
    return theta / theta.norm(dim=-1, keepdim=True)


def argsort_rows(values: torch.Tensor, *, bucket_first: bool) -> torch.Tensor:
    """``torch.argsort(values, dim=-1, stable=True)``: the int64 order of every row, ties kept.

    Off the CPU, or for other than finite float32 values, this is torch's sort. On the CPU it is
    numpy's stable merge sort (timsort), which merges the monotone runs it finds: a grid's
    projections are made of such runs (the grid's rows), so they need nothing more. Unstructured
    values (particles) are first ordered by a 16-bit bucket of their range with numpy's radix
    sort (``bucket_first=True``); bucketing is monotone in the value, so the merge sort then only
    repairs the order within buckets and the result is the same.
    """
    if (values.device.type != "cpu" or values.dtype != torch.float32 or values.requires_grad
            or values.numel() == 0):
        return torch.argsort(values, dim=-1, stable=True)
    x = values.numpy()
    low, high = x.min(axis=-1, keepdims=True), x.max(axis=-1, keepdims=True)
    if not np.isfinite(high - low).all():
        return torch.argsort(values, dim=-1, stable=True)
    if not bucket_first:
        return torch.from_numpy(np.argsort(x, axis=-1, kind="stable"))
    span = high - low
    with np.errstate(divide="ignore", over="ignore"):
        scale = np.where(span > 0, (SORT_BUCKETS - 1) / span, 0).astype(np.float32)
    scale[~np.isfinite(scale)] = 0  # a span too small to invert: one bucket, the merge sort orders it
    buckets = ((x - low) * scale).astype(np.uint16)
    coarse = torch.from_numpy(np.argsort(buckets, axis=-1, kind="stable"))
    nearly = torch.gather(values, -1, coarse).numpy()
    return torch.gather(coarse, -1, torch.from_numpy(np.argsort(nearly, axis=-1, kind="stable")))


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


class SharedSortW1Gradient:
    """Gradient in ``u`` of the Monte Carlo SW1 of G problems on common points and directions.

    Each problem g is ``mean_l integral |F_u - F_v|`` along direction l (as :func:`sliced_w1`),
    evaluated at ``u - v = difference[g]``. Along a direction, with the points sorted and
    ``F_j`` the CDF difference after the j-th point, the value is ``sum_j |F_j| gap_j``; point k
    enters every ``F_j`` with j >= k, so its derivative is the reverse cumulative sum
    ``sum_{j >= k} sign(F_j) gap_j``, computed as the total minus the cumulative sum before k.
    At a kink (``F_j == 0``) the slope taken is ``+-gap_j`` (the sign of the zero), which is a
    subgradient; autograd takes 0 there. The sort and the gaps depend only on the points and the
    direction, so one sort per direction serves all G problems.

    The object keeps two ``[G, L, C]`` work buffers between calls: fresh multi-megabyte tensors at
    every step of an optimisation cost more in page faults than the arithmetic on them.
    """

    def __init__(self) -> None:
        self._buffers: tuple[torch.Tensor, torch.Tensor] | None = None

    def __call__(self, centres: torch.Tensor, difference: torch.Tensor,
                 directions: torch.Tensor) -> torch.Tensor:
        """d/du of ``mean_l W1`` for each problem.

        Args:
            centres: ``[C, p]`` support points shared by the G problems.
            difference: ``[G, C]`` signed masses ``u - v``.
            directions: ``[L, p]`` unit directions shared by the G problems.

        Returns:
            ``[G, C]``, the gradient of each problem.
        """
        n_problems, n_cells = difference.shape
        n_dirs = directions.shape[0]
        positions = directions @ centres.T  # [L, C]
        order = argsort_rows(positions, bucket_first=False)
        ordered = torch.gather(positions, -1, order)
        cdf, slope = self._work((n_problems, n_dirs, n_cells), difference)
        torch.index_select(difference, 1, order.view(-1), out=cdf.view(n_problems, -1))
        cdf.cumsum_(dim=-1)  # F_j, sorted
        slope.select(-1, 0).zero_()  # slope[k] holds sign(F_{k-1}) gap_{k-1}
        torch.copysign(torch.diff(ordered, dim=-1), cdf[..., :-1], out=slope[..., 1:])
        before = torch.cumsum(slope, dim=-1, out=cdf)  # sum_{j < k} sign(F_j) gap_j
        total = before[..., -1].sum(dim=-1, keepdim=True)  # all slopes, summed over directions
        unsorted = torch.zeros_like(difference).index_add_(1, order.view(-1),
                                                            before.view(n_problems, -1))
        return (total - unsorted) / n_dirs

    def _work(self, shape: tuple[int, int, int],
              like: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Two buffers of ``shape``, on ``like``'s device and dtype, grown when too small."""
        size = math.prod(shape)
        if (self._buffers is None or self._buffers[0].numel() < size
                or self._buffers[0].device != like.device
                or self._buffers[0].dtype != like.dtype):
            self._buffers = (torch.empty(size, dtype=like.dtype, device=like.device),
                             torch.empty(size, dtype=like.dtype, device=like.device))
        first, second = self._buffers
        return first[:size].view(shape), second[:size].view(shape)


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
    order = argsort_rows(positions, bucket_first=False)
    ordered = torch.gather(positions, -1, order)
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
        the mean, i.e. without the 1/m of Eq. 8). Each particle is matched with the target of its
        rank (ties in rank order of the particles' indices), so the sum runs in particle order.
    """
    order = argsort_rows(projections, bucket_first=True)
    matched = torch.empty_like(projections).scatter_(-1, order, targets_sorted)
    diff = torch.sub(projections, matched, out=matched)
    w2sq = torch.linalg.vecdot(diff, diff).mean(dim=-1) / projections.shape[-1]
    return w2sq, diff.mul_(2.0)
