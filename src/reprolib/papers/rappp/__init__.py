"""RAP++ (Vietri et al.; NeurIPS 2022): Tables 1-4 and Figures 1-9."""

from reprolib.experiments import Artifact, Chapter, PaperSpec
from reprolib.papers.rappp.data import STAND_IN_TASKS, STAND_INS

_EXPERIMENTS = "reprolib.papers.rappp.experiments"
_TABLES = "notebooks/rappp/tables.py"
_ERRORS = "notebooks/rappp/query_errors.py"
_LEARNING = "notebooks/rappp/learning.py"


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
        Artifact(id="rappp-fig2", paper="rappp", title="Mixed-marginal error, RAP++ vs PGM",
                 notebook=_ERRORS, variant="fig2", parameters={"artifact": "rappp-fig2"},
                 results_of="rappp-fig8", toc_title="Figure 2, mixed-marginal error"),
        Artifact(id="rappp-fig3", paper="rappp", title="F1 vs runtime, hyper-parameter sensitivity",
                 notebook="notebooks/rappp/sensitivity.py",
                 toc_title="Figure 3, F1 against runtime"),
        Artifact(id="rappp-fig4", paper="rappp", title="Single-task ML, ACS-NY",
                 notebook=_LEARNING, variant="fig4", parameters={"artifact": "rappp-fig4"},
                 results_of="rappp-fig8", toc_title="Figure 4, single-task F1 in one state"),
        Artifact(id="rappp-fig5", paper="rappp", title="Multitask ML",
                 notebook=_LEARNING, variant="fig5", parameters={"artifact": "rappp-fig5"},
                 results_of="rappp-fig9", toc_title="Figure 5, multitask F1 in one state"),
        Artifact(id="rappp-fig6", paper="rappp", title="Sigma annealing on five datasets",
                 notebook="notebooks/rappp/annealing.py", variant="fig6",
                 parameters={"artifact": "rappp-fig6"},
                 toc_title="Figure 6, annealing on five datasets"),
        Artifact(id="rappp-fig7", paper="rappp",
                 title="Categorical- and mixed-marginal error, all five tasks",
                 notebook=_ERRORS, variant="fig7", parameters={"artifact": "rappp-fig7"},
                 results_of="rappp-fig8", toc_title="Figure 7, both query errors"),
        Artifact(id="rappp-fig8", paper="rappp", title="Single-task ML, all 25 datasets",
                 notebook=_LEARNING, variant="fig8", parameters={"artifact": "rappp-fig8"},
                 toc_title="Figure 8, single-task F1 in every state"),
        Artifact(id="rappp-fig9", paper="rappp", title="Multitask ML, five states",
                 notebook=_LEARNING, variant="fig9", parameters={"artifact": "rappp-fig9"},
                 toc_title="Figure 9, multitask F1 in every state"),
    ),
    experiments={
        "rappp-tab1": f"{_EXPERIMENTS}:DATASETS",
        "rappp-tab2": f"{_EXPERIMENTS}:MECHANISMS",
        "rappp-tab3": f"{_EXPERIMENTS}:IMPORTANCE",
        "rappp-tab4": f"{_EXPERIMENTS}:FEATURES",
        "rappp-fig1": f"{_EXPERIMENTS}:ANNEALING_1",
        "rappp-fig6": f"{_EXPERIMENTS}:ANNEALING_6",
        "rappp-fig8": f"{_EXPERIMENTS}:SINGLE_TASK",
        "rappp-fig9": f"{_EXPERIMENTS}:MULTI_TASK",
        "rappp-fig3": f"{_EXPERIMENTS}:SENSITIVITY_SWEEP",
    },
    checks="reprolib.papers.rappp.checks:CHECKS",
    chapters=(Chapter(file="book/rappp/index", sections=("book/rappp/privacy",)),),
    no_data={"rappp-tab2": "the mechanisms' declared traits (no data)",
             "rappp-tab4": "the paper's Table 4 with its task membership rebuilt (no data)"},
    stand_ins=_stand_ins(),
    stand_in_column="metric.stand_in",
    # every task and the multitask set on the three stand-in states, every epsilon, mechanism
    # and seed, but for any mechanism ``comparison.pending_mechanisms`` lists
    design_gaps="reprolib.papers.rappp.comparison:small_design_gaps",
)
