"""The slicing mechanism and SliceWass as synthesizers: the two charges in closed form, the
paper's uncounted preprocessing, the private bounds, the row encoding, and training that reads
nothing but the release."""

import math

import numpy as np
import pytest
import torch

from reprolib.data import MixedDataset
from reprolib.mechanisms import build, registration
from reprolib.mechanisms.slicing import mechanism as slicing_module
from reprolib.mechanisms.slicing.encoding import THRESHOLD_SDS, RowEncoding, private_bounds
from reprolib.mechanisms.slicing.generator import Generator
from reprolib.privacy import (
    ORDERS,
    NeighbourRelation,
    PrivacyBudget,
    RdpBudget,
    RdpLedger,
    eps_to_rho,
    gaussian_rho,
    gaussian_sigma,
    marginal_l2_sensitivity,
    poisson_base,
    poisson_same_size_base,
    slicing_rdp,
    zcdp_curve,
)

EPSILON, DELTA = 2.0, 1e-6
REPLACE_ONE = NeighbourRelation.REPLACE_ONE


def _budget() -> PrivacyBudget:
    return PrivacyBudget.from_epsilon_delta(EPSILON, DELTA, relation=REPLACE_ONE)


def _fit(data, name="Slicing", seed=0, **overrides):
    mechanism = build(name, {**registration(name).quick, **overrides})
    return mechanism.fit(data, _budget(), np.random.default_rng(seed))


def test_the_bounds_and_the_release_spend_the_budget_in_closed_form(small_mixed):
    result = _fit(small_mixed)
    bounds, release = result.ledger.charges
    columns = len(small_mixed.numerical_names)
    sensitivity = marginal_l2_sensitivity(REPLACE_ONE, columns)
    rho = gaussian_rho(gaussian_sigma(eps_to_rho(0.1 * EPSILON, DELTA, bound="bun-steinke"),
                                      sensitivity), sensitivity)
    assert np.array_equal(bounds.curve, zcdp_curve(rho))
    sigma, width = result.diagnostics["sigma"], result.diagnostics["encoded_columns"]
    assert width == sum(small_mixed.domain.categorical.sizes) + columns
    # rows of norm 1/2: same-size neighbours' rows are at most C = 1 apart
    expected = slicing_rdp(ORDERS, sigma, dim=width, projections=result.diagnostics["projections"],
                           distance=1.0)
    assert np.array_equal(release.curve, expected)
    spent = result.ledger.spent_epsilon()
    assert spent <= EPSILON and math.isclose(spent, EPSILON, rel_tol=1e-9)
    # sigma is the smallest that fits: a little less noise would overspend
    fresh = RdpLedger(RdpBudget(epsilon=EPSILON, delta=DELTA, relation=REPLACE_ONE))
    fresh.charge(bounds.curve, mechanism="gaussian", label="bounds")
    smaller = slicing_rdp(ORDERS, sigma * (1 - 1e-8), dim=width,
                          projections=result.diagnostics["projections"], distance=1.0)
    assert fresh.epsilon_after(smaller) > EPSILON


def test_the_papers_uncounted_preprocessing_is_reported_not_hidden(small_mixed):
    counted, uncounted = _fit(small_mixed), _fit(small_mixed, count_preprocessing=False)
    assert [c.mechanism for c in uncounted.ledger.charges] == ["slicing"]
    assert math.isclose(uncounted.ledger.spent_epsilon(), EPSILON, rel_tol=1e-9)
    # the bounds' own epsilon, a tenth of the target's by the classic conversion, up to the
    # ledger's grid of orders
    assert math.isclose(uncounted.diagnostics["uncounted_preprocessing_epsilon"], 0.1 * EPSILON,
                        rel_tol=1e-3)
    assert counted.diagnostics["uncounted_preprocessing_epsilon"] == 0.0
    assert uncounted.diagnostics["sigma"] < counted.diagnostics["sigma"]


