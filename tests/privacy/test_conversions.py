"""zCDP <-> (epsilon, delta) conversions against closed forms, OpenDP and the AIM reference values."""

import decimal
import math
from decimal import Decimal

import numpy as np
import opendp.prelude as dp
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from reprolib.privacy import cks_delta, eps_to_rho, rho_to_eps

dp.enable_features("contrib")

RHOS = [1e-6, 1e-4, 0.01, 0.1, 0.5, 1.0, 5.0, 50.0]
DELTAS = [1e-3, 1e-5, 1e-9, 1e-12]

rhos = st.floats(min_value=1e-8, max_value=100.0)
deltas = st.floats(min_value=1e-15, max_value=0.5)
epsilons = st.floats(min_value=1e-3, max_value=200.0)


def opendp_epsilon(rho: float, delta: float) -> float:
    """OpenDP's own zCDP -> approximate-DP conversion (Rust implementation, independent of ours)."""
    space = dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float)
    gaussian = dp.m.make_gaussian(*space, scale=1.0 / math.sqrt(2.0 * rho))  # rho-zCDP at d_in=1
    return dp.c.make_zCDP_to_approxDP(gaussian).map(1.0).epsilon(delta)


@pytest.mark.parametrize("delta", DELTAS)
@pytest.mark.parametrize("rho", RHOS)
def test_cks_matches_opendp(rho, delta):
    assert rho_to_eps(rho, delta) == pytest.approx(opendp_epsilon(rho, delta), rel=1e-6)


@pytest.mark.parametrize("delta", DELTAS)
@pytest.mark.parametrize("rho", RHOS)
def test_cks_is_the_minimum_over_orders(rho, delta):
    """A dense grid of orders can only over-estimate; its minimum must come within 1e-6."""
    alpha_star = 1.0 + math.sqrt(-math.log(delta) / rho)
    alphas = 1.0 + np.geomspace(1e-9, 10 * (alpha_star - 1.0), 400_001)
    eps_alpha = alphas * rho + np.log1p(-1 / alphas) - (math.log(delta) + np.log(alphas)) / (alphas - 1)
    grid_best = max(0.0, eps_alpha.min())  # a negative bound means (0, delta)-DP already holds
    ours = rho_to_eps(rho, delta)
    assert ours <= grid_best + 1e-12 * max(1.0, ours)
    assert ours == pytest.approx(grid_best, rel=1e-6)


@pytest.mark.parametrize("delta", DELTAS)
@pytest.mark.parametrize("rho", RHOS)
def test_bun_steinke_closed_form(rho, delta):
    expected = rho + 2 * math.sqrt(rho * math.log(1 / delta))
    assert rho_to_eps(rho, delta, bound="bun-steinke") == pytest.approx(expected, rel=1e-14)
    eps = expected
    assert eps_to_rho(eps, delta, bound="bun-steinke") == pytest.approx(rho, rel=1e-10)


@settings(max_examples=300, deadline=None)
@given(rho=rhos, delta=deltas)
def test_bun_steinke_epsilon_is_rounded_up(rho, delta):
    """Against a 100-digit evaluation: the float returned is >= the exact closed form."""
    with decimal.localcontext(decimal.Context(prec=100)):
        exact = Decimal(rho) + 2 * (Decimal(rho) * -Decimal(delta).ln()).sqrt()
        assert Decimal(rho_to_eps(rho, delta, bound="bun-steinke")) >= exact


def _float_root(f, lower: float, upper: float) -> float:
    """Bisection to a float root of an increasing f (a starting point for Newton)."""
    for _ in range(200):
        middle = 0.5 * (lower + upper)
        lower, upper = (middle, upper) if f(middle) < 0 else (lower, middle)
    return 0.5 * (lower + upper)


def _newton(f, df, x: Decimal) -> Decimal:
    """A root of an increasing f by Newton's method in 100-digit arithmetic (from the float root)."""
    for _ in range(60):
        step = f(x) / df(x)
        x -= step
        if abs(step) <= abs(x) * Decimal("1e-90"):
            break
    return x


