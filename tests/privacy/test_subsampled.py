"""Amplification by subsampling without replacement (Wang, Balle, Kasiviswanathan 2019, Thm 9):
the closed form at order 2, and a valid upper bound on the exact divergence of a subsampled
Gaussian computed by quadrature."""

import math

import numpy as np
import pytest
from scipy.special import logsumexp

from reprolib.privacy import without_replacement_rdp


def _gaussian(shift):
    return lambda orders: orders * shift**2 / 2.0  # unit noise, L2 sensitivity ``shift``


def test_order_two_is_the_closed_form():
    rate, eps2 = 0.05, 2 * 1.5**2 / 2
    expected = math.log1p(rate**2 * min(4 * math.expm1(eps2), 2 * math.exp(eps2)))
    value = without_replacement_rdp(_gaussian(1.5), rate, np.array([2.0]))[0]
    assert expected <= value <= expected * (1 + 1e-10)  # bounded up by some 1e-11


def _replace_one_divergence(alpha, rate, shift):
    """The larger of D_alpha(Q || P), D_alpha(P || Q): P = N(0, 1) (the record replaced by one at
    the other end) and Q = (1 - rate) N(0, 1) + rate N(shift, 1), a sum query on a sample
    without replacement whose other records are all 0."""
    x = np.linspace(-40.0, 40.0 + shift, 400_001)
    log_p = -x**2 / 2 - 0.5 * math.log(2 * math.pi)
    log_q = np.logaddexp(math.log1p(-rate) + log_p,
                         math.log(rate) - (x - shift) ** 2 / 2 - 0.5 * math.log(2 * math.pi))
    step = math.log(x[1] - x[0])
    return max(logsumexp(alpha * log_q + (1 - alpha) * log_p) + step,
               logsumexp(alpha * log_p + (1 - alpha) * log_q) + step) / (alpha - 1)


@pytest.mark.parametrize("rate", [0.01, 0.1, 0.5])
@pytest.mark.parametrize("shift", [0.5, 2.0])
def test_the_bound_holds_over_an_exact_subsampled_gaussian(rate, shift):
    orders = np.array([1.5, 2.0, 3.0, 4.0, 8.0, 16.0])
    bound = without_replacement_rdp(_gaussian(shift), rate, orders)
    exact = np.array([_replace_one_divergence(a, rate, shift) for a in orders])
    assert np.all(bound >= exact)
    assert np.all(bound <= _gaussian(shift)(orders) + math.log(3) / (orders - 1))  # useful


def test_orders_round_up_to_an_integer_and_stop_at_the_largest():
    orders = np.array([1.01, 2.0, 2.5, 3.0, 300.0])
    values = without_replacement_rdp(_gaussian(1.0), 0.1, orders, max_order=256)
    assert values[0] == values[1] and values[2] == values[3] and math.isinf(values[4])
    assert np.all(np.diff(values[:4]) >= 0)


def test_a_base_curve_infinite_from_an_order_on_is_infinite_there_after_sampling():
    curve = without_replacement_rdp(lambda a: np.where(a < 5, a / 10, np.inf), 0.1,
                                    np.arange(2.0, 8.0))
    assert np.all(np.isfinite(curve[:3])) and np.all(np.isinf(curve[3:]))


def test_a_rate_must_be_a_proper_fraction():
    with pytest.raises(ValueError, match="sampling rate"):
        without_replacement_rdp(_gaussian(1.0), 1.0, np.array([2.0]))
