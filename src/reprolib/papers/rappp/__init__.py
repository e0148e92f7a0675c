"""RAP++ (Vietri et al.; NeurIPS 2022). Not re-run yet: its artifacts are listed as pending."""

from reprolib.experiments import PaperSpec, pending

SPEC = PaperSpec(
    key="rappp",
    title="RAP++ (Vietri, Archambeau, Aydore, Brown, Kearns, Roth, Siva, Tang, Wu; NeurIPS 2022)",
    caption="RAP++",
    order=30,
    artifacts=pending("rappp", [
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
)
