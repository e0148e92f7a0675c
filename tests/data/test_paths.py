import hashlib
import shutil
from pathlib import Path

import pytest

from reprolib.data import DATA_DIR_ENV, DataError, data_dir, load_dataset, verify_file


def test_verify_file_accepts_right_digest_and_names_file_on_mismatch(tmp_path):
    path = tmp_path / "table.csv"
    path.write_bytes(b"a,b\n0,1\n")
    verify_file(path, hashlib.sha256(b"a,b\n0,1\n").hexdigest())
    wrong = "0" * 64
    with pytest.raises(DataError, match=rf"{path}.*expected sha256 {wrong}.*download it again"):
        verify_file(path, wrong)


def test_verify_file_rechecks_after_change(tmp_path):
    path = tmp_path / "table.csv"
    path.write_bytes(b"1\n")
    digest = hashlib.sha256(b"1\n").hexdigest()
    verify_file(path, digest)
    path.write_bytes(b"22\n")  # new size, so the per-process cache must not hide the change
    with pytest.raises(DataError, match="Checksum mismatch"):
        verify_file(path, digest)


def test_missing_file_names_path_dataset_and_source(tmp_path):
    with pytest.raises(DataError) as info:
        load_dataset("aim/titanic", data_dir=tmp_path)
    message = str(info.value)
    assert str(tmp_path / "aim-benchmark" / "titanic.csv") in message
    assert "'aim/titanic'" in message and "hd-datasets" in message and DATA_DIR_ENV in message


def test_env_var_overrides_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path))
    assert data_dir() == tmp_path
    monkeypatch.delenv(DATA_DIR_ENV)
    assert data_dir() != tmp_path


def _copy_titanic(source: Path, target: Path) -> Path:
    folder = target / "aim-benchmark"
    folder.mkdir()
    for name in ("titanic.csv", "titanic-domain.json"):
        shutil.copyfile(source / "aim-benchmark" / name, folder / name)
    return folder / "titanic.csv"


def test_env_var_directory_is_used_by_loaders(shared_data, tmp_path, monkeypatch):
    _copy_titanic(shared_data, tmp_path)
    monkeypatch.setenv(DATA_DIR_ENV, str(tmp_path))
    data = load_dataset("aim/titanic")
    assert data.source == str(tmp_path / "aim-benchmark" / "titanic.csv")


def test_checksum_mismatch_on_modified_copy(shared_data, tmp_path):
    csv = _copy_titanic(shared_data, tmp_path)
    csv.write_text(csv.read_text().replace("\n0,", "\n1,", 1))
    with pytest.raises(DataError, match=rf"Checksum mismatch for {csv}"):
        load_dataset("aim/titanic", data_dir=tmp_path)
    assert load_dataset("aim/titanic", data_dir=tmp_path, verify=False).records == 1304
