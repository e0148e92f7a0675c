"""The experiments behind the RAP++ artifacts: the tables, the annealing study (Figures 1 and
6), the comparison grids (Figures 8 and 9, whose runs Figures 2, 4, 5 and 7 also show) and
Figure 3's sweep.

Table 1 counts each dataset's features and rows; Table 2 reads the input type our mechanisms
declare; Table 3 fits the paper's linear model (:func:`reprolib.metrics.logistic_macro_f1`) on
the real multitask records with and without the numerical columns; Table 4 lists each task's
features as rebuilt. None is private: they describe the data and the code.
"""

from __future__ import annotations

import itertools

from reprolib.experiments._experiment import Experiment, NoSettings, no_settings
from reprolib.experiments._scales import Scale
from reprolib.experiments._store import Cell
from reprolib.metrics import logistic_macro_f1
from reprolib.papers.rappp.annealing import (
    SETTINGS,
    AnnealingSettings,
    annealing_cells,
    annealing_run,
)
from reprolib.papers.rappp.comparison import (
    COMPARISON,
    MULTITASK,
    SENSITIVITY,
    ComparisonSettings,
    SensitivitySettings,
    comparison_cells,
    comparison_run,
    sensitivity_cells,
)
from reprolib.papers.rappp.data import PAPER_TASKS, load_task, split
from reprolib.papers.rappp.setup import PROFILES, Profile


def _profile(scale: Scale) -> Profile:
    return PROFILES[scale]


def _dataset_cells(scale: Scale, profile: Profile) -> list[Cell]:
    del scale
    return [Cell(artifact="rappp-tab1", mechanism="none", dataset=f"{task}/{state}",
                 epsilon=None, delta=None, seed=0, params={})
            for task, state in itertools.product(profile.tasks, profile.states)]


def _dataset_counts(cell: Cell, device: str) -> dict[str, object]:
    del device
    task, state = cell.dataset.split("/")
    loaded = load_task(task, state)
    domain = loaded.data.domain
    return {"records": loaded.data.records, "categorical": len(domain.categorical),
            "numerical": len(domain.numerical), "targets": len(domain.targets),
            "stand_in": loaded.stand_in, "source": loaded.source}


def _importance_cells(scale: Scale, profile: Profile) -> list[Cell]:
    del scale
    return [Cell(artifact="rappp-tab3", mechanism="logistic-regression",
                 dataset=f"multitask/{state}", epsilon=None, delta=None, seed=seed, params={})
            for state, seed in itertools.product(profile.states, range(profile.trials))]


def _importance(cell: Cell, device: str) -> dict[str, object]:
    """Macro-F1 per target of the linear model on the real split, categorical-only and all."""
    del device
    loaded = load_task("multitask", cell.dataset.split("/")[1])
    train, test = split(loaded.data, cell.seed)
    scores = {f"f1_{kind}.{target}": logistic_macro_f1(train, test, target,
                                                       numerical=kind == "all")
              for target in loaded.data.targets for kind in ("categorical", "all")}
    return {**scores, "stand_in": loaded.stand_in}


# Table 2: the paper's mechanisms and the one of ours that re-runs each (None: not re-run yet)
TABLE_2_MECHANISMS = {"PGM": "MWEM+PGM", "DP-MERF": "DP-MERF", "DP-CTGAN": "DP-CTGAN", "RAP": "RAP",
                      "RAP++": "RAP++"}


def _mechanism_cells(scale: Scale, settings: NoSettings) -> list[Cell]:
    del scale, settings
    return [Cell(artifact="rappp-tab2", mechanism=name, dataset="none", epsilon=None,
                 delta=None, seed=0, params={"ours": ours or ""})
            for name, ours in TABLE_2_MECHANISMS.items()]


def _input_type(cell: Cell, device: str) -> dict[str, object]:
    """What the mechanism reads, from its class's declared traits and how it is run."""
    del device
    from reprolib.mechanisms import build

    ours = str(cell.params["ours"])
    if not ours:
        return {"input": "", "rerun": False}
    mechanism = build(ours)
    kind = mechanism.traits.data_kind
    binned = hasattr(mechanism.config, "bins")  # reads mixed records, models binned numbers
    if hasattr(mechanism.config, "embedding"):  # one real vector: one-hot blocks, numbers
        read = "Numerical"
    elif kind == "mixed" and not binned:
        read = "Mixed-Type"
    else:
        read = "Categorical"
    return {"input": read, "rerun": True, "data_kind": kind}


def _feature_cells(scale: Scale, settings: NoSettings) -> list[Cell]:
    del scale, settings
    return [Cell(artifact="rappp-tab4", mechanism="none", dataset=task, epsilon=None,
                 delta=None, seed=0, params={}) for task in PAPER_TASKS]


def _features(cell: Cell, device: str) -> dict[str, object]:
    del device
    task = PAPER_TASKS[cell.dataset]
    return {"categorical": list(task.categorical), "numerical": list(task.numerical),
            "targets": list(task.targets)}


DATASETS = Experiment(artifact="rappp-tab1", settings=Profile, defaults=_profile,
                      cells=_dataset_cells, compute=_dataset_counts)
IMPORTANCE = Experiment(artifact="rappp-tab3", settings=Profile, defaults=_profile,
                        cells=_importance_cells, compute=_importance)
MECHANISMS = Experiment(artifact="rappp-tab2", settings=NoSettings, defaults=no_settings,
                        cells=_mechanism_cells, compute=_input_type)
FEATURES = Experiment(artifact="rappp-tab4", settings=NoSettings, defaults=no_settings,
                      cells=_feature_cells, compute=_features)
ANNEALING_1, ANNEALING_6 = (
    Experiment(artifact=a, settings=AnnealingSettings, defaults=SETTINGS[a].__getitem__,
               cells=annealing_cells(a), compute=annealing_run)
    for a in ("rappp-fig1", "rappp-fig6"))
SINGLE_TASK = Experiment(artifact="rappp-fig8", settings=ComparisonSettings,
                         defaults=COMPARISON.__getitem__, cells=comparison_cells("rappp-fig8"),
                         compute=comparison_run)
MULTI_TASK = Experiment(artifact="rappp-fig9", settings=ComparisonSettings,
                        defaults=MULTITASK.__getitem__, cells=comparison_cells("rappp-fig9"),
                        compute=comparison_run)
SENSITIVITY_SWEEP = Experiment(artifact="rappp-fig3", settings=SensitivitySettings,
                               defaults=SENSITIVITY.__getitem__, cells=sensitivity_cells,
                               compute=comparison_run)
