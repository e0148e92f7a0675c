"""The slicing family's losses (Eq. 5, SliceWass) and Algorithm 1's training loop."""

import dataclasses

import numpy as np
import pytest
import scipy.linalg
import scipy.spatial.distance
import scipy.stats
import torch

from reprolib.mechanisms.slicing.divergences import (
    _median_distance,
    _middle_pairs,
    density_ratio,
    sliced_f_divergence,
    sliced_wasserstein,
)
from reprolib.mechanisms.slicing.generator import Generator, OutputLayout
from reprolib.mechanisms.slicing.training import SlicedRelease, TrainingSettings, train
from reprolib.privacy import NeighbourRelation, RdpBudget, RdpLedger, slicing_release


def test_the_kernel_ratio_estimates_a_known_density_ratio():
    """P = N(0.5, 1) over Q = N(0, 1) has ratio exp(x/2 - 1/8); measured on 400 points: median
    relative error 0.06 and correlation 0.94 where |x| < 1.5; the reversed ratio would anti-correlate."""
    g = np.random.default_rng(0)
    real = torch.tensor(g.normal(0.0, 1.0, (1, 400, 1)))
    synthetic = torch.tensor(g.normal(0.5, 1.0, (1, 400, 1)))
    ratio = density_ratio(real, synthetic, tau=1e-3, multipliers=(0.5, 1.0, 2.0))[0].numpy()
    x = real[0, :, 0].numpy()
    truth = np.exp(0.5 * x - 0.125)
    central = np.abs(x) < 1.5
    assert np.median(np.abs(ratio[central] / truth[central] - 1)) < 0.2
    assert np.corrcoef(ratio, truth)[0, 1] > 0.85


def _eq5_by_hand(real, synthetic, f, tau, multipliers):
    """Eq. 5 slice by slice with NumPy and SciPy (an independent implementation)."""
    values = []
    for q, p in zip(real, synthetic, strict=True):
        h = np.median(scipy.spatial.distance.pdist(np.vstack([q, p])))
        estimates = []
        for c in multipliers:
            width = 2 * (c * h) ** 2
            k_qq = np.exp(-scipy.spatial.distance.cdist(q, q, "sqeuclidean") / width)
            k_qp = np.exp(-scipy.spatial.distance.cdist(q, p, "sqeuclidean") / width)
            estimates.append(scipy.linalg.solve(k_qq + tau * np.eye(len(q)),
                                                k_qp @ np.ones(len(p))) * len(q) / len(p))
        values.append(f(np.maximum(np.mean(estimates, axis=0), 0.0)))
    return np.mean(values)


@pytest.mark.parametrize(("divergence", "f"), [
    ("pearson", lambda t: (t - 1) ** 2),
    ("kl", lambda t: np.where(t > 0, t * np.log(np.where(t > 0, t, 1.0)), 0.0)),
])
def test_eq5_matches_an_independent_implementation(divergence, f):
    g = np.random.default_rng(1)
    real, synthetic = g.normal(size=(3, 40, 2)), g.normal(0.3, 1.2, size=(3, 40, 2))
    ours = sliced_f_divergence(torch.tensor(real), torch.tensor(synthetic),
                               divergence=divergence, tau=1e-2, multipliers=(0.5, 1.0, 2.0))
    assert float(ours) == pytest.approx(_eq5_by_hand(real, synthetic, f, 1e-2, (0.5, 1.0, 2.0)),
                                        rel=1e-8)


@pytest.mark.parametrize("rows", [30, 32])  # 435 pairs (odd), 496 (even)
def test_the_median_bandwidth_is_the_median_distance_between_distinct_rows(rows):
    points = np.random.default_rng(3).integers(0, 3, size=(5, rows, 2)).astype(float)  # ties
    squared = torch.cdist(torch.tensor(points), torch.tensor(points)) ** 2
    ours = _median_distance(squared).numpy()
    np.testing.assert_allclose(ours, [np.median(scipy.spatial.distance.pdist(p)) for p in points],
                               rtol=1e-12)


def test_both_selections_of_the_middle_pairs_agree():
    """NumPy's partition (CPU) and torch's sort (other devices), checked here on the CPU."""
    pairs = torch.tensor(np.random.default_rng(5).integers(0, 4, size=(6, 41)).astype(float))
    expected = np.sort(pairs.numpy(), axis=1)[:, [20, 20]]
    for numpy in (True, False):
        np.testing.assert_array_equal(_middle_pairs(pairs, numpy=numpy).numpy(), expected)
    even = pairs[:, :40]
    np.testing.assert_array_equal(_middle_pairs(even, numpy=False).numpy(),
                                  np.sort(even.numpy(), axis=1)[:, [19, 20]])


