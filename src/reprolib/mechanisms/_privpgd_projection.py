"""PrivPGD's projection step: noisy 2-way marginals -> probability vectors -> m-point quantisation.

Conventions: a 2-way marginal on attributes (a, b) with sizes (k_a, k_b) is a vector over its
k_a * k_b cells in row-major order (as ``Dataset.marginal(...).ravel()``). Cell (x, y), with
0-based codes, sits at the embedded point ((2x + 1) / (2 k_a), (2y + 1) / (2 k_b)) in [0, 1]^2:
the bin centres that the paper writes as (2x - 1) / (2k) for 1-based codes x = 1..k (Eq. 4).
All marginals are processed together as ``[M, C]`` tensors padded to the largest cell count C;
padding cells carry zero mass and are flagged in a ``valid`` mask.
"""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict
from collections.abc import Sequence

import numpy as np
import torch

from reprolib.mechanisms._sliced import random_directions, sliced_w1

# Largest [marginals x directions x cells] block the projection holds at once (float32 elements);
# bigger groups are split into chunks (the marginals are independent problems).
MAX_BLOCK_ELEMENTS = 2**24


@dataclasses.dataclass(frozen=True)
class PaddedGrid:
    """The embedded cell centres of M 2-way marginals, padded to a common cell count.

    Attributes:
        centres: ``[M, C, 2]`` float32 cell centres in [0, 1]^2 (zeros on padding).
        valid: ``[M, C]`` bool, True on the first ``k_a * k_b`` cells of each marginal.
        cells: the number of real cells of each marginal.
    """

    centres: torch.Tensor
    valid: torch.Tensor
    cells: tuple[int, ...]


def embed_codes(codes: np.ndarray, size: int) -> np.ndarray:
    """The embedding of 0-based codes of an attribute with ``size`` values: (2x + 1) / (2 size)."""
    return (2.0 * np.asarray(codes, dtype=np.float64) + 1.0) / (2.0 * size)


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
                      cells)


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
        descent"). Marginals are independent, so they are optimised in groups of similar cell
        counts (less padding), with one Adam state over the group: Adam acts entry-wise, so this
        equals one optimiser per marginal.
    """
    start = clipped_start(signed, grid.valid)
    result = start.clone()
    if iterations == 0:
        return result
    for rows in _groups(grid.cells, n_directions):
        width = max(grid.cells[r] for r in rows)
        index = torch.tensor(rows, device=signed.device)
        result[index, :width] = _project_group(
            start[index, :width], signed[index, :width], grid.centres[index, :width],
            grid.valid[index, :width], iterations=iterations, n_directions=n_directions, lr=lr,
            lr_step=lr_step, lr_gamma=lr_gamma, generator=generator,
        )
    return result


def _groups(cells: Sequence[int], n_directions: int) -> list[list[int]]:
    """Marginal indices grouped by the power of two above their cell count, in memory chunks."""
    buckets: dict[int, list[int]] = defaultdict(list)
    for row, count in enumerate(cells):
        buckets[math.ceil(math.log2(max(count, 1)))].append(row)
    groups = []
    for key in sorted(buckets):
        rows = buckets[key]
        per_chunk = max(1, MAX_BLOCK_ELEMENTS // (n_directions * 2**key))
        groups.extend(rows[i : i + per_chunk] for i in range(0, len(rows), per_chunk))
    return groups


def _project_group(
    start: torch.Tensor,
    signed: torch.Tensor,
    centres: torch.Tensor,
    valid: torch.Tensor,
    *,
    iterations: int,
    n_directions: int,
    lr: float,
    lr_step: int,
    lr_gamma: float,
    generator: torch.Generator,
) -> torch.Tensor:
    """Adam on softmax logits (start: log(w0 + 1e-9), as the authors' code) for one group."""
    logits = torch.log(start + 1e-9).requires_grad_(True)
    optimiser = torch.optim.Adam([logits], lr=lr)
    schedule = torch.optim.lr_scheduler.StepLR(optimiser, step_size=lr_step, gamma=lr_gamma)
    for _ in range(iterations):
        optimiser.zero_grad(set_to_none=True)
        weights = torch.softmax(logits.masked_fill(~valid, -math.inf), dim=-1)
        directions = random_directions((len(start), n_directions), 2, generator=generator,
                                       device=str(start.device))
        sliced_w1(centres, weights, signed, directions).sum().backward()
        optimiser.step()
        schedule.step()
    with torch.no_grad():
        return torch.softmax(logits.masked_fill(~valid, -math.inf), dim=-1)


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
