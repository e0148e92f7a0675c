"""RAP++ (Vietri, Archambeau, Aydore, Brown, Kearns, Roth, Siva, Tang, Wu; NeurIPS 2022) and RAP.

RAP++ (the paper's Algorithm 2) on mixed-type records (:class:`reprolib.data.MixedDataset`, one
or more categorical targets): T = T_CM + T_LT adaptive rounds in a random order (the authors'
code shuffles the two classes' rounds; the paper does not say). Round t of class k

1. selects the K_k unselected queries of class k on which the relaxed rows D'_t are furthest
   from the data (L1 norm of the answer-vector difference) by one-shot Gumbel top-K,
2. measures them with the Gaussian mechanism and keeps the answers,
3. fits D'_{t+1} to every answer kept so far by Algorithm 1
   (:mod:`reprolib.mechanisms.relaxed._annealing`),

and the rows are rounded to records at the end (:mod:`reprolib.mechanisms.relaxed._rounding`).
Class CM: the (feature, feature, label) marginal tables, K_CM = 1 table a round (the code's;
the paper does not say), T_CM = d_C - 1 rounds (d_C categorical attributes, labels included;
the code runs d_C). Class LT: ``lt_queries`` random linear thresholds, T_LT = 50 rounds of
K_LT = 10 (the code's command line defaults to 5).

Privacy (replace-one neighbours over N records, the paper's Theorem 1). Each round gets rho / T
(our split; the paper's proof charges rho / (2T) to each selection and rho / (2TK) to each of
the K measurements, which is the same), half to select and half to measure. The authors' code
instead weights the two classes' shares by their numbers of categorical and numerical columns
(``get_privacy_budget_weight``), and subtracts each table's size over N from its selection
score (public, so it changes which queries are picked, not the privacy); we follow the paper. An answer vector
holds one record in at most one entry per query, so between neighbours

* a selection score ||q(D) - q(D')||_1 moves by at most 2 / N (the code calibrates with
  sqrt(2) / N, which spends twice what it charges);
* the K measured vectors move by at most sqrt(2K) / N in L2.

Selection: one-shot Gumbel top-K is K peeled exponential mechanisms of parameter eps_0, each
eps_0-bounded-range, so it is K eps_0^2 / 8-zCDP; ``selection_noise="bounded-range"`` sets
K eps_0^2 / 8 = rho_select. ``"paper-K"`` uses the paper's Definition 9 scale, K times the
sensitivity over sqrt(2 rho_select), which is eps_0 = 2 sqrt(2 rho_select) / K and costs only
rho_select / K: the rest of the selection budget is left unspent (the ledger records the real
cost). ``measurement="renoise"`` is the code's: every round re-measures all the class's selected
queries with fresh noise and drops the old answers; here each release is calibrated to its true
cost, m queries at sensitivity sqrt(2m) / N within the round's share (the code's own noise, set
for K queries, costs m / K times what it charges).

RAP (Aydore et al., ICML 2021) as the RAP++ paper runs it: the same rounds with categorical
marginals only, on the data with every numerical attribute cut into ``bins`` equal-width bins,
tables (a, b, label) over all features, d - 1 rounds (d attributes); the numbers it releases are
the bins' centres.
"""

from __future__ import annotations

import dataclasses
import time
from fractions import Fraction
from typing import Any, Literal

import jax
import jax.numpy as jnp
import numpy as np

from reprolib.data import MixedDataset
from reprolib.mechanisms._base import (
    Described,
    MechanismTraits,
    SynthesisResult,
    check_mixed_inputs,
    open_ledger,
    seed_from,
)
from reprolib.mechanisms.relaxed._annealing import (
    AdamKind,
    FitSettings,
    MoveOn,
    RoundSchedule,
    as_measured,
    empty_slots,
    fit_round,
    project,
)
from reprolib.mechanisms.relaxed._rounding import Rounding, round_rows
from reprolib.privacy import (
    Ledger,
    NeighbourRelation,
    PrivacyBudget,
    exponential_mechanism_epsilon,
    gaussian_mechanism,
    gaussian_sigma,
    gumbel_top_k,
    split_budget,
)
from reprolib.privacy._exact import round_down, round_up, sqrt_up
from reprolib.queries import ConditionalMarginals, LinearThresholds, OneHotLayout
from reprolib.queries._conditional import Direction

