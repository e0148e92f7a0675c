"""PrivPGD's projection step: noisy 2-way marginals -> probability vectors -> m-point quantisation.

Conventions: a 2-way marginal on attributes (a, b) with sizes (k_a, k_b) is a vector over its
k_a * k_b cells in row-major order (as ``Dataset.marginal(...).ravel()``). Cell (x, y), with
0-based codes, sits at the embedded point ((2x + 1) / (2 k_a), (2y + 1) / (2 k_b)) in [0, 1]^2:
the bin centres that the paper writes as (2x - 1) / (2k) for 1-based codes x = 1..k (Eq. 4).
All marginals are stored together as ``[M, C]`` tensors padded to the largest cell count C;
padding cells carry zero mass and are flagged in a ``valid`` mask.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Sequence

import numpy as np
import torch

from reprolib.data import embed_codes
from reprolib.transport._torch import SharedSortW1Gradient, random_directions

# Largest [marginals x directions x cells] block the projection holds at once (float32 elements);
# bigger groups are split into chunks (the marginals are independent problems).
MAX_BLOCK_ELEMENTS = 2**24


@dataclasses.dataclass(frozen=True)
class PaddedGrid:
    """The embedded cell centres of M 2-way marginals, padded to a common cell count.

    Attributes:
        centres: ``[M, C, 2]`` float32 cell centres in [0, 1]^2 (zeros on padding).
        valid: ``[M, C]`` bool, True on the first ``k_a * k_b`` cells of each marginal.
        shapes: the (k_a, k_b) shape of each marginal.
    """

    centres: torch.Tensor
    valid: torch.Tensor
    shapes: tuple[tuple[int, int], ...]


def padded_grid(shapes: Sequence[tuple[int, int]], device: str) -> PaddedGrid:
    """Cell centres of the marginals with the given (k_a, k_b) shapes, padded and stacked."""
    cells = tuple(ka * kb for ka, kb in shapes)
    width = max(cells)
    centres = np.zeros((len(shapes), width, 2), dtype=np.float32)
    valid = np.zeros((len(shapes), width), dtype=bool)
    for row, (ka, kb) in enumerate(shapes):
        xa, xb = np.meshgrid(embed_codes(np.arange(ka), ka), embed_codes(np.arange(kb), kb),
                             indexing="ij")
        centres[row, : ka * kb, 0] = xa.ravel()
        centres[row, : ka * kb, 1] = xb.ravel()
        valid[row, : ka * kb] = True
    return PaddedGrid(torch.from_numpy(centres).to(device), torch.from_numpy(valid).to(device),
                      tuple((int(ka), int(kb)) for ka, kb in shapes))


def clipped_start(signed: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    """The paper's initial point: negative weights set to 0, then renormalised to sum 1.

    A marginal whose noisy weights are all <= 0 (possible at tiny budgets) starts uniform on its
    cells instead of dividing by zero.
    """
    clipped = signed.clamp(min=0.0) * valid
    total = clipped.sum(dim=-1, keepdim=True)
    uniform = valid / valid.sum(dim=-1, keepdim=True)
    return torch.where(total > 0, clipped / total.clamp(min=torch.finfo(signed.dtype).tiny),
                       uniform)


def project_to_probabilities(
    signed: torch.Tensor,
    grid: PaddedGrid,
    *,
    iterations: int,
    n_directions: int,
    lr: float,
    lr_step: int,
    lr_gamma: float,
    generator: torch.Generator,
) -> torch.Tensor:
    """Eq. (5): for each marginal, the probability vector w minimising SW1(w, signed).

    Args:
        signed: ``[M, C]`` noisy marginals as frequencies (noisy counts / n; signed, zero on
            padding).
        grid: the cells' embedded centres.
        iterations: Adam steps (paper: 1750); 0 returns the clipped start.
        n_directions: fresh random directions per step for the Monte Carlo SW1 (paper: 200).
        lr, lr_step, lr_gamma: Adam's learning rate lr * lr_gamma ** (step // lr_step)
            (paper: 0.1, 100, 0.8).
        generator: the source of the random directions.

    Returns:
        ``[M, C]`` probability vectors (zero on padding). The simplex is parametrised by a softmax
        over each marginal's cells, as in the authors' code (the paper only says "gradient
        descent"), with Adam on the logits and an analytic gradient (:class:`SharedSortW1Gradient`
        through the softmax's Jacobian, ``w * (g - <w, g>)``).

        Marginals are independent problems. They are solved together in groups whose grids are
        equal up to swapping the two axes (shape (k_a, k_b) or (k_b, k_a)): at each step every
        group draws ``n_directions`` fresh uniform directions that all its marginals share, so
        one sort per direction serves the group (a transposed marginal sees each direction with
        its coordinates swapped, again uniform). Each marginal therefore still sees fresh uniform
        directions at every step, but the marginals of a group see the same ones, where the
        authors' code draws them per marginal: each marginal's optimisation is the same in law,
        but the random stream, and so the result for a given seed, differs from a per-marginal
        draw. Adam acts entry-wise, so one Adam state over all the logits equals one optimiser
        per marginal.
    """
    start = clipped_start(signed, grid.valid)
    result = start.clone()
    if iterations == 0:
        return result
    groups = [_Group.of(shape, rows, grid, start, signed) for shape, rows in
              _groups(grid.shapes, n_directions)]
    sizes = [group.start.numel() for group in groups]
    flat_logits = torch.cat([torch.log(group.start + 1e-9).view(-1) for group in groups])
    flat_grad = torch.empty_like(flat_logits)
    logits = [x.view(group.start.shape) for x, group in
              zip(flat_logits.split(sizes), groups, strict=True)]
    grads = [x.view(group.start.shape) for x, group in
             zip(flat_grad.split(sizes), groups, strict=True)]
    optimiser = Adam(flat_logits)  # entry-wise, so one state serves all the marginals
    gradient = SharedSortW1Gradient()
    rate = lr
    for step in range(iterations):
        directions = random_directions((len(groups), n_directions), 2, generator=generator,
                                       device=str(signed.device))
        for group, params, grad, group_directions in zip(groups, logits, grads, directions,
                                                        strict=True):
            weights = torch.softmax(params, dim=-1)
            slope = gradient(group.centres, weights - group.signed, group_directions)
            torch.mul(weights, slope - (weights * slope).sum(dim=-1, keepdim=True), out=grad)
        optimiser.step(flat_logits, flat_grad, rate)
        if (step + 1) % lr_step == 0:
            rate *= lr_gamma  # as torch's StepLR: lr * lr_gamma ** (step // lr_step)
    for group, params in zip(groups, logits, strict=True):
        result[group.rows] = torch.zeros_like(result[group.rows]).scatter_(
            1, group.layout, torch.softmax(params, dim=-1))
    return result


class Adam:
    """Adam (Kingma and Ba 2015) with ``torch.optim.Adam``'s arithmetic and default settings.

    The same update, written out: constructing a ``torch.optim`` optimiser imports
    ``torch._dynamo``, seconds of start-up that would count against the projection.
    """

    def __init__(self, like: torch.Tensor, *, betas: tuple[float, float] = (0.9, 0.999),
                 eps: float = 1e-8) -> None:
        self.first = torch.zeros_like(like)
        self.second = torch.zeros_like(like)
        self.beta1, self.beta2 = betas
        self.eps = eps
        self.steps = 0

    def step(self, params: torch.Tensor, grad: torch.Tensor, lr: float) -> None:
        """Update ``params`` in place with gradient ``grad`` at learning rate ``lr``."""
        self.steps += 1
        self.first.lerp_(grad, 1.0 - self.beta1)
        self.second.mul_(self.beta2).addcmul_(grad, grad, value=1.0 - self.beta2)
        step_size = lr / (1.0 - self.beta1**self.steps)
        denom = (self.second.sqrt() / (1.0 - self.beta2**self.steps) ** 0.5).add_(self.eps)
        params.addcdiv_(self.first, denom, value=-step_size)


@dataclasses.dataclass(frozen=True)
class _Group:
    """Marginals whose grids are equal up to transposition, laid out on the (short, long) grid.

    Attributes:
        rows: ``[G]`` indices of the marginals in the padded tensors.
        layout: ``[G, C]``: canonical cell c of marginal g is its stored cell ``layout[g, c]``.
        centres: ``[C, 2]`` the canonical grid's cell centres.
        start, signed: ``[G, C]`` clipped start and noisy frequencies, canonical layout.
    """

    rows: torch.Tensor
    layout: torch.Tensor
    centres: torch.Tensor
    start: torch.Tensor
    signed: torch.Tensor

    @classmethod
    def of(cls, shape: tuple[int, int], rows: list[int], grid: PaddedGrid, start: torch.Tensor,
           signed: torch.Tensor) -> _Group:
        """The group of ``rows`` (marginals of shape ``shape`` or its transpose)."""
        device = signed.device
        index = torch.tensor(rows, device=device)
        layout = torch.stack([_canonical_layout(grid.shapes[row], device) for row in rows])
        return cls(rows=index, layout=layout, centres=padded_grid([shape], str(device)).centres[0],
                   start=start[index].gather(1, layout), signed=signed[index].gather(1, layout))


def _groups(shapes: Sequence[tuple[int, int]],
            n_directions: int) -> list[tuple[tuple[int, int], list[int]]]:
    """Marginal indices grouped by grid up to transposition, keyed (short side, long side).

    Groups bigger than ``MAX_BLOCK_ELEMENTS`` per step are split into chunks.
    """
    buckets: dict[tuple[int, int], list[int]] = defaultdict(list)
    for row, (ka, kb) in enumerate(shapes):
        buckets[(min(ka, kb), max(ka, kb))].append(row)
    groups: list[tuple[tuple[int, int], list[int]]] = []
    for shape, rows in buckets.items():
        per_chunk = max(1, MAX_BLOCK_ELEMENTS // (n_directions * shape[0] * shape[1]))
        groups.extend((shape, rows[i : i + per_chunk]) for i in range(0, len(rows), per_chunk))
    return groups


def _canonical_layout(shape: tuple[int, int], device: torch.device | str) -> torch.Tensor:
    """Cell indices that put a marginal of ``shape`` on its (short, long) grid, row-major.

    Identity unless k_a > k_b: then canonical cell (i, j) is the stored cell (j, i).
    """
    ka, kb = shape
    cells = torch.arange(ka * kb, device=device)
    return cells.view(ka, kb).T.reshape(-1) if ka > kb else cells


def quantise(probabilities: torch.Tensor, m: int, generator: torch.Generator) -> torch.Tensor:
    """Eq. (6): integer counts per cell summing to ``m`` for every marginal.

    As in the authors' code: cell c first gets floor(w_c m) points; the m - sum floor(w_c m)
    leftover points (fewer than the number of cells) are drawn with replacement from w.

    Args:
        probabilities: ``[M, C]`` probability vectors.
        m: number of points of every quantised marginal.
        generator: the source of the leftover draws.

    Returns:
        ``[M, C]`` int64 counts, each row summing to ``m``.
    """
    weights = probabilities.double()
    weights = weights / weights.sum(dim=-1, keepdim=True)
    counts = torch.floor(weights * m).long()
    leftover = m - counts.sum(dim=-1)
    most = int(leftover.max())
    if most > 0:
        draws = torch.multinomial(weights, most, replacement=True, generator=generator)
        keep = torch.arange(most, device=weights.device)[None, :] < leftover[:, None]
        counts.scatter_add_(1, draws, keep.long())
    return counts
