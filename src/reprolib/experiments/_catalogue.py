"""The catalogue: every paper's :class:`PaperSpec`, discovered from the ``reprolib.papers`` package.

Each subpackage of :mod:`reprolib.papers` exports ``SPEC``; nothing central lists the papers. A
new paper is a new package there (plus its notebooks and its chapter): the CLI, the results store,
the scorecard and the generated table of contents find it here. Specs are light: experiments and
checks are named as ``"module:attribute"`` and imported on first use, so listing the catalogue
imports neither torch nor JAX.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import importlib
import pkgutil
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from reprolib.experiments._artifacts import Artifact

if TYPE_CHECKING:
    from reprolib.experiments._checks import Check
    from reprolib.experiments._experiment import Experiment

PAPERS_PACKAGE = "reprolib.papers"
COMPANION = "companion"
SCORECARD = "scorecard"
SCORECARD_NOTEBOOK = "notebooks/companion/scorecard.py"
SPEED = "speed"
SPEED_NOTEBOOK = "notebooks/companion/speed.py"


@dataclasses.dataclass(frozen=True, kw_only=True)
class Chapter:
    """A hand-written page of the book (path without suffix) and the pages nested under it."""

    file: str
    sections: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True, kw_only=True)
class PaperSpec:
    """Everything the companion knows about one paper, exported by its package as ``SPEC``.

    Attributes:
        key: short name used by the CLI and the results store (``aim``).
        title: the paper's citation in words.
        caption: the caption of the paper's part in the book.
        order: position of the part in the book (lower first).
        artifacts: the paper's figures and tables, written or not.
        experiments: artifact id -> ``"module:attribute"`` of its :class:`Experiment`.
        checks: ``"module:attribute"`` of the paper's tuple of checks, or None.
        chapters: the hand-written pages that open the paper's part, before the generated ones.
        small_covers_design: whether the ``small`` profiles cover the paper's whole design
            (DESIGN.md: every dataset or its named stand-in, every epsilon, every mechanism, at
            least 3 trials); the scorecard's ``whole design`` status rests on this declaration
            or, artifact by artifact, on ``design_gaps``.
        design_gaps: ``"module:attribute"`` of a function from an artifact id to what its
            ``small`` grid still lacks of the paper's design, in words, "" when it lacks
            nothing: a paper that declares it states its coverage artifact by artifact, and the
            scorecard adds the gaps to its note.
        paper_covers_design: whether the committed ``paper``-scale stores hold every cell of
            the paper's grid; until then they hold spot runs at the paper's settings, and the
            scorecard's ``paper scale`` status waits for this declaration (which the committed
            results' tests hold to account).
        no_data: artifact id -> what it is computed from, in words, for artifacts that read no
            dataset (closed forms, declared traits).
        stand_ins: paper dataset -> the named table standing in for it where the paper's is
            unavailable.
        stand_in_column: the results column that is true on runs made on a stand-in, or None
            if every run uses the paper's data.
    """

    key: str
    title: str
    caption: str
    order: int
    artifacts: tuple[Artifact, ...]
    experiments: Mapping[str, str] = dataclasses.field(default_factory=dict)
    checks: str | None = None
    chapters: tuple[Chapter, ...] = ()
    small_covers_design: bool = False
    design_gaps: str | None = None
    paper_covers_design: bool = False
    no_data: Mapping[str, str] = dataclasses.field(default_factory=dict)
    stand_ins: Mapping[str, str] = dataclasses.field(default_factory=dict)
    stand_in_column: str | None = None

    def __post_init__(self) -> None:
        for field in ("experiments", "no_data", "stand_ins"):
            object.__setattr__(self, field, MappingProxyType(dict(getattr(self, field))))
        if bool(self.stand_ins) != (self.stand_in_column is not None):
            raise ValueError(f"paper {self.key!r}: stand_ins and stand_in_column go together")
        ids = {artifact.id for artifact in self.artifacts}
        strangers = [a.id for a in self.artifacts if a.paper != self.key]
        if strangers:
            raise ValueError(f"paper {self.key!r} lists artifacts of other papers: {strangers}")
        unknown = sorted((set(self.experiments) | set(self.no_data)) - ids)
        if unknown:
            raise ValueError(f"paper {self.key!r} names unknown artifacts {unknown}")

    def small_gap(self, artifact_id: str) -> str:
        """What the artifact's ``small`` grid lacks of the paper's design.

        "" if nothing, or if the paper declares no ``design_gaps``.
        """
        return str(_resolve(self.design_gaps)(artifact_id)) if self.design_gaps else ""

    def small_covers(self, artifact_id: str) -> bool:
        """Whether the artifact's ``small`` grid covers the paper's whole design for it."""
        if self.design_gaps:
            return not self.small_gap(artifact_id)
        return self.small_covers_design

    def load_checks(self) -> tuple[Check, ...]:
        """The paper's checks (imports the module that defines them)."""
        return tuple(_resolve(self.checks)) if self.checks else ()