SelectionNoise = Literal["bounded-range", "paper-K"]
Measurement = Literal["once", "renoise"]
ProjectionLoss = Literal["joint-squares", "per-class-spectral"]


@dataclasses.dataclass(frozen=True, kw_only=True)
class RAPPPConfig:
    """RAP++'s settings: the paper's where it gives them, else the authors' code's (``main.py``).

    Attributes:
        n_synthetic: relaxed rows n' (code: 1000).
        lt_rounds: T_LT (paper: 50).
        lt_per_round: K for linear thresholds (paper: 10; the code's default 5).
        cm_rounds: T_CM; None: d_C - 1 (paper), d_C categorical attributes incl. labels.
        lt_queries: candidate linear thresholds (paper: 200,000).
        direction: the thresholds' side, "<=" (paper) or ">" (code).
        selection_noise: "bounded-range" (sqrt(K) scale) or "paper-K" (Definition 9's K scale).
        measurement: "once" (Algorithm 2) or "renoise" (the code's, charged at its true cost).
        loss: "joint-squares" (Eq. 2 over every answer kept) or "per-class-spectral" (the
            code's: the round's class only, spectral norm of its error matrix).
        move_on: when sigma doubles: "plateau" (the code's) or "gradient-norm" (the paper's,
            with ``gamma``, a value the paper does not give).
        gamma: the gradient-norm threshold of ``move_on="gradient-norm"`` (ours).
        sigma_initial: sigma_1 (code: 2).
        max_doublings: doublings of sigma per pass (code: 10, so sigma <= 2048).
        lt_learning_rate, cm_learning_rate: Adam's first-pass learning rate in rounds of each
            class (code: 0.006 and 0.003), halved every pass.
        lt_passes, cm_passes: passes per round at most (code: 4 and 2).
        max_steps: Adam steps per pass at most (code: 2000).
        adam: "optax" or "frozen-bias" (the code's bias-correction quirk).
        rounding: "oversample" (code) or "sample" (paper's remark).
        records_per_row: records released per relaxed row (code: 40).
    """

    n_synthetic: int = 1000
    lt_rounds: int = 50
    lt_per_round: int = 10
    cm_rounds: int | None = None
    lt_queries: int = 200_000
    direction: Direction = "<="
    selection_noise: SelectionNoise = "bounded-range"
    measurement: Measurement = "once"
    loss: ProjectionLoss = "joint-squares"
    move_on: MoveOn = "plateau"
    gamma: float = 1e-3
    sigma_initial: float = 2.0
    max_doublings: int = 10
    lt_learning_rate: float = 0.006
    cm_learning_rate: float = 0.003
    lt_passes: int = 4
    cm_passes: int = 2
    max_steps: int = 2000
    adam: AdamKind = "optax"
    rounding: Rounding = "oversample"
    records_per_row: int = 40

    def __post_init__(self) -> None:
        for name in ("n_synthetic", "lt_per_round", "lt_queries", "lt_passes", "cm_passes",
                     "max_steps", "records_per_row"):
            _positive_int(name, getattr(self, name))
        for name in ("lt_rounds", "max_doublings"):
            _positive_int(name, getattr(self, name), minimum=0)
        if self.cm_rounds is not None:
            _positive_int("cm_rounds", self.cm_rounds, minimum=0)
        if self.lt_queries < self.lt_rounds * self.lt_per_round:
            raise ValueError(
                f"lt_queries = {self.lt_queries} candidate thresholds cannot feed lt_rounds = "
                f"{self.lt_rounds} rounds of lt_per_round = {self.lt_per_round} selections "
                f"(each query is selected once): give at least "
                f"{self.lt_rounds * self.lt_per_round} or fewer rounds")
        for name in ("gamma", "sigma_initial", "lt_learning_rate", "cm_learning_rate"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)!r}")


