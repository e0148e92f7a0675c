"""The comparison grids (Figures 2-5 and 7-9) and Figure 3's sweep: cells, scores, PGM on bins,
what each run records."""

import numpy as np
import pandas as pd
import pytest

from reprolib.data import Dataset, Domain, MixedDataset
from reprolib.experiments import catalogue
from reprolib.experiments._store import Cell
from reprolib.papers.rappp.comparison import (
    COMPARISON,
    MULTITASK,
    ORIGINAL,
    SENSITIVITY,
    SENSITIVITY_DESIGN,
    comparison_cells,
    comparison_run,
    design,
    mechanism_config,
    pending_datasets,
    pending_mechanisms,
    query_errors,
    sensitivity_cells,
    small_design_gaps,
    synthesise,
)


def _data(n=600, seed=0) -> MixedDataset:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.integers(0, 3, n), "b": rng.integers(0, 2, n),
                          "y": rng.integers(0, 2, n)})
    return MixedDataset(Dataset(frame, Domain.from_dict({"a": 3, "b": 2, "y": 2})),
                        rng.random((n, 2)), ("u", "v"), targets=("y",))


def test_every_mechanism_epsilon_and_seed_and_one_original_row_per_seed():
    settings = COMPARISON["small"]
    cells = comparison_cells("rappp-fig8")("small", settings)
    private = [c for c in cells if c.mechanism != ORIGINAL]
    assert len(private) == (len(settings.datasets) * len(settings.mechanisms)
                            * len(settings.epsilons) * settings.trials)
    assert len(cells) - len(private) == len(settings.datasets) * settings.trials
    assert {c.params["bound"] for c in private} == {"bun-steinke"}  # the paper's conversion


def test_the_scores_are_zero_on_the_data_itself_and_positive_elsewhere():
    data = _data()
    same = query_errors(data, data, 200)
    assert all(value == 0 for value in same.values())
    other = query_errors(data, _data(seed=1), 200)
    assert set(other) == {"cm_mean_error", "cm_max_error", "mm_mean_error", "mm_max_error"}
    assert all(value > 0 for value in other.values())


def test_pgm_releases_bin_centres_in_the_datas_domain():
    data = _data()
    params = {"bins": 4, "pgm_iters": 5, "bound": "bun-steinke"}
    synthetic = synthesise("PGM", data, 1.0, 0, params).synthetic
    assert synthetic.domain == data.domain
    assert np.isin(np.round(synthetic.numerical * 8, 9), [1, 3, 5, 7]).all()


def test_figure_3_sweeps_pgms_bins_and_rappps_threshold_rounds():
    settings = SENSITIVITY["small"]
    settings = type(settings)(**{**settings.__dict__, "datasets": SENSITIVITY_DESIGN[:1]})
    cells = sensitivity_cells("small", settings)
    per_setting = len(settings.epsilons) * settings.trials
    pgm = [c for c in cells if c.mechanism == "PGM"]
    rappp = [c for c in cells if c.mechanism == "RAP++"]
    assert sorted({c.params["bins"] for c in pgm}) == [10, 20, 50, 100]  # the paper's sweep
    assert sorted({c.params["lt_rounds"] for c in rappp}) == [10, 30, 50, 70]
    assert len(pgm) == len(rappp) == 4 * per_setting
    assert all("lt_rounds" not in c.params for c in pgm)
    assert {c.epsilon for c in cells if c.mechanism != ORIGINAL} == {0.15, 1.0}
    assert len([c for c in cells if c.mechanism == ORIGINAL]) == settings.trials


def test_figure_8_and_9_cells_leave_t_lt_at_the_mechanisms_default():
    for grid, artifact in ((COMPARISON, "rappp-fig8"), (MULTITASK, "rappp-fig9")):
        cells = comparison_cells(artifact)("smoke", grid["smoke"])
        assert all("lt_rounds" not in c.params for c in cells)


def test_dp_merf_joins_the_single_task_grids_with_only_the_evaluations_settings():
    from reprolib.mechanisms.deep.dp_merf import TABULAR

    for scale in ("smoke", "small", "paper"):
        assert "DP-MERF" in COMPARISON[scale].mechanisms
        assert "DP-MERF" not in MULTITASK[scale].mechanisms  # it conditions on one label
    cells = comparison_cells("rappp-fig8")("small", COMPARISON["small"])
    merf = [c for c in cells if c.mechanism == "DP-MERF"]
    assert merf and all(c.params == {"mm_queries": 20_000, "bound": "bun-steinke"} for c in merf)
    assert mechanism_config("DP-MERF", merf[0].params) == TABULAR


