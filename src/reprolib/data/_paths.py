"""Where the data files live, and checking that they are the files the loaders expect."""

from __future__ import annotations

import hashlib
import os
from functools import cache
from importlib import resources
from pathlib import Path

from reprolib._paths import repo_root
from reprolib.data._errors import DataError

__all__ = [
    "DATA_DIR_ENV",
    "data_dir",
    "expected_sha256",
    "require_file",
    "user_cache_dir",
    "verify_file",
]

DATA_DIR_ENV = "REPROLIB_DATA_DIR"
_USER_CACHE = Path("~/.cache/reprolib/data")
_CHUNK = 1 << 20
_verified: set[tuple[str, int, int, str]] = set()


def data_dir() -> Path:
    """The data directory, relative paths of the loaders (``aim-benchmark/adult.csv``) lie below.

    In order: the environment variable ``REPROLIB_DATA_DIR`` if set; the ``shared/data`` folder
    inside or beside the repository (``<repo>/shared/data`` or ``<repo>/../shared/data``) if it
    exists; else the user cache ``~/.cache/reprolib/data``.
    """
    env = os.environ.get(DATA_DIR_ENV)
    if env:
        return Path(env).expanduser()
    root = repo_root()
    for candidate in (root / "shared" / "data", root.parent / "shared" / "data"):
        if candidate.is_dir():
            return candidate
    return user_cache_dir()


def user_cache_dir() -> Path:
    """The per-user data folder ``~/.cache/reprolib/data`` (fallback and download target)."""
    return _USER_CACHE.expanduser()


@cache
def _checksums() -> dict[str, str]:
    text = resources.files("reprolib.data").joinpath("checksums.txt").read_text()
    pairs = (line.split(maxsplit=1) for line in text.splitlines() if line.strip())
    return {path.strip(): digest for digest, path in pairs}


def expected_sha256(relative_path: str) -> str:
    """The recorded SHA-256 (hex) of a data file, from the package's ``checksums.txt``."""
    try:
        return _checksums()[relative_path]
    except KeyError:
        raise DataError(
            f"No checksum recorded for {relative_path!r}; add its line to"
            " reprolib/data/checksums.txt."
        ) from None


def verify_file(path: Path | str, sha256: str) -> None:
    """Check the SHA-256 of ``path`` (streamed), once per process per (path, mtime, size).

    Raises:
        DataError: If the digest differs from ``sha256``.
    """
    path = Path(path)
    stat = path.stat()
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size, sha256)
    if key in _verified:
        return
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    actual = digest.hexdigest()
    if actual != sha256:
        raise DataError(
            f"Checksum mismatch for {path}: expected sha256 {sha256}, got {actual}. The file is"
            " corrupt or a different version; download it again from its source, or point"
            f" {DATA_DIR_ENV} at a folder with the correct files."
        )
    _verified.add(key)


def require_file(
    dataset: str, relative_path: str, root: Path, source: str, verify: bool = True
) -> Path:
    """The path of a data file of ``dataset``, checked to exist and (by default) to match.

    Args:
        dataset: Registry name, quoted in errors.
        relative_path: Path below the data directory, as in ``checksums.txt``.
        root: The data directory.
        source: Where the file comes from (repository, commit, path), quoted if it is missing.
        verify: Check the SHA-256 against ``checksums.txt``.

    Raises:
        DataError: If the file is missing or its checksum differs.
    """
    path = Path(root) / relative_path
    if not path.is_file():
        raise DataError(
            f"Dataset {dataset!r} needs {path}, which does not exist. Get it from {source} and"
            f" place it there, or set {DATA_DIR_ENV} to a folder that holds {relative_path}."
        )
    if verify:
        verify_file(path, expected_sha256(relative_path))
    return path
