"""Tests of the results store: cell keys, round trips, atomic writes and unreadable files."""

from __future__ import annotations

import dataclasses
import math
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from reprolib.experiments._provenance import collect_provenance
from reprolib.experiments._store import Cell, ResultsStore, StoreError

BASE = {
    "artifact": "aim-fig1",
    "mechanism": "aim",
    "dataset": "adult",
    "epsilon": 1.0,
    "delta": 1e-9,
    "seed": 0,
    "params": {"rounds": 10, "alpha": 0.5, "degrees": [2, 3]},
}


def make_cell(**changes: object) -> Cell:
    return Cell(**{**BASE, **changes})


def append(store: ResultsStore, cell: Cell, metrics: dict, scale: str = "smoke") -> None:
    store.append(
        cell, scale=scale, metrics=metrics, wall_time_s=0.25, provenance=collect_provenance("cpu")
    )


# --- Cell.key ------------------------------------------------------------------------------------


def test_key_is_independent_of_dict_order() -> None:
    reordered = make_cell(params={"degrees": [2, 3], "alpha": 0.5, "rounds": 10})
    assert reordered.key == make_cell().key
    assert reordered == make_cell()
    assert hash(reordered) == hash(make_cell())


def test_key_is_a_stable_sha256() -> None:
    key = make_cell().key
    assert len(key) == 64 and int(key, 16) >= 0
    # Recomputed on a fresh object; nothing time- or process-dependent enters it.
    assert Cell(**BASE).key == key


@pytest.mark.parametrize(
    "change",
    [
        {"artifact": "aim-fig2"},
        {"mechanism": "mst"},
        {"dataset": "titanic"},
        {"epsilon": 1.0000000000000002},
        {"epsilon": None},
        {"delta": 1.0000000000000002e-9},
        {"delta": None},
        {"delta": 0.0},
        {"seed": 1},
        {"params": {"rounds": 11, "alpha": 0.5, "degrees": [2, 3]}},
        {"params": {"rounds": 10, "alpha": 0.5, "degrees": [3, 2]}},
        {"params": {"rounds": 10, "alpha": 0.5}},
    ],
    ids=lambda change: next(iter(change)) + "=" + repr(next(iter(change.values())))[:20],
)
def test_key_changes_with_every_field(change: dict) -> None:
    assert make_cell(**change).key != make_cell().key


def test_key_treats_int_and_float_epsilon_alike() -> None:
    assert make_cell(epsilon=1).key == make_cell(epsilon=1.0).key


def test_params_may_be_a_frozen_dataclass_and_are_read_only() -> None:
    @dataclasses.dataclass(frozen=True)
    class Config:
        rounds: int = 10
        alpha: float = 0.5
        degrees: tuple[int, ...] = (2, 3)

    cell = make_cell(params=Config())
    assert cell.key == make_cell().key
    with pytest.raises(TypeError):
        cell.params["rounds"] = 3  # type: ignore[index]


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({"artifact": ""}, ValueError),
        ({"epsilon": 0.0}, ValueError),
        ({"epsilon": math.nan}, TypeError),
        ({"delta": 1.0}, ValueError),
        ({"seed": -1}, ValueError),
        ({"seed": True}, TypeError),
        ({"params": {"a": math.nan}}, ValueError),
        ({"params": {"a": object()}}, ValueError),
        ({"params": {1: 2}}, TypeError),
    ],
)
def test_invalid_cells_are_rejected(change: dict, error: type[Exception]) -> None:
    with pytest.raises(error, match=r"Cell\."):
        make_cell(**change)


# --- round trip ----------------------------------------------------------------------------------


def test_round_trip_through_disk_keeps_metrics_and_nan(tmp_path) -> None:
    path = tmp_path / "nested" / "aim-fig1" / "smoke.parquet"
    store = ResultsStore(path)
    assert len(store) == 0 and store.frame().empty
    first, second = make_cell(), make_cell(seed=1, epsilon=None, delta=None)
    append(store, first, {"error": 0.125, "missing": math.nan, "curve": [1.0, 2.5], "ok": True})
    append(store, second, {"error": 0.5, "label": "x", "big": math.inf})

    reopened = ResultsStore(path)
    assert len(reopened) == 2
    assert reopened.keys() == {first.key, second.key}
    assert reopened.has(first) and not reopened.has(make_cell(seed=2))
    assert reopened.get(make_cell(seed=2)) is None
    metrics = reopened.get(first)
    assert metrics is not None and math.isnan(metrics.pop("missing"))
    assert metrics == {"error": 0.125, "curve": [1.0, 2.5], "ok": True}

    frame = reopened.frame()
    assert list(frame["key"]) == [first.key, second.key]
    assert list(frame["metric.error"]) == [0.125, 0.5]
    assert math.isnan(frame.loc[0, "metric.missing"])
    assert frame.loc[1, "metric.big"] == math.inf
    assert frame.loc[0, "param.rounds"] == 10
    assert frame.loc[0, "delta"] == 1e-9 and math.isnan(frame.loc[1, "epsilon"])
    assert set(frame["scale"]) == {"smoke"} and set(frame["device"]) == {"cpu"}
    assert (frame["wall_time_s"] == 0.25).all()
    assert "metrics_json" not in frame.columns


