"""PrivPGD's reported numbers: Tables 1-6 of Donhauser et al. (ICML 2024, Appendix C), as data.

Each table holds, per dataset and mechanism, the mean over 5 runs (2 significant digits, no
standard deviations) of the errors of Section 4.1 at one epsilon, with delta = 1e-5:
Tables 1-2 at epsilon 2.5, 3-4 at 1.0, 5-6 at 0.2; odd tables the five ACS datasets, even tables
Taxi, Black Friday, Medical and Diabetes. The arXiv version prints the same numbers.

Conventions of the columns (all errors, smaller is better):

- ``downstream_error``: test error of gradient boosting trained on the synthetic data (0-1 error
  for classification, MSE of the target's bin index for the regression datasets taxi, blackfriday
  and medical); ``downstream_error_real``: the same trained on the private data (the table's
  "synthetic/original" cell split in two).
- ``covariance_error``, ``counting_error``, ``thresholding_error``: Section 4.1, metrics 2-4
  (relative errors, Eq. 9 for the queries).
- ``sw1``: average SW1 distance over all 2-way marginals of the embedded data (Eq. 10).
- ``l1``: the column the paper calls "TV distance". It is the average **L1** distance over all
  2-way marginals, i.e. 2 x the TV distance of Eq. 11: the values exceed 1 (GEM on medical shows
  1.4), which a TV distance cannot.
"""

from __future__ import annotations

import io
from types import MappingProxyType

import numpy as np
import pandas as pd

__all__ = [
    "FIGURE_METRICS",
    "MECHANISMS",
    "PAPER_LABELS",
    "REPORTED_EPSILONS",
    "reported_log2_ratios",
    "reported_results",
]

#: Our dataset ids and the paper's abbreviations of them, in the tables' order.
PAPER_LABELS: MappingProxyType[str, str] = MappingProxyType({
    "employment": "Emp.", "income": "Inc.", "traveltime": "Tra.", "publiccoverage": "Pub.",
    "mobility": "Mob.", "taxi": "Taxi", "blackfriday": "Fri.", "medical": "Med.",
    "diabetes": "Diab.",
})
#: The mechanisms of the tables, in their order (GEM and RAP have no employment rows).
MECHANISMS = ("PrivPGD", "PGM+AIM", "PGM+MST", "Private GSD", "GEM", "RAP")
#: The epsilons of Tables 1-2, 3-4 and 5-6.
REPORTED_EPSILONS = (2.5, 1.0, 0.2)
#: The metrics the paper's Figures 1/4/5 (first four) and 2/6/7 (last two) plot as log2 ratios.
FIGURE_METRICS = ("downstream_error", "covariance_error", "counting_error", "thresholding_error",
                  "sw1", "l1")
DELTA = 1e-5

