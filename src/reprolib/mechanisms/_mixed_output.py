"""The output head of the generators that emit mixed-type rows (torch)."""

from __future__ import annotations

import torch


def mixed_rows(raw: torch.Tensor, blocks: tuple[int, ...]) -> torch.Tensor:
    """One softmax per one-hot block of the given widths, then a sigmoid per remaining column."""
    parts, start = [], 0
    for size in blocks:
        parts.append(torch.softmax(raw[:, start:start + size], dim=1))
        start += size
    parts.append(torch.sigmoid(raw[:, start:]))
    return torch.cat(parts, dim=1)
