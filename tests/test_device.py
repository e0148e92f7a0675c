"""Device selection: auto falls back to the CPU; an explicit cuda without a GPU is a clear error."""

import pytest
import torch

from reprolib._device import resolve_device


def test_auto_and_cpu():
    assert resolve_device("cpu") == "cpu"
    assert resolve_device("auto") == ("cuda" if torch.cuda.is_available() else "cpu")


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU")
def test_cuda_without_gpu_is_refused():
    with pytest.raises(RuntimeError, match="torch sees no GPU"):
        resolve_device("cuda")


def test_unknown_device():
    with pytest.raises(ValueError, match="device must be one of"):
        resolve_device("tpu")