def _resolve(target: str) -> Any:
    module, attribute = target.split(":")
    return getattr(importlib.import_module(module), attribute)


class Catalogue:
    """The papers (ordered as the book shows them), their artifacts, experiments and checks."""

    def __init__(self, specs: list[PaperSpec]) -> None:
        keys = [spec.key for spec in specs]
        if len(set(keys)) != len(keys) or COMPANION in keys:
            raise ValueError(f"paper keys must be unique and not {COMPANION!r}, got {keys}")
        self.papers = {s.key: s for s in sorted(specs, key=lambda s: (s.order, s.key))}
        artifacts = [a for spec in self.papers.values() for a in spec.artifacts]
        artifacts += _companion_pages([s for s in self.papers.values() if s.checks])
        self._by_id: dict[str, Artifact] = {}
        for artifact in artifacts:
            if artifact.id in self._by_id:
                raise ValueError(f"artifact id {artifact.id!r} is defined twice")
            self._by_id[artifact.id] = artifact

    @property
    def artifacts(self) -> tuple[Artifact, ...]:
        """Every artifact, in book order (companion pages last)."""
        return tuple(self._by_id.values())

    def paper(self, key: str) -> PaperSpec:
        """The spec of one paper; an unknown key raises a ValueError listing the papers."""
        try:
            return self.papers[key]
        except KeyError:
            raise ValueError(f"unknown paper {key!r}; known: {', '.join(self.papers)}") from None

    def artifact(self, artifact_id: str) -> Artifact:
        """The artifact with this id; an unknown id raises a KeyError that suggests close ids."""
        try:
            return self._by_id[artifact_id]
        except KeyError:
            close = difflib.get_close_matches(artifact_id, self._by_id, n=3)
            hint = f" Did you mean {', '.join(close)}?" if close else ""
            raise KeyError(f"unknown artifact {artifact_id!r}.{hint} `reprolib list` shows all "
                           "ids.") from None

    def artifacts_of(self, paper: str | None = None) -> list[Artifact]:
        """All artifacts, or those of one paper (``companion``: the scorecards)."""
        if paper is None:
            return list(self._by_id.values())
        if paper != COMPANION:
            self.paper(paper)
        return [a for a in self._by_id.values() if a.paper == paper]

    def experiment(self, artifact_id: str) -> Experiment:
        """The experiment of an artifact (of the one it reads its runs from, ``results_of``)."""
        artifact = self.artifact(self.artifact(artifact_id).results_of or artifact_id)
        spec = self.papers.get(artifact.paper)
        if spec is None or artifact.id not in spec.experiments:
            raise KeyError(f"artifact {artifact.id!r} has no experiment yet")
        return _resolve(spec.experiments[artifact.id])

    def checks_of(self, paper: str | None = None) -> list[Check]:
        """All checks, or those of one paper."""
        specs = self.papers.values() if paper is None else [self.paper(paper)]
        return [check for spec in specs for check in spec.load_checks()]


def _companion_pages(specs: list[PaperSpec]) -> list[Artifact]:
    """The companion's pages: a scorecard per paper with checks, one of every check, and the
    recorded run times of every paper.
    """
    per_paper = [Artifact(id=f"scorecard-{s.key}", paper=COMPANION,
                          title=f"Reproduction scorecard of the {s.caption} part",
                          notebook=SCORECARD_NOTEBOOK, variant=s.key, parameters={"paper": s.key},
                          toc_title=f"{s.caption} scorecard") for s in specs]
    overall = Artifact(id=SCORECARD, paper=COMPANION, title="Reproduction scorecard of every check",
                       notebook=SCORECARD_NOTEBOOK)
    speed = Artifact(id=SPEED, paper=COMPANION, title="Recorded run times of every mechanism",
                     notebook=SPEED_NOTEBOOK, toc_title="Run times")
    return [*per_paper, overall, speed]


def discover() -> list[PaperSpec]:
    """The ``SPEC`` of every subpackage of :mod:`reprolib.papers` (on its ``__path__``)."""
    package = importlib.import_module(PAPERS_PACKAGE)
    found = []
    for module in pkgutil.iter_modules(package.__path__):
        if module.ispkg:
            spec = getattr(importlib.import_module(f"{PAPERS_PACKAGE}.{module.name}"), "SPEC", None)
            if not isinstance(spec, PaperSpec):
                raise TypeError(f"{PAPERS_PACKAGE}.{module.name} must export SPEC = PaperSpec(...)")
            found.append(spec)
    return found


@functools.cache
def catalogue() -> Catalogue:
    """The catalogue of the installed papers (discovered once per process)."""
    return Catalogue(discover())