def test_dp_merf_spends_its_epsilon_on_a_renyi_ledger_at_delta_one_over_n_squared():
    from reprolib.papers.rappp.comparison import ledger_metrics

    data = _data()
    result = synthesise("DP-MERF", data, 0.5, 0, {"bound": "bun-steinke"})
    recorded = ledger_metrics(result.ledger)
    assert set(recorded) == {"spent_epsilon", "budget_epsilon", "delta", "relation"}
    assert recorded["spent_epsilon"] <= 0.5
    assert recorded["spent_epsilon"] == pytest.approx(0.5, rel=1e-6)
    assert recorded["delta"] == 1.0 / data.records ** 2
    assert recorded["relation"] == "replace-one"
    assert result.synthetic.records == data.records
    pgm = synthesise("PGM", data, 0.5, 0, {"bins": 3, "pgm_iters": 2, "bound": "bun-steinke"})
    assert set(ledger_metrics(pgm.ledger)) == {"spent_rho", "budget_rho", "delta", "relation"}


def test_dp_ctgan_records_its_epochs_and_free_epsilon_and_runs_at_every_scale():
    smoke = comparison_cells("rappp-fig8")("smoke", COMPARISON["smoke"])
    (gan,) = [c for c in smoke if c.mechanism == "DP-CTGAN"]
    assert gan.params == {"mm_queries": 500, "bound": "bun-steinke", "gan_epochs": 5,
                          "gan_free_epsilon": 0.0}
    assert mechanism_config("DP-CTGAN", gan.params) == {
        "epochs": 5, "noise_multiplier": None, "uncounted_preprocessing_epsilon": 0.0}
    small = comparison_cells("rappp-fig8")("small", COMPARISON["small"])
    assert {c.params["gan_epochs"] for c in small if c.mechanism == "DP-CTGAN"} == {30}
    assert all(pending_mechanisms(f"rappp-fig{k}", scale) == ()
               for k in (2, 4, 7, 8) for scale in ("smoke", "small", "paper"))


def test_dp_ctgan_runs_in_the_multitask_grids_at_every_scale():
    # a generator of whole records, so it runs on the multitask data too (unlike DP-MERF)
    for scale in ("smoke", "small", "paper"):
        cells = comparison_cells("rappp-fig9")(scale, MULTITASK[scale])
        assert {c.dataset for c in cells if c.mechanism == "DP-CTGAN"} == set(
            MULTITASK[scale].datasets)
        assert pending_mechanisms("rappp-fig9", scale) == ()
    assert all(small_design_gaps(f"rappp-fig{k}") == "" for k in (3, 5, 8, 9))


def test_a_mechanism_the_small_grid_leaves_out_is_named_as_a_gap(monkeypatch):
    import dataclasses

    from reprolib.papers.rappp import comparison

    cut = dataclasses.replace(MULTITASK["small"], mechanisms=MULTITASK["small"].mechanisms[:-1])
    monkeypatch.setitem(comparison.MULTITASK, "small", cut)
    assert pending_mechanisms("rappp-fig5", "small") == ("DP-CTGAN",)
    assert small_design_gaps("rappp-fig9") == "DP-CTGAN on the multitask data"


def test_the_papers_free_epsilon_funds_only_dp_ctgans_preprocessing():
    """The paper's convention: the gradient steps spend the whole reported epsilon and the
    frequencies a separate, uncounted epsilon = 5; by default both share the reported one."""
    data = _data()
    params = {"bound": "bun-steinke", "gan_epochs": 1, "gan_free_epsilon": 5.0}
    result = synthesise("DP-CTGAN", data, 0.5, 0, params)
    assert result.ledger.budget.epsilon == 0.5
    assert [c.label for c in result.ledger.charges] == ["discriminator steps"]
    spent = result.ledger.spent_epsilon()  # the noise multiplier's search stops within 1e-6
    assert spent <= 0.5 and spent == pytest.approx(0.5, rel=1e-5)
    assert result.diagnostics["uncounted_epsilon"] == pytest.approx(5.0, rel=1e-9)
    counted = synthesise("DP-CTGAN", data, 0.5, 0, {**params, "gan_free_epsilon": 0.0})
    assert [c.label for c in counted.ledger.charges] == ["discriminator steps",
                                                         "category counts"]
    assert counted.ledger.spent_epsilon() == pytest.approx(0.5, rel=1e-9)
    assert counted.diagnostics["uncounted_epsilon"] == 0.0
    assert (result.diagnostics["noise_multiplier"]
            < counted.diagnostics["noise_multiplier"])  # the steps got more of the budget


