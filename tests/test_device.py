"""Device selection: auto falls back to the CPU; an explicit cuda without a GPU is a clear error."""

import jax
import jax.numpy as jnp
import pytest
import torch

from reprolib._device import describe_cpu, describe_device, jax_has_gpu, placed, resolve_device
from reprolib.experiments._experiment import Experiment, NoSettings, no_settings


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


def test_placed_on_the_cpu_keeps_jax_there():
    with placed("cpu"):
        assert jnp.ones(3).devices() == {jax.devices("cpu")[0]}
    assert describe_device("cpu") == f"cpu ({describe_cpu()})"


def test_a_cpu_is_named_by_model_and_widest_vector_instructions(tmp_path):
    """The kind of CPU decides the CPU kernels' float sums, so the store names it."""
    cpuinfo = tmp_path / "cpuinfo"
    processor = "processor\t: {}\nmodel name\t: Example CPU 9000\nflags\t\t: fpu sse4_2 avx avx2 {}\n"
    cpuinfo.write_text(processor.format(0, "avx512f") + "\n" + processor.format(1, "avx512f"))
    assert describe_cpu(cpuinfo) == "Example CPU 9000, AVX-512"
    cpuinfo.write_text(processor.format(0, ""))
    assert describe_cpu(cpuinfo) == "Example CPU 9000, AVX2"
    assert describe_cpu(tmp_path / "absent")  # not Linux: the platform's name, never empty


@pytest.mark.skipif(not jax_has_gpu(), reason="needs JAX with a GPU backend")
def test_placed_on_cuda_puts_jax_on_the_gpu():
    with placed("cuda"):
        (device,) = jnp.ones(3).devices()
    assert device.platform == "gpu"
    assert describe_device("cuda").startswith("cuda (") and "JAX on cpu" not in describe_device("cuda")


def test_experiments_compute_with_jax_on_the_run_device():
    """The runner places JAX on the device it records, so a --device cpu run on a GPU machine
    does not run its JAX half on the GPU under a 'cpu' label."""
    seen = []
    experiment = Experiment(artifact="probe", settings=NoSettings, defaults=no_settings,
                            cells=lambda scale, settings: [],
                            compute=lambda cell, device: seen.append(jnp.ones(1).devices()) or {})
    experiment.compute_on(None, "cpu")  # type: ignore[arg-type]
    assert seen == [{jax.devices("cpu")[0]}]


def test_experiments_compute_on_one_torch_thread_on_the_cpu():
    """A CPU run's float sums must not depend on the machine's cores: one torch thread inside,
    the caller's count restored after."""
    seen = []
    experiment = Experiment(artifact="probe", settings=NoSettings, defaults=no_settings,
                            cells=lambda scale, settings: [],
                            compute=lambda cell, device: seen.append(torch.get_num_threads()) or {})
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        experiment.compute_on(None, "cpu")  # type: ignore[arg-type]
        assert seen == [1] and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)
