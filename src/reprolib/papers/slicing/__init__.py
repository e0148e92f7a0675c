"""The slicing mechanism (Greenewald, Yu, Wang, Xu; NeurIPS 2024): its privacy analysis and noise
calibration are re-derived and computed; its tables and figures are pending.
"""

from reprolib.experiments import Artifact, Chapter, PaperSpec, pending

SPEC = PaperSpec(
    key="slicing",
    title="Slicing mechanism (Greenewald, Yu, Wang, Xu; NeurIPS 2024)",
    caption="Slicing mechanism",
    order=40,
    artifacts=(
        Artifact(id="slicing-calibration", paper="slicing",
                 title="Noise calibration: Theorem 1, the exact Rényi curve and Proposition 3",
                 notebook="notebooks/slicing/calibration.py",
                 toc_title="Noise for the paper's budgets"),
        *pending("slicing", [
            ("slicing-tab1", "Tabular comparison at epsilon 5.1"),
            ("slicing-tab2", "Dataset details"),
            ("slicing-tab3", "Tabular comparison at epsilon 8.1"),
            ("slicing-fig1", "MNIST accuracy vs epsilon"),
            ("slicing-fig2", "MNIST to USPS domain adaptation vs epsilon"),
        ]),
    ),
    experiments={"slicing-calibration": "reprolib.papers.slicing.calibration:CALIBRATION"},
    checks="reprolib.papers.slicing.checks:CHECKS",
    chapters=(Chapter(file="book/slicing/index", sections=("book/slicing/privacy",)),),
    no_data={"slicing-calibration": "closed forms (no data)"},
)
