"""Every registered mechanism spends its budget exactly: never one bit above rho, at most 4 ulps below.

The grid covers every epsilon in EPSILONS and both deltas for each mechanism and relation, with the
number of attributes d cycling through 2..5, so every (epsilon, delta) and every d is exercised.
The overspend is checked in exact rational arithmetic (``Fraction``), not only through ``fsum``,
whose rounding to nearest could hide a sum up to half an ulp above rho.
"""

import math
from fractions import Fraction

import numpy as np
import pytest

from reprolib.mechanisms import available, build, registration
from reprolib.privacy import NeighbourRelation, PrivacyBudget
from reprolib.queries import all_kway

EPSILONS = (0.01, 0.1, 0.3, 1.0, 3.7, 10.0, 100.0)
DELTAS = (1e-5, 1e-9)
ATTRIBUTES = ("Survived", "Pclass", "Sex", "SibSp", "Embarked")
CONFIGURABLE_RELATION = {"AIM", "MST"}  # the others fix their relation in their traits
ULPS = 4


def _cases() -> list[tuple[str, NeighbourRelation]]:
    cases = []
    for name in available():
        if name in CONFIGURABLE_RELATION:
            cases += [(name, relation) for relation in NeighbourRelation]
        else:
            cases.append((name, None))
    return cases


def _grid() -> list[tuple[float, float, int]]:
    cells = [(eps, delta) for eps in EPSILONS for delta in DELTAS]
    return [(eps, delta, 2 + i % 4) for i, (eps, delta) in enumerate(cells)]


@pytest.mark.parametrize(("name", "relation"), _cases(),
                         ids=lambda v: v.value if isinstance(v, NeighbourRelation) else v)
def test_charges_sum_to_the_budget_exactly(small_titanic, name, relation):
    overrides = dict(registration(name).quick)
    if relation is not None:
        overrides["relation"] = relation
    mechanism = build(name, overrides)
    relation = mechanism.traits.relation
    failures = []
    for eps, delta, d in _grid():
        data = small_titanic.project(list(ATTRIBUTES[:d]))
        budget = PrivacyBudget.from_epsilon_delta(eps, delta, relation=relation)
        result = mechanism.fit(data, budget, np.random.default_rng(0),
                               workload=all_kway(data.domain, 2))
        charges = [c.rho for c in result.ledger.charges]
        exact = sum(map(Fraction, charges)) - Fraction(budget.rho)
        if exact > 0 or budget.rho - math.fsum(charges) > ULPS * math.ulp(budget.rho):
            failures.append(f"eps={eps} delta={delta} d={d}: spent - rho = "
                            f"{float(exact):.3g} ({float(exact) / math.ulp(budget.rho):+.1f} ulp)")
    assert not failures, f"{len(failures)} of {len(_grid())} cells off:\n" + "\n".join(failures)
