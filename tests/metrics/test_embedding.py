"""The metrics' embedding is PrivPGD's Eq. 4 on 0-based codes, and the domain checks are clear."""

import numpy as np
import pandas as pd
import pytest

from reprolib.data import Dataset, Domain, embed
from reprolib.data._embedding import bin_centres, require_domain


def test_embedding_is_eq_4_on_one_based_values():
    domain = Domain(("a", "b", "c"), (1, 2, 5))
    frame = pd.DataFrame({"a": [0, 0, 0], "b": [0, 1, 1], "c": [0, 2, 4]})
    points = embed(Dataset(frame, domain))
    # Paper: x in 1..k maps to (2x - 1) / (2k); our code c = x - 1.
    x = frame.to_numpy() + 1
    np.testing.assert_allclose(points, (2 * x - 1) / (2 * np.array(domain.sizes)), rtol=0)
    np.testing.assert_allclose(points[:, 1], [0.25, 0.75, 0.75])
    assert points.dtype == np.float64


def test_bin_centres_are_equally_spaced_inside_the_unit_interval():
    centres = bin_centres(4)
    np.testing.assert_allclose(centres, [0.125, 0.375, 0.625, 0.875])
    np.testing.assert_allclose(np.diff(centres), 0.25)


def test_domain_mismatch_names_both_domains():
    data = Dataset(pd.DataFrame({"a": [0, 1]}), Domain(("a",), (2,)))
    with pytest.raises(ValueError, match=r"\{'a': 2\} differs from the expected \{'a': 3\}"):
        require_domain(data, Domain(("a",), (3,)), "synthetic")
