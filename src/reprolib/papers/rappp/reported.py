"""The numbers the RAP++ paper prints (Tables 1 and 3), as data for the pages and the checks."""

from __future__ import annotations

# Table 1: categorical features (the label included), numerical features, and rows per state.
TABLE_1 = {
    "income": (9, 9, {"NY": 100513, "CA": 183941, "TX": 127039, "FL": 91438, "PA": 66540}),
    "employment": (18, 10, {"NY": 196276, "CA": 372553, "TX": 254883, "FL": 192673,
                            "PA": 127859}),
    "coverage": (19, 10, {"NY": 74985, "CA": 152676, "TX": 100949, "FL": 75715, "PA": 48341}),
    "travel": (13, 9, {"NY": 88035, "CA": 160265, "TX": 111545, "FL": 80314, "PA": 58060}),
    "mobility": (20, 10, {"NY": 40173, "CA": 78900, "TX": 50962, "FL": 32997, "PA": 23824}),
}
# Table 3: F1 of a linear model on the ACS-NY multitask data, categorical columns only / all.
TABLE_3 = {"income": (0.77, 0.93), "employment": (1.0, 1.0), "coverage": (0.77, 0.82),
           "travel": (0.78, 0.79), "mobility": (0.57, 0.58)}
