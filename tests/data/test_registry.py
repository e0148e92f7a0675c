import numpy as np
import pytest

from reprolib.data import (
    Dataset,
    ImageSet,
    RawTable,
    acs_schema,
    dataset_info,
    list_datasets,
    load_dataset,
    sdnist_discretisation,
)

# AIM paper, Table 2: records, attributes, smallest and largest domain size.
AIM_TABLE_2 = {
    "aim/adult": (48_842, 15, 2, 42),
    "aim/salary": (135_727, 9, 3, 501),
    "aim/msnbc": (989_818, 16, 18, 18),
    "aim/fire": (305_119, 15, 2, 46),
    "aim/nltcs": (21_574, 16, 2, 2),
    "aim/titanic": (1_304, 9, 2, 91),
}
# Records and columns of the other offline datasets (data/PROVENANCE.md).
SHAPES = {
    "pgm/adult": (48_842, 14),
    "nist/fire": (305_119, 30),
    "nist/msnbc": (989_818, 16),
    "nist/loans": (42_535, 48),
    "nist/stroke": (19_434, 110),
    "privmrf/acs": (47_461, 23),
    "privmrf/br2000": (38_000, 14),
    "privmrf/nltcs": (21_574, 16),
    "sdnist/national2018": (27_111, 24),
    "sdnist/national2019": (27_253, 24),
    "sdnist/ma2018": (7_244, 24),
    "sdnist/ma2019": (7_634, 24),
    "sdnist/tx2018": (8_775, 24),
    "sdnist/tx2019": (9_276, 24),
    "diabetes130/raw": (101_766, 48),
    "medical-charges/raw": (163_065, 11),
    "usps/train": (7_291, 256),
    "usps/test": (2_007, 256),
    "mnist/test": (10_000, 784),
}
SHAPES |= {f"{name}-discrete": (rows, 22) for name, (rows, _) in SHAPES.items() if "sdnist" in name}
SHAPES |= {name: (rows, cols) for name, (rows, cols, _, _) in AIM_TABLE_2.items()}
OFFLINE = sorted(set(SHAPES) - {"aim/msnbc", "nist/msnbc"})
KIND_TYPE = {"discrete": Dataset, "raw": RawTable, "images": ImageSet}


def test_registry_names_are_unique_and_typed():
    infos = list_datasets()
    assert len({info.name for info in infos}) == len(infos)
    assert set(SHAPES) | {
        f"acs/{t}" for t in ("income", "employment", "public_coverage", "mobility", "travel_time")
    } == {info.name for info in infos}
    for info in infos:
        assert info.kind in KIND_TYPE and info.source and info.license and info.description


def test_unknown_name_suggests_close_match():
    with pytest.raises(KeyError, match=r"Did you mean 'aim/adult'.*Known datasets: aim/adult"):
        dataset_info("aim/adlt")


@pytest.fixture(scope="module")
def msnbc(shared_data) -> Dataset:
    return load_dataset("aim/msnbc", data_dir=shared_data)


def _shape(data) -> tuple[int, int]:
    return data.features.shape if isinstance(data, ImageSet) else data.frame.shape


@pytest.mark.parametrize("name", OFFLINE)
def test_dataset_loads_with_documented_shape(shared_data, name):
    data = load_dataset(name, data_dir=shared_data)
    assert isinstance(data, KIND_TYPE[dataset_info(name).kind])
    assert _shape(data) == SHAPES[name]


def test_nist_msnbc_equals_aim_msnbc(shared_data, msnbc):
    nist = load_dataset("nist/msnbc", data_dir=shared_data)
    assert nist.domain == msnbc.domain
    np.testing.assert_array_equal(
        nist.marginal(["site_0", "site_1"]), msnbc.marginal(["site_0", "site_1"])
    )


@pytest.mark.parametrize("name", sorted(AIM_TABLE_2))
def test_aim_table_2(shared_data, msnbc, name):
    data = msnbc if name == "aim/msnbc" else load_dataset(name, data_dir=shared_data)
    records, attributes, smallest, largest = AIM_TABLE_2[name]
    assert (data.records, len(data.domain)) == (records, attributes)
    assert (min(data.domain.sizes), max(data.domain.sizes)) == (smallest, largest)
    assert data.marginal([data.domain.attributes[0]]).sum() == records


def test_usps_class_counts(shared_data):
    train = load_dataset("usps/train", data_dir=shared_data)
    test = load_dataset("usps/test", data_dir=shared_data)
    assert train.image_shape == (16, 16) and train.images().shape == (7_291, 16, 16)
    np.testing.assert_array_equal(
        np.bincount(train.labels), [1194, 1005, 731, 658, 652, 556, 664, 645, 542, 644]
    )
    np.testing.assert_array_equal(
        np.bincount(test.labels), [359, 264, 198, 166, 200, 160, 170, 147, 166, 177]
    )


def test_mnist_test_scaled(shared_data):
    mnist = load_dataset("mnist/test", data_dir=shared_data)
    assert mnist.features.dtype == np.float32
    assert mnist.features.min() == 0.0 and mnist.features.max() == 1.0
    assert np.bincount(mnist.labels)[1] == 1135


def test_sdnist_not_applicable_marker(shared_data):
    raw = load_dataset("sdnist/ma2018", data_dir=shared_data)
    assert raw.kinds["PINCP"] == "numerical" and raw.kinds["MSP"] == "categorical"
    assert raw.frame["PINCP"].isna().any()  # 'N' -> NaN in numerical columns
    assert (raw.frame["MSP"] == "N").any()  # 'N' stays a category in categorical columns
    coding = sdnist_discretisation("ma2018", data_dir=shared_data)
    discrete = load_dataset("sdnist/ma2018-discrete", data_dir=shared_data)
    assert discrete.domain == coding.domain
    assert discrete.domain.size("PINCP") == 33 and "PWGTP" not in discrete.domain
    assert coding.columns[discrete.domain.attributes.index("PINCP")].labels()[-1] == "missing"


def test_tables_targets_and_parsing(shared_data):
    diabetes = load_dataset("diabetes130/raw", data_dir=shared_data)
    assert diabetes.target == "readmitted" and diabetes.frame["weight"].isna().sum() == 98_569
    charges = load_dataset("medical-charges/raw", data_dir=shared_data)
    assert charges.frame["Average Total Payments"].dtype == np.float64
    assert charges.target is None


def test_acs_schema_names_features(shared_data):
    schema = acs_schema("income", data_dir=shared_data)
    assert schema.domain.attributes[:2] == ("AGEP", "COW")
    assert schema.domain.size("label") == 2 and schema.domain.size("AGEP") == 32
    assert len(schema.bin_centres["WKHP"]) == 32
    assert np.all(np.diff(schema.bin_centres["AGEP"]) > 0)