@pytest.mark.parametrize("amplification", ["same-size", "lemma-1"])
def test_a_poisson_sample_spends_the_base_budget_that_amplifies_to_the_target(small_mixed,
                                                                              amplification):
    result = _fit(small_mixed, sampling_rate=0.25, amplification=amplification)
    facts, n = result.diagnostics, small_mixed.records
    if amplification == "same-size":
        base = poisson_same_size_base(EPSILON, DELTA, rate=0.25, records=n)
        assert facts["typical_sample_size"] == base[2]
    else:  # the paper's Lemma 1, stated for add/remove neighbours
        base = poisson_base(EPSILON, DELTA, 0.25)
    assert (facts["base_epsilon"], facts["base_delta"]) == base[:2]
    assert result.ledger.budget == RdpBudget(epsilon=base[0], delta=base[1],
                                             relation=REPLACE_ONE)
    assert math.isclose(result.ledger.spent_epsilon(), base[0], rel_tol=1e-9)
    assert abs(facts["sample_records"] - 0.25 * n) < 5 * math.sqrt(n * 0.25 * 0.75)
    assert result.synthetic.records == n  # as many records as the whole data by default


def test_the_poisson_sample_is_drawn_in_uniformly_random_order(small_mixed, monkeypatch):
    # the amplification's proof swaps a drawn record for an undrawn one in the same row, which
    # needs the sample's order to be uniform, not the data's
    taken = []
    take = MixedDataset.take
    monkeypatch.setattr(MixedDataset, "take", lambda self, rows: taken.append(np.array(rows))
                        or take(self, rows))
    config = slicing_module.SlicingConfig(sampling_rate=0.5)
    ledger = RdpLedger(RdpBudget(epsilon=EPSILON, delta=DELTA, relation=REPLACE_ONE))
    firsts = []
    for seed in range(200):
        taken.clear()
        sample, _, facts = slicing_module._poisson_sample(small_mixed, config, ledger,
                                                          np.random.default_rng(seed))
        (rows,) = taken
        assert len(np.unique(rows)) == len(rows) == sample.records == facts["sample_records"]
        firsts.append(rows[0])
    # in the data's order the first row would be one of the first few records nearly always
    assert np.median(firsts) > small_mixed.records / 4


def test_private_bounds_find_the_occupied_bins():
    values = np.random.default_rng(0).uniform(0.2, 0.6, size=(20_000, 2))
    values[:, 1] = 0.0  # a column on one value keeps its one bin
    ledger = RdpLedger(RdpBudget(epsilon=10.0, delta=1e-6, relation=REPLACE_ONE))
    lower, upper = private_bounds(values, rho=1.0, bins=32, rng=np.random.default_rng(1),
                                  ledger=ledger)
    assert lower.tolist() == [6 / 32, 0.0] and upper.tolist() == [20 / 32, 1 / 32]
    (charge,) = ledger.charges
    assert charge.details["sensitivity"] == math.sqrt(2 * 2)
    assert charge.details["rho"] <= 1.0
    assert THRESHOLD_SDS * charge.details["sigma"] < 20_000 / 32 / 13


def test_rows_are_bounded_and_decode_back(small_mixed):
    lower = np.full(len(small_mixed.numerical_names), 0.0)
    encoding = RowEncoding(small_mixed.domain.categorical.sizes, lower, lower + 1.0, 0.5)
    rows = encoding.encode(small_mixed)
    assert rows.shape == (small_mixed.records, encoding.layout.width)
    assert np.linalg.norm(rows, axis=1).max() <= 0.5 + 1e-12
    back = encoding.decode(rows, small_mixed)
    assert back.categorical.frame.equals(small_mixed.categorical.frame)
    assert np.allclose(back.numerical, small_mixed.numerical, atol=1e-12)


