"""Tests of the grid runner: resumption, ordering, de-duplication, errors and provenance."""

from __future__ import annotations

import math

import pytest

from reprolib.experiments import _provenance
from reprolib.experiments._grid import run_grid
from reprolib.experiments._provenance import collect_provenance, compute_summary, short_revisions
from reprolib.experiments._store import Cell, ResultsStore


def make_cells(count: int) -> list[Cell]:
    return [
        Cell(
            artifact="privpgd-fig1",
            mechanism="privpgd",
            dataset="adult",
            epsilon=2.5,
            delta=1e-5,
            seed=seed,
            params={"particles": 100},
        )
        for seed in range(count)
    ]


def healthy(calls: list[int]):
    def compute(cell: Cell) -> dict[str, object]:
        calls.append(cell.seed)
        return {"error": cell.seed / 10, "undefined": math.nan}

    return compute


def test_an_interrupted_grid_resumes_without_recomputing(tmp_path) -> None:
    path = tmp_path / "results" / "privpgd-fig1" / "smoke.parquet"
    cells = make_cells(5)
    calls: list[int] = []

    def fails_on_third(cell: Cell) -> dict[str, object]:
        calls.append(cell.seed)
        if len(calls) == 3:
            raise RuntimeError("out of memory")
        return {"error": cell.seed / 10}

    with pytest.raises(RuntimeError, match="out of memory") as raised:
        run_grid(cells, fails_on_third, ResultsStore(path), scale="smoke", progress=False)
    note = "\n".join(raised.value.__notes__)
    for part in ("artifact=privpgd-fig1", "mechanism=privpgd", "dataset=adult", "epsilon=2.5"):
        assert part in note
    assert "seed=2" in note and str(path) in note
    assert calls == [0, 1, 2]
    assert ResultsStore(path).keys() == {cells[0].key, cells[1].key}

    calls.clear()
    frame = run_grid(cells, healthy(calls), ResultsStore(path), scale="smoke", progress=False)
    assert calls == [2, 3, 4]
    assert list(frame["seed"]) == [0, 1, 2, 3, 4]

    calls.clear()
    run_grid(cells, healthy(calls), ResultsStore(path), scale="smoke", progress=False)
    assert calls == []


def test_frame_holds_only_the_requested_cells_in_request_order(tmp_path) -> None:
    store = ResultsStore(tmp_path / "store.parquet")
    cells = make_cells(6)
    run_grid(cells, healthy([]), store, scale="smoke", progress=False)

    requested = [cells[4], cells[1], cells[3]]
    frame = run_grid(requested, healthy([]), store, scale="smoke", progress=False)
    assert list(frame["key"]) == [cell.key for cell in requested]
    assert list(frame["metric.error"]) == [0.4, 0.1, 0.3]
    assert list(frame.index) == [0, 1, 2]
    assert frame["metric.undefined"].map(math.isnan).all()


def test_duplicate_cells_are_computed_and_returned_once(tmp_path) -> None:
    cells = make_cells(3)
    calls: list[int] = []
    frame = run_grid(
        [cells[2], cells[0], cells[2], cells[0], cells[1]],
        healthy(calls),
        ResultsStore(tmp_path / "store.parquet"),
        scale="smoke",
        progress=False,
    )
    assert calls == [2, 0, 1]
    assert list(frame["seed"]) == [2, 0, 1]


def test_an_empty_grid_returns_an_empty_frame(tmp_path) -> None:
    frame = run_grid([], healthy([]), ResultsStore(tmp_path / "s.parquet"), scale="smoke")
    assert frame.empty and "key" in frame.columns


def test_rows_record_scale_device_timing_and_provenance(tmp_path) -> None:
    frame = run_grid(
        make_cells(1),
        healthy([]),
        ResultsStore(tmp_path / "store.parquet"),
        scale="small",
        device="cuda:0 (test)",
        progress=False,
    )
    row = frame.iloc[0]
    assert row["scale"] == "small" and row["device"] == "cuda:0 (test)"
    assert row["wall_time_s"] >= 0
    assert row["git_revision"] == collect_provenance("cpu")["git_revision"]
    assert row["created_at"].endswith("+00:00")


