"""The book's privacy-preliminaries chapter: zCDP <-> (epsilon, delta) conversions and noise scales."""

from reprolib.experiments import Artifact, Chapter, PaperSpec

SPEC = PaperSpec(
    key="preliminaries",
    title="Privacy preliminaries (this book)",
    caption="Foundations",
    order=0,
    artifacts=(Artifact(
        id="prelim-conversions", paper="preliminaries",
        title="zCDP to (epsilon, delta): CKS vs Bun-Steinke, and the Gaussian noise each needs",
        notebook="notebooks/preliminaries/conversions.py"),),
    experiments={"prelim-conversions": "reprolib.papers.preliminaries.experiments:CONVERSIONS"},
    checks="reprolib.papers.preliminaries.checks:CHECKS",
    chapters=(Chapter(file="book/privacy"),),
    small_covers_design=True,
    paper_covers_design=True,
    no_data={"prelim-conversions": "closed forms (no data)"},
)