def test_unit_rows_have_the_whole_norm_and_decode_to_their_brightest_value_at_one(small_mixed):
    numbers = slicing_module._without(small_mixed, "SEX")
    numbers = MixedDataset(numbers.categorical.project([]), numbers.numerical,
                           numbers.numerical_names)
    encoding = RowEncoding((), np.zeros(3), np.ones(3), 0.5, "unit")
    rows = encoding.encode(numbers)
    norms = np.linalg.norm(rows, axis=1)
    assert np.allclose(norms[norms > 0], 0.5)
    back = encoding.decode(rows, numbers).numerical
    brightest = numbers.numerical.max(axis=1, keepdims=True)
    shown = brightest[:, 0] > 0
    np.testing.assert_allclose(back[shown], (numbers.numerical / brightest)[shown], atol=1e-12)
    generated = Generator(encoding.layout, latent=4, hidden=(8,))(torch.randn(5, 4))
    assert torch.allclose(generated.norm(dim=1), torch.full((5,), 0.5))
    with pytest.raises(ValueError, match="numerical columns only"):
        RowEncoding((2,), np.zeros(1), np.ones(1), 0.5, "unit")


def test_training_and_decoding_read_the_release_only(small_mixed, monkeypatch):
    """Scrambling the records right after the release changes nothing that follows."""
    expected = _fit(small_mixed, seed=3)
    data = small_mixed.take(np.arange(small_mixed.records))  # a copy to scramble
    real_release = slicing_module.slicing_release

    def release_then_scramble(rows, **kwargs):
        out = real_release(rows, **kwargs)
        rows[:] = np.nan
        data.numerical[:] = np.nan
        data.categorical.frame.iloc[:, :] = 0
        return out

    monkeypatch.setattr(slicing_module, "slicing_release", release_then_scramble)
    scrambled = _fit(data, seed=3)
    assert np.isnan(data.numerical).all()
    assert scrambled.synthetic.categorical.frame.equals(expected.synthetic.categorical.frame)
    assert np.array_equal(scrambled.synthetic.numerical, expected.synthetic.numerical)


def test_slicewass_keeps_one_dimensional_slices_and_its_loss():
    with pytest.raises(ValueError, match="slice_dim=1"):
        build("SliceWass", {"slice_dim": 2})
    with pytest.raises(ValueError, match="SliceWass"):
        build("Slicing", {"training": {"loss": "sliced-wasserstein"}})


def test_a_budget_in_rho_alone_is_refused(small_mixed):
    with pytest.raises(ValueError, match="from_epsilon_delta"):
        build("Slicing", registration("Slicing").quick).fit(
            small_mixed, PrivacyBudget(rho=1.0, relation=REPLACE_ONE), np.random.default_rng(0))


def test_per_class_generators_share_the_budget_as_two_releases(small_mixed):
    """One release per class of the target (SEX), each on 200 of its records; the release
    charge is two slicing curves, so the run still spends exactly the budget."""
    result = _fit(small_mixed, per_class=200, n_synthetic=301)
    _, release = result.ledger.charges
    sigma, width = result.diagnostics["sigma"], result.diagnostics["encoded_columns"]
    sex = small_mixed.domain.categorical.size("SEX")
    assert width == sum(small_mixed.domain.categorical.sizes) - sex + 3  # the target is not encoded
    np.testing.assert_array_equal(release.curve, 2 * slicing_rdp(
        ORDERS, sigma, dim=width, projections=result.diagnostics["projections"], distance=1.0))
    spent = result.ledger.spent_epsilon()
    assert spent <= EPSILON and math.isclose(spent, EPSILON, rel_tol=1e-9)
    assert result.diagnostics["generators"] == sex
    labels = result.synthetic.column("SEX")
    assert np.bincount(labels).tolist() == [151, 150]
    assert result.synthetic.domain == small_mixed.domain


def test_public_bounds_spend_nothing_on_preprocessing(small_mixed):
    result = _fit(small_mixed, numerical_bounds="public")
    (release,) = result.ledger.charges
    assert release.mechanism == "slicing"
    assert result.ledger.spent_epsilon() == pytest.approx(EPSILON, rel=1e-9)


def test_per_class_needs_a_target_and_no_poisson_sample(small_mixed):
    unlabelled = slicing_module._without(small_mixed, "SEX")
    with pytest.raises(ValueError, match="no target attribute"):
        _fit(unlabelled, per_class=10)
    with pytest.raises(ValueError, match="sampling_rate"):
        build("Slicing", {"per_class": 10, "sampling_rate": 0.5})