def test_a_non_mapping_result_names_the_cell(tmp_path) -> None:
    store = ResultsStore(tmp_path / "store.parquet")
    with pytest.raises(TypeError, match="metrics must be a mapping") as raised:
        run_grid(make_cells(2), lambda cell: 0.5, store, scale="smoke", progress=False)
    assert "seed=0" in "\n".join(raised.value.__notes__)
    assert len(store) == 0


def test_progress_bar_writes_to_stderr(tmp_path, capsys) -> None:
    run_grid(
        make_cells(2),
        healthy([]),
        ResultsStore(tmp_path / "store.parquet"),
        scale="smoke",
        description="figure 1",
    )
    captured = capsys.readouterr()
    assert "figure 1" in captured.err and "2/2" in captured.err
    assert captured.out == ""


def test_provenance_has_the_documented_keys() -> None:
    provenance = collect_provenance("cpu")
    assert set(provenance) == {"device", "versions", "git_revision", "hostname", "created_at"}
    assert provenance["device"] == "cpu"
    assert {"python", "numpy", "pandas", "scipy", "torch", "jax", "mbi", "reprolib"} <= set(
        provenance["versions"]
    )
    assert (
        provenance["git_revision"] == "unknown"
        or len(provenance["git_revision"].removesuffix("-dirty")) == 40
    )
    provenance["versions"]["numpy"] = "changed"
    assert collect_provenance("cpu")["versions"]["numpy"] != "changed"


@pytest.mark.parametrize(
    ("answers", "expected"),
    [
        ({"rev-parse": "/repo\nabc123\n", "status": ""}, "abc123"),
        ({"rev-parse": "/repo\nabc123\n", "status": " M src/reprolib/cli.py\n"}, "abc123-dirty"),
        ({"rev-parse": None, "status": ""}, "unknown"),
        ({"rev-parse": "/repo\nabc123\n", "status": None}, "unknown"),
    ],
    ids=["clean", "dirty", "not-a-checkout", "status-fails"],
)
def test_git_revision(monkeypatch, answers: dict, expected: str) -> None:
    monkeypatch.setattr(_provenance, "_git", lambda arguments, cwd: answers[arguments[0]])
    _provenance._git_revision.cache_clear()
    try:
        assert _provenance._git_revision() == expected
    finally:
        _provenance._git_revision.cache_clear()


def test_compute_summary_adds_wall_times_and_names_devices_and_days() -> None:
    import pandas as pd

    rows = pd.DataFrame({"wall_time_s": [1800.0, 5400.0, 3600.0],
                         "device": ["cpu", "cuda:0 (H100)", "cpu"],
                         "created_at": ["2026-11-20T10:00:00+00:00", "2026-11-21T23:59:00+00:00",
                                        "2026-11-21T00:00:00+00:00"]})
    assert compute_summary(rows) == ("3 runs, 3.00 hours of compute in all (the sum of their wall "
                                     "times), on cpu (model not recorded), cuda:0 (H100), recorded "
                                     "from 2026-11-20 to 2026-11-21")
    assert compute_summary(rows.iloc[:1]).endswith(
        "on cpu (model not recorded), recorded on 2026-11-20")
    assert compute_summary(rows.iloc[:0]) == "no runs recorded"


@pytest.mark.parametrize(("maps", "kept"), [(10, 1), (10**6, 0)])
def test_a_grid_drops_jax_compiled_code_once_the_process_holds_many_memory_maps(
        tmp_path, monkeypatch, maps, kept) -> None:
    import jax

    from reprolib.experiments import _grid

    monkeypatch.setattr(_grid, "_memory_maps", lambda: maps)
    square = jax.jit(lambda x: x * x)

    def compute(cell: Cell) -> dict[str, object]:
        return {"square": float(square(float(cell.seed)))}

    run_grid(make_cells(1), compute, ResultsStore(tmp_path / "s.parquet"), scale="smoke",
             progress=False)
    assert square._cache_size() == kept


def test_tables_cut_full_commit_hashes_and_keep_the_rest() -> None:
    import pandas as pd

    full = "ad2ef9225da167455e93131c16e0184fa557dc30"
    revisions = pd.Series([full, f"{full}-dirty", "09886ab", "before 05516f6 (mbi's MirrorDescent)"])
    assert short_revisions(revisions).tolist() == [
        "ad2ef92", "ad2ef92-dirty", "09886ab", "before 05516f6 (mbi's MirrorDescent)"]
