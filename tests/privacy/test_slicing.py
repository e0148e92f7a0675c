"""The slicing mechanism's privacy: Lemma 2's formula, Proposition 3, Theorem 1's calibration,
Poisson amplification, the release's charge (the curves against the outputs' divergence:
tests/papers/test_slicing.py)."""

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import binom

from reprolib.privacy import (
    ORDERS,
    BudgetExceededError,
    NeighbourRelation,
    RdpBudget,
    RdpLedger,
    SlicingStream,
    adjacency_distance,
    per_class_slicing_release,
    poisson_amplified,
    poisson_base,
    poisson_same_size_amplified,
    poisson_same_size_base,
    projection_epsilon,
    projection_rdp,
    projection_sigma,
    remaining_sigma,
    remaining_stream_sigma,
    slicing_epsilon,
    slicing_rdp,
    slicing_release,
    slicing_sigma,
    subsampled_slicing_rdp,
    typical_sample_size,
    without_replacement_rdp,
)
from reprolib.privacy._slicing import clip_rows


def test_lemma_2_is_the_papers_formula_and_fails_past_its_order():
    # m' alpha / (2 sigma^2 (d - gamma)), gamma = (alpha^2 - alpha) / sigma^2, with C = 1
    alpha, sigma, d, m = 3.0, 1.5, 10, 40
    gamma = (alpha**2 - alpha) / sigma**2
    assert slicing_rdp(alpha, sigma, dim=d, projections=m)[0] == pytest.approx(
        m * alpha / (2 * sigma**2 * (d - gamma)), rel=1e-11)  # bounded up by some 1e-12
    beyond = 0.5 + math.sqrt(0.25 + d * sigma**2) + 1e-9  # alpha^2 - alpha > d sigma^2
    assert np.isinf(slicing_rdp(beyond, sigma, dim=d, projections=m, curve="exact")[0])


def test_the_papers_remark_2_example():
    """sigma^2 = 4, d = 100, m' = 50, delta = 1e-5: alpha* = 10.597 gives epsilon 2.0878 (the
    corrected coefficient; the paper's printed formula gives 2.2657), below the bound 2.5243."""
    alpha = 1 + math.sqrt(4 * 100 * math.log(1e5) / 50)
    epsilon = slicing_rdp(alpha, 2.0, dim=100, projections=50)[0] + math.log(1e5) / (alpha - 1)
    assert alpha == pytest.approx(10.597, abs=1e-3)
    assert epsilon == pytest.approx(2.0878, abs=1e-4)
    best, _ = slicing_epsilon(2.0, 1e-5, dim=100, projections=50)
    assert best <= epsilon <= 50 / 400 + 2 * math.sqrt(50 * math.log(1e5) / 400)


def test_proposition_3_is_reached_by_a_difference_along_every_block():
    sigma, blocks, k, d = 0.9, 3, 2, 4
    columns = [np.eye(d)[:, [0, 1 + b % (d - 1)]] for b in range(blocks)]  # each block: e1, e_j
    u = np.concatenate(columns, axis=1)
    shift = 0.7 * np.eye(d)[0] @ u  # the differing rows' difference times U
    direct = 2.0 * shift @ shift / (2 * sigma**2)  # order 2, equal covariances: alpha |mu|^2/2s^2
    assert projection_rdp(2.0, sigma, blocks=blocks, distance=0.7)[0] == pytest.approx(direct)
    assert u.shape[1] == blocks * k


def test_calibration_finds_the_smallest_sigma_and_matches_the_notes_table():
    epsilon, delta = poisson_base(5.1, 1e-5, 0.25)
    assert (epsilon, delta) == (pytest.approx(6.4817, abs=1e-4), pytest.approx(4e-5))
    sigma = slicing_sigma(epsilon, delta, dim=100, projections=100)
    assert slicing_epsilon(sigma, delta, dim=100, projections=100)[0] <= epsilon
    assert slicing_epsilon(sigma * (1 - 1e-7), delta, dim=100, projections=100)[0] > epsilon
    assert sigma == pytest.approx(0.874, abs=1e-3)  # Theorem 1
    exact = slicing_sigma(epsilon, delta, dim=100, projections=100, curve="exact")
    assert exact == pytest.approx(0.838, abs=1e-3) and exact < sigma


