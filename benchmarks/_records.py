"""The benchmarks' shared helpers (imported as a sibling module): the CSV writer, one row per run
appended, and the command line of the side-by-side scripts (ours beside an authors' code).
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path


def append(path: Path, row: dict[str, object]) -> None:
    """Append ``row`` to the CSV at ``path``, writing the header if the file is new; a file whose
    header names other columns, or the same in another order, is refused (its rows would shift).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    new = not path.exists()
    if not new:
        with path.open(newline="") as handle:
            header = next(csv.reader(handle), [])
        if header != list(row):
            raise ValueError(f"{path} has the columns {header}, this run's row has {list(row)}: "
                             "write to a new file, or add the new columns to the old rows first")
    with path.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(row), lineterminator="\n")
        if new:
            writer.writeheader()
        writer.writerow(row)


def side_by_side_parser(description: str, reference: str, dataset: str) -> argparse.ArgumentParser:
    """``--reference`` (``reference`` names the extract), ``--engine`` and ``--dataset``; the
    caller adds its own options, then calls :func:`parse_side_by_side`.
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--reference", type=Path,
                        help=f"an extract of {reference} (needed to run the reference engine)")
    parser.add_argument("--engine", nargs="+", choices=("ours", "reference"),
                        default=["ours", "reference"])
    parser.add_argument("--dataset", nargs="+", default=[dataset])
    return parser


def parse_side_by_side(parser: argparse.ArgumentParser) -> argparse.Namespace:
    """Add ``--out`` and parse; refuse the reference engine without ``--reference``."""
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    if "reference" in args.engine and args.reference is None:
        parser.error("--reference PATH is needed to run the reference engine")
    return args
