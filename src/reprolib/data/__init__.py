"""Data layer: domains, integer-coded datasets, raw tables, images, and the dataset registry.

Data files are read from a data directory (:func:`data_dir`), checked against recorded
SHA-256 sums, and never copied into the repository.
"""

from reprolib.data._containers import ColumnKind, ImageSet, RawTable
from reprolib.data._discretise import ColumnCoding, Discretisation, discretise, fit_discretisation
from reprolib.data._domain import Dataset, Domain
from reprolib.data._errors import DataError
from reprolib.data._folktables import ACS_TASKS, AcsSchema, acs_schema, load_acs_task
from reprolib.data._info import DatasetInfo, DatasetKind
from reprolib.data._loaders_tables import SDNIST_EXCERPTS, sdnist_discretisation
from reprolib.data._paths import DATA_DIR_ENV, data_dir, user_cache_dir, verify_file
from reprolib.data._registry import dataset_info, list_datasets, load_dataset
from reprolib.data.privpgd import (
    PRIVPGD_DATASETS,
    PrivPGDData,
    PrivPGDDataset,
    load_privpgd_dataset,
    privpgd_data_claims,
    privpgd_discretisation,
)

__all__ = [
    "ACS_TASKS",
    "DATA_DIR_ENV",
    "PRIVPGD_DATASETS",
    "SDNIST_EXCERPTS",
    "AcsSchema",
    "ColumnCoding",
    "ColumnKind",
    "DataError",
    "Dataset",
    "DatasetInfo",
    "DatasetKind",
    "Discretisation",
    "Domain",
    "ImageSet",
    "PrivPGDData",
    "PrivPGDDataset",
    "RawTable",
    "acs_schema",
    "data_dir",
    "dataset_info",
    "discretise",
    "fit_discretisation",
    "list_datasets",
    "load_acs_task",
    "load_dataset",
    "load_privpgd_dataset",
    "privpgd_data_claims",
    "privpgd_discretisation",
    "sdnist_discretisation",
    "user_cache_dir",
    "verify_file",
]