def test_amplification_and_its_inverse():
    assert poisson_amplified(*poisson_base(8.1, 1e-5, 0.25), 0.25) == (
        pytest.approx(8.1), pytest.approx(1e-5))
    assert poisson_base(8.1, 1e-5, 0.25)[0] == pytest.approx(9.486, abs=1e-3)
    assert poisson_amplified(6.5, 4e-5, 0.25)[0] == pytest.approx(5.118, abs=1e-3)


def _subsampled_counts(records: list[int], rate: float, epsilon: float) -> np.ndarray:
    """The exact law of (sample size s, sum of the sample + two-sided geometric noise) for a
    Poisson sample of 0/1 ``records``: an epsilon-DP count for same-size neighbours, run on the
    sample. Rows: s = 0..n; columns: outputs -60..n+60 (the tails beyond hold < e^-60)."""
    n, a, reach = len(records), math.exp(-epsilon), 60
    noise = (1 - a) / (1 + a) * a ** np.abs(np.arange(-reach, reach + 1))
    law = np.zeros((n + 1, n + 2 * reach + 1))
    for mask in range(2**n):
        chosen = [i for i in range(n) if mask >> i & 1]
        weight = rate ** len(chosen) * (1 - rate) ** (n - len(chosen))
        total = sum(records[i] for i in chosen)
        law[len(chosen), total:total + 2 * reach + 1] += weight * noise
    return law


def _hockey_stick(p: np.ndarray, q: np.ndarray, epsilon: float) -> float:
    """max over the two directions of sum (P - e^epsilon Q)_+: the smallest delta at epsilon."""
    return max(np.clip(p - math.exp(epsilon) * q, 0, None).sum(),
               np.clip(q - math.exp(epsilon) * p, 0, None).sum())


def test_poisson_amplification_by_the_sample_size_holds_where_lemma_1_fails():
    """A count released with its sample's size, neighbours of the same size (replace-one): the
    exact privacy profile of the Poisson-subsampled release meets our bound for every size
    threshold, while Lemma 1's (log(1 + q(e^eps - 1)), 0) fails: a sample of every record is
    not amplified at all."""
    n, rate, epsilon = 6, 0.3, 1.0
    p = _subsampled_counts([1, 1, 1, 0, 0, 0], rate, epsilon)
    q = _subsampled_counts([0, 1, 1, 0, 0, 0], rate, epsilon)
    for size in range(n + 1):
        bound_epsilon, bound_delta = poisson_same_size_amplified(epsilon, 0.0, rate=rate,
                                                                 records=n, size=size)
        assert _hockey_stick(p, q, bound_epsilon) <= bound_delta + 1e-15, size
    lemma_1 = poisson_amplified(epsilon, 0.0, rate)[0]
    assert _hockey_stick(p, q, lemma_1) > 1e-4


def test_the_same_size_base_budget_amplifies_to_the_target():
    for records in (1_500, 100_000):
        epsilon, delta, size = poisson_same_size_base(5.1, 1e-5, rate=0.25, records=records)
        tail = 0.1 * 1e-5
        assert binom.sf(size, records, 0.25) <= tail < binom.sf(size - 1, records, 0.25)
        assert typical_sample_size(records, 0.25, tail) == size
        amplified = poisson_same_size_amplified(epsilon, delta, rate=0.25, records=records,
                                                size=size)
        assert amplified[0] <= 5.1 and amplified[1] <= 1e-5
        assert amplified == (pytest.approx(5.1, rel=1e-12), pytest.approx(1e-5, rel=1e-9))
    # with many records the typical size nears the rate, and the base budget Lemma 1's
    assert size / records == pytest.approx(0.25, rel=0.03)
    assert epsilon == pytest.approx(poisson_base(5.1, 1e-5, 0.25)[0], rel=5e-3)


def test_amplification_of_pure_dp_and_of_tiny_rates_ends_or_says_why():
    assert poisson_base(1.0, 0.0, 0.5)[1] == 0.0  # pure DP stays pure (this once looped forever)
    assert poisson_base(1.0, 1e-5, 1e-7)[1] == 1.0  # delta_0 is a probability
    with pytest.raises(ValueError, match="base epsilon above 700"):
        poisson_base(5.0, 1e-5, 1e-306)
    with pytest.raises(ValueError, match="base epsilon above 700"):
        poisson_same_size_base(800.0, 1e-5, rate=0.25, records=1000)


