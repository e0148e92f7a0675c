"""Every registered mechanism spends its budget exactly: never one bit above rho, at most 4 ulps below.

The grid pairs every epsilon in EPSILONS with both deltas, the number of attributes d cycling
through 2..5, so every (epsilon, delta) and every d is exercised. Mechanisms whose toy fit takes
seconds (they compile a new JAX program for each domain) run every STRIDE-th cell, at an offset
that differs between their relations, to keep the file within a minute.
The overspend is checked in exact rational arithmetic (``Fraction``), not only through ``fsum``,
whose rounding to nearest could hide a sum up to half an ulp above rho.
"""

import math
from fractions import Fraction

import numpy as np
import pytest

from reprolib.mechanisms import available, build, registration
from reprolib.privacy import NeighbourRelation, PrivacyBudget, RdpLedger
from reprolib.queries import all_kway

EPSILONS = (0.01, 0.1, 0.3, 1.0, 3.7, 10.0, 100.0)
DELTAS = (1e-5, 1e-9)
ATTRIBUTES = ("Survived", "Pclass", "Sex", "SibSp", "Embarked")
CONFIGURABLE_RELATION = {"AIM", "MST", "MWEM+PGM"}  # the others fix their relation in their traits
ULPS = 4
STRIDE = {"MST": 5, "MWEM+RP": 4, "PrivPGD": 2, "RAP++": 2, "RAP": 2, "Slicing": 2, "SliceWass": 2}


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
def test_charges_sum_to_the_budget_exactly(small_titanic, small_mixed, name, relation):
    overrides = dict(registration(name).quick)
    if relation is not None:
        overrides["relation"] = relation
    mechanism = build(name, overrides)
    offset = 0 if relation in (None, NeighbourRelation.ADD_REMOVE) else 2
    relation = mechanism.traits.relation
    cells = _grid()[offset::STRIDE.get(name, 1)]
    failures = []
    for eps, delta, d in cells:
        budget = PrivacyBudget.from_epsilon_delta(eps, delta, relation=relation)
        if mechanism.traits.data_kind == "mixed":  # its own queries; the toy mixed table
            result = mechanism.fit(small_mixed, budget, np.random.default_rng(d))
            _check(result, budget, eps, delta, d, failures)
            continue
        data = small_titanic.project(list(ATTRIBUTES[:d]))
        result = mechanism.fit(data, budget, np.random.default_rng(0),
                               workload=all_kway(data.domain, 2))
        _check(result, budget, eps, delta, d, failures)
    assert not failures, f"{len(failures)} of {len(cells)} cells off:\n" + "\n".join(failures)


def _check(result, budget, eps, delta, d, failures) -> None:
    """Record a failure unless the charges sum to rho: never above, at most ULPS ulps below (a
    Rényi-DP ledger: its epsilon at delta never above the target, within 1e-9 below it)."""
    if isinstance(result.ledger, RdpLedger):
        spent = result.ledger.spent_epsilon()
        if spent > eps or not math.isclose(spent, eps, rel_tol=1e-9):
            failures.append(f"eps={eps} delta={delta} d={d}: spent epsilon {spent!r}")
        return
    charges = [c.rho for c in result.ledger.charges]
    exact = sum(map(Fraction, charges)) - Fraction(budget.rho)
    if exact > 0 or budget.rho - math.fsum(charges) > ULPS * math.ulp(budget.rho):
        failures.append(f"eps={eps} delta={delta} d={d}: spent - rho = "
                        f"{float(exact):.3g} ({float(exact) / math.ulp(budget.rho):+.1f} ulp)")


@pytest.mark.parametrize("fraction", [0.05, 0.2, 0.5, 0.9])
@pytest.mark.parametrize("eps", EPSILONS)
def test_privpgd_constraint_split_never_exceeds_the_budget(eps, fraction):
    """PrivPGD's marginals/constraint split (the quick config has no constraint) is exact too."""
    from reprolib.mechanisms.particles.privpgd import allocate

    for delta in DELTAS:
        budget = PrivacyBudget.from_epsilon_delta(eps, delta,
                                                  relation=NeighbourRelation.REPLACE_ONE)
        split = allocate(budget, "paper", fraction)
        gap = Fraction(budget.rho) - Fraction(split.rho_marginals) - Fraction(split.rho_constraint)
        assert 0 <= gap <= Fraction(math.ulp(budget.rho))
