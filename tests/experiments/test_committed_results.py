"""The committed results are reused: every cell an experiment asks for is already in its store,
and every stored row is a cell some experiment asks for.

A change to how cells are made (their parameters' keys, values or types) changes their keys and
would silently recompute every committed run; this test catches that without computing anything.
"""

import pytest

from reprolib.experiments import (
    SCALES,
    CellsNotStored,
    ResultsStore,
    catalogue,
    get_artifact,
    get_experiment,
    open_store,
    prune_stores,
    run_experiment,
    store_path,
    stored_only,
)

COMMITTED = [(artifact, scale)
             for spec in catalogue().papers.values() for artifact in spec.experiments
             for scale in SCALES if store_path(artifact, scale).is_file()]


@pytest.fixture
def nothing_computed():
    """Experiments that read other artifacts' runs (AIM Figures 5-6) may load them, never compute."""
    with stored_only():
        yield


def test_there_are_committed_results():
    assert {artifact for artifact, _ in COMMITTED} >= {"aim-fig1", "privpgd-fig1",
                                                       "prelim-conversions"}


# a paper-scale store holds spot runs at the paper's settings until its paper declares the whole
# paper grid committed (``PaperSpec.paper_covers_design``); smoke and small stores are complete
COMPLETE = [(artifact, scale) for artifact, scale in COMMITTED
            if scale != "paper" or catalogue().paper(get_artifact(artifact).paper).paper_covers_design]


@pytest.mark.parametrize(("artifact", "scale"), COMPLETE)
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


def test_prune_computes_nothing_and_leaves_alone_what_it_cannot_list(tmp_path, monkeypatch):
    # in an empty results folder AIM's Figures 5-6 cannot list their cells without the runs of
    # Figures 1-3: prune must skip them, not compute those runs
    monkeypatch.setenv("REPROLIB_RESULTS_DIR", str(tmp_path))
    dropped, skipped = prune_stores("small")
    assert dropped == {} and {"aim-fig5", "aim-fig6"} <= set(skipped)
    assert not any(tmp_path.rglob("*.parquet"))
    with pytest.raises(CellsNotStored, match="cells of aim-fig1 at scale small are not in"), \
            stored_only():
        run_experiment("aim-fig1", scale="small", results_root=tmp_path, progress=False)
