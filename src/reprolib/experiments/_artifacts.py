"""An artifact: one figure or table of a paper (or a companion page), and the notebook behind it.

An artifact id (``aim-fig1``, ``privpgd-tab3``, ...) names one figure or table; DESIGN.md fixes the
ids. Several artifacts can share a notebook run with different parameters (PrivPGD Figures 1, 4
and 5 are one notebook at three epsilons). Artifacts whose notebook is not written yet have
``notebook=None`` and are listed as such, never hidden. Each paper's package lists its artifacts
in its ``SPEC`` (see :mod:`reprolib.experiments._catalogue`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType


@dataclasses.dataclass(frozen=True, kw_only=True)
class Artifact:
    """One figure or table (or companion page) and how to produce it.

    Attributes:
        id: the artifact id used by the CLI, the results store and the scorecard.
        paper: key of the paper's spec (``companion`` for the scorecards).
        title: what the artifact shows.
        notebook: the jupytext source relative to the repository root, or None if not written yet.
        variant: suffix of the generated notebook when one notebook serves several artifacts.
        parameters: papermill parameters that select this artifact's variant.
        results_of: the artifact whose runs this one shows (same grid, no runs of its own), or
            None; PrivPGD's Figure 2 and Tables 1-2 read Figure 1's runs, for instance.
        toc_title: the page's title in the book's table of contents (None: its own heading).
    """

    id: str
    paper: str
    title: str
    notebook: str | None = None
    variant: str = ""
    parameters: Mapping[str, object] = dataclasses.field(default_factory=dict)
    results_of: str | None = None
    toc_title: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "parameters", MappingProxyType(dict(self.parameters)))

    @property
    def runnable(self) -> bool:
        """Whether a notebook exists for this artifact."""
        return self.notebook is not None

    @property
    def generated_name(self) -> str:
        """Path of the executed notebook below ``book/generated`` (without suffix)."""
        if self.notebook is None:
            raise ValueError(f"artifact {self.id} has no notebook yet")
        stem = Path(self.notebook).stem
        folder = Path(self.notebook).parent.name
        return f"{folder}/{stem}-{self.variant}" if self.variant else f"{folder}/{stem}"
