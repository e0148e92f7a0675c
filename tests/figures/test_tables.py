"""Tables as the book shows them."""

import math

import pandas as pd
import pytest

from reprolib.figures import benchmark_table, headers_in_words, readable_number


def test_a_benchmark_table_shows_its_headers_in_words_and_readable_numbers():
    rows = pd.DataFrame({"seconds_per_round": [1.23456], "max_model_size_mb": [80.0],
                         "load_average_1min": [math.nan], "git_revision": ["abc1234"]})
    html = benchmark_table(rows).to_html()
    assert "seconds per round" in html and "seconds_per_round" not in html
    assert ">1.235<" in html and ">80<" in html and ">–<" in html and ">abc1234<" in html
    assert "80.000" not in html and "nan" not in html
    assert list(rows.columns) == ["seconds_per_round", "max_model_size_mb", "load_average_1min",
                                  "git_revision"]  # the caller's frame kept


@pytest.mark.parametrize(("value", "shown"), [
    (80.0, "80"), (1.0, "1"), (5.315759, "5.316"), (0.0140099, "0.01401"), (1e-9, "1e-09"),
    (227.5035, "227.5"), (999.96, "1000"), (32_412.7, "32,413"), (-0.5, "-0.5"), (12, "12"),
    (math.nan, "–"), (None, "–"),
])
def test_readable_numbers_keep_four_significant_digits_and_never_an_exponent_above_1000(
        value, shown):
    assert readable_number(value) == shown


def test_headers_in_words_keep_the_rows_and_the_order():
    frame = pd.DataFrame({"max_error mean": [0.5], "sigma": [2.0]})
    words = headers_in_words(frame)
    assert list(words.columns) == ["max error mean", "sigma"] and words.iloc[0].tolist() == [0.5, 2.0]
