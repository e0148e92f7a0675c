"""The catalogue of artifacts: every figure and table of the four papers, and the notebook behind it.

An artifact id (``aim-fig1``, ``privpgd-tab3``, ...) names one figure or table; DESIGN.md fixes the
ids. Several artifacts can share a notebook run with different parameters (PrivPGD Figures 1, 4
and 5 are one notebook at three epsilons). Artifacts whose notebook is not written yet have
``notebook=None`` and are listed as such, never hidden.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

PAPERS = {
    "preliminaries": "Privacy preliminaries (this book)",
    "aim": "AIM (McKenna, Mullins, Sheldon, Miklau; VLDB 2022)",
    "privpgd": "PrivPGD (Donhauser, Abad, Hulkund, Yang; ICML 2024)",
    "rappp": "RAP++ (Vietri, Archambeau, Aydore, Brown, Kearns, Roth, Siva, Tang, Wu; NeurIPS 2022)",
    "slicing": "Slicing mechanism (Greenewald, Yu, Wang, Xu; NeurIPS 2024)",
    "companion": "The companion itself",
}


@dataclasses.dataclass(frozen=True, kw_only=True)
class Artifact:
    """One figure or table (or companion page) and how to produce it.

    Attributes:
        id: the artifact id used by the CLI, the results store and the scorecard.
        paper: key of :data:`PAPERS`.
        title: what the artifact shows.
        notebook: the jupytext source relative to the repository root, or None if not written yet.
        variant: suffix of the generated notebook when one notebook serves several artifacts.
        parameters: papermill parameters that select this artifact's variant.
        results_of: the artifact whose runs this one shows (same grid, no runs of its own), or
            None; PrivPGD's Figure 2 and Tables 1-2 read Figure 1's runs, for instance.
    """

    id: str
    paper: str
    title: str
    notebook: str | None = None
    variant: str = ""
    parameters: Mapping[str, object] = dataclasses.field(default_factory=dict)
    results_of: str | None = None

    def __post_init__(self) -> None:
        if self.paper not in PAPERS:
            raise ValueError(f"artifact {self.id}: unknown paper {self.paper!r}; known: {list(PAPERS)}")
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


def _pending(paper: str, ids_and_titles: list[tuple[str, str]]) -> list[Artifact]:
    return [Artifact(id=i, paper=paper, title=t) for i, t in ids_and_titles]


ARTIFACTS: tuple[Artifact, ...] = (
    Artifact(id="prelim-conversions", paper="preliminaries",
             title="zCDP to (epsilon, delta): CKS vs Bun-Steinke, and the Gaussian noise each needs",
             notebook="notebooks/preliminaries/conversions.py"),
    Artifact(id="scorecard", paper="companion", title="Reproduction scorecard of every check",
             notebook="notebooks/companion/scorecard.py"),
    Artifact(id="scorecard-aim", paper="companion", title="Reproduction scorecard of the AIM part",
             notebook="notebooks/companion/scorecard.py", variant="aim",
             parameters={"paper": "aim"}),
    Artifact(id="aim-tab1", paper="aim",
             title="Taxonomy of mechanisms (workload-, data-, budget-, efficiency-aware)",
             notebook="notebooks/aim/tables.py"),
    Artifact(id="aim-tab2", paper="aim", title="The six datasets",
             notebook="notebooks/aim/tables.py"),
    Artifact(id="aim-tab3", paper="aim", title="Structural zeros",
             notebook="notebooks/aim/structural_zeros.py"),
    *[Artifact(id=f"aim-fig{k}", paper="aim", title=f"Workload error vs epsilon, {title}",
               notebook="notebooks/aim/workload_error.py", variant=f"fig{k}",
               parameters={"artifact": f"aim-fig{k}"})
      for k, title in ((1, "all 3-way marginals"), (2, "target workload"),
                       (3, "skewed workload"))],
    Artifact(id="aim-fig4ab", paper="aim", title="Tuning model capacity",
             notebook="notebooks/aim/capacity.py"),
    Artifact(id="aim-fig4c", paper="aim", title="Uncertainty quantification",
             notebook="notebooks/aim/uncertainty.py"),
    Artifact(id="aim-fig5", paper="aim", title="Subsampling fraction that matches AIM's error",
             notebook="notebooks/aim/subsampling.py"),
    Artifact(id="aim-fig6", paper="aim", title="AIM runtime vs epsilon",
             notebook="notebooks/aim/runtime.py"),
    Artifact(id="aim-fig7", paper="aim", title="MWEM+PGM vs MWEM+relaxed projection",
             notebook="notebooks/aim/mwem_generators.py"),
    Artifact(id="scorecard-privpgd", paper="companion",
             title="Reproduction scorecard of the PrivPGD part",
             notebook="notebooks/companion/scorecard.py", variant="privpgd",
             parameters={"paper": "privpgd"}),
    *[Artifact(id=f"privpgd-fig{k}", paper="privpgd",
               title=f"Four errors relative to PrivPGD at epsilon {eps}",
               notebook="notebooks/privpgd/errors.py", variant=f"fig{k}",
               parameters={"artifact": f"privpgd-fig{k}"})
      for k, eps in ((1, 2.5), (4, 1.0), (5, 0.2))],
    *[Artifact(id=f"privpgd-fig{k}", paper="privpgd",
               title=f"SW1 and TV distances at epsilon {eps}",
               notebook="notebooks/privpgd/distances.py", variant=f"fig{k}",
               parameters={"artifact": f"privpgd-fig{k}"}, results_of=f"privpgd-fig{source}")
      for k, eps, source in ((2, 2.5, 1), (6, 1.0, 4), (7, 0.2, 5))],
    Artifact(id="privpgd-fig3", paper="privpgd",
             title="Domain constraint (one thresholding query), epsilon 2.5",
             notebook="notebooks/privpgd/constraint.py"),
    *[Artifact(id=f"privpgd-tab{k}", paper="privpgd",
               title=f"Full numeric results, {which}, epsilon {eps}",
               notebook="notebooks/privpgd/tables.py", variant=f"tab{k}",
               parameters={"artifact": f"privpgd-tab{k}"}, results_of=f"privpgd-fig{source}")
      for k, (which, eps, source) in enumerate(
          [("ACS", 2.5, 1), ("regression + Diabetes", 2.5, 1), ("ACS", 1.0, 4),
           ("regression + Diabetes", 1.0, 4), ("ACS", 0.2, 5), ("regression + Diabetes", 0.2, 5)],
          start=1)],
    *_pending("rappp", [
        ("rappp-fig1", "Sigma annealing vs fixed sigma"),
        ("rappp-fig2", "Mixed-marginal error, RAP++ vs PGM"),
        ("rappp-fig3", "F1 vs runtime, hyper-parameter sensitivity"),
        ("rappp-fig4", "Single-task ML, ACS-NY"),
        ("rappp-fig5", "Multitask ML"),
        ("rappp-fig6", "Sigma annealing on five datasets"),
        ("rappp-fig7", "Categorical- and mixed-marginal error, all five tasks"),
        ("rappp-fig8", "Single-task ML, all 25 datasets"),
        ("rappp-fig9", "Multitask ML, five states"),
        ("rappp-tab1", "Single-task ACS datasets"),
        ("rappp-tab2", "Synthetic-data mechanisms compared"),
        ("rappp-tab3", "Importance of numerical features"),
        ("rappp-tab4", "Feature descriptions"),
    ]),
    *_pending("slicing", [
        ("slicing-tab1", "Tabular comparison at epsilon 5.1"),
        ("slicing-tab2", "Dataset details"),
        ("slicing-tab3", "Tabular comparison at epsilon 8.1"),
        ("slicing-fig1", "MNIST accuracy vs epsilon"),
        ("slicing-fig2", "MNIST to USPS domain adaptation vs epsilon"),
    ]),
)

_BY_ID = {artifact.id: artifact for artifact in ARTIFACTS}


def get_artifact(artifact_id: str) -> Artifact:
    """The artifact with this id; an unknown id raises a KeyError that suggests close ids."""
    try:
        return _BY_ID[artifact_id]
    except KeyError:
        import difflib

        close = difflib.get_close_matches(artifact_id, _BY_ID, n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise KeyError(f"unknown artifact {artifact_id!r}.{hint} `reprolib list` shows all ids.") from None


def artifacts_of(paper: str | None = None) -> list[Artifact]:
    """All artifacts, or those of one paper (an unknown paper raises a ValueError)."""
    if paper is None:
        return list(ARTIFACTS)
    if paper not in PAPERS:
        raise ValueError(f"unknown paper {paper!r}; known: {', '.join(PAPERS)}")
    return [artifact for artifact in ARTIFACTS if artifact.paper == paper]
