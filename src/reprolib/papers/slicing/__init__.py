"""The slicing mechanism (Greenewald, Yu, Wang, Xu; NeurIPS 2024): its privacy analysis and noise
calibration are re-derived and computed, its tasks counted (Table 2), Algorithm 1 and SliceWass
compared (Tables 1 and 3) on the ACS tasks, on digits generated per class (Figure 1) and in
MNIST-USPS domain adaptation with a protected target (Figure 2).
"""

from reprolib.data import acs_stand_in_text
from reprolib.experiments import Artifact, Chapter, PaperSpec
from reprolib.papers.slicing.data import TASKS
from reprolib.papers.slicing.digits import DATASET as DIGITS_DATASET

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
        Artifact(id="slicing-tab2", paper="slicing", title="Dataset details",
                 notebook="notebooks/slicing/datasets.py",
                 toc_title="The five ACS tasks (Table 2)"),
        *[Artifact(id=f"slicing-tab{k}", paper="slicing",
                   title=f"Tabular comparison at epsilon {epsilon}",
                   notebook="notebooks/slicing/comparison.py", variant=f"tab{k}",
                   parameters={"artifact": f"slicing-tab{k}"},
                   toc_title=f"Table {k}, Algorithm 1 and SliceWass at ε = {epsilon}")
          for k, epsilon in ((1, 5.1), (3, 8.1))],
        Artifact(id="slicing-fig1", paper="slicing", title="MNIST accuracy vs epsilon",
                 notebook="notebooks/slicing/digits.py",
                 toc_title="Figure 1, digits generated per class"),
        Artifact(id="slicing-fig2", paper="slicing",
                 title="MNIST to USPS domain adaptation vs epsilon",
                 notebook="notebooks/slicing/adaptation.py",
                 toc_title="Figure 2, domain adaptation with a protected target"),
    ),
    experiments={"slicing-calibration": "reprolib.papers.slicing.calibration:CALIBRATION",
                 "slicing-fig1": "reprolib.papers.slicing.digits:DIGITS",
                 "slicing-fig2": "reprolib.papers.slicing.adaptation:ADAPTATION",
                 "slicing-tab1": "reprolib.papers.slicing.comparison:TABLE_1",
                 "slicing-tab2": "reprolib.papers.slicing.datasets:DATASETS",
                 "slicing-tab3": "reprolib.papers.slicing.comparison:TABLE_3"},
    checks="reprolib.papers.slicing.checks:CHECKS",
    chapters=(Chapter(file="book/slicing/index",
                      sections=("book/slicing/privacy", "book/slicing/baselines")),),
    no_data={"slicing-calibration": "closed forms (no data)"},
    stand_ins={**{task: f"sdnist/{{national,ma,tx}}2018: {acs_stand_in_text(stand_in)}"
                  for task, (_, stand_in) in TASKS.items()},
               DIGITS_DATASET: "mnist/test split in two fixed halves, a private pool and an "
                               "evaluation set (the paper: 10 % of the MNIST training images "
                               "per class, tested on the MNIST test set)",
               "mnist-usps": "source mnist/test (the paper: the MNIST training set); target "
                             "usps/train, scored on usps/test",
               "usps-mnist": "source usps/train; target the private half of mnist/test, "
                             "scored on its other half (the paper: the MNIST test set)"},
    stand_in_column="metric.stand_in",
    design_gaps="reprolib.papers.slicing:small_design_gaps",
)


def small_design_gaps(artifact: str) -> str:
    """What the ``small`` grid of ``artifact`` lacks of the paper's design, in words.

    Tables 1-3: nothing (every task, on its named stand-in, every mechanism, three trials; only
    epochs and projections are cut). Figures 1 and 2: the paper's epsilons, which its text does
    not give (its figures are images), so no grid of ours can be said to cover them.
    """
    if artifact == "slicing-fig1":
        from reprolib.papers.slicing.digits import SETTINGS as DIGITS

        epsilons = DIGITS["small"].epsilons
    elif artifact == "slicing-fig2":
        from reprolib.papers.slicing.adaptation import SETTINGS as ADAPTATION

        epsilons = ADAPTATION["small"].epsilons
    else:
        return ""
    ours = ", ".join(f"{epsilon:g}" for epsilon in epsilons)
    return f"the paper's ε values, not in its text; ours are {ours}"
