"""The committed results are reused: every cell an experiment asks for is already in its store.

A change to how cells are made (their parameters' keys, values or types) changes their keys and
would silently recompute every committed run; this test catches that without computing anything.
"""

import pytest

from reprolib.experiments import (
    SCALES,
    _experiment,
    catalogue,
    get_experiment,
    open_store,
    store_path,
)

COMMITTED = [(artifact, scale)
             for spec in catalogue().papers.values() for artifact in spec.experiments
             for scale in SCALES if store_path(artifact, scale).is_file()]


@pytest.fixture
def nothing_computed(monkeypatch):
    """Experiments that read other artifacts' runs (AIM Figures 5-6) may load them, never compute."""
    run_grid = _experiment.run_grid

    def refuse(cell):
        raise AssertionError(f"{cell.describe()} is not in the committed store")

    monkeypatch.setattr(_experiment, "run_grid",
                        lambda cells, compute, store, **kw: run_grid(cells, refuse, store, **kw))


def test_there_are_committed_results():
    assert {artifact for artifact, _ in COMMITTED} >= {"aim-fig1", "privpgd-fig1",
                                                       "prelim-conversions"}


@pytest.mark.parametrize(("artifact", "scale"), COMMITTED)
def test_every_cell_is_in_the_committed_store(artifact, scale, nothing_computed):
    experiment = get_experiment(artifact)
    cells = experiment.cells(scale, experiment.settings_at(scale))
    store = open_store(artifact, scale)
    missing = [cell.describe() for cell in cells if not store.has(cell)]
    assert cells and not missing, f"{len(missing)} of {len(cells)} cells not stored: {missing[:3]}"