@pytest.mark.parametrize("arguments, complaint", [
    ({"rate": -0.1}, "rate"), ({"rate": 2.0}, "rate"), ({"delta": float("nan")}, "delta"),
    ({"delta": -1e-5}, "delta")])
def test_the_same_size_amplification_refuses_what_is_not_a_rate_or_a_delta(arguments, complaint):
    given = {"epsilon": 1.0, "delta": 1e-5, "rate": 0.25, "records": 100, "size": 30} | arguments
    with pytest.raises(ValueError, match=complaint):
        poisson_same_size_amplified(**given)
    with pytest.raises(ValueError, match="tail_share"):
        poisson_same_size_base(1.0, 1e-5, rate=0.25, records=100, tail_share=2.0)


def test_neighbours_rows_differ_by_twice_the_norm_under_replace_one():
    assert adjacency_distance(0.5, NeighbourRelation.REPLACE_ONE) == 1.0
    assert adjacency_distance(1.0, NeighbourRelation.ADD_REMOVE) == 1.0


def _ledger(epsilon):
    return RdpLedger(RdpBudget(epsilon=epsilon, delta=4e-5,
                               relation=NeighbourRelation.REPLACE_ONE))


def test_the_release_charges_lemma_2_then_draws_u_and_the_noise():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(4000, 20))
    ledger = _ledger(6.5)
    sigma = slicing_sigma(6.5, 4e-5, dim=20, projections=30)
    u, o = slicing_release(x, projections=30, sigma=sigma, row_norm=0.5, rng=rng,
                           ledger=ledger, label="release")
    np.testing.assert_array_equal(ledger.charges[0].curve,
                                  slicing_rdp(ORDERS, sigma, dim=20, projections=30))
    assert ledger.spent_epsilon() <= 6.5
    assert u.shape == (20, 30) and o.shape == (4000, 30)
    assert np.var(u) == pytest.approx(1 / 20, rel=0.1)
    clipped = x * np.minimum(1, 0.5 / np.linalg.norm(x, axis=1, keepdims=True))
    assert np.std(o - clipped @ u) == pytest.approx(sigma, rel=0.02)


def test_clipped_rows_have_exact_norm_at_most_the_bound():
    """Rows scaled to norm r in floating point can come out a few ulps longer than r (about a
    third of these do when scaled to r itself); the clip aims a little lower, so none does."""
    rng = np.random.default_rng(5)
    for d in (3, 40, 784):
        x = rng.normal(size=(200, d)) * rng.uniform(0.5, 2.0, size=(200, 1))
        plain = x * (0.5 / np.linalg.norm(x, axis=1, keepdims=True))
        over = sum(_exact_norm_squared(row) > Fraction(1, 4) for row in plain)
        assert over > 0  # the float scaling alone overshoots
        for rows in (x, plain, plain * (1 - 1e-15)):
            clipped = clip_rows(rows, 0.5)
            assert all(_exact_norm_squared(row) <= Fraction(1, 4) for row in clipped)
            short = np.linalg.norm(rows, axis=1) < 0.49
            np.testing.assert_array_equal(clipped[short], rows[short])  # short rows stay as they are
        long = np.linalg.norm(x, axis=1) > 0.5
        np.testing.assert_allclose(np.linalg.norm(clip_rows(x, 0.5), axis=1)[long], 0.5, rtol=1e-12)


def _exact_norm_squared(row):
    return sum(Fraction(v) ** 2 for v in row)


def test_a_release_over_budget_draws_nothing():
    rng = np.random.default_rng(3)
    state = rng.bit_generator.state
    with pytest.raises(BudgetExceededError):
        slicing_release(np.ones((10, 5)), projections=50, sigma=0.1, row_norm=1.0, rng=rng,
                        ledger=_ledger(1.0), label="too little noise")
    assert rng.bit_generator.state == state


def _classes(rng, sizes):
    """Records of class c at 0.5 e_c (plus a little jitter), labels c, for each size."""
    labels = np.repeat(np.arange(len(sizes)), sizes)
    rows = 0.5 * np.eye(len(sizes) + 2)[labels] + rng.normal(0, 1e-3, (len(labels), len(sizes) + 2))
    return rows, labels


