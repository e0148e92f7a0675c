"""PATE-GAN (Jordon, Yoon and van der Schaar, ICLR 2019): a generator trained against a student
discriminator that sees only generated rows, labelled real or fake by a noisy vote of teacher
discriminators, each trained on its own part of the data; the slicing paper's PATE baseline,
which it ran through SmartNoise's ``PATEGAN``.

Algorithm 1 of the paper, one iteration: every teacher takes ``teacher_iters`` steps on a batch
of its own records (label 1) and a batch of generated rows (label 0); the student takes
``student_iters`` steps on generated rows labelled by the teachers' noisy vote; the generator
takes one step against the student. The paper gives no defaults; we take SmartNoise
``PATEGAN``'s: a latent of 64, batches of 64, 5 teacher and 5 student steps an iteration, one
teacher per 1,000 records, Adam at 1e-4, Laplace noise of scale 1 / lam with lam = 1e-3, its
discriminator (two hidden layers of 2d/3 and d/3 units, LeakyReLU 0.2, sigmoid) and its
generator (two residual layers of linear, layer norm and LeakyReLU on the latent). Rows are
coded as DP-CTGAN's (:mod:`reprolib.mechanisms.deep._tabular`): a Gumbel-softmax per categorical
block, a tanh per number.

Privacy. Teachers read records; only the votes leave them, through
:func:`reprolib.privacy.noisy_vote`, charged before each release. The parts are fixed by a
teacher drawn uniformly for each record, so a neighbouring dataset (either relation) changes one
part and one vote of each query. Iterations run while a student batch fits the budget; the batch
that no longer fits is answered with the larger noise that spends the rest exactly
(:func:`reprolib.privacy.last_vote_inverse_scale`), and the run stops after it. Two accountings:

* ``"data-independent"`` (default): every vote is 2 lam^2-zCDP. The run is (epsilon, delta)-DP.
* ``"data-dependent"``: the paper's moments accountant, Papernot et al.'s Theorem 3, which reads
  the votes' margins. It lets far more votes through when the teachers agree, but the epsilon it
  reports, and the iteration at which the run stops, are functions of the data: the ledger's total
  is then a statement about this dataset, not a guarantee (:mod:`reprolib.privacy._pate`).

Where SmartNoise's code differs, we do not follow it:

* its accountant adds the moment bound itself instead of its logarithm, and adds one Laplace
  variable to the count of "real" votes against the threshold k/2, whose error probability the
  accountant's q understates; ours adds independent noise to both counts, which q describes;
* it splits the records into contiguous blocks after its own preprocessing, which moves every
  record's part when one record is added; ours draws each record's teacher independently;
* it draws the latent from U[0, 1) in training and N(0, 1) in generation; ours from N(0, 1) in
  both, and its generator's last layer is a plain linear map into our output coding.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any, Literal

import numpy as np
import torch

from reprolib._device import resolve_device
from reprolib.data import MixedDataset
from reprolib.mechanisms._base import (
    MechanismTraits,
    SynthesisResult,
    check_mixed_inputs,
    open_rdp_ledger,
    seed_from,
)
from reprolib.mechanisms.deep._tabular import Layout, activate, decode, encode
from reprolib.privacy import (
    NeighbourRelation,
    PrivacyBudget,
    RdpLedger,
    last_vote_inverse_scale,
    noisy_vote,
    vote_rdp,
)

Accounting = Literal["data-independent", "data-dependent"]


@dataclasses.dataclass(frozen=True, kw_only=True)
class PATEGANConfig:
    """PATE-GAN's settings: SmartNoise ``PATEGAN``'s defaults.

    Attributes:
        latent: the generator's Gaussian inputs (64).
        batch_size: records per teacher batch, generated rows per batch (64).
        teacher_iters, student_iters: steps per iteration (5, 5).
        teachers: teacher discriminators (None: one per 1,000 records, at least one).
        inverse_scale: lam, the Laplace noise's scale being 1 / lam (1e-3); None: the largest lam
            at which all ``iterations`` fit the budget (data-independent accounting only).
        iterations: iterations to run when ``inverse_scale`` is None (else: until the budget
            is spent).
        accounting: ``"data-independent"`` (a DP guarantee) or ``"data-dependent"`` (the
            paper's; its epsilon depends on the data).
        learning_rate: Adam's for every network (1e-4).
        temperature: the Gumbel-softmax's (0.2).
        n_synthetic: records released (None: as many as the data has).
        relation: the neighbouring relation of the accounting (the votes' analysis is the same).
        device: ``"auto"``, ``"cpu"`` or ``"cuda"``.
    """

    latent: int = 64
    batch_size: int = 64
    teacher_iters: int = 5
    student_iters: int = 5
    teachers: int | None = None
    inverse_scale: float | None = 1e-3
    iterations: int | None = None
    accounting: Accounting = "data-independent"
    learning_rate: float = 1e-4
    temperature: float = 0.2
    n_synthetic: int | None = None
    relation: NeighbourRelation = NeighbourRelation.REPLACE_ONE
    device: str = "auto"

    def __post_init__(self) -> None:
        for name in ("latent", "batch_size", "teacher_iters", "student_iters"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)!r}")
        for name in ("learning_rate", "temperature"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)!r}")
        if self.teachers is not None and self.teachers < 1:
            raise ValueError(f"teachers must be positive or None, got {self.teachers!r}")
        if self.accounting not in ("data-independent", "data-dependent"):
            raise ValueError("accounting must be 'data-independent' or 'data-dependent', got "
                             f"{self.accounting!r}")
        if (self.inverse_scale is None) == (self.iterations is None):
            raise ValueError("set exactly one of inverse_scale (run until the budget is spent) "
                             "and iterations (calibrate the noise to them), got "
                             f"inverse_scale={self.inverse_scale!r}, iterations={self.iterations!r}")
        if self.inverse_scale is not None and not self.inverse_scale > 0:
            raise ValueError(f"inverse_scale must be positive, got {self.inverse_scale!r}")
        if self.iterations is not None:
            if self.iterations < 1:
                raise ValueError(f"iterations must be positive, got {self.iterations!r}")
            if self.accounting == "data-dependent":
                raise ValueError("calibrating the noise to iterations needs the data-independent "
                                 "accounting; set inverse_scale to use the data-dependent one")


class PATEGAN:
    """PATE-GAN on mixed-type records; (epsilon, delta) through a Rényi ledger."""

    name = "PATE-GAN"

    def __init__(self, config: PATEGANConfig | None = None) -> None:
        self.config = config or PATEGANConfig()

    @property
    def traits(self) -> MechanismTraits:
        """No workload, no data-dependent selection; the config's neighbouring relation."""
        return MechanismTraits(workload_aware=False, data_aware=False, budget_aware=False,
                               efficiency_aware=False, relation=self.config.relation,
                               data_kind="mixed")

    def fit(self, data: MixedDataset, budget: PrivacyBudget, rng: np.random.Generator, *,
            workload: Any = None) -> SynthesisResult:
        """Synthetic records of ``data``'s domain; the mechanism answers no workload."""
        ledger = open_rdp_ledger(self, budget)
        check_mixed_inputs(self, data, workload,
                           no_workload="fits the whole distribution and answers no workload")
        config, device = self.config, resolve_device(self.config.device)
        layout = Layout.of(data)
        rows = encode(data, layout)
        teachers = config.teachers or max(1, data.records // 1000)
        parts = rng.integers(teachers, size=data.records)  # each record's teacher
        generator, log = _train(rows, parts, teachers, layout, config, ledger, rng, device)
        count = config.n_synthetic or data.records
        with torch.random.fork_rng(devices=[] if device == "cpu" else [torch.device(device)]), \
                torch.no_grad():
            torch.manual_seed(seed_from(rng))
            generator.eval()
            synthetic = activate(generator(torch.randn(count, config.latent, device=device)),
                                 layout, config.temperature).cpu().numpy().astype(float)
        diagnostics = {"teachers": teachers, "encoded_columns": rows.shape[1],
                       "accounting": config.accounting,
                       "spent_epsilon": ledger.spent_epsilon(), **log, "device": device}
        return SynthesisResult(synthetic=decode(synthetic, layout, data, "PATE-GAN synthetic"),
                               ledger=ledger, diagnostics=diagnostics)


class _Generator(torch.nn.Module):
    """SmartNoise's: two residual layers (linear without bias, layer norm, LeakyReLU 0.2) on the
    latent, then a linear map to the raw outputs.
    """

    def __init__(self, latent: int, outputs: int) -> None:
        super().__init__()
        self.hidden = torch.nn.ModuleList(
            torch.nn.Sequential(torch.nn.Linear(latent, latent, bias=False),
                                torch.nn.LayerNorm(latent), torch.nn.LeakyReLU(0.2))
            for _ in range(2))
        self.out = torch.nn.Linear(latent, outputs)

    def forward(self, codes: torch.Tensor) -> torch.Tensor:
        for layer in self.hidden:
            codes = layer(codes) + codes
        return self.out(codes)


def _discriminator(width: int) -> torch.nn.Module:
    """SmartNoise's: width -> 2 width / 3 -> width / 3 -> 1, LeakyReLU 0.2, sigmoid."""
    first, second = max(1, 2 * width // 3), max(1, width // 3)
    return torch.nn.Sequential(torch.nn.Linear(width, first), torch.nn.LeakyReLU(0.2),
                               torch.nn.Linear(first, second), torch.nn.LeakyReLU(0.2),
                               torch.nn.Linear(second, 1), torch.nn.Sigmoid())


def _train(rows: np.ndarray, parts: np.ndarray, teachers: int, layout: Layout,
           config: PATEGANConfig, ledger: RdpLedger, rng: np.random.Generator, device: str
           ) -> tuple[_Generator, dict[str, Any]]:
    """Algorithm 1's iterations until the budget is spent (or ``config.iterations``)."""
    batch, data_dependent = config.batch_size, config.accounting == "data-dependent"
    per_iteration = config.student_iters * batch  # votes
    lam = config.inverse_scale
    if lam is None:  # calibrate one noise level to every planned vote
        assert config.iterations is not None
        lam = last_vote_inverse_scale(ledger, config.iterations * per_iteration)
    sampler = np.random.default_rng(seed_from(rng))
    started = time.perf_counter()
    with torch.random.fork_rng(devices=[] if device == "cpu" else [torch.device(device)]):
        torch.manual_seed(seed_from(rng))
        width = rows.shape[1]
        generator = _Generator(config.latent, width).to(device)
        student = _discriminator(width).to(device)
        critics = [_discriminator(width).to(device) for _ in range(teachers)]
        def adam(module: torch.nn.Module) -> torch.optim.Adam:
            return torch.optim.Adam(module.parameters(), lr=config.learning_rate)
        optimiser_g, optimiser_s = adam(generator), adam(student)
        optimisers_t = [adam(critic) for critic in critics]
        own = [torch.as_tensor(rows[parts == t], device=device) for t in range(teachers)]
        loss = torch.nn.BCELoss()
        ones, zeros = torch.ones(batch, device=device), torch.zeros(batch, device=device)

        def fake() -> torch.Tensor:
            return activate(generator(torch.randn(batch, config.latent, device=device)), layout,
                            config.temperature)

        iterations, votes, last_lam, done = 0, 0, None, False
        while not done:
            for _ in range(config.teacher_iters):
                for critic, optimiser, records in zip(critics, optimisers_t, own, strict=True):
                    generated = fake().detach()
                    optimiser.zero_grad(set_to_none=True)
                    error = loss(critic(generated).squeeze(1), zeros)
                    if len(records):  # a part may be empty on tiny data
                        chosen = sampler.choice(len(records), size=min(batch, len(records)),
                                                replace=False)
                        real = records[torch.as_tensor(chosen, device=device)]
                        error = error + loss(critic(real).squeeze(1), ones[:len(real)])
                    error.backward()
                    optimiser.step()
            for _ in range(config.student_iters):
                generated = fake().detach()
                with torch.no_grad():
                    real_votes = sum((critic(generated).squeeze(1) > 0.5).long()
                                     for critic in critics).cpu().numpy()
                gaps = np.abs(2 * real_votes - teachers) if data_dependent else None
                fits = (ledger.epsilon_after(vote_rdp(lam, gaps), 1 if data_dependent else batch)
                        <= ledger.budget.epsilon)
                if not fits:  # the batch that spends the rest, then stop
                    last_lam, done = last_vote_inverse_scale(ledger, batch), True
                labels = noisy_vote(real_votes, teachers, inverse_scale=last_lam or lam,
                                    data_dependent=data_dependent and last_lam is None,
                                    rng=sampler, ledger=ledger, label="student labels")
                votes += batch
                optimiser_s.zero_grad(set_to_none=True)
                loss(student(generated).squeeze(1),
                     torch.as_tensor(labels, dtype=torch.float32, device=device)).backward()
                optimiser_s.step()
                if last_lam is not None:
                    break
            optimiser_g.zero_grad(set_to_none=True)
            loss(student(fake()).squeeze(1), ones).backward()
            optimiser_g.step()
            iterations += 1
            done = done or iterations == config.iterations  # the calibrated plan's end
    return generator, {"iterations": iterations, "votes": votes, "inverse_scale": lam,
                       "last_inverse_scale": last_lam,
                       "training_seconds": time.perf_counter() - started}