def test_each_mechanism_gets_only_its_own_settings():
    params = {"n_synthetic": 10, "max_steps": 5, "lt_queries": 7, "bins": 4, "pgm_iters": 3,
              "mm_queries": 9, "bound": "cks", "lt_rounds": 2}
    assert mechanism_config("RAP++", params) == {"n_synthetic": 10, "max_steps": 5,
                                                 "lt_queries": 7, "lt_rounds": 2}
    assert mechanism_config("RAP", params) == {"n_synthetic": 10, "max_steps": 5, "bins": 4}
    assert mechanism_config("PGM", params) == {"pgm_iters": 3}


def test_the_design_lists_every_task_and_state_and_what_is_still_to_run():
    assert len(design("small")) == 15 and len(design("paper")) == 25
    assert design("paper", multitask=True) == tuple(f"multitask/{s}"
                                                    for s in ("CA", "NY", "TX", "FL", "PA"))
    assert pending_datasets("rappp-fig5", "paper") == ()  # the paper grid lists every state
    for artifact, settings in (("rappp-fig8", COMPARISON["small"]),
                               ("rappp-fig9", MULTITASK["small"])):
        pending = pending_datasets(artifact, "small")
        wanted = design("small", multitask=artifact == "rappp-fig9")
        assert set(pending) | set(settings.datasets) == set(wanted)
        assert not set(pending) & set(settings.datasets)
    assert pending_datasets("rappp-fig3", "smoke") == ()
    assert set(pending_datasets("rappp-fig3", "small")) <= set(SENSITIVITY_DESIGN)


def test_the_small_grids_cover_the_whole_design_where_the_spec_says_so():
    spec = catalogue().paper("rappp")
    for artifact in (a.id for a in spec.artifacts):
        assert pending_datasets(artifact, "small") == (), artifact
        assert spec.small_covers(artifact) == (pending_mechanisms(artifact, "small") == ()), artifact


def test_a_run_records_its_ledger_at_delta_one_over_n_squared():
    cell = Cell(artifact="rappp-fig8", mechanism="PGM", dataset="income/ma2018", epsilon=0.5,
                delta=None, seed=0, params={"bins": 3, "pgm_iters": 2, "mm_queries": 50,
                                            "bound": "bun-steinke"})
    metrics = comparison_run(cell, "cpu")
    assert metrics["spent_rho"] == pytest.approx(metrics["budget_rho"], rel=1e-12)
    assert metrics["delta"] == 1.0 / metrics["train_records"] ** 2
    assert metrics["relation"] == "replace-one"
    assert 0 <= metrics["f1.income"] <= 1


def test_the_f1_figure_marks_the_panels_of_datasets_not_run_yet():
    from reprolib._paths import repo_root
    from reprolib.experiments._store import ResultsStore
    from reprolib.papers.rappp.figures import f1_figure

    frame = ResultsStore(repo_root() / "results" / "rappp" / "rappp-fig8" / "small.parquet").frame()
    frame = frame[frame["dataset"].isin(["income/ma2018", "hispanic/tx2018"])]
    panels = {ax.get_title(): ax for ax in f1_figure(frame, ("ma2018", "tx2018")).axes}
    assert [t.get_text() for t in panels["income (tx2018)"].texts] == ["not run yet"]
    assert not panels["income (tx2018)"].lines
    assert panels["income (ma2018)"].lines and not panels["income (ma2018)"].texts


def test_table_2_classifies_each_re_run_mechanism_as_the_paper_does():
    from reprolib.papers.rappp.checks import PAPER_TABLE_2
    from reprolib.papers.rappp.experiments import MECHANISMS

    for cell in MECHANISMS.cells("smoke", MECHANISMS.settings_at("smoke", {})):
        row = MECHANISMS.compute(cell, "cpu")
        assert row["rerun"] == bool(cell.params["ours"])
        if row["rerun"]:
            assert row["input"] == PAPER_TABLE_2[cell.mechanism], cell.mechanism
    assert {c.mechanism for c in MECHANISMS.cells("smoke", MECHANISMS.settings_at("smoke", {}))
            if c.params["ours"]} == {"PGM", "DP-MERF", "DP-CTGAN", "RAP", "RAP++"}
