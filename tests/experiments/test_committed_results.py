"""The committed results are reused: every cell an experiment asks for is already in its store,
and every stored row is a cell some experiment asks for.

A change to how cells are made (their parameters' keys, values or types) changes their keys and
would silently recompute every committed run; this test catches that without computing anything.
"""

import pytest

from reprolib.experiments import (
    SCALES,
    ResultsStore,
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


STORES = sorted({store_path(artifact, scale) for artifact, scale in COMMITTED})


@pytest.mark.parametrize("path", STORES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_no_committed_row_is_stale(path, nothing_computed):
    # rows of cells no experiment asks for (a hyper-parameter changed, the key with it) would be
    # mixed into the checks and figures that read a whole store: `reprolib prune` drops them
    scale = path.stem
    wanted = set()
    for artifact, artifact_scale in COMMITTED:
        if artifact_scale == scale and store_path(artifact, scale) == path:
            experiment = get_experiment(artifact)
            wanted |= {c.key for c in experiment.cells(scale, experiment.settings_at(scale))}
    stale = ResultsStore(path).keys() - wanted
    assert not stale, f"{len(stale)} stored rows are no cell's; run `reprolib prune --scale {scale}`"
