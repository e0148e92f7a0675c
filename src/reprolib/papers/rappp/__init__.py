"""RAP++ (Vietri et al.; NeurIPS 2022): Tables 1-4 and Figures 1 and 6; the others pending."""

from reprolib.experiments import Artifact, Chapter, PaperSpec, pending
from reprolib.papers.rappp.data import STAND_IN_TASKS, STAND_INS

_EXPERIMENTS = "reprolib.papers.rappp.experiments"
_TABLES = "notebooks/rappp/tables.py"


def _stand_ins() -> dict[str, str]:
    """Every stand-in dataset key (task/state) and what it is."""
    return {f"{task}/{state}": f"SDNist {state} excerpt, {spec.title} "
                               f"(stand-in for the paper's ACS tasks)"
            for task, spec in STAND_IN_TASKS.items() for state in STAND_INS}


SPEC = PaperSpec(
    key="rappp",
    title="RAP++ (Vietri, Archambeau, Aydore, Brown, Kearns, Roth, Siva, Tang, Wu; NeurIPS 2022)",
    caption="RAP++",
    order=30,
    artifacts=(
        Artifact(id="rappp-tab1", paper="rappp", title="Single-task ACS datasets",
                 notebook=_TABLES),
        Artifact(id="rappp-tab2", paper="rappp", title="Synthetic-data mechanisms compared",
                 notebook=_TABLES),
        Artifact(id="rappp-tab3", paper="rappp", title="Importance of numerical features",
                 notebook=_TABLES),
        Artifact(id="rappp-tab4", paper="rappp", title="Feature descriptions",
                 notebook=_TABLES),
        Artifact(id="rappp-fig1", paper="rappp", title="Sigma annealing vs fixed sigma",
                 notebook="notebooks/rappp/annealing.py", variant="fig1",
                 parameters={"artifact": "rappp-fig1"},
                 toc_title="Figure 1, annealing against fixed temperatures"),
        Artifact(id="rappp-fig6", paper="rappp", title="Sigma annealing on five datasets",
                 notebook="notebooks/rappp/annealing.py", variant="fig6",
                 parameters={"artifact": "rappp-fig6"},
                 toc_title="Figure 6, annealing on five datasets"),
        *pending("rappp", [
            ("rappp-fig2", "Mixed-marginal error, RAP++ vs PGM"),
            ("rappp-fig3", "F1 vs runtime, hyper-parameter sensitivity"),
            ("rappp-fig4", "Single-task ML, ACS-NY"),
            ("rappp-fig5", "Multitask ML"),
            ("rappp-fig7", "Categorical- and mixed-marginal error, all five tasks"),
            ("rappp-fig8", "Single-task ML, all 25 datasets"),
            ("rappp-fig9", "Multitask ML, five states"),
        ]),
    ),
    experiments={
        "rappp-tab1": f"{_EXPERIMENTS}:DATASETS",
        "rappp-tab2": f"{_EXPERIMENTS}:MECHANISMS",
        "rappp-tab3": f"{_EXPERIMENTS}:IMPORTANCE",
        "rappp-tab4": f"{_EXPERIMENTS}:FEATURES",
        "rappp-fig1": f"{_EXPERIMENTS}:ANNEALING_1",
        "rappp-fig6": f"{_EXPERIMENTS}:ANNEALING_6",
        "rappp-fig8": f"{_EXPERIMENTS}:SINGLE_TASK",
    },
    checks="reprolib.papers.rappp.checks:CHECKS",
    chapters=(Chapter(file="book/rappp/index", sections=("book/rappp/privacy",)),),
    no_data={"rappp-tab2": "the mechanisms' declared traits (no data)",
             "rappp-tab4": "the paper's Table 4 with its task membership rebuilt (no data)"},
    stand_ins=_stand_ins(),
    stand_in_column="metric.stand_in",
)