def test_per_class_releases_charge_two_slicing_curves_once():
    """One record that changes label touches two classes' releases: the curves of two."""
    rng = np.random.default_rng(4)
    rows, labels = _classes(rng, [300, 250, 400])
    ledger = _ledger(8.0)
    sigma = remaining_sigma(ledger, dim=5, projections=40, row_norm=0.5, touched=2)
    released = per_class_slicing_release(rows, labels, classes=3, per_class=200, projections=40,
                                         sigma=sigma, row_norm=0.5, rng=rng, ledger=ledger,
                                         label="three classes")
    (charge,) = ledger.charges
    np.testing.assert_array_equal(charge.curve,
                                  2 * slicing_rdp(ORDERS, sigma, dim=5, projections=40))
    assert ledger.spent_epsilon() == pytest.approx(8.0, rel=1e-9)
    assert ledger.spent_epsilon() <= 8.0
    assert remaining_sigma(_ledger(8.0), dim=5, projections=40, row_norm=0.5) < sigma
    for c, (u, o) in enumerate(released):  # each class's sample, with fresh directions
        assert u.shape == (5, 40) and o.shape == (200, 40)
        mean_row = np.linalg.lstsq(u.T, o.mean(axis=0), rcond=None)[0]
        np.testing.assert_allclose(mean_row, 0.5 * np.eye(5)[c], atol=6 * sigma / np.sqrt(200))
    assert not np.allclose(released[0][0], released[1][0])


def test_a_small_class_is_padded_with_zero_rows_and_add_remove_is_refused():
    """A class of 150 records released as 300 rows: half of them zero, so its mean row halves."""
    rng = np.random.default_rng(5)
    rows, labels = _classes(rng, [400, 150])
    ledger = _ledger(20.0)
    sigma = remaining_sigma(ledger, dim=4, projections=60, row_norm=0.5, touched=2)
    released = per_class_slicing_release(rows, labels, classes=2, per_class=300, projections=60,
                                         sigma=sigma, row_norm=0.5, rng=rng, ledger=ledger,
                                         label="x")
    u, o = released[1]
    assert o.shape == (300, 60)
    mean_row = np.linalg.lstsq(u.T, o.mean(axis=0), rcond=None)[0]
    np.testing.assert_allclose(mean_row, 0.25 * np.eye(4)[1], atol=6 * sigma / np.sqrt(300))
    add_remove = RdpLedger(RdpBudget(epsilon=1.0, delta=1e-5,
                                     relation=NeighbourRelation.ADD_REMOVE))
    with pytest.raises(ValueError, match="replace-one"):
        per_class_slicing_release(rows, labels, classes=2, per_class=5, projections=4,
                                  sigma=1.0, row_norm=0.5, rng=rng, ledger=add_remove,
                                  label="x")
    with pytest.raises(ValueError, match="codes 0 .. 0"):
        per_class_slicing_release(rows, labels, classes=1, per_class=5, projections=4,
                                  sigma=1.0, row_norm=0.5, rng=rng, ledger=_ledger(1.0),
                                  label="x")


def test_proposition_3_is_a_zcdp_release_and_its_calibration_meets_the_target():
    """alpha m / (2 sigma^2) is rho-zCDP with rho = m / (2 sigma^2): epsilon rho + 2 sqrt(rho
    log 1/delta) at the best order (the grid's best can only be a little above)."""
    sigma = projection_sigma(3.0, 1e-5, blocks=20)
    epsilon, _ = projection_epsilon(sigma, 1e-5, blocks=20)
    rho = 20 / (2 * sigma**2)
    assert epsilon <= 3.0
    assert rho + 2 * math.sqrt(rho * math.log(1e5)) == pytest.approx(3.0, rel=1e-3)


def _stream_ledger(epsilon=10.0):
    return RdpLedger(RdpBudget(epsilon=epsilon, delta=1e-5,
                               relation=NeighbourRelation.REPLACE_ONE))


def test_a_stream_charges_its_releases_once_as_amplified_slicing_curves():
    ledger = _stream_ledger()
    shape = {"records": 500, "dim": 6, "batch_size": 20, "steps": 40, "projections": 8,
             "row_norm": 1.0}
    sigma = remaining_stream_sigma(ledger, **shape)
    SlicingStream(**shape, sigma=sigma, ledger=ledger, label="stream")
    (charge,) = ledger.charges
    each = without_replacement_rdp(
        lambda a: slicing_rdp(a, sigma, dim=6, projections=8, distance=2.0), 20 / 500, ORDERS)
    np.testing.assert_array_equal(charge.curve, each)
    np.testing.assert_array_equal(
        charge.curve, subsampled_slicing_rdp(ORDERS, sigma, dim=6, projections=8,
                                             rate=20 / 500, distance=2.0))
    assert charge.repeat == 40
    assert 10.0 * (1 - 1e-8) <= ledger.spent_epsilon() <= 10.0
    # a little less noise would not fit
    assert _stream_ledger().epsilon_after(
        subsampled_slicing_rdp(ORDERS, sigma * (1 - 1e-6), dim=6, projections=8,
                               rate=20 / 500, distance=2.0), 40) > 10.0


