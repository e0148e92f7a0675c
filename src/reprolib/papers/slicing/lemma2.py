"""An independent check of Lemma 2: the Rényi divergence between the mechanism's outputs on two
neighbouring datasets, computed from the outputs' full covariance matrices and by Monte Carlo,
beside the exact curve and Lemma 2's bound (:func:`reprolib.privacy.slicing_rdp`).

The output [vec(U); vec(XU + V)] (column-major vec) is linear in the independent Gaussians U and
V, vec(XU) = (I_m' kron X) vec(U), so its covariance follows without the paper's algebra; the
divergence of two zero-mean Gaussians is then Eq. 7 (Gil, Alajaji, Linder 2013).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from reprolib.privacy import slicing_rdp


def output_covariance(x: np.ndarray, projections: int, sigma: float) -> np.ndarray:
    """Covariance of [vec(U); vec(XU + V)] for data ``x`` (n x d)."""
    n, d = x.shape
    lift = np.block([[np.eye(d * projections), np.zeros((d * projections, n * projections))],
                     [np.kron(np.eye(projections), x), np.eye(n * projections)]])
    noise = np.r_[np.full(d * projections, 1.0 / d), np.full(n * projections, sigma**2)]
    return (lift * noise) @ lift.T


def gaussian_renyi(alpha: float, cov_p: np.ndarray, cov_q: np.ndarray) -> float:
    """D_alpha(N(0, P) || N(0, Q)); inf where (1 - alpha) P + alpha Q is not positive definite."""
    mixed = (1 - alpha) * cov_p + alpha * cov_q
    if np.linalg.eigvalsh(mixed).min() <= 0:
        return float("inf")
    _, log_mixed = np.linalg.slogdet(mixed)
    _, log_p = np.linalg.slogdet(cov_p)
    _, log_q = np.linalg.slogdet(cov_q)
    return float(-(log_mixed - (1 - alpha) * log_p - alpha * log_q) / (2 * (alpha - 1)))


def monte_carlo_renyi(alpha: float, cov_p: np.ndarray, cov_q: np.ndarray, draws: int,
                      rng: np.random.Generator) -> float:
    """D_alpha estimated as log E_P[(p/q)^(alpha - 1)] / (alpha - 1) from ``draws`` samples."""
    sample = rng.multivariate_normal(np.zeros(len(cov_p)), cov_p, size=draws)

    def log_density(cov: np.ndarray) -> np.ndarray:
        _, log_det = np.linalg.slogdet(cov)
        return -0.5 * (np.einsum("ij,ij->i", sample @ np.linalg.inv(cov), sample) + log_det)

    log_ratio = (alpha - 1) * (log_density(cov_p) - log_density(cov_q))
    top = log_ratio.max()
    return float((top + np.log(np.mean(np.exp(log_ratio - top)))) / (alpha - 1))


def neighbours(rng: np.random.Generator, n: int, d: int, distance: float
               ) -> tuple[np.ndarray, np.ndarray]:
    """Random data with rows of norm 1/2 and a copy whose second row moved by ``distance``."""
    x = rng.normal(size=(n, d))
    x /= 2 * np.linalg.norm(x, axis=1, keepdims=True)
    step = rng.normal(size=d)
    y = x.copy()
    y[1] += distance * step / np.linalg.norm(step)
    return x, y


def lemma_2_table(settings: list[tuple[float, float, int, int, int]], *, distance: float = 1.0,
                  draws: int = 200_000, seed: int = 0) -> pd.DataFrame:
    """For each (alpha, sigma, n, d, m'): Lemma 2's bound, the exact curve, the divergence from
    the covariances and its Monte-Carlo estimate, on one random pair of neighbours.
    """
    rng = np.random.default_rng(seed)
    rows = []
    for alpha, sigma, n, d, projections in settings:
        x, y = neighbours(rng, n, d, distance)
        cov_p, cov_q = output_covariance(x, projections, sigma), output_covariance(
            y, projections, sigma)
        rows.append({
            "alpha": alpha, "sigma": sigma, "n": n, "d": d, "m'": projections,
            "Lemma 2": float(slicing_rdp(alpha, sigma, dim=d, projections=projections,
                                         distance=distance)[0]),
            "exact curve": float(slicing_rdp(alpha, sigma, dim=d, projections=projections,
                                             distance=distance, curve="exact")[0]),
            "from covariances": gaussian_renyi(alpha, cov_p, cov_q),
            "Monte Carlo": monte_carlo_renyi(alpha, cov_p, cov_q, draws, rng)})
    return pd.DataFrame(rows)
