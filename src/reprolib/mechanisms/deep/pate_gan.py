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
teacher drawn uniformly for each record, so replacing one record changes one part and one vote
of each query. The number of teachers (by default one per 1,000 records) and of records
released (by default n) read the record count, so the mechanism accounts for replace-one
neighbours only (datasets of one size, n public). The generator does not move while the
student trains, so an iteration's ``student_iters`` batches are drawn and voted on at once, in
one charge. Iterations run while their votes fit the budget; the iteration whose votes no longer
fit is answered with the larger noise that spends the rest exactly
(:func:`reprolib.privacy.last_vote_inverse_scale`), and the run stops after it. The teachers are trained together (their parameters stacked, evaluated
with ``torch.func.vmap``; one Adam over the stack is k independent ones). Two accountings:

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
    seed_from,
)
from reprolib.mechanisms.deep._tabular import (
    Layout,
    activate,
    decode,
    generator_traits,
    open_fit,
)
from reprolib.privacy import (
    BudgetExceededError,
    NeighbourRelation,
    PrivacyBudget,
    RdpLedger,
    last_vote_inverse_scale,
    noisy_vote,
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
        """No workload, no data-dependent selection; replace-one neighbours (n is public)."""
        return generator_traits(NeighbourRelation.REPLACE_ONE)

    def fit(self, data: MixedDataset, budget: PrivacyBudget, rng: np.random.Generator, *,
            workload: Any = None) -> SynthesisResult:
        """Synthetic records of ``data``'s domain; the mechanism answers no workload."""
        ledger, layout, rows = open_fit(self, data, budget, workload)
        config, device = self.config, resolve_device(self.config.device)
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


class _Teachers:
    """k discriminators of :func:`_discriminator`'s shape, each initialised as its own module,
    their parameters stacked and evaluated at once (``torch.func.vmap``): input (k, rows, width),
    output (k, rows, 1).
    """

    def __init__(self, width: int, teachers: int, device: str) -> None:
        from torch.func import stack_module_state

        members = [_discriminator(width).to(device) for _ in range(teachers)]
        self.params, _ = stack_module_state(members)
        self._shape = _discriminator(width).to("meta")

    def __call__(self, inputs: torch.Tensor) -> torch.Tensor:
        from torch.func import functional_call, vmap

        def one(params: dict[str, torch.Tensor], rows: torch.Tensor) -> torch.Tensor:
            return functional_call(self._shape, params, (rows,))

        return vmap(one)(self.params, inputs)


def _teacher_batches(own: list[np.ndarray], batch: int, width: int,
                     sampler: np.random.Generator, device: str
                     ) -> tuple[torch.Tensor, torch.Tensor]:
    """Each teacher's batch of its own records, without replacement (fewer if its part is
    smaller), zero-padded to ``batch`` rows, and the weights (1 on a record, 0 on padding).
    """
    real = np.zeros((len(own), batch, width), dtype=np.float32)
    weight = np.zeros((len(own), batch), dtype=np.float32)
    for t, records in enumerate(own):
        take = min(batch, len(records))
        real[t, :take] = records[sampler.choice(len(records), size=take, replace=False)]
        weight[t, :take] = 1.0
    return torch.as_tensor(real, device=device), torch.as_tensor(weight, device=device)


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
        ensemble = _Teachers(width, teachers, device)
        def adam(module: torch.nn.Module) -> torch.optim.Adam:
            return torch.optim.Adam(module.parameters(), lr=config.learning_rate)
        optimiser_g, optimiser_s = adam(generator), adam(student)
        # one Adam over the stacked teachers: per coordinate, so k independent Adams
        optimiser_t = torch.optim.Adam(ensemble.params.values(), lr=config.learning_rate)
        own = [rows[parts == t] for t in range(teachers)]
        loss = torch.nn.BCELoss()
        ones = torch.ones(batch, device=device)

        def fake(count: int = batch) -> torch.Tensor:
            return activate(generator(torch.randn(count, config.latent, device=device)), layout,
                            config.temperature)

        iterations, votes, last_lam, done = 0, 0, None, False
        while not done:
            for _ in range(config.teacher_iters):  # every teacher at once, a fake batch each
                generated = fake(teachers * batch).detach().reshape(teachers, batch, width)
                real, weight = _teacher_batches(own, batch, width, sampler, device)
                optimiser_t.zero_grad(set_to_none=True)
                on_fake = ensemble(generated).squeeze(2)
                on_real = ensemble(real).squeeze(2)
                per_teacher = (torch.nn.functional.binary_cross_entropy(
                    on_fake, torch.zeros_like(on_fake), reduction="none").mean(dim=1)
                    + (torch.nn.functional.binary_cross_entropy(
                        on_real, torch.ones_like(on_real), reduction="none") * weight).sum(dim=1)
                    / weight.sum(dim=1).clamp(min=1.0))
                per_teacher.sum().backward()  # each teacher's gradient is its own loss's
                optimiser_t.step()
            # the generator is fixed until its step, so the iteration's student batches are
            # drawn and labelled at once: one vote per row, one charge per iteration
            generated = fake(per_iteration).detach()
            with torch.no_grad():
                real_votes = (ensemble(generated.expand(teachers, per_iteration, width))
                              .squeeze(2) > 0.5).sum(dim=0).cpu().numpy()
            try:
                labels = noisy_vote(real_votes, teachers, inverse_scale=lam,
                                    data_dependent=data_dependent, rng=sampler, ledger=ledger,
                                    label="student labels")
            except BudgetExceededError:  # the iteration that spends the rest, then stop
                last_lam, done = last_vote_inverse_scale(ledger, per_iteration), True
                labels = noisy_vote(real_votes, teachers, inverse_scale=last_lam,
                                    data_dependent=False, rng=sampler, ledger=ledger,
                                    label="last student labels")
            votes += per_iteration
            targets = torch.as_tensor(labels, dtype=torch.float32, device=device)
            for chunk, chunk_labels in zip(generated.split(batch), targets.split(batch), strict=True):
                optimiser_s.zero_grad(set_to_none=True)
                loss(student(chunk).squeeze(1), chunk_labels).backward()
                optimiser_s.step()
            optimiser_g.zero_grad(set_to_none=True)
            loss(student(fake()).squeeze(1), ones).backward()
            optimiser_g.step()
            iterations += 1
            done = done or iterations == config.iterations  # the calibrated plan's end
    return generator, {"iterations": iterations, "votes": votes, "inverse_scale": lam,
                       "last_inverse_scale": last_lam,
                       "training_seconds": time.perf_counter() - started}
