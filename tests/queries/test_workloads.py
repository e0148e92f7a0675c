"""Workloads: sizes, weights and determinism of the three AIM workloads."""

import math

import pytest

from reprolib.data import Domain
from reprolib.queries import Workload, all_kway, random_target, skewed_workload, target_workload

DOMAIN = Domain.from_dict({f"a{i}": 2 + i for i in range(15)})


def test_all_3way_has_every_triple_once():
    workload = all_kway(DOMAIN, 3)
    assert len(workload) == math.comb(15, 3) == 455
    assert set(workload.weights) == {1.0}
    assert all(list(c) == sorted(c, key=DOMAIN.attributes.index) for c in workload.cliques)


def test_target_workload_holds_the_target_in_every_query():
    workload = target_workload(DOMAIN, "a4", 3)
    assert len(workload) == math.comb(14, 2) == 91
    assert all("a4" in c for c in workload.cliques)
    with pytest.raises(KeyError, match="Unknown attribute"):
        target_workload(DOMAIN, "nope")


def test_skewed_workload_draws_256_triples_deterministically():
    workload = skewed_workload(DOMAIN, seed=0)
    draws = [w * 256 / len(workload) for w in workload.weights]  # times each triple was drawn
    assert sum(draws) == pytest.approx(256)
    assert all(d == pytest.approx(round(d)) and d >= 1 for d in draws)
    assert all(len(c) == 3 for c in workload.cliques)
    assert workload == skewed_workload(DOMAIN, seed=0)
    assert workload != skewed_workload(DOMAIN, seed=1)
    # squared exponential weights concentrate the draws on few attributes
    counts = {a: sum(d for c, d in zip(workload.cliques, draws, strict=True) if a in c)
              for a in DOMAIN.attributes}
    assert max(counts.values()) > 3 * 256 * 3 / 15


def test_random_target_is_seeded():
    assert random_target(DOMAIN, 5) == random_target(DOMAIN, 5)
    assert {random_target(DOMAIN, s) for s in range(40)} > {"a0"}


@pytest.mark.parametrize("cliques, weights, message", [
    ([("a",)], [1.0, 2.0], "weights"),
    ([], [], "at least one"),
    ([("a",), ("a",)], [1.0, 1.0], "distinct"),
    ([("a",)], [-1.0], "non-negative"),
])
def test_workload_rejects_malformed_input(cliques, weights, message):
    with pytest.raises(ValueError, match=message):
        Workload("w", cliques, weights)


def test_k_out_of_range_is_refused():
    with pytest.raises(ValueError, match="between 1"):
        all_kway(DOMAIN, 16)
