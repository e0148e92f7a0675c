"""JT-SIZE: our bit-mask construction equals mbi's on random clique sets, trees and forests."""

import itertools

import numpy as np
import pytest
from mbi import junction_tree

from reprolib.data import Domain
from reprolib.mechanisms.pgm import junction_tree_size_mb


def _mbi_size(domain, cliques):
    return junction_tree.hypothetical_model_size(domain.to_mbi(), [tuple(c) for c in cliques])


@pytest.mark.parametrize("seed", range(40))
def test_equals_mbi_on_random_cliques(seed):
    rng = np.random.default_rng(seed)
    d = int(rng.integers(2, 10))
    names = [f"a{i}" for i in range(d)]
    domain = Domain(tuple(names), tuple(rng.integers(2, 9, size=d).tolist()))
    cliques = [tuple(sorted(rng.choice(names, size=int(rng.integers(1, min(d, 4) + 1)),
                                       replace=False), key=names.index))
               for _ in range(int(rng.integers(1, 3 * d)))]
    if seed % 2:  # AIM's models always hold every one-way marginal
        cliques += [(a,) for a in names]
    assert junction_tree_size_mb(domain, cliques) == pytest.approx(_mbi_size(domain, cliques),
                                                                   rel=1e-12)


def test_trees_forests_and_isolated_attributes():
    domain = Domain(tuple("abcde"), (3, 4, 5, 2, 7))
    chain = [("a", "b"), ("b", "c"), ("c", "d"), ("d", "e")]
    star = [("a", "c"), ("b", "c"), ("c", "d"), ("c", "e")]
    forest = [("a", "b"), ("c", "d")]
    cycle = [("a", "b"), ("b", "c"), ("c", "d"), ("d", "e"), ("a", "e")]
    for cliques in (chain, star, forest, cycle, [("e",)], list(itertools.combinations("abcde", 3))):
        assert junction_tree_size_mb(domain, cliques) == pytest.approx(
            _mbi_size(domain, cliques), rel=1e-12), cliques
    assert junction_tree_size_mb(domain, chain) == (12 + 20 + 10 + 14) * 8 / 2**20
