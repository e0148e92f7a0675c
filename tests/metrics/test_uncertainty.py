"""Section 5: the weighted-average estimator and the supported / unsupported confidence bounds."""

import math

import numpy as np
import pytest
from scipy.stats import norm

from reprolib.mechanisms.pgm import NoisyMarginal
from reprolib.papers.aim.uncertainty import (
    SUPPORTED_LAMBDA_95,
    UNSUPPORTED_LAMBDA1_95,
    UNSUPPORTED_LAMBDA2_95,
    candidate_error_bound,
    gaussian_l1_bound,
    supported_bound,
    supported_failure_probability,
    unsupported_bound,
    unsupported_failure_probability,
    weighted_average_estimate,
)
from reprolib.privacy import (
    GAUSSIAN_MEAN_ABS,
    Ledger,
    NeighbourRelation,
    PrivacyBudget,
    exponential_mechanism,
)

DRAWS = 2000
# a coverage below 95 % minus three binomial standard errors fails the test
COVERAGE_FLOOR = 0.95 - 3 * math.sqrt(0.95 * 0.05 / DRAWS)

# A true contingency table on (a, b, c) with sizes (2, 3, 4).
TABLE = np.random.default_rng(0).integers(0, 40, size=(2, 3, 4)).astype(float)
TRUE_BA = TABLE.sum(axis=2).T  # marginal on ("b", "a")


def _ledger():
    return Ledger(PrivacyBudget(rho=1e6, relation=NeighbourRelation.ADD_REMOVE))


def _measurements(rng, sigma_ab=3.0, sigma_cba=2.0):
    """Noisy marginals on (a, b) and on (c, b, a): the second in a permuted attribute order."""
    ab = TABLE.sum(axis=2)
    cba = np.transpose(TABLE, (2, 1, 0))
    return [NoisyMarginal(("a", "b"), ab + rng.normal(0, sigma_ab, ab.shape), sigma_ab),
            NoisyMarginal(("c",), TABLE.sum(axis=(0, 1)), 1.0),
            NoisyMarginal(("c", "b", "a"), cba + rng.normal(0, sigma_cba, cba.shape), sigma_cba)]


def test_95_percent_constants():
    assert supported_failure_probability(SUPPORTED_LAMBDA_95) == pytest.approx(0.05)
    assert math.exp(-UNSUPPORTED_LAMBDA1_95) == pytest.approx(0.025)
    assert math.exp(-UNSUPPORTED_LAMBDA2_95**2 / 2) == pytest.approx(0.025)
    assert unsupported_failure_probability(
        UNSUPPORTED_LAMBDA1_95, UNSUPPORTED_LAMBDA2_95) == pytest.approx(0.05)


def test_estimator_marginalises_in_the_requested_order():
    exact = [NoisyMarginal(("a", "b"), TABLE.sum(axis=2), 3.0),
             NoisyMarginal(("c", "b", "a"), np.transpose(TABLE, (2, 1, 0)), 2.0)]
    estimate, sigma = weighted_average_estimate(("b", "a"), exact)
    np.testing.assert_allclose(estimate, TRUE_BA)
    # n_r = 6; n_{r_i} / n_r = 1 and 4: sigma_bar^2 = 1 / (1 / 9 + 1 / (4 * 4))
    assert sigma**2 == pytest.approx(1 / (1 / 9 + 1 / 16))
    total, sigma_total = weighted_average_estimate((), exact)
    assert total == pytest.approx(TABLE.sum())
    assert sigma_total**2 == pytest.approx(1 / (1 / (6 * 9) + 1 / (24 * 4)))


def test_unsupported_and_malformed_cliques():
    measurements = _measurements(np.random.default_rng(1))
    assert weighted_average_estimate(("a", "d"), measurements) is None
    assert weighted_average_estimate(("a",), []) is None
    with pytest.raises(ValueError, match="repeats an attribute"):
        weighted_average_estimate(("a", "a"), measurements)
    bad = NoisyMarginal(("a", "c"), np.zeros((2, 5)), 1.0)
    with pytest.raises(ValueError, match="disagree on the domain"):
        weighted_average_estimate(("c",), [*measurements, bad])


def test_estimator_is_unbiased_with_the_stated_variance():
    rng = np.random.default_rng(2)
    draws = [weighted_average_estimate(("b", "a"), _measurements(rng)) for _ in range(DRAWS)]
    errors = np.array([estimate - TRUE_BA for estimate, _ in draws])
    # (a, b) gives variance 9 per cell; (c, b, a) sums 4 cells: 4 * 4 = 16; c alone does not apply
    claimed = 1 / (1 / 9 + 1 / 16)
    np.testing.assert_allclose([sigma for _, sigma in draws], math.sqrt(claimed), rtol=1e-12)
    assert np.all(np.abs(errors.mean(axis=0)) <= 4 * math.sqrt(claimed / DRAWS))
    # 12,000 pooled cells: the variance estimate has a relative standard error of 1.3 %
    assert errors.var() == pytest.approx(claimed, rel=0.05)


