"""The slicing mechanism's privacy: Lemma 2 and the exact curve checked against the Rényi
divergence of the output's Gaussians computed from their full covariances (Eq. 7) and by Monte
Carlo; Proposition 3; Theorem 1's calibration; Poisson amplification; the release's charge."""

import math

import numpy as np
import pytest

from reprolib.privacy import (
    ORDERS,
    BudgetExceededError,
    NeighbourRelation,
    RdpBudget,
    RdpLedger,
    adjacency_distance,
    poisson_amplified,
    poisson_base,
    projection_rdp,
    slicing_epsilon,
    slicing_rdp,
    slicing_release,
    slicing_sigma,
)


def _output_covariance(x, projections, sigma):
    """Covariance of [vec(U); vec(XU + V)] (column-major vec), built from the two independent
    Gaussians it is linear in: vec(XU) = (I_m' kron X) vec(U)."""
    n, d = x.shape
    lift = np.block([[np.eye(d * projections), np.zeros((d * projections, n * projections))],
                     [np.kron(np.eye(projections), x), np.eye(n * projections)]])
    noise = np.diag(np.r_[np.full(d * projections, 1.0 / d), np.full(n * projections, sigma**2)])
    return lift @ noise @ lift.T


def _gaussian_renyi(alpha, cov_p, cov_q):
    """D_alpha(N(0, P) || N(0, Q)) (Gil, Alajaji, Linder 2013; the paper's Eq. 7)."""
    mixed = (1 - alpha) * cov_p + alpha * cov_q
    if np.linalg.eigvalsh(mixed).min() <= 0:  # not positive definite: the divergence is infinite
        return np.inf
    _, log_mixed = np.linalg.slogdet(mixed)
    _, log_p = np.linalg.slogdet(cov_p)
    _, log_q = np.linalg.slogdet(cov_q)
    return -(log_mixed - (1 - alpha) * log_p - alpha * log_q) / (2 * (alpha - 1))


def _neighbours(rng, n=3, d=2, distance=0.8):
    x = rng.normal(size=(n, d))
    x /= 2 * np.linalg.norm(x, axis=1, keepdims=True)
    step = rng.normal(size=d)
    y = x.copy()
    y[1] += distance * step / np.linalg.norm(step)
    return x, y


@pytest.mark.parametrize(("alpha", "sigma", "projections"), [(2.0, 1.0, 2), (3.0, 2.0, 3),
                                                             (1.5, 0.8, 1)])
def test_the_exact_curve_is_the_divergence_of_the_outputs(alpha, sigma, projections):
    rng = np.random.default_rng(0)
    x, y = _neighbours(rng)
    direct = _gaussian_renyi(alpha, _output_covariance(x, projections, sigma),
                             _output_covariance(y, projections, sigma))
    exact = slicing_rdp(alpha, sigma, dim=2, projections=projections, distance=0.8,
                        curve="exact")[0]
    assert exact == pytest.approx(direct, rel=1e-7)
    assert slicing_rdp(alpha, sigma, dim=2, projections=projections, distance=0.8)[0] >= exact


def test_past_the_valid_orders_the_divergence_is_infinite_too():
    x, y = _neighbours(np.random.default_rng(0))
    # d sigma^2 = 0.98 < (alpha^2 - alpha) C^2 = 1.28
    assert np.isinf(_gaussian_renyi(2.0, _output_covariance(x, 2, 0.7),
                                    _output_covariance(y, 2, 0.7)))
    assert np.isinf(slicing_rdp(2.0, 0.7, dim=2, projections=2, distance=0.8, curve="exact")[0])


def test_monte_carlo_agrees_with_the_exact_curve():
    """D_2 = log E_P[p/q], estimated from 200,000 draws of the output on X."""
    rng = np.random.default_rng(1)
    x, y = _neighbours(rng)
    cov_p, cov_q = _output_covariance(x, 2, 2.0), _output_covariance(y, 2, 2.0)
    draws = rng.multivariate_normal(np.zeros(len(cov_p)), cov_p, size=200_000)

    def log_density(cov):
        _, log_det = np.linalg.slogdet(cov)
        return -0.5 * (np.einsum("ij,ij->i", draws @ np.linalg.inv(cov), draws) + log_det)

    estimate = np.log(np.mean(np.exp(log_density(cov_p) - log_density(cov_q))))
    exact = slicing_rdp(2.0, 2.0, dim=2, projections=2, distance=0.8, curve="exact")[0]
    assert estimate == pytest.approx(exact, rel=0.05)


def test_lemma_2_is_the_papers_formula_and_fails_past_its_order():
    # m' alpha / (2 sigma^2 (d - gamma)), gamma = (alpha^2 - alpha) / sigma^2, with C = 1
    alpha, sigma, d, m = 3.0, 1.5, 10, 40
    gamma = (alpha**2 - alpha) / sigma**2
    assert slicing_rdp(alpha, sigma, dim=d, projections=m)[0] == pytest.approx(
        m * alpha / (2 * sigma**2 * (d - gamma)), rel=1e-14)
    beyond = 0.5 + math.sqrt(0.25 + d * sigma**2) + 1e-9  # alpha^2 - alpha > d sigma^2
    assert np.isinf(slicing_rdp(beyond, sigma, dim=d, projections=m, curve="exact")[0])


