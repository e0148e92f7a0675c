"""PrivPGD (Donhauser, Abad, Hulkund, Yang; ICML 2024): Figures 1-7 and Tables 1-6."""

from reprolib.experiments import Artifact, Chapter, PaperSpec
from reprolib.papers.privpgd._substitutes import SUBSTITUTES

_EXPERIMENTS = "reprolib.papers.privpgd.experiments"
_ERRORS = ((1, 2.5, "2.5"), (4, 1.0, "1"), (5, 0.2, "0.2"))
_DISTANCES = ((2, 2.5, "2.5", 1), (6, 1.0, "1", 4), (7, 0.2, "0.2", 5))
_TABLES = [("ACS", 2.5, 1), ("regression + Diabetes", 2.5, 1), ("ACS", 1.0, 4),
           ("regression + Diabetes", 1.0, 4), ("ACS", 0.2, 5), ("regression + Diabetes", 0.2, 5)]
_TABLE_WORDS = {"ACS": "ACS", "regression + Diabetes": "regression and Diabetes"}
#: The paper's table number of each table artifact (the pages look it up here).
TABLE_NUMBERS = {f"privpgd-tab{k}": k for k in range(1, len(_TABLES) + 1)}



def _book_order(artifact: Artifact) -> tuple[bool, int]:
    """Figures before tables, each by number."""
    kind, number = artifact.id.removeprefix("privpgd-")[:3], artifact.id[len("privpgd-") + 3:]
    return kind == "tab", int(number)


SPEC = PaperSpec(
    key="privpgd",
    title="PrivPGD (Donhauser, Abad, Hulkund, Yang; ICML 2024)",
    caption="PrivPGD",
    order=20,
    artifacts=tuple(sorted((
        *[Artifact(id=f"privpgd-fig{k}", paper="privpgd",
                   title=f"Four errors relative to PrivPGD at epsilon {eps}",
                   notebook="notebooks/privpgd/errors.py", variant=f"fig{k}",
                   parameters={"artifact": f"privpgd-fig{k}"},
                   toc_title=f"Figure {k}, four errors at ε = {shown}")
          for k, eps, shown in _ERRORS],
        *[Artifact(id=f"privpgd-fig{k}", paper="privpgd",
                   title=f"SW1 and TV distances at epsilon {eps}",
                   notebook="notebooks/privpgd/distances.py", variant=f"fig{k}",
                   parameters={"artifact": f"privpgd-fig{k}"}, results_of=f"privpgd-fig{source}",
                   toc_title=f"Figure {k}, SW₁ and L1 at ε = {shown}")
          for k, eps, shown, source in _DISTANCES],
        Artifact(id="privpgd-fig3", paper="privpgd",
                 title="Domain constraint (one thresholding query), epsilon 2.5",
                 notebook="notebooks/privpgd/constraint.py",
                 toc_title="Figure 3, protecting one statistic"),
        *[Artifact(id=f"privpgd-tab{k}", paper="privpgd",
                   title=f"Full numeric results, {which}, epsilon {eps}",
                   notebook="notebooks/privpgd/tables.py", variant=f"tab{k}",
                   parameters={"artifact": f"privpgd-tab{k}"}, results_of=f"privpgd-fig{source}",
                   toc_title=f"Table {k}, {_TABLE_WORDS[which]} at ε = {eps:g}")
          for k, (which, eps, source) in enumerate(_TABLES, start=1)],
    ), key=_book_order)),
    experiments={
        "privpgd-fig1": f"{_EXPERIMENTS}:ERRORS_25",
        "privpgd-fig4": f"{_EXPERIMENTS}:ERRORS_10",
        "privpgd-fig5": f"{_EXPERIMENTS}:ERRORS_02",
        "privpgd-fig3": f"{_EXPERIMENTS}:CONSTRAINT",
    },
    checks="reprolib.papers.privpgd.checks:CHECKS",
    chapters=(Chapter(file="book/privpgd/index", sections=(
        "book/privpgd/transport", "book/privpgd/algorithm", "book/privpgd/privacy",
        "book/privpgd/constraints", "book/privpgd/errata")),),
    stand_ins={name: substitute.dataset for name, substitute in SUBSTITUTES.items()},
    stand_in_column="metric.substituted",
    # the nine datasets (stand-ins where the paper's are not here), the three epsilons, every
    # re-run mechanism and Figure 3's strengths; three runs of the paper's five, and PrivPGD at
    # reduced compute (``setup.PROFILES``)
    small_covers_design=True,
)
