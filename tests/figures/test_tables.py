"""Tables as the book shows them."""

import pandas as pd

from reprolib.figures import benchmark_table, headers_in_words


def test_a_benchmark_table_shows_its_headers_in_words_and_its_values_unchanged():
    rows = pd.DataFrame({"seconds_per_round": [1.23456], "git_revision": ["abc1234"]})
    html = benchmark_table(rows).to_html()
    assert "seconds per round" in html and "seconds_per_round" not in html
    assert "1.235" in html and "abc1234" in html
    assert list(rows.columns) == ["seconds_per_round", "git_revision"]  # the caller's frame kept


def test_headers_in_words_keep_the_rows_and_the_order():
    frame = pd.DataFrame({"max_error mean": [0.5], "sigma": [2.0]})
    words = headers_in_words(frame)
    assert list(words.columns) == ["max error mean", "sigma"] and words.iloc[0].tolist() == [0.5, 2.0]