def test_the_papers_remark_2_example():
    """sigma^2 = 4, d = 100, m' = 50, delta = 1e-5: alpha* = 10.597 gives epsilon 2.0878 (the
    corrected coefficient; the paper's printed formula gives 2.2657), below the bound 2.5243."""
    alpha = 1 + math.sqrt(4 * 100 * math.log(1e5) / 50)
    epsilon = slicing_rdp(alpha, 2.0, dim=100, projections=50)[0] + math.log(1e5) / (alpha - 1)
    assert alpha == pytest.approx(10.597, abs=1e-3)
    assert epsilon == pytest.approx(2.0878, abs=1e-4)
    best, _ = slicing_epsilon(2.0, 1e-5, dim=100, projections=50)
    assert best <= epsilon <= 50 / 400 + 2 * math.sqrt(50 * math.log(1e5) / 400)


def test_proposition_3_is_reached_by_a_difference_along_every_block():
    sigma, blocks, k, d = 0.9, 3, 2, 4
    columns = [np.eye(d)[:, [0, 1 + b % (d - 1)]] for b in range(blocks)]  # each block: e1, e_j
    u = np.concatenate(columns, axis=1)
    shift = 0.7 * np.eye(d)[0] @ u  # the differing rows' difference times U
    direct = 2.0 * shift @ shift / (2 * sigma**2)  # order 2, equal covariances: alpha |mu|^2/2s^2
    assert projection_rdp(2.0, sigma, blocks=blocks, distance=0.7)[0] == pytest.approx(direct)
    assert u.shape[1] == blocks * k


def test_calibration_finds_the_smallest_sigma_and_matches_the_notes_table():
    epsilon, delta = poisson_base(5.1, 1e-5, 0.25)
    assert (epsilon, delta) == (pytest.approx(6.4817, abs=1e-4), pytest.approx(4e-5))
    sigma = slicing_sigma(epsilon, delta, dim=100, projections=100)
    assert slicing_epsilon(sigma, delta, dim=100, projections=100)[0] <= epsilon
    assert slicing_epsilon(sigma * (1 - 1e-7), delta, dim=100, projections=100)[0] > epsilon
    assert sigma == pytest.approx(0.874, abs=1e-3)  # Theorem 1
    exact = slicing_sigma(epsilon, delta, dim=100, projections=100, curve="exact")
    assert exact == pytest.approx(0.838, abs=1e-3) and exact < sigma


def test_amplification_and_its_inverse():
    assert poisson_amplified(*poisson_base(8.1, 1e-5, 0.25), 0.25) == (
        pytest.approx(8.1), pytest.approx(1e-5))
    assert poisson_base(8.1, 1e-5, 0.25)[0] == pytest.approx(9.486, abs=1e-3)
    assert poisson_amplified(6.5, 4e-5, 0.25)[0] == pytest.approx(5.118, abs=1e-3)


def test_neighbours_rows_differ_by_twice_the_norm_under_replace_one():
    assert adjacency_distance(0.5, NeighbourRelation.REPLACE_ONE) == 1.0
    assert adjacency_distance(1.0, NeighbourRelation.ADD_REMOVE) == 1.0


def _ledger(epsilon):
    return RdpLedger(RdpBudget(epsilon=epsilon, delta=4e-5,
                               relation=NeighbourRelation.REPLACE_ONE))


def test_the_release_charges_lemma_2_then_draws_u_and_the_noise():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(4000, 20))
    ledger = _ledger(6.5)
    sigma = slicing_sigma(6.5, 4e-5, dim=20, projections=30)
    u, o = slicing_release(x, projections=30, sigma=sigma, row_norm=0.5, rng=rng,
                           ledger=ledger, label="release")
    np.testing.assert_array_equal(ledger.charges[0].curve,
                                  slicing_rdp(ORDERS, sigma, dim=20, projections=30))
    assert ledger.spent_epsilon() <= 6.5
    assert u.shape == (20, 30) and o.shape == (4000, 30)
    assert np.var(u) == pytest.approx(1 / 20, rel=0.1)
    clipped = x * np.minimum(1, 0.5 / np.linalg.norm(x, axis=1, keepdims=True))
    assert np.std(o - clipped @ u) == pytest.approx(sigma, rel=0.02)


def test_a_release_over_budget_draws_nothing():
    rng = np.random.default_rng(3)
    state = rng.bit_generator.state
    with pytest.raises(BudgetExceededError):
        slicing_release(np.ones((10, 5)), projections=50, sigma=0.1, row_norm=1.0, rng=rng,
                        ledger=_ledger(1.0), label="too little noise")
    assert rng.bit_generator.state == state