@dataclasses.dataclass(frozen=True, kw_only=True)
class RAPConfig:
    """RAP's settings as the RAP++ paper runs it (categorical marginals on binned numbers).

    Attributes:
        bins: equal-width bins per numerical attribute (paper: 30).
        rounds: adaptive rounds; None: d - 1 (paper), d the number of attributes.
        n_synthetic, learning_rate, passes, max_steps, loss, adam, rounding, records_per_row:
            as RAP++'s categorical rounds (:class:`RAPPPConfig`).
    """

    bins: int = 30
    rounds: int | None = None
    n_synthetic: int = 1000
    learning_rate: float = 0.003
    passes: int = 2
    max_steps: int = 2000
    loss: ProjectionLoss = "joint-squares"
    adam: AdamKind = "optax"
    rounding: Rounding = "oversample"
    records_per_row: int = 40

    def __post_init__(self) -> None:
        for name in ("bins", "n_synthetic", "passes", "max_steps", "records_per_row"):
            _positive_int(name, getattr(self, name))
        if self.rounds is not None:
            _positive_int("rounds", self.rounds)
        if not self.learning_rate > 0:
            raise ValueError(f"learning_rate must be positive, got {self.learning_rate!r}")

    def engine(self, rounds: int) -> RAPPPConfig:
        """The RAP++ settings that run this RAP: ``rounds`` categorical rounds, no thresholds."""
        return RAPPPConfig(n_synthetic=self.n_synthetic, lt_rounds=0, cm_rounds=rounds,
                           cm_learning_rate=self.learning_rate, cm_passes=self.passes,
                           max_steps=self.max_steps, loss=self.loss, adam=self.adam,
                           rounding=self.rounding, records_per_row=self.records_per_row,
                           lt_queries=1)


_TRAITS = MechanismTraits(workload_aware=True, data_aware=True, budget_aware=False,
                          efficiency_aware=False, relation=NeighbourRelation.REPLACE_ONE,
                          data_kind="mixed")


class RAPPP:
    """RAP++: adaptive relaxed projection with categorical marginals and linear thresholds."""

    name = "RAP++"
    traits = _TRAITS

    def __init__(self, config: RAPPPConfig | None = None) -> None:
        self.config = config or RAPPPConfig()

    def fit(self, data: MixedDataset, budget: PrivacyBudget, rng: np.random.Generator, *,
            workload: Any = None) -> SynthesisResult:
        """Synthetic records of ``data`` (its targets are the queries' labels); the workload
        is RAP++'s own query classes, so ``workload`` must be None.
        """
        ledger = open_ledger(self, budget)
        _check_mixed(self, data, workload)
        cm_rounds = self.config.cm_rounds
        if cm_rounds is None:
            cm_rounds = max(len(data.domain.categorical) - 1, 0)
        return _adaptive_projection(data, self.config, cm_rounds, ledger, rng)


class RAP:
    """RAP on binned numbers: categorical-marginal rounds only (the RAP++ paper's baseline)."""

    name = "RAP"
    traits = _TRAITS

    def __init__(self, config: RAPConfig | None = None) -> None:
        self.config = config or RAPConfig()

    def fit(self, data: MixedDataset, budget: PrivacyBudget, rng: np.random.Generator, *,
            workload: Any = None) -> SynthesisResult:
        """Synthetic records of ``data``, numbers released as bin centres."""
        ledger = open_ledger(self, budget)
        _check_mixed(self, data, workload)
        bins = self.config.bins
        binned = MixedDataset(data.binned(bins), np.zeros((data.records, 0)), (), data.targets,
                              data.source)
        rounds = self.config.rounds or len(data.domain.attributes) - 1
        result = _adaptive_projection(binned, self.config.engine(rounds), rounds, ledger, rng)
        assert isinstance(result.synthetic, MixedDataset)
        synthetic = MixedDataset.from_binned(result.synthetic.categorical,
                                             data.domain.numerical, bins, data.targets)
        return dataclasses.replace(result, synthetic=synthetic)


def _check_mixed(mechanism: Described, data: MixedDataset, workload: Any) -> None:
    check_mixed_inputs(mechanism, data, workload,
                       no_workload="chooses its own queries (conditional marginals and linear "
                                   "thresholds on the data's targets)")
    if not data.targets:
        raise ValueError(f"{mechanism.name}'s queries are conditional on a label: the data names "
                         "no targets (MixedDataset(..., targets=(...)))")


@dataclasses.dataclass
class _Class:
    """One query class during a run: candidates, true answers, the selected and their slots."""

    name: str
    queries: ConditionalMarginals | LinearThresholds
    true: np.ndarray  # (candidates, width) exact answers on the data, float64
    valid: np.ndarray  # (candidates, width) True on real (not padding) entries
    per_round: int
    selected: list[int] = dataclasses.field(default_factory=list)


