"""Choosing the compute device: ``"auto"`` means CUDA when torch sees a GPU, else the CPU.

torch code takes the device as an argument; JAX code (RAP++, RAP, Private-PGM through mbi)
runs under :func:`placed`, which makes the resolved device JAX's default. A machine whose
torch sees a GPU but whose JAX is the CPU-only build runs JAX on the CPU, and
:func:`describe_device` says so in the store. A CPU is named with its model and its widest vector
instructions: the float sums of torch's and JAX's CPU kernels depend on them, so results are only
bit-for-bit comparable between CPUs of one kind (the smoke regression checks rely on the name).
"""

from __future__ import annotations

import contextlib
import platform
from collections.abc import Iterator
from pathlib import Path

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


def jax_has_gpu() -> bool:
    """Whether the installed JAX has a GPU backend with at least one device."""
    import jax

    try:
        return bool(jax.devices("gpu"))
    except RuntimeError:  # the CPU-only jaxlib: no such backend
        return False


@contextlib.contextmanager
def placed(device: str) -> Iterator[None]:
    """Inside, JAX computes on ``device`` (a resolved device): its GPU for "cuda" when it has one."""
    import jax

    platform = "gpu" if device == "cuda" and jax_has_gpu() else "cpu"
    with jax.default_device(jax.devices(platform)[0]):
        yield


@contextlib.contextmanager
def one_cpu_thread(device: str) -> Iterator[None]:
    """Inside, on the CPU, torch computes on one thread: its float sums depend on the thread
    count, and an experiment's run must give the same numbers on every machine with the same
    kind of CPU (the smoke regression checks compare them to 1e-5 or less). The thread count is
    restored on exit; on a GPU nothing changes.
    """
    import torch

    threads = torch.get_num_threads()
    try:
        if device == "cpu":
            torch.set_num_threads(1)
        yield
    finally:
        torch.set_num_threads(threads)


#: Linux's CPU flags for the vector instructions that decide the CPU kernels' float sums,
#: widest first, with the names :func:`describe_cpu` gives them.
_VECTOR_FLAGS = (("avx512_fp16", "AVX-512 FP16"), ("avx512f", "AVX-512"), ("avx2", "AVX2"),
                 ("avx", "AVX"), ("sse4_2", "SSE4.2"))


def describe_cpu(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """The CPU's kind, e.g. ``"Intel(R) Xeon(R) Processor, AVX-512 FP16"``: Linux's model name
    and the widest vector instructions it lists; elsewhere the platform's processor name.
    """
    try:
        lines = cpuinfo.read_text().splitlines()
    except OSError:
        return platform.processor() or platform.machine() or "unknown CPU"
    fields = {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    model = fields.get("model name") or platform.machine() or "unknown CPU"
    flags = set(fields.get("flags", "").split())
    widest = next((name for flag, name in _VECTOR_FLAGS if flag in flags), None)
    return f"{model}, {widest}" if widest else model


def describe_device(device: str) -> str:
    """A human-readable name for the results store: ``"cpu (<describe_cpu()>)"`` or, e.g.,
    ``"cuda (NVIDIA H100 80GB HBM3)"``.

    Where torch sees the GPU but JAX cannot use it, the name ends in ``"; JAX on cpu"``.
    """
    if device != "cuda":
        return f"{device} ({describe_cpu()})"
    import torch

    name = f"cuda ({torch.cuda.get_device_name(0)})"
    return name if jax_has_gpu() else f"{name}; JAX on cpu"
