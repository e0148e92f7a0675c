"""What the RAP++ experiments share: the scales' datasets.

The paper's design (Section 5): five ACS tasks and a multitask set for five states (2014),
epsilon in {0.07, 0.15, 0.23, 0.52, 0.74, 1} (the paper names 0.15 and 1 only; the grid is the
authors' group's follow-up code's), delta = 1/n^2, four seeds. Offline, ``small`` runs the named
stand-ins (:mod:`reprolib.papers.rappp.data`) for three stand-in 'states'.
"""

from __future__ import annotations

import dataclasses

from reprolib.experiments._scales import Scale
from reprolib.papers.rappp.data import PAPER_STATES, PAPER_TASKS, STAND_IN_TASKS, STAND_INS

EPSILONS = (0.07, 0.15, 0.23, 0.52, 0.74, 1.0)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Profile:
    """The datasets of one scale.

    Attributes:
        states: paper states (``PAPER_STATES``, needs the Census files) or stand-in keys
            (``STAND_INS``).
        tasks: task names (the paper's for paper states, the stand-ins' otherwise).
        trials: seeds per setting (paper: 4).
    """

    states: tuple[str, ...]
    tasks: tuple[str, ...]
    trials: int


PROFILES: dict[Scale, Profile] = {
    "smoke": Profile(states=("ma2018",), tasks=("income", "hispanic", "multitask"), trials=1),
    "small": Profile(states=tuple(STAND_INS), tasks=tuple(STAND_IN_TASKS), trials=4),
    "paper": Profile(states=PAPER_STATES, tasks=tuple(PAPER_TASKS), trials=4),
}