def test_schema_version_is_in_the_file_metadata(tmp_path) -> None:
    path = tmp_path / "store.parquet"
    append(ResultsStore(path), make_cell(), {"error": 1.0})
    assert pq.read_schema(path).metadata[b"reprolib_schema"] == b"1"


def test_numpy_metrics_are_stored_as_python_values(tmp_path) -> None:
    np = pytest.importorskip("numpy")
    store = ResultsStore(tmp_path / "store.parquet")
    append(store, make_cell(), {"n": np.int64(3), "x": np.float32(0.5), "v": np.arange(3)})
    assert ResultsStore(store.path).get(make_cell()) == {"n": 3, "x": 0.5, "v": [0, 1, 2]}


def test_appending_an_existing_key_replaces_its_row_in_place(tmp_path) -> None:
    store = ResultsStore(tmp_path / "store.parquet")
    append(store, make_cell(), {"error": 1.0})
    append(store, make_cell(seed=1), {"error": 2.0})
    append(store, make_cell(), {"error": 3.0})
    frame = ResultsStore(store.path).frame()
    assert list(frame["seed"]) == [0, 1]
    assert list(frame["metric.error"]) == [3.0, 2.0]


def test_one_file_holds_one_artifact_and_scale(tmp_path) -> None:
    store = ResultsStore(tmp_path / "store.parquet")
    append(store, make_cell(), {"error": 1.0})
    with pytest.raises(ValueError, match="one results file per artifact and scale"):
        append(store, make_cell(), {"error": 1.0}, scale="small")
    with pytest.raises(ValueError, match="aim-fig2"):
        append(store, make_cell(artifact="aim-fig2"), {"error": 1.0})


def test_a_second_object_sees_rows_written_by_another(tmp_path) -> None:
    path = tmp_path / "store.parquet"
    reader, writer = ResultsStore(path), ResultsStore(path)
    assert len(reader) == 0
    append(writer, make_cell(), {"error": 1.0})
    assert reader.has(make_cell())
    append(reader, make_cell(seed=1), {"error": 2.0})
    assert len(writer) == 2


def test_frame_is_a_copy(tmp_path) -> None:
    store = ResultsStore(tmp_path / "store.parquet")
    append(store, make_cell(), {"error": 1.0})
    frame = store.frame()
    frame.loc[0, "metric.error"] = 99.0
    assert store.frame().loc[0, "metric.error"] == 1.0


# --- atomicity -----------------------------------------------------------------------------------


def test_crash_while_writing_leaves_the_old_file_intact(tmp_path, monkeypatch) -> None:
    path = tmp_path / "store.parquet"
    store = ResultsStore(path)
    append(store, make_cell(), {"error": 1.0})
    before = path.read_bytes()

    def write_half_then_crash(table: pa.Table, where: object, **kwargs: object) -> None:
        where.write(b"PAR1 half a file")  # type: ignore[attr-defined]
        raise OSError("disk full")

    monkeypatch.setattr(pq, "write_table", write_half_then_crash)
    with pytest.raises(OSError, match="disk full"):
        append(store, make_cell(seed=1), {"error": 2.0})
    monkeypatch.undo()

    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store.parquet"]
    assert store.keys() == ResultsStore(path).keys() == {make_cell().key}


