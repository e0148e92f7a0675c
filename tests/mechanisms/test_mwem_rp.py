"""MWEM + Relaxed Projection: every charge from its closed form, the estimated total, accuracy.

The total spend, the relation, seeding and the output domain are in test_contract.py."""

import math

import numpy as np
import pytest

from reprolib.mechanisms.pgm import NoisyMarginal
from reprolib.mechanisms.relaxed.mwem_rp import MWEMRelaxedProjection, MWEMRPConfig, estimated_total
from reprolib.mechanisms.relaxed.projection import RelaxedProjectionConfig
from reprolib.privacy import NeighbourRelation, PrivacyBudget
from reprolib.queries import Workload

# A few 2- and 3-way marginals of full titanic (9 attributes), in domain order; one compiled
# projection serves every test because the domain, workload and projection config are shared.
WORKLOAD = Workload("test", (("Survived", "Pclass", "Sex"), ("Pclass", "Embarked"),
                             ("Sex", "SibSp", "Parch"), ("Survived", "Cabin"),
                             ("Pclass", "Fare"), ("Survived", "Age")), (1.0,) * 6)
PROJECTION = RelaxedProjectionConfig(n_synthetic=200, iterations=150, learning_rate=0.01)
ROUNDS = 4


def _fit(data, rho, rounds=ROUNDS, workload=WORKLOAD):
    mechanism = MWEMRelaxedProjection(MWEMRPConfig(rounds=rounds, projection=PROJECTION))
    return mechanism.fit(data, PrivacyBudget(rho=rho, relation=NeighbourRelation.ADD_REMOVE),
                         np.random.default_rng(0), workload=workload)


def _workload_error(data, marginal):
    """Mean over the workload of half the L1 distance between normalised marginals."""
    return np.mean([0.5 * np.abs(marginal(c) - data.marginal(c) / data.records).sum()
                    for c in WORKLOAD.cliques])


@pytest.fixture(scope="module")
def run(titanic):
    return _fit(titanic, rho=0.5)


def test_every_charge_matches_the_closed_form(run):
    rho = 0.5
    ledger = run.ledger
    assert [c.mechanism for c in ledger.charges] == ["exponential", "gaussian"] * ROUNDS
    for charge in ledger.charges:
        assert charge.rho == pytest.approx(rho / (2 * ROUNDS), rel=1e-12)
        assert charge.details["sensitivity"] == 1.0  # add/remove: one marginal, L1 and L2
    for selection in ledger.charges[::2]:  # eps = sqrt(8 rho / (2T)), cost eps^2 / 8
        assert selection.details["epsilon"] == pytest.approx(math.sqrt(8 * rho / (2 * ROUNDS)))
    for measurement in ledger.charges[1::2]:  # sigma = sqrt(T / rho), cost 1 / (2 sigma^2)
        assert measurement.details["sigma"] == pytest.approx(math.sqrt(ROUNDS / rho))
    assert len(run.log.measurements) == ROUNDS
    assert all(m.clique in WORKLOAD.cliques for m in run.log.measurements)


def test_releases_records_of_the_estimated_total(titanic, run):
    synthetic = run.synthetic
    assert synthetic.records == max(1, round(run.log.totals[-1]))
    assert abs(run.log.totals[-1] - titanic.records) < 0.1 * titanic.records


def test_large_budget_beats_the_uniform_table(titanic):
    result = _fit(titanic, rho=100.0, rounds=len(WORKLOAD))
    uniform = _workload_error(titanic, lambda c: np.full(titanic.domain.project(c).sizes,
                                                         1.0 / titanic.domain.project(c).total_size))
    relaxed = _workload_error(titanic, result.log.relaxed.marginal)
    records = _workload_error(titanic, lambda c: result.synthetic.marginal(c)
                              / result.synthetic.records)
    assert relaxed < 0.05 * uniform  # about 0.01 here; the rounding adds sampling error
    assert records < 0.2 * uniform


def test_default_rounds_is_the_number_of_attributes():
    assert MWEMRPConfig().rounds is None
    with pytest.raises(ValueError, match="rounds"):
        MWEMRPConfig(rounds=0)


def test_refuses_a_missing_workload(titanic):
    with pytest.raises(ValueError, match="workload-aware"):
        _fit(titanic, rho=1.0, workload=None)


def test_estimated_total_is_the_inverse_variance_mean_of_sums():
    a = NoisyMarginal(("x",), np.array([40.0, 60.0]), sigma=1.0)  # sum 100, variance 2
    b = NoisyMarginal(("y",), np.array([30.0, 30.0, 30.0, 30.0]), sigma=2.0)  # 120, variance 16
    assert estimated_total([a, b]) == pytest.approx((100 / 2 + 120 / 16) / (1 / 2 + 1 / 16))
    assert estimated_total([]) == 1.0
    assert estimated_total([NoisyMarginal(("x",), np.array([-5.0]), sigma=1.0)]) == 1.0
