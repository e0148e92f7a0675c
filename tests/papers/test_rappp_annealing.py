"""Figures 1 and 6: the 2-way mixed marginals and the grid of annealed and fixed fits."""

import jax.numpy as jnp
import numpy as np
import pandas as pd

from reprolib.data import Dataset, Domain, MixedDataset
from reprolib.papers.rappp.annealing import (
    ANNEALED,
    FIXED,
    SETTINGS,
    annealing_cells,
    two_way_marginals,
)
from reprolib.queries import OneHotLayout, threshold_answers


def test_a_two_way_marginal_is_a_label_value_and_one_numbers_threshold():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"y": rng.integers(0, 3, 400)})
    data = MixedDataset(Dataset(frame, Domain.from_dict({"y": 3})), rng.random((400, 2)),
                        ("u", "v"), targets=("y",))
    layout = OneHotLayout(data.domain, data.targets)
    labels, theta, tau = two_way_marginals(layout, 25, np.random.default_rng(1))
    assert (theta.sum(axis=1) == 1).all() and set(np.unique(theta)) == {0.0, 1.0}
    answers = np.asarray(threshold_answers(jnp.asarray(layout.encode(data)), layout,
                                           jnp.asarray(labels), jnp.asarray(theta),
                                           jnp.asarray(tau), "<="))
    for q in range(25):
        column = int(np.argmax(theta[q]))
        inside = data.numerical[:, column] <= tau[q]
        expected = [np.mean(inside & (data.column("y") == c)) for c in range(3)]
        np.testing.assert_allclose(answers[q], expected, atol=1e-6)


def test_each_seed_runs_the_annealed_fit_and_every_fixed_sigma():
    settings = SETTINGS["rappp-fig1"]["small"]
    cells = annealing_cells("rappp-fig1")("small", settings)
    assert len(cells) == (1 + len(settings.sigmas)) * settings.trials
    annealed = [c for c in cells if c.mechanism == ANNEALED]
    assert {c.params["max_doublings"] for c in annealed} == {10}
    fixed = {c.params["sigma_initial"] for c in cells if c.mechanism == FIXED}
    assert fixed == set(settings.sigmas)
    assert {c.params["max_doublings"] for c in cells if c.mechanism == FIXED} == {0}