def test_a_stream_releases_fresh_batches_until_its_charge_runs_out():
    ledger = _stream_ledger(epsilon=50.0)
    stream = SlicingStream(100, dim=3, batch_size=10, steps=2, projections=4, sigma=5.0,
                           row_norm=1.0, ledger=ledger, label="two steps")
    records = np.random.default_rng(1).normal(size=(100, 3)) * 10
    seen = []

    def features(batch):
        seen.append(batch)
        return records[batch]

    rng = np.random.default_rng(0)
    directions, released = stream.release(features, rng)
    assert directions.shape == (3, 4) and released.shape == (10, 4)
    assert len(set(seen[0])) == 10  # without replacement
    stream.release(features, rng)
    assert not np.array_equal(np.sort(seen[0]), np.sort(seen[1]))
    with pytest.raises(BudgetExceededError, match="every release"):
        stream.release(features, rng)
    assert len(ledger.charges) == 1


def test_a_stream_refuses_add_remove_whole_datasets_and_wrong_features():
    with pytest.raises(ValueError, match="replace-one"):
        SlicingStream(100, dim=3, batch_size=10, steps=2, projections=4, sigma=5.0,
                      row_norm=1.0, label="x", ledger=RdpLedger(RdpBudget(
                          epsilon=5.0, delta=1e-5, relation=NeighbourRelation.ADD_REMOVE)))
    with pytest.raises(ValueError, match="below the records"):
        SlicingStream(10, dim=3, batch_size=10, steps=2, projections=4, sigma=5.0,
                      row_norm=1.0, ledger=_stream_ledger(), label="x")
    stream = SlicingStream(100, dim=3, batch_size=10, steps=2, projections=4, sigma=5.0,
                           row_norm=1.0, ledger=_stream_ledger(50.0), label="x")
    with pytest.raises(ValueError, match=r"\(10 x 3\)"):
        stream.release(lambda batch: np.zeros((10, 2)), np.random.default_rng(0))


def test_too_many_releases_cannot_fit_a_small_budget_whatever_the_noise():
    with pytest.raises(BudgetExceededError, match="however large the noise"):
        remaining_stream_sigma(_stream_ledger(epsilon=1.0), records=1000, dim=10,
                               batch_size=100, steps=5000, projections=10, row_norm=1.0)


def test_a_padded_sample_puts_its_zero_rows_in_uniformly_random_places():
    """With the zero rows always last, a record leaving a class would move two rows of its sample
    (the proposition's coupling needs one): the padding is shuffled in with the records."""
    from reprolib.privacy._slicing import _padded

    rows = np.arange(1.0, 4.0)[:, None] * np.ones((3, 2))  # three distinct non-zero rows
    rng = np.random.default_rng(0)
    draws = np.array([_padded(rows, 6, rng) for _ in range(3000)])
    zero = np.all(draws == 0.0, axis=2)
    np.testing.assert_allclose(zero.mean(axis=0), 0.5, atol=0.04)  # every place, half the time
    assert np.all(zero.sum(axis=1) == 3)
    for draw in draws[:20]:  # the records themselves are kept
        np.testing.assert_array_equal(np.sort(draw[draw[:, 0] > 0, 0]), [1.0, 2.0, 3.0])
    assert _padded(rows, 3, rng) is rows  # a full sample is left as drawn


def test_a_release_refuses_add_remove_neighbours():
    """One output row per record releases the count, which add/remove neighbours differ in."""
    ledger = RdpLedger(RdpBudget(epsilon=10.0, delta=1e-5, relation=NeighbourRelation.ADD_REMOVE))
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="REPLACE_ONE"):
        slicing_release(np.ones((10, 5)), projections=4, sigma=5.0, row_norm=0.5, rng=rng,
                        ledger=ledger, label="x")
    assert not ledger.charges
