"""The slicing part: Lemma 2 and the exact curve against the Rényi divergence of the outputs'
Gaussians from their full covariances (Eq. 7) and by Monte Carlo; the calibration grid."""

import numpy as np
import pytest

from reprolib.papers.slicing.calibration import CURVES, SETTINGS, _cells
from reprolib.papers.slicing.lemma2 import (
    gaussian_renyi,
    lemma_2_table,
    neighbours,
    output_covariance,
)
from reprolib.privacy import slicing_rdp


@pytest.mark.parametrize(("alpha", "sigma", "projections"), [(2.0, 1.0, 2), (3.0, 2.0, 3),
                                                             (1.5, 0.8, 1)])
def test_the_exact_curve_is_the_divergence_of_the_outputs(alpha, sigma, projections):
    rng = np.random.default_rng(0)
    x, y = neighbours(rng, 3, 2, 0.8)
    direct = gaussian_renyi(alpha, output_covariance(x, projections, sigma),
                             output_covariance(y, projections, sigma))
    exact = slicing_rdp(alpha, sigma, dim=2, projections=projections, distance=0.8,
                        curve="exact")[0]
    assert exact == pytest.approx(direct, rel=1e-7)
    assert slicing_rdp(alpha, sigma, dim=2, projections=projections, distance=0.8)[0] >= exact


def test_past_the_valid_orders_the_divergence_is_infinite_too():
    x, y = neighbours(np.random.default_rng(0), 3, 2, 0.8)
    # d sigma^2 = 0.98 < (alpha^2 - alpha) C^2 = 1.28
    assert np.isinf(gaussian_renyi(2.0, output_covariance(x, 2, 0.7),
                                    output_covariance(y, 2, 0.7)))
    assert np.isinf(slicing_rdp(2.0, 0.7, dim=2, projections=2, distance=0.8, curve="exact")[0])


def test_monte_carlo_agrees_with_the_exact_curve():
    """D_2 = log E_P[p/q], estimated from 200,000 draws of the output on X."""
    table = lemma_2_table([(2.0, 2.0, 3, 2, 2)], distance=0.8, draws=200_000, seed=1)
    row = table.iloc[0]
    assert row["Monte Carlo"] == pytest.approx(row["exact curve"], rel=0.05)
    assert row["from covariances"] == pytest.approx(row["exact curve"], rel=1e-7)
    assert row["Lemma 2"] >= row["exact curve"]


def test_the_calibration_grid_covers_every_curve_budget_and_size():
    settings = SETTINGS["small"]
    cells = _cells("small", settings)
    assert len(cells) == (len(CURVES) * len(settings.epsilons) * len(settings.dims)
                          * len(settings.projections))
    assert {c.epsilon for c in cells} == {5.1, 8.1}  # Tables 1 and 3
    assert {c.params["rate"] for c in cells} == {0.25}  # Appendix C