# Tables 1-6 as printed in the ICML text (checked number by number by the tests).
_TABLES_CSV = """\
table,epsilon,dataset,mechanism,downstream_error,downstream_error_real,covariance_error,counting_error,thresholding_error,sw1,l1
1,2.5,employment,PrivPGD,0.19,0.19,0.02,0.00087,0.00043,0.00054,0.021
1,2.5,employment,PGM+AIM,0.19,0.19,0.04,0.0025,0.0026,0.0019,0.026
1,2.5,employment,PGM+MST,0.33,0.19,0.27,0.012,0.0075,0.0087,0.1
1,2.5,employment,Private GSD,0.2,0.19,0.0083,0.0013,0.00073,0.00059,0.013
1,2.5,income,PrivPGD,0.19,0.19,0.001,0.00078,0.00031,0.00043,0.028
1,2.5,income,PGM+AIM,0.19,0.19,0.014,0.0017,0.00034,0.0017,0.034
1,2.5,income,PGM+MST,0.24,0.19,0.051,0.0077,0.0024,0.0054,0.11
1,2.5,income,Private GSD,0.2,0.19,0.0049,0.0017,0.00083,0.00093,0.045
1,2.5,income,GEM,0.22,0.19,0.047,0.01,0.0038,0.0099,0.17
1,2.5,income,RAP,0.2,0.19,0.0078,0.0017,0.00056,0.0011,0.037
1,2.5,traveltime,PrivPGD,0.37,0.34,0.0026,0.00065,0.00014,0.00049,0.027
1,2.5,traveltime,PGM+AIM,0.37,0.34,0.037,0.0023,0.00031,0.0019,0.035
1,2.5,traveltime,PGM+MST,0.46,0.34,0.091,0.0058,0.00032,0.0038,0.061
1,2.5,traveltime,Private GSD,0.38,0.34,0.011,0.0017,0.00037,0.00072,0.033
1,2.5,traveltime,GEM,0.4,0.34,0.048,0.0052,0.0011,0.0041,0.076
1,2.5,traveltime,RAP,0.38,0.34,0.015,0.0019,0.00047,0.0014,0.036
1,2.5,publiccoverage,PrivPGD,0.28,0.27,0.06,0.00097,0.00033,0.00094,0.037
1,2.5,publiccoverage,PGM+AIM,0.32,0.27,0.1,0.0051,0.0012,0.0042,0.048
1,2.5,publiccoverage,PGM+MST,0.35,0.27,0.41,0.01,0.00074,0.0088,0.092
1,2.5,publiccoverage,Private GSD,0.3,0.27,0.012,0.0016,0.00015,0.00057,0.013
1,2.5,publiccoverage,GEM,0.29,0.27,0.035,0.0031,0.00042,0.0019,0.029
1,2.5,publiccoverage,RAP,0.29,0.27,0.02,0.0015,0.00054,0.0012,0.02
1,2.5,mobility,PrivPGD,0.23,0.22,0.0091,0.0014,0.00051,0.0011,0.056
1,2.5,mobility,PGM+AIM,0.23,0.22,0.05,0.0029,0.00036,0.0025,0.035
1,2.5,mobility,PGM+MST,0.24,0.22,0.29,0.0088,0.005,0.0095,0.096
1,2.5,mobility,Private GSD,0.24,0.22,0.0092,0.0013,0.00068,0.00055,0.015
1,2.5,mobility,GEM,0.24,0.22,0.063,0.0074,0.0022,0.006,0.082
1,2.5,mobility,RAP,0.23,0.22,0.016,0.0014,0.00066,0.0013,0.022
2,2.5,taxi,PrivPGD,2.3,2.2,0.00048,0.00051,0.00011,0.00027,0.02
2,2.5,taxi,PGM+AIM,2.3,2.2,0.0013,0.00066,0.00011,0.0005,0.016
2,2.5,taxi,PGM+MST,2.3,2.2,0.0029,0.0011,0.0002,0.00058,0.028
2,2.5,taxi,Private GSD,2.3,2.2,0.004,0.0019,0.00061,0.00093,0.064
2,2.5,taxi,GEM,2.7,2.2,0.079,0.016,0.0037,0.018,0.36
2,2.5,taxi,RAP,2.3,2.2,0.0065,0.0021,0.0005,0.0013,0.078
2,2.5,blackfriday,PrivPGD,1.5,1.4,0.00097,0.00064,0.00053,0.00033,0.015
2,2.5,blackfriday,PGM+AIM,1.5,1.4,0.0014,0.00064,0.00058,0.00054,0.011
2,2.5,blackfriday,PGM+MST,1.5,1.4,0.0057,0.0027,0.0008,0.0014,0.047
2,2.5,blackfriday,Private GSD,1.7,1.4,0.0032,0.0015,0.00083,0.0006,0.021
2,2.5,blackfriday,GEM,2.8,1.4,0.031,0.0066,0.0016,0.009,0.16
2,2.5,blackfriday,RAP,1.5,1.4,0.0038,0.0018,0.00075,0.0011,0.034
2,2.5,medical,PrivPGD,2.2,2.1,0.00014,0.0012,0.00013,0.00036,0.023
2,2.5,medical,PGM+AIM,2.1,2.1,0.00066,0.0012,0.00034,0.00076,0.013
2,2.5,medical,PGM+MST,2.1,2.1,0.00061,0.0012,0.00035,0.0007,0.017
2,2.5,medical,Private GSD,2.2,2.1,0.00013,0.0012,0.00014,0.00076,0.02
2,2.5,medical,GEM,75,2.1,0.11,0.1,0.054,0.22,1.4
2,2.5,medical,RAP,4.5,2.1,0.0048,0.013,0.0023,0.007,0.062
2,2.5,diabetes,PrivPGD,0.4,0.4,0.0013,0.0013,0.00042,0.00084,0.028
2,2.5,diabetes,PGM+AIM,0.4,0.4,0.0045,0.0025,0.0015,0.0022,0.028
2,2.5,diabetes,PGM+MST,0.41,0.4,0.0047,0.0083,0.00029,0.0017,0.045
2,2.5,diabetes,Private GSD,0.41,0.4,0.0017,0.0017,0.00026,0.00067,0.026
2,2.5,diabetes,GEM,0.41,0.4,0.042,0.032,0.0084,0.032,0.23
2,2.5,diabetes,RAP,0.41,0.4,0.0034,0.0021,0.00097,0.0025,0.041
3,1.0,employment,PrivPGD,0.19,0.19,0.0056,0.00077,0.00038,0.0006,0.027
3,1.0,employment,PGM+AIM,0.2,0.19,0.063,0.0036,0.004,0.0042,0.057
3,1.0,employment,PGM+MST,0.23,0.19,0.48,0.098,0.081,0.14,0.7
3,1.0,employment,Private GSD,0.2,0.19,0.008,0.0014,0.00076,0.00059,0.013
3,1.0,income,PrivPGD,0.19,0.19,0.0019,0.00092,0.00039,0.0006,0.042
3,1.0,income,PGM+AIM,0.19,0.19,0.014,0.0015,0.00042,0.0016,0.033
3,1.0,income,PGM+MST,0.24,0.19,0.052,0.0077,0.0024,0.0054,0.11
3,1.0,income,Private GSD,0.2,0.19,0.0061,0.0017,0.00089,0.00095,0.046
3,1.0,income,GEM,0.22,0.19,0.047,0.01,0.0037,0.0098,0.16
3,1.0,income,RAP,0.19,0.19,0.0074,0.0017,0.00054,0.001,0.041
3,1.0,traveltime,PrivPGD,0.37,0.34,0.0055,0.0011,0.00032,0.00091,0.05
3,1.0,traveltime,PGM+AIM,0.37,0.34,0.036,0.0027,0.00033,0.0022,0.042
3,1.0,traveltime,PGM+MST,0.44,0.34,0.073,0.0058,0.00017,0.0031,0.055
3,1.0,traveltime,Private GSD,0.38,0.34,0.011,0.0017,0.00028,0.00072,0.033
3,1.0,traveltime,GEM,0.4,0.34,0.048,0.0051,0.00091,0.004,0.074
3,1.0,traveltime,RAP,0.38,0.34,0.016,0.0019,0.0005,0.0016,0.041
3,1.0,publiccoverage,PrivPGD,0.28,0.27,0.011,0.0015,0.00061,0.0014,0.061
3,1.0,publiccoverage,PGM+AIM,0.28,0.27,0.058,0.0024,0.00041,0.0023,0.028
3,1.0,publiccoverage,PGM+MST,0.35,0.27,0.29,0.024,0.0092,0.04,0.21
3,1.0,publiccoverage,Private GSD,0.29,0.27,0.012,0.0014,0.00012,0.00055,0.013
3,1.0,publiccoverage,GEM,0.29,0.27,0.031,0.0029,0.00056,0.0017,0.025
3,1.0,publiccoverage,RAP,0.29,0.27,0.022,0.0018,0.00055,0.0014,0.023
3,1.0,mobility,PrivPGD,0.23,0.22,0.021,0.0029,0.00085,0.0026,0.13
3,1.0,mobility,PGM+AIM,0.23,0.22,0.054,0.0028,0.00051,0.0024,0.034
3,1.0,mobility,PGM+MST,0.24,0.22,0.13,0.0077,0.0027,0.013,0.093
3,1.0,mobility,Private GSD,0.24,0.22,0.0096,0.0012,0.00049,0.0006,0.016
3,1.0,mobility,GEM,0.24,0.22,0.062,0.0077,0.0021,0.0062,0.083
3,1.0,mobility,RAP,0.23,0.22,0.021,0.0018,0.00066,0.0017,0.031
4,1.0,taxi,PrivPGD,2.3,2.2,0.0013,0.00077,0.00018,0.00062,0.033
4,1.0,taxi,PGM+AIM,2.3,2.2,0.0014,0.00057,0.00011,0.00046,0.018
4,1.0,taxi,PGM+MST,2.3,2.2,0.003,0.0011,0.00018,0.00055,0.029
4,1.0,taxi,Private GSD,2.4,2.2,0.0043,0.0018,0.00055,0.00092,0.066
4,1.0,taxi,GEM,2.8,2.2,0.081,0.017,0.0045,0.021,0.36
4,1.0,taxi,RAP,2.3,2.2,0.0061,0.0021,0.00052,0.0014,0.08
4,1.0,blackfriday,PrivPGD,1.6,1.4,0.0022,0.00086,0.00053,0.00068,0.028
4,1.0,blackfriday,PGM+AIM,1.5,1.4,0.0016,0.00071,0.00056,0.00061,0.014
4,1.0,blackfriday,PGM+MST,1.5,1.4,0.0058,0.0027,0.00081,0.0015,0.049
4,1.0,blackfriday,Private GSD,1.6,1.4,0.0031,0.0015,0.00096,0.00065,0.024
4,1.0,blackfriday,GEM,2.8,1.4,0.031,0.0068,0.0014,0.0092,0.16
4,1.0,blackfriday,RAP,1.6,1.4,0.0048,0.002,0.00078,0.0016,0.046
4,1.0,medical,PrivPGD,2.4,2.1,0.00032,0.0015,0.00019,0.00061,0.03
4,1.0,medical,PGM+AIM,2.3,2.1,0.00076,0.0024,0.00053,0.00088,0.027
4,1.0,medical,PGM+MST,2.1,2.1,0.00088,0.0018,0.00051,0.001,0.023
4,1.0,medical,Private GSD,2.2,2.1,0.00041,0.0014,0.00024,0.00095,0.022
4,1.0,medical,GEM,75,2.1,0.11,0.1,0.054,0.22,1.4
4,1.0,medical,RAP,4.7,2.1,0.0051,0.013,0.0024,0.007,0.066
4,1.0,diabetes,PrivPGD,0.4,0.4,0.0033,0.0026,0.001,0.002,0.052
4,1.0,diabetes,PGM+AIM,0.4,0.4,0.0031,0.0019,0.0014,0.0019,0.03
4,1.0,diabetes,PGM+MST,0.41,0.4,0.0042,0.0067,0.00056,0.0019,0.045
4,1.0,diabetes,Private GSD,0.41,0.4,0.0036,0.0024,0.00096,0.0022,0.039
4,1.0,diabetes,GEM,0.41,0.4,0.04,0.031,0.0078,0.03,0.22
4,1.0,diabetes,RAP,0.41,0.4,0.0073,0.0043,0.002,0.0054,0.071
5,0.2,employment,PrivPGD,0.19,0.19,0.015,0.0022,0.00078,0.0023,0.11
5,0.2,employment,PGM+AIM,0.19,0.19,0.049,0.0027,0.0031,0.0024,0.035
5,0.2,employment,PGM+MST,0.23,0.19,0.1,0.0067,0.0047,0.0043,0.05
5,0.2,employment,Private GSD,0.2,0.19,0.0088,0.0014,0.00083,0.00063,0.014
5,0.2,income,PrivPGD,0.19,0.19,0.0098,0.0027,0.00086,0.0024,0.15
5,0.2,income,PGM+AIM,0.19,0.19,0.019,0.0025,0.00053,0.0022,0.048
5,0.2,income,PGM+MST,0.24,0.19,0.052,0.0077,0.0024,0.0056,0.11
5,0.2,income,Private GSD,0.2,0.19,0.0058,0.0018,0.0008,0.001,0.052
5,0.2,income,GEM,0.22,0.19,0.046,0.0099,0.0035,0.0096,0.16
5,0.2,income,RAP,0.2,0.19,0.011,0.0024,0.001,0.0019,0.072
5,0.2,traveltime,PrivPGD,0.38,0.34,0.027,0.0043,0.0012,0.004,0.19
5,0.2,traveltime,PGM+AIM,0.37,0.34,0.05,0.0028,0.00027,0.0024,0.048
5,0.2,traveltime,PGM+MST,0.44,0.34,0.07,0.0058,0.00018,0.003,0.057
5,0.2,traveltime,Private GSD,0.38,0.34,0.012,0.0019,0.00033,0.00097,0.041
5,0.2,traveltime,GEM,0.4,0.34,0.048,0.0051,0.00093,0.004,0.073
5,0.2,traveltime,RAP,0.39,0.34,0.026,0.003,0.00093,0.0033,0.074
5,0.2,publiccoverage,PrivPGD,0.29,0.27,0.048,0.0058,0.0021,0.0064,0.24
5,0.2,publiccoverage,PGM+AIM,0.29,0.27,0.1,0.0039,0.00093,0.0037,0.043
5,0.2,publiccoverage,PGM+MST,0.31,0.27,0.16,0.0062,0.00031,0.0045,0.05
5,0.2,publiccoverage,Private GSD,0.29,0.27,0.014,0.0017,0.0002,0.00085,0.019
5,0.2,publiccoverage,GEM,0.29,0.27,0.044,0.0039,0.00053,0.0025,0.035
5,0.2,publiccoverage,RAP,0.29,0.27,0.037,0.0033,0.0013,0.003,0.049
5,0.2,mobility,PrivPGD,0.24,0.22,0.085,0.014,0.003,0.011,0.46
5,0.2,mobility,PGM+AIM,0.23,0.22,0.14,0.0052,0.0019,0.0049,0.068
5,0.2,mobility,PGM+MST,0.24,0.22,0.12,0.006,0.0019,0.0037,0.054
5,0.2,mobility,Private GSD,0.24,0.22,0.018,0.0019,0.00076,0.0016,0.035
5,0.2,mobility,GEM,0.24,0.22,0.062,0.0076,0.0018,0.0058,0.078
5,0.2,mobility,RAP,0.24,0.22,0.048,0.0043,0.0012,0.0048,0.08
6,0.2,taxi,PrivPGD,2.4,2.2,0.0055,0.0025,0.00072,0.0026,0.11
6,0.2,taxi,PGM+AIM,2.3,2.2,0.0032,0.0011,0.00022,0.0013,0.037
6,0.2,taxi,PGM+MST,2.3,2.2,0.003,0.0014,0.0002,0.00087,0.046
6,0.2,taxi,Private GSD,2.4,2.2,0.0071,0.0022,0.00068,0.0015,0.087
6,0.2,taxi,GEM,2.8,2.2,0.082,0.017,0.0042,0.02,0.36
6,0.2,taxi,RAP,2.4,2.2,0.011,0.0036,0.00086,0.0036,0.17
6,0.2,blackfriday,PrivPGD,2.5,1.4,0.011,0.0031,0.00071,0.0031,0.11
6,0.2,blackfriday,PGM+AIM,1.5,1.4,0.0048,0.0015,0.00061,0.0015,0.036
6,0.2,blackfriday,PGM+MST,1.6,1.4,0.0069,0.003,0.00082,0.0021,0.065
6,0.2,blackfriday,Private GSD,1.8,1.4,0.0077,0.0023,0.00088,0.0023,0.061
6,0.2,blackfriday,GEM,2.8,1.4,0.031,0.0065,0.0014,0.0083,0.15
6,0.2,blackfriday,RAP,2.1,1.4,0.017,0.0042,0.001,0.0055,0.12
6,0.2,medical,PrivPGD,3,2.1,0.0013,0.0048,0.00082,0.0024,0.076
6,0.2,medical,PGM+AIM,3.1,2.1,0.0027,0.013,0.0018,0.0033,0.12
6,0.2,medical,PGM+MST,2.2,2.1,0.0026,0.0053,0.0013,0.0031,0.055
6,0.2,medical,Private GSD,2.3,2.1,0.0028,0.0078,0.0017,0.0067,0.056
6,0.2,medical,GEM,76,2.1,0.11,0.1,0.054,0.21,1.4
6,0.2,medical,RAP,4.1,2.1,0.0084,0.018,0.0039,0.01,0.1
6,0.2,diabetes,PrivPGD,0.42,0.4,0.01,0.013,0.0045,0.0082,0.17
6,0.2,diabetes,PGM+AIM,0.41,0.4,0.011,0.0085,0.0042,0.0056,0.071
6,0.2,diabetes,PGM+MST,0.41,0.4,0.012,0.01,0.0044,0.008,0.1
6,0.2,diabetes,Private GSD,0.41,0.4,0.014,0.0083,0.0041,0.011,0.12
6,0.2,diabetes,GEM,0.41,0.4,0.043,0.033,0.0076,0.032,0.23
6,0.2,diabetes,RAP,0.42,0.4,0.021,0.014,0.0061,0.018,0.19
"""


