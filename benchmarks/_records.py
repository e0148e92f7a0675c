"""The benchmarks' shared CSV writer: one row per run, appended (imported as a sibling module)."""

from __future__ import annotations

import csv
from pathlib import Path


def append(path: Path, row: dict[str, object]) -> None:
    """Append ``row`` to the CSV at ``path``, writing the header if the file is new."""
    path.parent.mkdir(parents=True, exist_ok=True)
    new = not path.exists()
    with path.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(row))
        if new:
            writer.writeheader()
        writer.writerow(row)
