"""The results store: one Parquet file of finished runs per (artifact, scale), keyed by `Cell`.

A `Cell` says what was run (artifact, mechanism, dataset, ε, δ, seed and the full
hyper-parameters); its `Cell.key` is a content hash of exactly those fields, so the same run has
the same key on every machine, at every git revision and at every time. A `ResultsStore` row adds
what came out (metrics, wall time) and where it came from (device, versions, git revision, time).

Every write replaces the whole file atomically (temporary file in the same folder, then
`os.replace`), so a crash at any moment leaves either the old or the new file, never a torn one.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import datetime
import functools
import hashlib
import json
import math
import numbers
import os
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

#: Version of the row layout below, stored in the file's key-value metadata.
SCHEMA_VERSION = "1"
_SCHEMA_METADATA_KEY = b"reprolib_schema"

_SCHEMA = pa.schema(
    [
        ("key", pa.string()),
        ("artifact", pa.string()),
        ("scale", pa.string()),
        ("mechanism", pa.string()),
        ("dataset", pa.string()),
        ("epsilon", pa.float64()),
        ("delta", pa.float64()),
        ("seed", pa.int64()),
        ("params_json", pa.string()),
        ("metrics_json", pa.string()),
        ("wall_time_s", pa.float64()),
        ("device", pa.string()),
        ("versions_json", pa.string()),
        ("git_revision", pa.string()),
        ("created_at", pa.string()),
    ],
    metadata={_SCHEMA_METADATA_KEY: SCHEMA_VERSION.encode()},
)

_PROVENANCE_KEYS = ("device", "versions", "git_revision", "created_at")
_RECOMPUTE_HINT = "delete it or move it away to recompute its results"


class StoreError(Exception):
    """A results file that cannot be read as a results store of this reprolib version."""


def _to_json_builtin(value: object) -> object:
    """`json.dumps` fallback: numpy scalars and arrays become Python numbers and lists."""
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} value {value!r} is not JSON-serialisable")


def _real_or_none(name: str, value: object) -> float | None:
    """``value`` as a float, None kept; a bool, a non-number or NaN raises naming the field."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or math.isnan(value):
        raise TypeError(f"Cell.{name} must be a real number or None, got {value!r}")
    return float(value)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Cell:
    """One run of a grid: what is computed, not how it turned out.

    Attributes:
        artifact: Artifact id, e.g. ``"aim-fig1"``.
        mechanism: Mechanism name, e.g. ``"aim"``.
        dataset: Dataset name, e.g. ``"adult"``.
        epsilon: Privacy parameter ε (> 0), or None for a non-private run.
        delta: Privacy parameter δ in [0, 1), or None for pure DP or a non-private run.
        seed: Non-negative seed from which all randomness of the run derives.
        params: The full hyper-parameters, a mapping with string keys and JSON-serialisable values
            (numpy scalars and arrays are accepted), or a hyper-parameter dataclass instance
            (converted with `dataclasses.asdict`). Stored as a read-only copy. Note that ``1`` and
            ``1.0`` are different JSON values and so give different keys.
        params_json: Canonical JSON of ``params`` (sorted keys, no spaces); derived, not an
            argument.

    Two cells are equal, and hash alike, when their fields are equal; ``params`` compare through
    their canonical JSON, so the order of dict keys does not matter.
    """

    artifact: str
    mechanism: str
    dataset: str
    epsilon: float | None
    delta: float | None
    seed: int
    params: Mapping[str, Any] = dataclasses.field(compare=False)  # JSON values
    params_json: str = dataclasses.field(init=False, repr=False)

    def __post_init__(self) -> None:
        for name in ("artifact", "mechanism", "dataset"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                raise ValueError(f"Cell.{name} must be a non-empty string, got {value!r}")
        epsilon = _real_or_none("epsilon", self.epsilon)
        if epsilon is not None and not epsilon > 0:
            raise ValueError(f"Cell.epsilon must be > 0 (or None), got {epsilon!r}")
        delta = _real_or_none("delta", self.delta)
        if delta is not None and not 0 <= delta < 1:
            raise ValueError(f"Cell.delta must lie in [0, 1) (or None), got {delta!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, numbers.Integral):
            raise TypeError(f"Cell.seed must be an integer, got {self.seed!r}")
        if self.seed < 0:
            raise ValueError(f"Cell.seed must be non-negative, got {self.seed!r}")
        params = self.params
        if dataclasses.is_dataclass(params) and not isinstance(params, type):
            params = dataclasses.asdict(params)
        if not isinstance(params, Mapping) or not all(isinstance(k, str) for k in params):
            raise TypeError(f"Cell.params must be a mapping with string keys, got {params!r}")
        try:
            params_json = json.dumps(
                params,
                sort_keys=True,
                separators=(",", ":"),
                allow_nan=False,
                default=_to_json_builtin,
            )
        except (TypeError, ValueError) as error:
            raise ValueError(f"Cell.params must be JSON-serialisable and finite: {error}") from None
        object.__setattr__(self, "epsilon", epsilon)
        object.__setattr__(self, "delta", delta)
        object.__setattr__(self, "seed", int(self.seed))
        object.__setattr__(self, "params", MappingProxyType(copy.deepcopy(dict(params))))
        object.__setattr__(self, "params_json", params_json)

    @functools.cached_property
    def key(self) -> str:
        """Hex SHA-256 of the canonical JSON of all fields (floats written with `repr`)."""
        canonical = {
            "artifact": self.artifact,
            "mechanism": self.mechanism,
            "dataset": self.dataset,
            "epsilon": None if self.epsilon is None else repr(self.epsilon),
            "delta": None if self.delta is None else repr(self.delta),
            "seed": self.seed,
            "params": self.params_json,
        }
        text = json.dumps(canonical, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def describe(self) -> str:
        """Short human-readable label, e.g. for error messages."""
        return (
            f"artifact={self.artifact} mechanism={self.mechanism} dataset={self.dataset} "
            f"epsilon={self.epsilon} delta={self.delta} seed={self.seed}"
        )


class ResultsStore:
    """Rows of finished runs of one (artifact, scale), kept in one Parquet file.

    Row columns (all stored): ``key, artifact, scale, mechanism, dataset, epsilon, delta, seed,
    params_json, metrics_json, wall_time_s, device, versions_json, git_revision, created_at``.
    ε and δ are null when the cell has None. ``metrics_json`` is JSON in which non-finite floats
    are written as ``NaN``, ``Infinity`` and ``-Infinity`` (Python's `json` extension) and are
    read back as floats. The schema version is the file's ``reprolib_schema`` metadata.

    Appending a cell whose key is already stored replaces that row in place (a recompute). The
    loaded rows are cached and re-read only when the file changed on disk. One writer per file
    at a time: a write made by another process between our read and our write would be lost.

    Args:
        path: The Parquet file; it need not exist yet (its folders are created on first append).

    Raises:
        StoreError: If the file exists but is not a results store of this schema version.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._rows: dict[str, dict[str, Any]] = {}
        self._signature: tuple[int, int, int] | None = None
        self._frame: pd.DataFrame | None = None
        self._refresh()

    def __repr__(self) -> str:
        return f"ResultsStore({str(self.path)!r}, {len(self)} rows)"

    def __len__(self) -> int:
        return len(self._current_rows())

    def keys(self) -> set[str]:
        """Return the keys of all stored rows."""
        return set(self._current_rows())

    def has(self, cell: Cell) -> bool:
        """Whether a row for ``cell`` is stored."""
        return cell.key in self._current_rows()

    def get(self, cell: Cell) -> dict[str, object] | None:
        """Return the stored metrics of ``cell`` (a new dict), or None when it has no row."""
        row = self._current_rows().get(cell.key)
        return None if row is None else json.loads(row["metrics_json"])

    def append(
        self,
        cell: Cell,
        *,
        scale: str,
        metrics: Mapping[str, object],
        wall_time_s: float,
        provenance: Mapping[str, object],
    ) -> None:
        """Store the outcome of ``cell`` atomically, replacing any row with the same key.

        Args:
            cell: The run.
            scale: Scale profile it ran at (``"smoke"``, ``"small"`` or ``"paper"``).
            metrics: Metric name to a JSON-serialisable value (numbers, strings, booleans, lists;
                numpy scalars and arrays are converted; NaN and ±inf are kept).
            wall_time_s: Wall-clock time of the computation, in seconds.
            provenance: A dict from `collect_provenance` (``device``, ``versions``,
                ``git_revision``, ``created_at``; other keys are not stored).

        Raises:
            ValueError: If the file already holds another artifact or scale, or an argument is
                invalid.
            StoreError: If the file changed on disk into something unreadable.
        """
        if not isinstance(scale, str) or not scale:
            raise ValueError(f"scale must be a non-empty string, got {scale!r}")
        if not isinstance(metrics, Mapping) or not all(isinstance(k, str) and k for k in metrics):
            raise TypeError(
                f"metrics must be a mapping from non-empty metric names to values, got {metrics!r}"
            )
        if not isinstance(wall_time_s, numbers.Real) or not 0 <= wall_time_s < math.inf:
            raise ValueError(f"wall_time_s must be a finite number >= 0, got {wall_time_s!r}")
        missing = [name for name in _PROVENANCE_KEYS if name not in provenance]
        if missing:
            raise ValueError(f"provenance lacks {missing}; build it with collect_provenance()")
        rows = dict(self._current_rows())
        other = next(iter(rows.values()), None)
        if other is not None and (other["artifact"], other["scale"]) != (cell.artifact, scale):
            raise ValueError(
                f"{self.path} holds results of artifact {other['artifact']!r} at scale "
                f"{other['scale']!r}, not {cell.artifact!r} at {scale!r}; use one results "
                "file per artifact and scale"
            )
        rows[cell.key] = {
            "key": cell.key,
            "artifact": cell.artifact,
            "scale": scale,
            "mechanism": cell.mechanism,
            "dataset": cell.dataset,
            "epsilon": cell.epsilon,
            "delta": cell.delta,
            "seed": cell.seed,
            "params_json": cell.params_json,
            "metrics_json": json.dumps(dict(metrics), sort_keys=True, default=_to_json_builtin),
            "wall_time_s": float(wall_time_s),
            "device": str(provenance["device"]),
            "versions_json": json.dumps(provenance["versions"], sort_keys=True),
            "git_revision": str(provenance["git_revision"]),
            "created_at": str(provenance["created_at"]),
        }
        self._replace(rows)

    def merge(self, other: ResultsStore, *, replace: bool = False) -> int:
        """Add the rows of ``other`` whose cells this store lacks (runs computed elsewhere, e.g.
        on another machine), keeping their provenance; with ``replace``, its rows of cells this
        store holds replace those recorded before them (re-runs of outdated rows) and keep their
        place. Return how many rows were added or replaced.

        Raises:
            ValueError: the two stores hold different artifacts or scales.
        """
        rows = dict(self._current_rows())
        incoming = {key: row for key, row in other._current_rows().items()
                    if key not in rows or (replace and _later(row, rows[key]))}
        kinds = {(row["artifact"], row["scale"]) for row in [*rows.values(), *incoming.values()]}
        if len(kinds) > 1:
            raise ValueError(f"cannot merge {other.path} into {self.path}: they hold "
                             f"{sorted(kinds)}; one results file per artifact and scale")
        if incoming:
            self._replace({**rows, **incoming})
        return len(incoming)

    def retain(self, keys: set[str]) -> int:
        """Drop every row whose key is not in ``keys`` (runs of cells no experiment asks for any
        more, e.g. after a hyper-parameter became part of the key); return how many were dropped.
        """
        rows = self._current_rows()
        kept = {key: row for key, row in rows.items() if key in keys}
        if len(kept) < len(rows):
            self._replace(kept)
        return len(rows) - len(kept)

    def frame(self) -> pd.DataFrame:
        """All rows as a new DataFrame, in the order they were first stored.

        Columns: the stored columns except ``metrics_json``, then one ``param.<name>`` column per
        top-level hyper-parameter and one ``metric.<name>`` column per metric (missing values are
        NaN).
        """
        rows = self._current_rows()
        if self._frame is None:
            table = pa.Table.from_pylist(list(rows.values()), schema=_SCHEMA)
            base = table.drop_columns(["metrics_json"]).to_pandas()
            params = pd.DataFrame([json.loads(r["params_json"]) for r in rows.values()])
            metrics = pd.DataFrame([json.loads(r["metrics_json"]) for r in rows.values()])
            self._frame = pd.concat(
                [base, params.add_prefix("param."), metrics.add_prefix("metric.")], axis=1
            )
        return self._frame.copy()

    def _current_rows(self) -> dict[str, dict[str, Any]]:
        self._refresh()
        return self._rows

    def _refresh(self) -> None:
        """Re-read the file if it changed on disk since we last read or wrote it."""
        signature = _file_signature(self.path)
        if signature == self._signature:
            return
        self._rows = {} if signature is None else _read_rows(self.path)
        self._signature = signature
        self._frame = None

    def _replace(self, rows: dict[str, dict[str, Any]]) -> None:
        """Write ``rows`` (key -> row) as the whole store and remember them as read."""
        self._write(list(rows.values()))
        self._rows = rows
        self._signature = _file_signature(self.path)
        self._frame = None

    def _write(self, rows: list[dict[str, object]]) -> None:
        table = pa.Table.from_pylist(rows, schema=_SCHEMA)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        mode = stat.S_IMODE(self.path.stat().st_mode) if self.path.exists() else 0o644
        descriptor, temporary = tempfile.mkstemp(
            dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".tmp"
        )
        try:
            with os.fdopen(descriptor, "wb") as handle:
                pq.write_table(table, handle)
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(temporary, mode)
            os.replace(temporary, self.path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
            raise


def _file_signature(path: Path) -> tuple[int, int, int] | None:
    """(inode, size, mtime) of ``path``, or None when it does not exist."""
    try:
        status = path.stat()
    except FileNotFoundError:
        return None
    return (status.st_ino, status.st_size, status.st_mtime_ns)


def _read_rows(path: Path) -> dict[str, dict[str, Any]]:
    """Read and validate a results file; raise `StoreError` naming it on any problem."""
    if path.is_dir():
        raise StoreError(f"{path} is a folder; a results store is a single Parquet file")
    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError) as error:
        raise StoreError(
            f"{path} is not a readable Parquet results file ({error}); {_RECOMPUTE_HINT}"
        ) from error
    metadata = table.schema.metadata or {}
    version = metadata.get(_SCHEMA_METADATA_KEY)
    if version is None:
        raise StoreError(
            f"{path} has no reprolib_schema metadata, so it was not written by reprolib's "
            f"results store; {_RECOMPUTE_HINT}"
        )
    if version != SCHEMA_VERSION.encode():
        raise StoreError(
            f"{path} was written by results-store schema {version.decode(errors='replace')!r}, "
            f"but this reprolib reads schema {SCHEMA_VERSION!r}; {_RECOMPUTE_HINT}, or read it "
            "with the reprolib version that wrote it"
        )
    missing = [name for name in _SCHEMA.names if name not in table.column_names]
    if missing:
        raise StoreError(f"{path} lacks the columns {missing}; {_RECOMPUTE_HINT}")
    try:
        table = table.select(_SCHEMA.names).cast(_SCHEMA)
    except (pa.ArrowException, TypeError, ValueError) as error:
        raise StoreError(
            f"{path} has columns of the wrong type ({error}); {_RECOMPUTE_HINT}"
        ) from error
    rows: dict[str, dict[str, Any]] = {}
    for row in table.to_pylist():
        if row["key"] in rows:
            raise StoreError(f"{path} holds key {row['key']} twice; {_RECOMPUTE_HINT}")
        rows[row["key"]] = row
    return rows


def _later(row: dict[str, Any], than: dict[str, Any]) -> bool:
    """Whether ``row`` was recorded after ``than`` (by their ``created_at`` stamps; one without
    a time zone is read as UTC, as :func:`~reprolib.experiments.collect_provenance` writes them).
    """
    def stamp(of: dict[str, Any]) -> datetime.datetime:
        moment = datetime.datetime.fromisoformat(str(of["created_at"]))
        return moment if moment.tzinfo else moment.replace(tzinfo=datetime.UTC)

    return stamp(row) > stamp(than)