def reported_results() -> pd.DataFrame:
    """Tables 1-6, one row per (table, dataset, mechanism).

    Columns: ``table`` (1-6), ``epsilon``, ``delta`` (1e-5), ``dataset`` (our ids, see
    :data:`PAPER_LABELS`), ``mechanism`` (:data:`MECHANISMS`), then the errors
    ``downstream_error``, ``downstream_error_real``, ``covariance_error``, ``counting_error``,
    ``thresholding_error``, ``sw1`` and ``l1`` (L1 = 2 TV; the paper's "TV distance" column).
    """
    frame = pd.read_csv(io.StringIO(_TABLES_CSV))
    frame.insert(2, "delta", DELTA)
    return frame


def reported_log2_ratios(epsilon: float) -> pd.DataFrame:
    """log2(mechanism's table mean / PrivPGD's table mean), per dataset, mechanism and metric.

    What Figures 1-2 (epsilon 2.5), 4 and 6 (1.0) and 5 and 7 (0.2) show, as far as the tables
    allow: the figures average log2 ratios of single runs, the tables give only rounded means, so
    these are approximations (about +-0.1-0.2). Positive means PrivPGD is better; PrivPGD's own
    rows are 0. Metrics: :data:`FIGURE_METRICS`.

    Returns:
        Tidy frame with columns ``dataset``, ``mechanism``, ``metric``, ``log2_ratio``.
    """
    tables = reported_results()
    tables = tables[np.isclose(tables["epsilon"], epsilon)]
    if tables.empty:
        raise ValueError(f"The paper reports no tables at epsilon = {epsilon}; "
                         f"choose one of {REPORTED_EPSILONS}.")
    long = tables.melt(id_vars=["dataset", "mechanism"], value_vars=list(FIGURE_METRICS),
                       var_name="metric", value_name="error")
    reference = long[long["mechanism"] == "PrivPGD"].set_index(["dataset", "metric"])["error"]
    denominator = reference.reindex(pd.MultiIndex.from_frame(long[["dataset", "metric"]]))
    long["log2_ratio"] = np.log2(long["error"].to_numpy() / denominator.to_numpy())
    return long.drop(columns="error").reset_index(drop=True)
