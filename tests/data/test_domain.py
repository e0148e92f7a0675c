import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reprolib.data import DataError, Dataset, Domain


@pytest.fixture
def small() -> Dataset:
    domain = Domain.from_dict({"a": 3, "b": 2, "c": 4})
    frame = pd.DataFrame({"a": [0, 1, 2, 2, 0], "b": [1, 1, 0, 1, 1], "c": [3, 0, 0, 3, 3]})
    return Dataset(frame, domain)


def test_domain_basics():
    domain = Domain.from_dict({"x": 2, "y": 5, "z": 3})
    assert domain.attributes == ("x", "y", "z")
    assert domain.size("y") == 5
    assert domain.total_size == 30 and isinstance(domain.total_size, int)
    assert len(domain) == 3 and "z" in domain and "w" not in domain
    assert domain.project(["z", "x"]) == Domain(("z", "x"), (3, 2))
    assert domain.project("y").sizes == (5,)
    assert domain.as_dict() == {"x": 2, "y": 5, "z": 3}


def test_total_size_is_exact_for_huge_domains():
    domain = Domain(tuple(f"c{i}" for i in range(100)), (1000,) * 100)
    assert domain.total_size == 1000**100


@pytest.mark.parametrize(
    ("attributes", "sizes", "message"),
    [
        (("a", "b"), (2,), "2 attributes but 1 sizes"),
        (("a", "a"), (2, 3), "unique"),
        (("a", "b"), (2, 0), "'b': 0"),
    ],
)
def test_domain_rejects_bad_input(attributes, sizes, message):
    with pytest.raises(ValueError, match=message):
        Domain(attributes, sizes)


def test_domain_unknown_attribute_lists_known():
    with pytest.raises(KeyError, match=r"'q'.*\['x', 'y'\]"):
        Domain.from_dict({"x": 2, "y": 3}).project(["q"])


def test_dataset_value_outside_domain_names_column_value_and_count():
    frame = pd.DataFrame({"a": [0, 5, 5, 1], "b": [0, 0, 1, 1]})
    with pytest.raises(DataError, match=r"'a' in data.csv has value 5 in 2 rows.*\[0, 3\)"):
        Dataset(frame, Domain.from_dict({"a": 3, "b": 2}), source="data.csv")


def test_dataset_negative_value():
    frame = pd.DataFrame({"a": [0, -1]})
    with pytest.raises(DataError, match="value -1"):
        Dataset(frame, Domain.from_dict({"a": 3}))


def test_dataset_unknown_column():
    frame = pd.DataFrame({"a": [0], "extra": [0]})
    with pytest.raises(DataError, match=r"unknown \['extra'\]"):
        Dataset(frame, Domain.from_dict({"a": 3}))


def test_dataset_wrong_dtype():
    frame = pd.DataFrame({"a": [0.0, 1.0]})
    with pytest.raises(DataError, match="'a' has dtype float64"):
        Dataset(frame, Domain.from_dict({"a": 3}))


def test_dataset_missing_values():
    frame = pd.DataFrame({"a": [0.0, np.nan]})
    with pytest.raises(DataError, match="1 missing values"):
        Dataset(frame, Domain.from_dict({"a": 3}))


def test_marginal_matches_hand_count(small):
    ab = small.marginal(["a", "b"])
    assert ab.shape == (3, 2) and ab.dtype == np.float64
    np.testing.assert_array_equal(ab, [[0, 2], [0, 1], [1, 1]])
    np.testing.assert_array_equal(small.marginal(["b", "a"]), ab.T)
    assert small.marginal([]) == 5.0


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_marginal_matches_brute_force(data):
    sizes = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))
    n = data.draw(st.integers(0, 40))
    domain = Domain(tuple(f"c{i}" for i in range(len(sizes))), tuple(sizes))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    frame = pd.DataFrame({a: rng.integers(0, s, n) for a, s in zip(domain.attributes, sizes, strict=False)})
    dataset = Dataset(frame, domain)
    names = data.draw(st.permutations(domain.attributes))[: data.draw(st.integers(1, len(sizes)))]
    counts = dataset.marginal(names)
    for cell in itertools.product(*(range(domain.size(a)) for a in names)):
        expected = sum(all(row[a] == v for a, v in zip(names, cell, strict=False)) for _, row in frame.iterrows())
        assert counts[cell] == expected


def test_marginal_of_narrow_integer_columns_indexes_beyond_their_range():
    # uint8 and int16 codes whose joint cell index exceeds both types' ranges
    domain = Domain(("a", "b", "c"), (250, 300, 7))
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({
        "a": rng.integers(0, 250, 5000).astype(np.uint8),
        "b": rng.integers(0, 300, 5000).astype(np.int16),
        "c": rng.integers(0, 7, 5000).astype(np.int8),
    })
    counts = Dataset(frame, domain).marginal(["c", "a", "b"])
    flat = np.ravel_multi_index(tuple(frame[n].to_numpy() for n in "cab"), (7, 250, 300))
    np.testing.assert_array_equal(counts.ravel(), np.bincount(flat, minlength=7 * 250 * 300))


def test_project_keeps_given_order(small):
    projected = small.project(["c", "a"])
    assert projected.domain.attributes == ("c", "a")
    assert list(projected.frame.columns) == ["c", "a"]
    assert projected.records == 5


@pytest.mark.filterwarnings("ignore::UserWarning")  # mbi's advice on JAX settings at import
def test_to_mbi_round_trip(small):
    converted = small.to_mbi()
    assert converted.domain.attributes == small.domain.attributes
    assert tuple(converted.domain.shape) == small.domain.sizes
    assert converted.records == small.records
    np.testing.assert_array_equal(
        converted.datavector(flatten=False), small.marginal(small.domain.attributes)
    )
