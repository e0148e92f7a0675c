"""Choosing the compute device: ``"auto"`` means CUDA when torch sees a GPU, else the CPU."""

from __future__ import annotations

DEVICES = ("auto", "cpu", "cuda")


def resolve_device(device: str = "auto") -> str:
    """Return ``"cuda"`` or ``"cpu"``; ``"cuda"`` without a visible GPU raises a clear error."""
    if device not in DEVICES:
        raise ValueError(f"device must be one of {DEVICES}, got {device!r}")
    if device == "cpu":
        return "cpu"
    import torch  # imported lazily: 1-2 s, and only needed to look for a GPU

    if torch.cuda.is_available():
        return "cuda"
    if device == "cuda":
        raise RuntimeError("device='cuda' was requested but torch sees no GPU; use --device cpu or auto")
    return "cpu"


def describe_device(device: str) -> str:
    """A human-readable name for the results store, e.g. ``"cuda (NVIDIA H100 80GB HBM3)"``."""
    if device != "cuda":
        return device
    import torch

    return f"cuda ({torch.cuda.get_device_name(0)})"