def test_the_gradient_is_finite_where_a_synthetic_row_meets_a_real_one():
    real = torch.tensor(np.random.default_rng(4).normal(size=(2, 20, 2)))
    synthetic = real.clone().requires_grad_(True)
    sliced_f_divergence(real, synthetic).backward()
    assert torch.isfinite(synthetic.grad).all()


def test_the_divergence_sees_a_shift_and_not_a_resample():
    g = np.random.default_rng(2)
    real = torch.tensor(g.normal(size=(4, 300, 2)))
    same = torch.tensor(g.normal(size=(4, 300, 2)))
    shifted = torch.tensor(g.normal(1.0, 1.0, size=(4, 300, 2)))
    assert float(sliced_f_divergence(real, shifted)) > 10 * float(sliced_f_divergence(real, same))


def test_sliced_wasserstein_agrees_with_scipy():
    g = np.random.default_rng(3)
    real, synthetic = g.normal(size=(5, 64, 1)), g.exponential(size=(5, 64, 1))
    ours = sliced_wasserstein(torch.tensor(real), torch.tensor(synthetic), p=1.0)
    scipys = [scipy.stats.wasserstein_distance(a[:, 0], b[:, 0])
              for a, b in zip(real, synthetic, strict=True)]
    assert float(ours) == pytest.approx(np.mean(scipys), rel=1e-10)
    with pytest.raises(ValueError, match=r"\(m, b, 1\)"):
        sliced_wasserstein(torch.tensor(real[..., [0, 0]]), torch.tensor(synthetic[..., [0, 0]]))


def _release(data, k, m, sigma, seed=0):
    ledger = RdpLedger(RdpBudget(epsilon=1e5, delta=1e-5,  # any budget: the noise is given
                                 relation=NeighbourRelation.REPLACE_ONE))
    directions, outputs = slicing_release(data, projections=k * m, sigma=sigma, row_norm=1.0,
                                          rng=np.random.default_rng(seed), ledger=ledger,
                                          label="release")
    return SlicedRelease(directions, outputs, sigma, k)


def test_a_release_exposes_only_what_was_published():
    """Training reads a SlicedRelease and nothing else: its fields are U, XU + V, sigma and k."""
    fields = {f.name for f in dataclasses.fields(SlicedRelease)}
    assert fields == {"directions", "projections", "sigma", "slice_dim"}
    with pytest.raises(ValueError, match="slices of 2"):
        SlicedRelease(np.zeros((3, 5)), np.zeros((10, 5)), 1.0, 2)


@pytest.mark.parametrize(("loss", "k"), [("sliced-f", 2), ("sliced-wasserstein", 1)])
def test_training_moves_the_generator_towards_the_data(loss, k):
    """Two numbers concentrated near (0.8, 0.2)/sqrt(2): the generator's mean, from about 0.35
    per coordinate at initialisation, moves most of the way there; training is deterministic."""
    g = np.random.default_rng(4)
    data = np.clip(g.normal([0.8, 0.2], 0.05, size=(512, 2)), 0, 1) / np.sqrt(2)
    release = _release(data, k=k, m=10 // k, sigma=0.05)
    settings = TrainingSettings(loss=loss, epochs=15, learning_rate=3e-3, batch_size=64)
    layout = OutputLayout(categorical=(), numerical=2, scale=1 / np.sqrt(2))
    models, logs = [], []
    for _ in range(2):
        torch.manual_seed(0)
        models.append(Generator(layout, latent=8, hidden=(32,)))
        logs.append(train(models[-1], release, settings, seed=5))
    assert logs[0].epoch_losses == logs[1].epoch_losses and logs[0].steps == 15 * 8
    assert logs[0].epoch_losses[-1] < logs[0].epoch_losses[0]
    with torch.no_grad():
        mean = models[0].sample(2000, torch.Generator().manual_seed(0)).mean(0).numpy()
    assert np.abs(mean - data.mean(0)).max() < 0.1


def test_slicewass_refuses_multidimensional_slices():
    release = _release(np.full((10, 2), 0.5), k=2, m=2, sigma=0.1)
    generator = Generator(OutputLayout((), 2), latent=4, hidden=(8,))
    with pytest.raises(ValueError, match="k = 1"):
        train(generator, release, TrainingSettings(loss="sliced-wasserstein", epochs=1), seed=0)


def test_a_loss_that_is_not_finite_stops_training():
    """The GPU path does not check each factorisation; a non-finite epoch loss stops the run."""
    release = _release(np.full((10, 2), 0.5), k=1, m=2, sigma=0.1)
    broken = dataclasses.replace(release, projections=np.full_like(release.projections, np.nan))
    generator = Generator(OutputLayout((), 2), latent=4, hidden=(8,))
    with pytest.raises(FloatingPointError, match="epoch 1"):
        train(generator, broken, TrainingSettings(loss="sliced-wasserstein", epochs=1), seed=0)
