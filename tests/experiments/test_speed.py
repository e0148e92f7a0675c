"""The speed summary: recorded run times per paper, mechanism, scale and device."""

import pandas as pd

from reprolib.experiments import SPEED_COLUMNS, catalogue, open_store, recorded_speed


def test_an_empty_results_folder_gives_an_empty_table(tmp_path):
    table = recorded_speed(root=tmp_path)
    assert table.empty and list(table.columns) == list(SPEED_COLUMNS)


def test_committed_runs_are_summarised_once_per_store_in_book_order():
    table = recorded_speed()
    assert list(table.columns) == list(SPEED_COLUMNS)
    papers = list(catalogue().papers)
    assert list(dict.fromkeys(table["paper"])) == [p for p in papers if p in set(table["paper"])]
    assert not table["slowest_dataset"].isin(["none", "closed-form"]).any()
    assert (table["runs"] > 0).all() and (table["max_s"] >= table["median_s"]).all()
    # each stored run counts once: PGM+MST's small runs are those of PrivPGD's stores
    experiments = catalogue().paper("privpgd").experiments
    stores = {open_store(a, "small").path: open_store(a, "small") for a in experiments}
    rows = pd.concat([store.frame() for store in stores.values() if len(store)])
    expected = int((rows["mechanism"] == "PGM+MST").sum())
    got = table[(table["paper"] == "privpgd") & (table["mechanism"] == "PGM+MST")
                & (table["scale"] == "small")]["runs"].sum()
    assert got == expected > 0