@settings(max_examples=200, deadline=None)
@given(rho=rhos, delta=deltas)
def test_cks_epsilon_is_an_upper_bound_within_an_ulp_or_so(rho, delta):
    """Against the infimum over alpha computed to ~90 digits (Newton on the stationarity
    condition rho (alpha-1)^2 + log(alpha) + log(delta) = 0): never below, at most 1e-14 above."""
    ours = rho_to_eps(rho, delta)
    with decimal.localcontext(decimal.Context(prec=100)):
        r, log_inv_delta = Decimal(rho), -Decimal(delta).ln()
        alpha = _newton(lambda a: r * (a - 1) ** 2 + a.ln() - log_inv_delta,
                        lambda a: 2 * r * (a - 1) + 1 / a,
                        Decimal(_float_root(lambda a: rho * (a - 1) ** 2 + math.log(a * delta),
                                            1.0, 1.0 + math.sqrt(-math.log(delta) / rho))))
        exact = max(Decimal(0), alpha * r + ((alpha - 1) / alpha).ln()
                    + (log_inv_delta - alpha.ln()) / (alpha - 1))
        assert Decimal(ours) >= exact
        assert Decimal(ours) - exact <= Decimal("1e-14") * max(exact, Decimal("1e-3"))


@settings(max_examples=200, deadline=None)
@given(rho=rhos, eps=st.floats(min_value=1e-3, max_value=50.0))
def test_cks_delta_is_an_upper_bound(rho, eps):
    """Against the infimum over alpha of log delta_alpha to ~90 digits (Newton on its derivative
    (2 alpha - 1) rho - eps + log(1 - 1/alpha) = 0): the delta returned is never below it."""
    ours = cks_delta(rho, eps)
    with decimal.localcontext(decimal.Context(prec=100)):
        r, e = Decimal(rho), Decimal(eps)
        def derivative(a):
            return (2 * a - 1) * r - e + ((a - 1) / a).ln()
        if derivative(Decimal(1.0 + 1e-12)) >= 0:
            return  # infimum within 1e-12 of alpha = 1, not searched for (delta is near 1)
        alpha = _newton(derivative, lambda a: 2 * r + 1 / (a * (a - 1)),
                        Decimal(_float_root(
                            lambda a: (2 * a - 1) * rho - eps + math.log1p(-1 / a),
                            1.0 + 1e-12, 2.0 + (eps + 1.0) / rho)))
        log_delta = (alpha - 1) * (alpha * r - e) + alpha * ((alpha - 1) / alpha).ln() \
            - (alpha - 1).ln()
        exact = min(Decimal(1), log_delta.exp())
        assert Decimal(ours) >= exact
        assert Decimal(ours) <= exact * (1 + Decimal("1e-9")) + Decimal("1e-300")


# rho = cdp_rho(eps, 1e-9) of the AIM reference code (cdp2adp.py), as tabulated in notes/aim.md §2.1
# to five significant figures; eps = 10**k for k = -2, -1.5, ..., 2.
AIM_REFERENCE_RHO = {
    -2.0: 2.0954e-6, -1.5: 1.9219e-5, -1.0: 1.7714e-4, -0.5: 1.6347e-3, 0.0: 0.014973,
    0.5: 0.13310, 1.0: 1.0908, 1.5: 7.5978, 2.0: 42.380,
}


@pytest.mark.parametrize(("log10_eps", "rho"), sorted(AIM_REFERENCE_RHO.items()))
def test_eps_to_rho_matches_aim_reference_code(log10_eps, rho):
    assert eps_to_rho(10.0**log10_eps, 1e-9) == pytest.approx(rho, rel=5e-5)