def test_crash_at_rename_leaves_the_old_file_intact(tmp_path, monkeypatch) -> None:
    path = tmp_path / "store.parquet"
    store = ResultsStore(path)
    append(store, make_cell(), {"error": 1.0})
    before = path.read_bytes()

    def crash(source: object, destination: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        append(store, make_cell(seed=1), {"error": 2.0})
    monkeypatch.undo()

    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["store.parquet"]
    assert not store.has(make_cell(seed=1))


def test_leftover_temporary_files_are_ignored(tmp_path) -> None:
    path = tmp_path / "store.parquet"
    (tmp_path / ".store.parquet.abc123.tmp").write_bytes(b"torn")
    append(ResultsStore(path), make_cell(), {"error": 1.0})
    assert ResultsStore(path).keys() == {make_cell().key}


# --- unreadable files ----------------------------------------------------------------------------


def _write_table(path, metadata: dict | None, drop: str | None = None) -> None:
    good = path.with_suffix(".good.parquet")
    append(ResultsStore(good), make_cell(), {"error": 1.0})
    table = pq.read_table(good)
    if drop is not None:
        table = table.drop_columns([drop])
    pq.write_table(table.replace_schema_metadata(metadata), path)
    good.unlink()


@pytest.mark.parametrize(
    ("writer", "message"),
    [
        (lambda p: p.write_bytes(os.urandom(256)), "not a readable Parquet"),
        (lambda p: p.write_bytes(b""), "not a readable Parquet"),
        (lambda p: _write_table(p, {"reprolib_schema": "0"}), "schema '0'"),
        (lambda p: _write_table(p, None), "no reprolib_schema metadata"),
        (lambda p: _write_table(p, {"reprolib_schema": "1"}, drop="seed"), "lacks the columns"),
    ],
    ids=["random-bytes", "empty", "other-schema", "no-metadata", "missing-column"],
)
def test_unreadable_files_raise_and_are_left_untouched(tmp_path, writer, message) -> None:
    path = tmp_path / "store.parquet"
    writer(path)
    before = path.read_bytes()
    with pytest.raises(StoreError, match=message) as raised:
        ResultsStore(path)
    assert str(path) in str(raised.value)
    assert "delete it or move it away" in str(raised.value)
    assert path.read_bytes() == before


def test_a_file_corrupted_after_opening_is_not_overwritten(tmp_path) -> None:
    path = tmp_path / "store.parquet"
    store = ResultsStore(path)
    append(store, make_cell(), {"error": 1.0})
    path.write_bytes(b"garbage written by someone else")
    with pytest.raises(StoreError, match=r"store\.parquet"):
        append(store, make_cell(seed=1), {"error": 2.0})
    assert path.read_bytes() == b"garbage written by someone else"


def test_a_directory_is_not_a_store(tmp_path) -> None:
    with pytest.raises(StoreError, match="is a folder"):
        ResultsStore(tmp_path)


def test_merge_adds_the_other_stores_new_cells_with_their_provenance(tmp_path):
    here, there = ResultsStore(tmp_path / "a.parquet"), ResultsStore(tmp_path / "b.parquet")
    shared, theirs = make_cell(seed=0), make_cell(seed=1)
    here.append(shared, scale="small", metrics={"m": 1.0}, wall_time_s=1.0,
                provenance=collect_provenance("cpu"))
    there.append(shared, scale="small", metrics={"m": 2.0}, wall_time_s=1.0,
                 provenance=collect_provenance("gpu"))
    there.append(theirs, scale="small", metrics={"m": 3.0}, wall_time_s=1.0,
                 provenance=collect_provenance("gpu"))
    assert here.merge(there) == 1
    assert here.get(shared)["m"] == 1.0 and here.get(theirs)["m"] == 3.0
    frame = ResultsStore(here.path).frame()
    assert dict(zip(frame["seed"], frame["device"], strict=True)) == {0: "cpu", 1: "gpu"}
    assert here.merge(there) == 0


def test_merge_with_replace_puts_the_others_rows_in_place_of_this_stores(tmp_path):
    here, there = ResultsStore(tmp_path / "a.parquet"), ResultsStore(tmp_path / "b.parquet")
    first, second = make_cell(seed=0), make_cell(seed=1)
    for cell, value in ((first, 1.0), (second, 2.0)):
        here.append(cell, scale="small", metrics={"m": value}, wall_time_s=1.0,
                    provenance={**collect_provenance("cpu"),
                                "created_at": "2026-01-01T00:00:00+00:00"})
    there.append(first, scale="small", metrics={"m": 10.0}, wall_time_s=1.0,
                 provenance={**collect_provenance("gpu"), "created_at": "2026-01-02T00:00:00+00:00"})
    assert here.merge(there, replace=True) == 1
    frame = ResultsStore(here.path).frame()
    assert frame["seed"].tolist() == [0, 1]  # the re-run keeps its row's place
    assert frame["metric.m"].tolist() == [10.0, 2.0]
    assert frame["device"].tolist() == ["gpu", "cpu"]
    assert here.merge(there, replace=True) == 0  # the same run again is not newer
    older = {**collect_provenance("old"), "created_at": "2000-01-01T00:00:00+00:00"}
    stale = ResultsStore(tmp_path / "d.parquet")
    stale.append(second, scale="small", metrics={"m": 0.0}, wall_time_s=1.0, provenance=older)
    assert here.merge(stale, replace=True) == 0  # an older run never replaces a newer one
    assert ResultsStore(here.path).get(second) == {"m": 2.0}
    naive = ResultsStore(tmp_path / "e.parquet")  # a stamp without a zone is read as UTC
    naive.append(second, scale="small", metrics={"m": 3.0}, wall_time_s=1.0,
                 provenance={**older, "created_at": "2999-01-01T00:00:00"})
    assert here.merge(naive, replace=True) == 1


def test_merge_refuses_another_scale(tmp_path):
    here, there = ResultsStore(tmp_path / "a.parquet"), ResultsStore(tmp_path / "b.parquet")
    here.append(make_cell(seed=0), scale="small", metrics={}, wall_time_s=1.0,
                provenance=collect_provenance("cpu"))
    there.append(make_cell(seed=1), scale="smoke", metrics={}, wall_time_s=1.0,
                 provenance=collect_provenance("cpu"))
    with pytest.raises(ValueError, match="one results file per artifact and scale"):
        here.merge(there)