def _adaptive_projection(data: MixedDataset, config: RAPPPConfig, cm_rounds: int,
                         ledger: Ledger, rng: np.random.Generator) -> SynthesisResult:
    """Algorithm 2 with ``cm_rounds`` categorical and ``config.lt_rounds`` threshold rounds."""
    started = time.perf_counter()
    layout = OneHotLayout(data.domain, data.targets)
    features = [a for a in data.domain.categorical.attributes if a not in data.targets]
    real = jnp.asarray(layout.encode(data))
    classes: dict[str, _Class] = {}
    if cm_rounds:
        if len(features) < 2:
            raise ValueError("categorical-marginal rounds need two non-target categorical "
                             f"attributes; the data has {features}")
        cm = ConditionalMarginals.all_pairs(layout, features)
        classes["CM"] = _Class("CM", cm, _exact_means(cm.all_answers(real), data.records),
                               cm.valid, 1)
        cm_rounds = min(cm_rounds, cm.count)
    if config.lt_rounds:
        if not data.domain.numerical:
            raise ValueError("linear-threshold rounds need numerical attributes; set lt_rounds=0")
        lt = LinearThresholds(layout, config.lt_queries, seed_from(rng) % 2**31, config.direction)
        width = np.asarray(lt.label_sizes(jnp.arange(lt.count)))
        classes["LT"] = _Class("LT", lt, _exact_means(lt.all_answers(real), data.records),
                               np.arange(layout.label_width)[None] < width[:, None],
                               config.lt_per_round)
    schedule = ["CM"] * cm_rounds + ["LT"] * (config.lt_rounds if "LT" in classes else 0)
    if not schedule:
        raise ValueError("no rounds to run: give categorical or threshold rounds")
    schedule = [schedule[i] for i in rng.permutation(len(schedule))]

    n = data.records
    shares = split_budget(ledger.remaining_rho, [1.0] * len(schedule))
    cm_width = classes["CM"].queries.feature_width if "CM" in classes else 1
    slots = empty_slots(cm_rounds, cm_width,
                        config.lt_rounds * config.lt_per_round if "LT" in classes else 0, layout)
    rows = project(jnp.asarray(rng.random((config.n_synthetic, layout.width)), jnp.float32),
                   layout)
    log = []
    for t, (name, share) in enumerate(zip(schedule, shares, strict=True)):
        round_started = time.perf_counter()
        cls = classes[name]
        select_rho, measure_rho = split_budget(share, [1.0, 1.0])
        picked = _select(cls, rows, select_rho, config.selection_noise, n, rng, ledger, t)
        cls.selected.extend(picked)
        release = cls.selected if config.measurement == "renoise" else picked
        sensitivity = sqrt_up(Fraction(2 * len(release), n * n))
        sigma = gaussian_sigma(measure_rho, sensitivity)
        values = cls.true[release][cls.valid[release]]
        noisy = gaussian_mechanism(values, sigma=sigma, sensitivity=sensitivity, rng=rng,
                                   ledger=ledger, label=f"round {t}: measure {len(release)} {name}")
        answers = np.zeros_like(cls.true[release])
        answers[cls.valid[release]] = noisy
        _store(slots, cls, release, answers)
        fit = fit_round(rows, as_measured(slots),
                        _settings(config, layout, name, classes),
                        _schedule(config, name, bool(classes.get("LT") and classes["LT"].selected)
                                  and config.loss == "joint-squares"))
        rows = fit.rows
        log.append({"round": t, "class": name, "selected": [int(i) for i in picked],
                    "noise_sd": sigma, "exact_loss": fit.exact_loss, "steps": fit.steps,
                    "passes": fit.passes, "doublings": fit.doublings,
                    "seconds": time.perf_counter() - round_started})
    synthetic = round_rows(np.asarray(rows), layout, rng, config.rounding, config.records_per_row)
    diagnostics = {"rounds": len(schedule), "cm_rounds": cm_rounds,
                   "lt_rounds": schedule.count("LT"), "records": n,
                   "unspent_rho": ledger.budget.rho - ledger.spent_rho,
                   "seconds": time.perf_counter() - started, "backend": _platform(rows),
                   "log": log}
    return SynthesisResult(synthetic=synthetic, ledger=ledger, diagnostics=diagnostics, log=rows)