@pytest.mark.parametrize("delta", DELTAS)
@pytest.mark.parametrize("rho", RHOS)
def test_delta_and_epsilon_forms_agree(rho, delta):
    """cks_delta (minimising over alpha at fixed eps) inverts rho_to_eps (at fixed delta)."""
    eps = rho_to_eps(rho, delta)
    if eps == 0.0:  # the guarantee holds at epsilon = 0 with room to spare
        assert cks_delta(rho, 0.0) <= delta
    else:
        assert cks_delta(rho, eps) == pytest.approx(delta, rel=1e-7)


@settings(max_examples=200, deadline=None)
@given(rho=rhos, delta=deltas)
def test_cks_never_looser_than_bun_steinke(rho, delta):
    assert rho_to_eps(rho, delta) <= rho_to_eps(rho, delta, bound="bun-steinke")


@settings(max_examples=200, deadline=None)
@given(rho=rhos, factor=st.floats(min_value=1.001, max_value=10.0), delta=deltas)
def test_monotone_in_rho(rho, factor, delta):
    for bound in ("cks", "bun-steinke"):
        smaller = rho_to_eps(rho, delta, bound=bound)
        larger = rho_to_eps(rho * factor, delta, bound=bound)
        assert smaller < larger or smaller == larger == 0.0


@settings(max_examples=200, deadline=None)
@given(rho=rhos, delta=st.floats(min_value=1e-15, max_value=0.05))
def test_monotone_in_delta(rho, delta):
    for bound in ("cks", "bun-steinke"):
        larger = rho_to_eps(rho, delta, bound=bound)
        smaller = rho_to_eps(rho, delta * 10, bound=bound)
        assert smaller < larger or smaller == larger == 0.0


@settings(max_examples=200, deadline=None)
@given(eps=epsilons, delta=deltas)
def test_eps_to_rho_inverts_and_is_conservative(eps, delta):
    for bound in ("cks", "bun-steinke"):
        rho = eps_to_rho(eps, delta, bound=bound)
        achieved = rho_to_eps(rho, delta, bound=bound)
        assert achieved == pytest.approx(eps, rel=1e-9)
        assert achieved <= eps  # rounding never grants more than the target epsilon
        # and rho is the largest such float: one ulp more already exceeds the target
        assert rho_to_eps(math.nextafter(rho, math.inf), delta, bound=bound) > eps


@settings(max_examples=100, deadline=None)
@given(rho=rhos, delta=deltas)
def test_rho_to_eps_inverts(rho, delta):
    assume(rho_to_eps(rho, delta) > 0.0)  # epsilon = 0 is reached by a whole interval of rho
    assert eps_to_rho(rho_to_eps(rho, delta), delta) == pytest.approx(rho, rel=1e-8)


def test_zero_rho_is_zero_epsilon():
    assert rho_to_eps(0.0, 1e-5) == 0.0
    assert cks_delta(0.0, 1.0) == 0.0


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: eps_to_rho(0.0, 1e-5), "eps must be finite and > 0"),
        (lambda: eps_to_rho(-1.0, 1e-5), "eps must be finite and > 0"),
        (lambda: eps_to_rho(float("nan"), 1e-5), "NaN"),
        (lambda: eps_to_rho(1.0, 0.0), "delta must lie strictly between 0 and 1"),
        (lambda: eps_to_rho(1.0, 1.0), "delta must lie strictly between 0 and 1"),
        (lambda: rho_to_eps(1.0, float("nan")), "NaN"),
        (lambda: rho_to_eps(-0.1, 1e-5), "rho must be finite and >= 0"),
        (lambda: rho_to_eps(float("inf"), 1e-5), "rho must be finite and >= 0"),
        (lambda: rho_to_eps("a lot", 1e-5), "rho must be a real number"),
        (lambda: rho_to_eps(1.0, 1e-5, bound="renyi"), "bound must be one of"),
    ],
)
def test_bad_arguments_raise_clear_errors(call, message):
    with pytest.raises(ValueError, match=message):
        call()
