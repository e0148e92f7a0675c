"""Data layer: domains, integer-coded datasets, raw tables, images, and the dataset registry.

Data files are read from a data directory (:func:`data_dir`), checked against recorded
SHA-256 sums, and never copied into the repository.
"""

from reprolib.data._acs_stand_ins import (
    ACS_STAND_INS,
    SDNIST_NUMERICAL,
    acs_stand_in,
    acs_stand_in_coding,
    acs_stand_in_text,
    sdnist_bounds,
)
from reprolib.data._containers import ColumnKind, ImageSet, RawTable
from reprolib.data._discretise import ColumnCoding, Discretisation, discretise, fit_discretisation
from reprolib.data._domain import Dataset, Domain, cell_index
from reprolib.data._embedding import bin_centres, embed, embed_codes
from reprolib.data._errors import DataError
from reprolib.data._folktables import (
    ACS_BOUNDS,
    ACS_NUMERICAL,
    ACS_TASKS,
    LABEL,
    AcsSchema,
    acs_schema,
    load_acs_persons,
    load_acs_task,
)
from reprolib.data._info import DatasetInfo, DatasetKind
from reprolib.data._loaders_tables import SDNIST_EXCERPTS, sdnist_discretisation
from reprolib.data._mixed import DataBoundsWarning, MixedCoding, MixedDataset, MixedDomain
from reprolib.data._paths import DATA_DIR_ENV, data_dir, user_cache_dir, verify_file
from reprolib.data._registry import dataset_info, list_datasets, load_dataset

__all__ = [
    "ACS_BOUNDS",
    "ACS_NUMERICAL",
    "ACS_STAND_INS",
    "ACS_TASKS",
    "DATA_DIR_ENV",
    "LABEL",
    "SDNIST_EXCERPTS",
    "SDNIST_NUMERICAL",
    "AcsSchema",
    "ColumnCoding",
    "ColumnKind",
    "DataBoundsWarning",
    "DataError",
    "Dataset",
    "DatasetInfo",
    "DatasetKind",
    "Discretisation",
    "Domain",
    "ImageSet",
    "MixedCoding",
    "MixedDataset",
    "MixedDomain",
    "RawTable",
    "acs_schema",
    "acs_stand_in",
    "acs_stand_in_coding",
    "acs_stand_in_text",
    "bin_centres",
    "cell_index",
    "data_dir",
    "dataset_info",
    "discretise",
    "embed",
    "embed_codes",
    "fit_discretisation",
    "list_datasets",
    "load_acs_persons",
    "load_acs_task",
    "load_dataset",
    "sdnist_bounds",
    "sdnist_discretisation",
    "user_cache_dir",
    "verify_file",
]
