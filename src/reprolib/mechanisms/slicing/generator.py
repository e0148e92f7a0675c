"""The generator network of the slicing family: an MLP from Gaussian latents to encoded rows.

The paper uses "the same architecture across all datasets" without describing it; ours (an
assumption, said so on the book's pages) is an MLP with ReLU hidden layers whose output is one
softmax per one-hot block and a sigmoid per number, the whole row times ``scale`` so that it
lives where the released rows live (norm at most 1 after the 1/sqrt(columns) scaling), or,
for a layout of unit rows, the row scaled to norm ``scale``.
"""

from __future__ import annotations

import dataclasses

import torch

from reprolib.mechanisms._mixed_output import mixed_rows


@dataclasses.dataclass(frozen=True)
class OutputLayout:
    """The encoded row: one-hot blocks of the given widths, then ``numerical`` numbers in
    [0, 1], all multiplied by ``scale``; with ``unit``, divided by the row's L2 norm first.
    """

    categorical: tuple[int, ...]
    numerical: int
    scale: float = 1.0
    unit: bool = False

    @property
    def width(self) -> int:
        """Encoded columns."""
        return sum(self.categorical) + self.numerical


class Generator(torch.nn.Module):
    """latent (``latent`` Gaussian coordinates) -> encoded row of ``layout``."""

    def __init__(self, layout: OutputLayout, *, latent: int = 64,
                 hidden: tuple[int, ...] = (256, 256)) -> None:
        super().__init__()
        self.layout, self.latent = layout, latent
        layers: list[torch.nn.Module] = []
        width = latent
        for size in hidden:
            layers += [torch.nn.Linear(width, size), torch.nn.ReLU()]
            width = size
        layers.append(torch.nn.Linear(width, layout.width))
        self.network = torch.nn.Sequential(*layers)

    def forward(self, latents: torch.Tensor) -> torch.Tensor:
        """Encoded rows (latents x layout.width) for a batch of latents."""
        raw = self.network(latents)
        rows = mixed_rows(raw, self.layout.categorical)
        if self.layout.unit:
            rows = rows / rows.norm(dim=1, keepdim=True)
        return rows * self.layout.scale

    def sample(self, count: int, generator: torch.Generator) -> torch.Tensor:
        """``count`` encoded rows from fresh latents drawn with ``generator``."""
        device = next(self.parameters()).device
        latents = torch.randn(count, self.latent, generator=generator, device=device)
        return self(latents)