@pytest.mark.parametrize("n", [1, 4, 30])
@pytest.mark.parametrize("lam", [0.5, 1.0, SUPPORTED_LAMBDA_95])
def test_gaussian_l1_tail(n, lam):
    sigma = 2.5
    norms = np.abs(np.random.default_rng(n).normal(0, sigma, (20000, n))).sum(axis=1)
    assert norms.mean() == pytest.approx(gaussian_l1_bound(sigma, n, 0.0), rel=0.02)
    assert np.mean(norms >= gaussian_l1_bound(sigma, n, lam)) <= supported_failure_probability(lam)
    if n == 1:  # exact: Pr[|Z| >= sqrt(2/pi) + lambda] = 2 Phi(-sqrt(2/pi) - lambda)
        assert 2 * norm.sf(GAUSSIAN_MEAN_ABS + lam) <= supported_failure_probability(lam)


def test_supported_bound_covers_at_95_percent():
    rng = np.random.default_rng(3)
    fixed_synthetic = TRUE_BA + rng.normal(0, 5, TRUE_BA.shape)
    covered = {"independent": 0, "from the noise": 0, "without sqrt(2/pi) term": 0}
    for _ in range(DRAWS):
        estimate, sigma = weighted_average_estimate(("b", "a"), _measurements(rng))
        truth_error = np.abs(TRUE_BA - fixed_synthetic).sum()
        covered["independent"] += truth_error <= supported_bound(estimate, sigma, fixed_synthetic)
        # A synthetic marginal that is the noisy estimate itself: the bound must absorb all noise.
        noise = np.abs(TRUE_BA - estimate).sum()
        covered["from the noise"] += noise <= supported_bound(estimate, sigma, estimate)
        covered["without sqrt(2/pi) term"] += noise <= SUPPORTED_LAMBDA_95 * sigma * math.sqrt(6)
    assert covered["independent"] / DRAWS >= COVERAGE_FLOOR
    assert covered["from the noise"] / DRAWS >= COVERAGE_FLOOR
    # Appendix Theorem 2 alone (no sqrt(2/pi) sigma n term) is not valid for data-dependent D_hat:
    # here it covers about 81 % of the time
    assert covered["without sqrt(2/pi) term"] / DRAWS < 0.9


def test_supported_bound_formula_and_shape_check():
    estimate, synthetic = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[1.0, 0.0], [3.5, 4.0]])
    # ||M(D_hat) - y_bar||_1 + sqrt(2/pi) sigma n + lambda sigma sqrt(n), n = 4, sigma = 1.5
    expected = 2.5 + GAUSSIAN_MEAN_ABS * 1.5 * 4 + 1.2 * 1.5 * 2
    assert supported_bound(estimate, 1.5, synthetic, lam=1.2) == pytest.approx(expected, rel=1e-14)
    with pytest.raises(ValueError, match="same order"):
        supported_bound(np.zeros((3, 2)), 1.0, np.zeros((2, 3)))


def _selection_round(truth, model, weights, epsilon, sigma, rng, ledger, **lambdas):
    """One AIM round on a toy: select by the exponential mechanism, measure, bound every r.

    Returns (the selected index, [Theorem 4 bound B_r minus true error, for every candidate]).
    """
    errors = np.array([np.abs(t - m).sum() for t, m in zip(truth, model, strict=True)])
    sizes = np.array([t.size for t in truth])
    sensitivity = float(max(weights))
    scores = np.asarray(weights) * (errors - GAUSSIAN_MEAN_ABS * sigma * sizes)
    chosen = exponential_mechanism(scores, epsilon=epsilon, sensitivity=sensitivity, rng=rng,
                                   ledger=ledger, label="toy selection")
    measured = truth[chosen] + rng.normal(0, sigma, truth[chosen].shape)
    slack = [candidate_error_bound(
        weight=weights[r], n_cells=truth[r].size, epsilon=epsilon, sigma=sigma,
        sensitivity=sensitivity, n_candidates=len(truth), selected_weight=weights[chosen],
        selected_measurement=measured, selected_model_marginal=model[chosen], **lambdas)
        - errors[r] for r in range(len(truth))]
    return chosen, np.array(slack)


