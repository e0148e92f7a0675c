"""An audit recomputes stored cells and reports the metric that moved most."""

import numpy as np
import pandas as pd
import pytest

from reprolib import cli
from reprolib.experiments import audit_grid, open_store, replacement_moves, run_experiment
from reprolib.experiments._audit import cheapest_cells, varying_params
from reprolib.experiments._store import Cell


@pytest.fixture
def move_every_rho(tamper, metrics_changed):
    """``move_every_rho(results, factor)``: every stored small conversions rho times ``factor``."""

    def move(results, factor):
        def scale(values, row):
            values["rho"] *= factor

        tamper(results, "prelim-conversions", "small", metrics_changed(scale))

    return move


@pytest.fixture
def recorded(scratch_dirs):
    results, _ = scratch_dirs
    run_experiment("prelim-conversions", scale="small", device="cpu", progress=False)
    return results


def test_cheapest_cells_take_one_of_each_mechanism_first():
    rows = pd.DataFrame({"mechanism": ["a", "a", "a", "b", "c"],
                         "wall_time_s": [1.0, 2.0, 3.0, 9.0, 5.0]})
    assert cheapest_cells(rows, 4).index.tolist() == [0, 4, 3, 1]
    assert cheapest_cells(rows.drop(columns="mechanism"), 2).index.tolist() == [0, 1]


def test_cells_alike_but_for_a_parameter_are_told_apart_by_it():
    def cell(**params):
        return Cell(artifact="a", mechanism="m", dataset="d", epsilon=1.0, delta=None, seed=0,
                    params=params)

    cells = [cell(capacity=1.0, iters=100), cell(capacity=8.0, iters=100),
             cell(capacity=8.0, iters=100, rounds=5)]
    assert varying_params(cells) == ["capacity", "rounds"]
    assert varying_params(cells[1:2]) == []


def test_an_unchanged_grid_audits_bit_for_bit(recorded):
    audit = audit_grid("prelim-conversions", "small", cells=3)
    assert len(audit) == 3 and audit["same_cpu"].all()
    assert (audit["metrics"] > 0).all() and (audit["relative_difference"] == 0).all()
    assert not any(cell.startswith("artifact=") for cell in audit["cell"])


def test_a_moved_metric_is_reported_and_the_store_is_left_alone(recorded, move_every_rho):
    move_every_rho(recorded, 1.001)
    before = (recorded / "preliminaries" / "prelim-conversions" / "small.parquet").read_bytes()
    audit = audit_grid("prelim-conversions", "small", cells=2)
    assert (audit["worst_metric"] == "rho").all()
    np.testing.assert_allclose(audit["relative_difference"], 1 - 1 / 1.001, rtol=1e-9)
    np.testing.assert_allclose(audit["stored"], audit["recomputed"] * 1.001, rtol=1e-12)
    after = (recorded / "preliminaries" / "prelim-conversions" / "small.parquet").read_bytes()
    assert after == before


def test_an_unrecorded_grid_says_how_to_record_it(scratch_dirs):
    with pytest.raises(LookupError, match="reprolib run prelim-conversions --scale small"):
        audit_grid("prelim-conversions", "small")


def test_the_audit_command_exits_1_when_a_cell_moved(recorded, move_every_rho, capsys):
    assert cli.main(["audit", "prelim-conversions", "--cells", "2"]) == 0
    out = capsys.readouterr().out
    assert "2 stored cell(s) recomputed, 0 moved by more than 1e-06" in out
    assert " none " in out and "rho" not in out  # nothing moved: no metric is named
    move_every_rho(recorded, 1.001)
    assert cli.main(["audit", "prelim-conversions", "--cells", "2"]) == 1
    out = capsys.readouterr().out
    assert "2 moved by more than 1e-06" in out and "rho" in out and " none " not in out
    assert cli.main(["audit", "prelim-conversions", "--rtol", "1e-2"]) == 0
    assert cli.main(["audit", "prelim-conversions", "--scale", "paper"]) == 1
    assert "no stored cell" in capsys.readouterr().err


def test_a_rerun_says_how_far_the_rows_it_replaced_moved(recorded, capsys):
    before = open_store("prelim-conversions", "small").frame()
    after = before.copy()
    after.loc[[0, 1], "created_at"] = "2100-01-01T00:00:00+00:00"  # rows 0 and 1 re-recorded
    after.loc[0, "metric.rho"] *= 1.001
    after.loc[0, "device"] = "cuda (elsewhere)"
    moves = replacement_moves(before, after)
    assert moves["key"].tolist() == before["key"][:2].tolist()
    assert moves["worst_metric"][0] == "rho" and moves["relative_difference"][1] == 0
    np.testing.assert_allclose(moves["relative_difference"][0], 1e-3, rtol=1e-9)
    cli._say_moves(before, after)
    said = capsys.readouterr().out
    assert said.startswith("1 of 2 re-run row(s) reproduce every metric they replaced; the "
                           "largest move: rho ")
    assert "(relative 1.00e-03); 1 of the replaced rows were recorded on another device" in said
    cli._say_moves(before, before)  # nothing re-run: nothing said
    assert capsys.readouterr().out == ""
