"""The same seed on the CPU and on the GPU: the same privacy spend, the same release, the same law.

Skipped where torch (or JAX, for Private-PGM) sees no GPU. The torch mechanisms draw their
training noise from torch generators, whose CPU and CUDA streams differ, so their outputs are
compared in law: the GPU run's 1-way marginals are no further from the CPU run's than another
CPU seed's are (with a 0.05 slack). Everything drawn from numpy (the releases) must be identical.
AIM's Private-PGM runs in float64 JAX on either device: its selections must be the same.
RAP++ and PrivPGD have their own agreement tests (test_rappp.py, test_privpgd.py).
"""

import dataclasses

import numpy as np
import pytest
import torch

from reprolib._device import jax_has_gpu, placed
from reprolib.mechanisms import build, registration
from reprolib.mechanisms.marginal.aim import AIM, AIMConfig
from reprolib.metrics import workload_error
from reprolib.privacy import NeighbourRelation, PrivacyBudget
from reprolib.queries import all_kway

needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")

TORCH_MECHANISMS = ("Slicing", "SliceWass", "DP-CTGAN", "PATE-GAN", "DP-MERF")


def _fit(name, data, device, seed):
    config = {**registration(name).quick, "device": device}
    budget = PrivacyBudget.from_epsilon_delta(2.0, 1e-6, relation=NeighbourRelation.REPLACE_ONE)
    return build(name, config).fit(data, budget, np.random.default_rng(seed))


def _one_way_distance(a, b) -> float:
    """Mean total-variation distance between the categorical 1-way marginals of two datasets."""
    distances = [0.5 * np.abs(a.categorical.marginal(name) / a.records
                              - b.categorical.marginal(name) / b.records).sum()
                 for name in a.categorical.domain.attributes]
    return float(np.mean(distances))


@needs_cuda
@pytest.mark.parametrize("name", TORCH_MECHANISMS)
def test_torch_mechanisms_spend_the_same_and_agree_in_law(name, small_mixed):
    cpu = _fit(name, small_mixed, "cpu", seed=0)
    gpu = _fit(name, small_mixed, "cuda", seed=0)
    other_seed = _fit(name, small_mixed, "cpu", seed=1)
    assert [c.label for c in gpu.ledger.charges] == [c.label for c in cpu.ledger.charges]
    assert gpu.ledger.spent_epsilon() == cpu.ledger.spent_epsilon()
    assert gpu.diagnostics["device"] == "cuda" and cpu.diagnostics["device"] == "cpu"
    assert gpu.synthetic.records == cpu.synthetic.records
    across_devices = _one_way_distance(cpu.synthetic, gpu.synthetic)
    across_seeds = _one_way_distance(cpu.synthetic, other_seed.synthetic)
    assert across_devices <= 2 * across_seeds + 0.05


@pytest.mark.skipif(not jax_has_gpu(), reason="needs JAX with a GPU backend")
def test_aim_selects_the_same_cliques_on_either_device(small_titanic):
    workload = all_kway(small_titanic.domain, 3)
    budget = PrivacyBudget.from_epsilon_delta(1.0, 1e-9, relation=NeighbourRelation.ADD_REMOVE)
    config = dataclasses.replace(AIMConfig(), pgm_iters=30, final_pgm_iters=30)
    runs = {}
    for device in ("cpu", "cuda"):
        with placed(device):
            runs[device] = AIM(config).fit(small_titanic, budget, np.random.default_rng(7),
                                           workload=workload)
    cpu, gpu = runs["cpu"], runs["cuda"]
    assert gpu.diagnostics["selected"] == cpu.diagnostics["selected"]
    assert gpu.ledger.spent_rho == cpu.ledger.spent_rho
    errors = [workload_error(small_titanic, run.synthetic, workload) for run in (cpu, gpu)]
    assert errors[1] == pytest.approx(errors[0], abs=0.02)