@pytest.mark.parametrize("scale, expect_failures", [(1.02, True), (0.98, False)])
def test_exponential_mechanism_term_is_exact_and_nearly_tight(scale, expect_failures):
    """One far-off candidate among 20; its gap is 2 % above or below (2/eps)(ln 20 + lambda_1).

    sigma is negligible, so the bound on the far candidate fails exactly when another candidate
    is selected *and* the gap exceeds the exponential-mechanism term.
    """
    epsilon, sigma, n = 0.5, 1e-6, 4
    term = 2.0 / epsilon * (math.log(20) + UNSUPPORTED_LAMBDA1_95)
    model = [np.zeros(n)] * 20
    truth = [np.full(n, 1.0)] * 19 + [np.full(n, 1.0 + scale * term / n)]
    rng, ledger = np.random.default_rng(4), _ledger()
    rounds = [_selection_round(truth, model, [1.0] * 20, epsilon, sigma, rng, ledger)
              for _ in range(DRAWS)]
    other_selected = np.mean([chosen != 19 for chosen, _ in rounds])
    failed = np.mean([np.any(slack < 0) for _, slack in rounds])
    assert other_selected > 0.01  # Pr = 19 e^{-eps gap / 2} / (1 + 19 e^{-eps gap / 2}), about 2 %
    assert failed == (other_selected if expect_failures else 0.0)
    assert 1 - failed >= COVERAGE_FLOOR


@pytest.mark.parametrize("lambda2", [0.0, 1.0, UNSUPPORTED_LAMBDA2_95])
def test_gaussian_term_matches_its_tail(lambda2):
    """The selected marginal is far from the model (|a_i| = 100 >> sigma = 10), so
    ||a|| - ||a + z|| = -sum_i sign(a_i) z_i ~ N(0, sigma^2 n) and the bound fails with
    probability Phi(-(lambda_2 sigma sqrt(n) + EM term) / (sigma sqrt(n)))."""
    epsilon, sigma, n = 1.0, 10.0, 16
    signs = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    model = [np.full(n, 200.0), np.full(n, 200.0)]
    truth = [200.0 + 100.0 * signs, np.full(n, 201.0)]
    rng, ledger = np.random.default_rng(5), _ledger()
    rounds = [_selection_round(truth, model, [1.0, 1.0], epsilon, sigma, rng, ledger,
                               lambda2=lambda2) for _ in range(DRAWS)]
    assert all(chosen == 0 for chosen, _ in rounds)
    failed = np.mean([np.any(slack < 0) for _, slack in rounds])
    em_term = 2.0 / epsilon * (math.log(2) + UNSUPPORTED_LAMBDA1_95)
    predicted = norm.sf(lambda2 + em_term / (sigma * math.sqrt(n)))
    assert abs(failed - predicted) <= 4 * math.sqrt(predicted * (1 - predicted) / DRAWS) + 1e-3
    if lambda2 == UNSUPPORTED_LAMBDA2_95:
        assert 1 - failed >= COVERAGE_FLOOR


def test_corollary_5_adds_the_synthetic_distance():
    common = {"epsilon": 0.3, "sigma": 2.0, "sensitivity": 3.0, "n_candidates": 7,
              "selected_weight": 3.0, "selected_measurement": np.array([4.0, -1.0, 2.0]),
              "selected_model_marginal": np.array([1.0, 1.0, 1.0])}
    model, synthetic = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[0.0, 2.5], [3.0, 6.0]])
    b_r = candidate_error_bound(weight=2.0, n_cells=4, **common)
    expected_b_r = (GAUSSIAN_MEAN_ABS * 2.0 * 4
                    + 3.0 / 2.0 * (6.0 + UNSUPPORTED_LAMBDA2_95 * 2.0 * math.sqrt(3)
                                   - GAUSSIAN_MEAN_ABS * 2.0 * 3)
                    + 2 * 3.0 / (0.3 * 2.0) * (math.log(7) + UNSUPPORTED_LAMBDA1_95))
    assert b_r == pytest.approx(expected_b_r, rel=1e-14)
    bound = unsupported_bound(weight=2.0, model_marginal=model, synthetic_marginal=synthetic,
                              **common)
    assert bound == pytest.approx(3.5 + expected_b_r, rel=1e-14)


def test_unsupported_bound_input_checks():
    common = {"epsilon": 0.3, "sigma": 2.0, "sensitivity": 3.0, "n_candidates": 7,
              "selected_weight": 3.0, "selected_measurement": np.zeros(3),
              "selected_model_marginal": np.zeros(3)}
    with pytest.raises(ValueError, match="must not exceed the sensitivity"):
        candidate_error_bound(weight=4.0, n_cells=2, **common)
    with pytest.raises(ValueError, match="weight must be finite and > 0"):
        candidate_error_bound(weight=0.0, n_cells=2, **common)
    with pytest.raises(ValueError, match="n_candidates must be a positive integer"):
        candidate_error_bound(weight=1.0, n_cells=2, **{**common, "n_candidates": 0})
    with pytest.raises(ValueError, match="same axis order"):
        candidate_error_bound(weight=1.0, n_cells=2,
                              **{**common, "selected_model_marginal": np.zeros(4)})
    with pytest.raises(ValueError, match="same axis order"):
        unsupported_bound(weight=1.0, model_marginal=np.zeros(2), synthetic_marginal=np.zeros(3),
                          **common)
