"""The slicing mechanism (Greenewald, Yu, Wang, Xu; NeurIPS 2024). Not re-run yet: its artifacts
are listed as pending.
"""

from reprolib.experiments import PaperSpec, pending

SPEC = PaperSpec(
    key="slicing",
    title="Slicing mechanism (Greenewald, Yu, Wang, Xu; NeurIPS 2024)",
    caption="Slicing mechanism",
    order=40,
    artifacts=pending("slicing", [
        ("slicing-tab1", "Tabular comparison at epsilon 5.1"),
        ("slicing-tab2", "Dataset details"),
        ("slicing-tab3", "Tabular comparison at epsilon 8.1"),
        ("slicing-fig1", "MNIST accuracy vs epsilon"),
        ("slicing-fig2", "MNIST to USPS domain adaptation vs epsilon"),
    ]),
)
