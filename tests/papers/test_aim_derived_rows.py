"""AIM's Figures 5 and 6 are read off AIM's runs of Figures 1-3, and their cells' keys do not hold
those runs: the committed rows must agree with the committed sources, or a source recomputed (or a
grid grown by trials) leaves them stale without any key changing."""

import numpy as np
import pytest

from reprolib.experiments import open_store
from reprolib.papers.aim.studies import SOURCE_ARTIFACTS

SCALES = [scale for scale in ("smoke", "small")
          if len(open_store("aim-fig5", scale)) and len(open_store("aim-fig6", scale))]


def _aim_runs(artifact, scale):
    runs = open_store(artifact, scale).frame()
    return runs[runs["mechanism"] == "AIM"]


@pytest.mark.parametrize("scale", SCALES)
def test_figure_5_rows_average_every_current_source_run(scale):
    rows = open_store("aim-fig5", scale).frame()
    for _, row in rows.iterrows():
        source = _aim_runs(SOURCE_ARTIFACTS[row["param.workload"]], scale)
        runs = source[(source["dataset"] == row["dataset"])
                      & np.isclose(source["epsilon"], row["epsilon"])]
        assert row["metric.trials"] == len(runs) > 0, (row["dataset"], row["epsilon"])
        assert row["metric.aim_workload_error"] == pytest.approx(
            runs["metric.workload_error"].mean(), rel=1e-12)


@pytest.mark.parametrize("scale", SCALES)
def test_figure_6_rows_equal_their_source_runs(scale):
    rows = open_store("aim-fig6", scale).frame()
    source = _aim_runs("aim-fig1", scale).set_index(["dataset", "epsilon", "seed"])
    assert len(rows) == len(source)
    for _, row in rows.iterrows():
        run = source.loc[(row["dataset"], row["epsilon"], row["seed"])]
        assert (row["metric.seconds"], row["metric.rounds"]) == (
            run["metric.seconds"], run["metric.rounds"])
