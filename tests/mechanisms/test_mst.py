"""MST: the three thirds of the budget charge by charge, domain compression, the tree.

The total spend, relations, seeding and the output domain are in test_contract.py."""

import dataclasses
import math

import networkx as nx
import numpy as np
import pandas as pd
import pytest

from reprolib.data import Dataset, Domain
from reprolib.mechanisms.marginal.mst import MST, DomainCompression, MSTConfig
from reprolib.mechanisms.pgm import NoisyMarginal
from reprolib.privacy import NeighbourRelation, PrivacyBudget

FAST = MSTConfig(pgm_iters=100, selection_pgm_iters=50)


def _budget(rho, relation=NeighbourRelation.ADD_REMOVE):
    return PrivacyBudget(rho=rho, relation=relation)


# (relation, L2 sensitivity of one marginal, L1 sensitivity of one marginal)
RELATIONS = [(NeighbourRelation.ADD_REMOVE, 1.0, 1.0),
             (NeighbourRelation.REPLACE_ONE, math.sqrt(2.0), 2.0)]


@pytest.fixture(scope="module", params=RELATIONS, ids=lambda r: r[0].value)
def run(request, small_titanic):
    relation, l2, l1 = request.param
    budget = _budget(0.015, relation)  # about epsilon = 1 at delta = 1e-9: rare SibSp values merge
    config = dataclasses.replace(FAST, relation=relation)
    return budget, MST(config).fit(small_titanic, budget, np.random.default_rng(5)), l2, l1


def test_a_budget_under_the_other_relation_is_refused_with_both_fixes(small_titanic):
    with pytest.raises(ValueError) as error:
        MST(FAST).fit(small_titanic, _budget(0.015, NeighbourRelation.REPLACE_ONE),
                      np.random.default_rng(0))
    assert str(error.value) == (
        "MST accounts under the add-remove neighbouring relation, but the budget is for "
        "replace-one; build the budget with relation=NeighbourRelation.ADD_REMOVE, or build MST "
        "with MSTConfig(relation=NeighbourRelation.REPLACE_ONE)")


def test_each_third_is_charged_at_its_closed_form(run, small_titanic):
    budget, result, l2, l1 = run
    rho, d = budget.rho, len(small_titanic.domain)
    charges = result.ledger.charges
    one_way, selections, two_way = charges[:d], charges[d:2 * d - 1], charges[2 * d - 1:]
    assert len(two_way) == d - 1
    assert [c.label for c in one_way] == [f"1-way {a}" for a in small_titanic.domain.attributes]
    for charge in one_way:
        assert math.isclose(charge.details["sigma"], l2 * math.sqrt(3 * d / (2 * rho)),
                            rel_tol=1e-12)
        assert math.isclose(charge.rho, rho / (3 * d), rel_tol=1e-12)
    for charge in selections:
        assert charge.mechanism == "exponential"
        assert charge.details["sensitivity"] == l1
        assert math.isclose(charge.details["epsilon"], math.sqrt(8 * rho / (3 * (d - 1))),
                            rel_tol=1e-12)
        assert math.isclose(charge.rho, rho / (3 * (d - 1)), rel_tol=1e-12)
    for charge in two_way:
        assert math.isclose(charge.details["sensitivity"], l2, rel_tol=1e-12)
        assert math.isclose(charge.details["sigma"], l2 * math.sqrt(3 * (d - 1) / (2 * rho)),
                            rel_tol=1e-12)
        assert math.isclose(charge.rho, rho / (3 * (d - 1)), rel_tol=1e-12)


def test_selected_pairs_form_a_spanning_tree(run, small_titanic):
    _, result, _, _ = run
    tree = nx.Graph([tuple(e) for e in result.diagnostics["selected"]])
    assert set(tree.nodes) == set(small_titanic.domain.attributes)
    assert nx.is_tree(tree)


def test_rare_values_are_merged_and_the_output_is_in_the_original_domain(run, small_titanic):
    _, result, _, _ = run
    assert result.diagnostics["compressed_sizes"]["SibSp"] < small_titanic.domain.size("SibSp")
    assert result.synthetic.domain == small_titanic.domain


def test_compression_merges_values_below_three_sigma_and_maps_back():
    domain = Domain.from_dict({"a": 4, "b": 2})
    one_way = [NoisyMarginal(("a",), np.array([100.0, 29.0, 50.0, -3.0]), 10.0),
               NoisyMarginal(("b",), np.array([40.0, 30.0]), 10.0)]
    compression = DomainCompression.from_one_way(domain, one_way)
    assert compression.domain == Domain.from_dict({"a": 3, "b": 2})
    np.testing.assert_array_equal(compression.codes("a"), [0, 2, 1, 2])
    data = Dataset(pd.DataFrame({"a": np.repeat([0, 1, 2, 3], 500), "b": np.tile([0, 1], 1000)}),
                   domain)
    compressed = compression.compress(data)
    np.testing.assert_array_equal(compressed.marginal(("a",)), [500, 500, 1000])
    restored = compression.decompress(compressed, np.random.default_rng(0)).frame
    kept = data.frame["a"].isin([0, 2])
    assert restored["a"][kept].equals(data.frame["a"][kept])
    rare = restored["a"][~kept]
    assert set(rare) == {1, 3} and abs((rare == 1).mean() - 0.5) < 0.05  # uniform among merged
    assert restored["b"].equals(data.frame["b"])


def test_refuses_a_single_attribute(small_titanic):
    with pytest.raises(ValueError, match="two attributes"):
        MST(FAST).fit(small_titanic.project(["Sex"]), _budget(1.0), np.random.default_rng(0))


def test_traits_are_the_table_1_row():
    traits = MST().traits
    assert (traits.workload_aware, traits.data_aware, traits.budget_aware,
            traits.efficiency_aware) == (False, True, False, True)


def test_large_budget_recovers_the_tree_marginals(small_titanic):
    result = MST(MSTConfig(pgm_iters=300, selection_pgm_iters=100)).fit(
        small_titanic, _budget(100.0), np.random.default_rng(0))
    for edge in result.diagnostics["selected"]:
        truth = small_titanic.marginal(tuple(edge))
        synthetic = result.synthetic.marginal(tuple(edge))
        assert np.abs(truth - synthetic).sum() / truth.sum() < 0.02


@pytest.mark.parametrize("field", ["pgm_iters", "selection_pgm_iters"])
def test_config_rejects_nonpositive_iterations(field):
    with pytest.raises(ValueError, match=field):
        MSTConfig(**{field: 0})
