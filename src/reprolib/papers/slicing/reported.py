"""The numbers the slicing paper prints, as data for the pages and the checks."""

from __future__ import annotations

# Table 2 (Appendix C): records, columns, categorical and numerical columns of the five ACS CA
# 2018 tasks, the binary outcome column not counted.
TABLE_2 = {
    "income": (195_665, 10, 8, 2),
    "coverage": (138_554, 19, 17, 2),
    "mobility": (80_329, 21, 19, 2),
    "employment": (378_817, 16, 15, 1),
    "traveltime": (172_508, 16, 14, 2),
}
TABLE_2_COLUMNS = ("records", "columns", "categorical", "numerical")