def _exact_means(answers: np.ndarray, records: int) -> np.ndarray:
    """The data's answers (means of 0/1 contributions, computed in float32) as exact counts over
    ``records``, in float64.

    The noise is calibrated to the exact sensitivities (2/N, sqrt(2K)/N). A float32 mean moves
    further than 1/N between neighbours (by the rounding of count/N to float32, which grows
    with N: on 80,000 records a tenth of a percent more in L2), so the answers that the
    selection scores and the Gaussian releases read are rebuilt here: the counts, sums of
    0/1 terms below 2^24, are exact in float32, and count = rint(N x mean) recovers them while
    N stays below 2^21 (the mean's relative rounding, at most about 2^-23 even when the division
    is done as a multiplication by a rounded 1/N, then moves N x mean by less than 1/4).
    """
    if records >= 2**21:
        raise ValueError(f"exact answers need fewer than 2^21 records, got {records}")
    counts = np.rint(np.asarray(answers, dtype=np.float64) * records)
    return counts / records


def _select(cls: _Class, rows: jax.Array, rho: float, noise: SelectionNoise, n: int,
            rng: np.random.Generator, ledger: Ledger, t: int) -> list[int]:
    """The K unselected queries of ``cls`` furthest from the rows, by one-shot Gumbel top-K."""
    candidates = np.setdiff1d(np.arange(len(cls.true)), cls.selected)
    k = min(cls.per_round, len(candidates))
    synthetic = cls.queries.all_answers(rows)
    scores = np.abs(cls.true[candidates] - synthetic[candidates]).sum(axis=1)
    per_pick = round_down(Fraction(rho) / k)
    epsilon = (exponential_mechanism_epsilon(per_pick) if noise == "bounded-range"
               else exponential_mechanism_epsilon(round_down(Fraction(rho) / k ** 2)))
    picked = gumbel_top_k(scores, k, epsilon=epsilon, sensitivity=round_up(Fraction(2, n)), rng=rng,
                          ledger=ledger, label=f"round {t}: select {k} {cls.name}")
    return [int(candidates[i]) for i in picked]


def _store(measured: dict[str, np.ndarray], cls: _Class, release: list[int],
           answers: np.ndarray) -> None:
    """Write the released answers into the class's slots (slot i: the i-th selected query)."""
    slots = [cls.selected.index(q) for q in release]
    weight = cls.valid[release].astype(np.float32)
    if cls.name == "CM":
        assert isinstance(cls.queries, ConditionalMarginals)
        measured["cm_features"][slots] = cls.queries.feature_columns[release]
        measured["cm_labels"][slots] = cls.queries.label_columns[release]
        measured["cm_target"][slots], measured["cm_weight"][slots] = answers, weight
        return
    assert isinstance(cls.queries, LinearThresholds)
    labels, theta, tau = map(np.asarray, cls.queries.parameters(jnp.asarray(release)))
    measured["lt_labels"][slots], measured["lt_theta"][slots] = labels, theta
    measured["lt_tau"][slots] = tau
    measured["lt_target"][slots], measured["lt_weight"][slots] = answers, weight


def _settings(config: RAPPPConfig, layout: OneHotLayout, name: str,
              classes: dict[str, _Class]) -> FitSettings:
    if config.loss == "per-class-spectral":
        terms, norm = ("cm" if name == "CM" else "lt"), "spectral"
    else:
        terms = "both" if len(classes) == 2 else ("cm" if "CM" in classes else "lt")
        norm = "squares"
    return FitSettings(layout=layout, direction=config.direction, norm=norm,  # type: ignore[arg-type]
                       terms=terms, move_on=config.move_on,  # type: ignore[arg-type]
                       gamma=config.gamma, max_steps=config.max_steps, adam=config.adam)


def _schedule(config: RAPPPConfig, name: str, thresholds_in_loss: bool) -> RoundSchedule:
    """The class's learning rate and passes; sigma anneals whenever thresholds are fitted."""
    if name == "LT":
        return RoundSchedule(learning_rate=config.lt_learning_rate, passes=config.lt_passes,
                             sigma_initial=config.sigma_initial,
                             max_doublings=config.max_doublings)
    return RoundSchedule(learning_rate=config.cm_learning_rate, passes=config.cm_passes,
                         sigma_initial=config.sigma_initial,
                         max_doublings=config.max_doublings if thresholds_in_loss else 0)


def _positive_int(name: str, value: object, minimum: int = 1) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")


def _platform(rows: jax.Array) -> str:
    """Where the relaxed rows were fitted ("cpu" or "gpu"), which need not be JAX's default."""
    (device,) = rows.devices()
    return str(device.platform)
