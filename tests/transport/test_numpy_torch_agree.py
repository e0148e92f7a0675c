"""The NumPy and torch sliced W1 of reprolib.transport are one definition: equal on equal inputs."""

import numpy as np
import pytest
import torch

from reprolib.transport import sliced_w1, unit_directions
from reprolib.transport._torch import random_directions
from reprolib.transport._torch import sliced_w1 as sliced_w1_torch


def test_numpy_and_torch_sliced_w1_agree_on_the_same_directions():
    rng = np.random.default_rng(0)
    points = rng.random((30, 2))
    p, q = rng.dirichlet(np.ones(30)), rng.dirichlet(np.ones(30))
    directions = unit_directions(20, seed=1)
    ours = sliced_w1(points, p, q, directions)
    theirs = sliced_w1_torch(torch.from_numpy(points)[None], torch.from_numpy(p)[None],
                             torch.from_numpy(q)[None], torch.from_numpy(directions)[None])
    assert float(theirs[0]) == pytest.approx(ours, rel=1e-12)


def test_both_samplers_draw_unit_vectors_with_mean_near_zero():
    numpy_draws = unit_directions(20_000, 3, seed=2)
    torch_draws = random_directions((20_000,), 3, generator=torch.Generator().manual_seed(2),
                                    device="cpu").double().numpy()
    for draws in (numpy_draws, torch_draws):
        assert np.allclose(np.linalg.norm(draws, axis=1), 1.0, atol=1e-6)
        assert np.abs(draws.mean(axis=0)).max() < 0.03  # uniform on the sphere: mean 0
