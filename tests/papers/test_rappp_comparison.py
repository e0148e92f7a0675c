"""The comparison grid of Figures 2, 4, 7 and 8: its cells, its scores and PGM on bins."""

import numpy as np
import pandas as pd

from reprolib.data import Dataset, Domain, MixedDataset
from reprolib.papers.rappp.comparison import (
    COMPARISON,
    ORIGINAL,
    comparison_cells,
    query_errors,
    synthesise,
)


def _data(n=600, seed=0) -> MixedDataset:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.integers(0, 3, n), "b": rng.integers(0, 2, n),
                          "y": rng.integers(0, 2, n)})
    return MixedDataset(Dataset(frame, Domain.from_dict({"a": 3, "b": 2, "y": 2})),
                        rng.random((n, 2)), ("u", "v"), targets=("y",))


def test_every_mechanism_epsilon_and_seed_and_one_original_row_per_seed():
    settings = COMPARISON["small"]
    cells = comparison_cells("rappp-fig8")("small", settings)
    private = [c for c in cells if c.mechanism != ORIGINAL]
    assert len(private) == (len(settings.datasets) * len(settings.mechanisms)
                            * len(settings.epsilons) * settings.trials)
    assert len(cells) - len(private) == len(settings.datasets) * settings.trials
    assert {c.params["bound"] for c in private} == {"bun-steinke"}  # the paper's conversion


def test_the_scores_are_zero_on_the_data_itself_and_positive_elsewhere():
    data = _data()
    same = query_errors(data, data, 200)
    assert all(value == 0 for value in same.values())
    other = query_errors(data, _data(seed=1), 200)
    assert set(other) == {"cm_mean_error", "cm_max_error", "mm_mean_error", "mm_max_error"}
    assert all(value > 0 for value in other.values())


def test_pgm_releases_bin_centres_in_the_datas_domain():
    data = _data()
    params = {"bins": 4, "pgm_iters": 5, "bound": "bun-steinke"}
    synthetic = synthesise("PGM", data, 1.0, 0, params)
    assert synthetic.domain == data.domain
    assert np.isin(np.round(synthetic.numerical * 8, 9), [1, 3, 5, 7]).all()
