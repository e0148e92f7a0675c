"""Named-axis tables: summing onto a sub-clique in its order, log space, broadcasting back."""

import numpy as np
from scipy.special import logsumexp

from reprolib.queries._tables import broadcast_to, sum_to


def test_sum_to_orders_axes_as_the_kept_clique_and_supports_log_space():
    table = np.arange(24.0).reshape(2, 3, 4)
    onto = sum_to(table, ("a", "b", "c"), ("c", "a"))
    np.testing.assert_array_equal(onto, table.sum(axis=1).T)
    np.testing.assert_allclose(sum_to(np.log1p(table), ("a", "b", "c"), ("c", "a"),
                                      reduce=logsumexp),
                               np.log(sum_to(1.0 + table, ("a", "b", "c"), ("c", "a"))))
    np.testing.assert_array_equal(sum_to(table, ("a", "b", "c"), ("b", "a", "c")),
                                  table.transpose(1, 0, 2))


def test_broadcast_to_inverts_the_reordering():
    table = np.arange(24.0).reshape(2, 3, 4)
    marginal = sum_to(table, ("a", "b", "c"), ("c", "a"))
    expanded = broadcast_to(marginal, ("c", "a"), ("a", "b", "c"))
    assert expanded.shape == (2, 1, 4)
    np.testing.assert_array_equal(expanded[:, 0, :], table.sum(axis=1))
    assert (table / expanded).shape == table.shape  # broadcasts against the full table
