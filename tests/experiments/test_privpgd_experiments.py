"""PrivPGD experiments: the grids, shared runs, the baselines' accounting and the protected query."""

import math

import pytest

from reprolib.experiments import get_experiment, store_path
from reprolib.papers.privpgd.experiments import CONSTRAINT, ERRORS_25, protected_query
from reprolib.papers.privpgd.setup import (
    DELTA,
    PROFILES,
    RERUN,
    build_mechanism,
    cell_params,
    comparison_settings,
    pending_mechanisms,
)
from reprolib.privacy import NeighbourRelation


def _design(artifact: str, scale: str) -> set[tuple]:
    """The artifact's design at ``scale``: its (mechanism, dataset, epsilon, settings that are not
    compute) points, seeds and compute knobs set aside.
    """
    experiment = get_experiment(artifact)
    settings = experiment.settings_at(scale)
    design = {(c.mechanism, c.dataset, round(c.epsilon, 9)) for c in experiment.cells(scale, settings)}
    return {(*point, getattr(settings, "strengths", None)) for point in design}


def test_the_small_grids_cover_the_whole_design_as_the_spec_declares():
    """PrivPGD declares small_covers_design: every artifact's small grid has every point of the
    paper's grid (three seeds of five, PrivPGD's compute reduced) and nothing is pending."""
    from reprolib.experiments import catalogue
    from reprolib.papers.privpgd.setup import pending_datasets

    spec = catalogue().paper("privpgd")
    assert spec.small_covers_design
    assert pending_datasets("small") == () and pending_mechanisms("small") == ()
    for artifact in (a.id for a in spec.artifacts):
        assert _design(artifact, "paper") <= _design(artifact, "small"), artifact


def test_comparison_grids_run_every_mechanism_at_their_figure_epsilon():
    for artifact, epsilon in (("privpgd-fig1", 2.5), ("privpgd-fig4", 1.0), ("privpgd-fig5", 0.2)):
        experiment = get_experiment(artifact)
        cells = experiment.cells("small", experiment.settings_at("small"))
        profile = PROFILES["small"]
        assert len(cells) == len(profile.datasets) * len(profile.mechanisms) * profile.trials
        assert {c.epsilon for c in cells} == {epsilon} and {c.delta for c in cells} == {DELTA}
        assert {c.mechanism for c in cells} == set(profile.mechanisms)
        assert set(PROFILES["paper"].mechanisms) == set(RERUN)
        assert set(profile.mechanisms) | set(pending_mechanisms("small")) == set(RERUN)


@pytest.mark.parametrize("artifact, source", [("privpgd-fig2", "privpgd-fig1"),
                                              ("privpgd-tab2", "privpgd-fig1"),
                                              ("privpgd-fig6", "privpgd-fig4"),
                                              ("privpgd-tab6", "privpgd-fig5")])
def test_distance_figures_and_tables_read_the_comparison_runs(artifact, source):
    assert store_path(artifact, "small") == store_path(source, "small")
    assert get_experiment(artifact) is get_experiment(source)


def test_baselines_account_under_replace_one_and_privpgd_takes_the_scale_settings():
    for name in ("PGM+AIM", "PGM+MST", "GEM", "RAP"):
        params = cell_params(comparison_settings("small", 2.5), name)
        assert "privpgd" not in params  # PrivPGD's settings do not key the baselines' runs
        assert build_mechanism(name, params).traits.relation is NeighbourRelation.REPLACE_ONE
    assert "pgm_iters" not in cell_params(comparison_settings("small", 2.5), "GEM")
    assert build_mechanism("RAP", cell_params(comparison_settings("paper", 2.5), "RAP")
                           ).name == "RAP-queries"
    params = cell_params(comparison_settings("small", 2.5), "PrivPGD")
    assert "pgm_iters" not in params
    privpgd = build_mechanism("PrivPGD", params, device="cpu").config
    assert privpgd.n_particles == PROFILES["small"].privpgd["n_particles"]
    assert privpgd.calibration == "paper" and privpgd.device == "cpu"
    # the learning-rate schedules keep the paper's number of decays (20 and 17.5)
    assert privpgd.epochs / privpgd.lr_step == 1000 / 50
    assert math.isclose(privpgd.projection_iterations / privpgd.projection_lr_step, 1750 / 100,
                        rel_tol=0.1)
    with pytest.raises(ValueError, match="re-run"):
        build_mechanism("RAP++", params)


def test_constraint_grid_sweeps_the_strength_on_two_datasets():
    cells = CONSTRAINT.cells("small", CONSTRAINT.settings_at("small"))
    comparison = ERRORS_25.cells("small", ERRORS_25.settings_at("small"))
    assert {c.dataset for c in cells} == {"income", "employment"}
    assert sorted({c.params["strength"] for c in cells}) == [0.0, 0.01, 0.1, 1.0, 10.0]
    assert {c.mechanism for c in cells} == {"PrivPGD"} and {c.epsilon for c in cells} == {2.5}
    assert all(c.key != d.key for c, d in zip(cells, comparison, strict=False))


def test_protected_query_follows_the_authors_income_weights():
    theta, b = protected_query("income", ("AGEP", "EDU", "MSP", "INDP", "SEX", "RAC1P", "label"))
    assert theta == (0.0, 0.8843252, 0.0, 0.661784, 0.557365, 0.49245986, 0.9226635)
    assert b == 1.5767367
    theta, b = protected_query("employment", ("AGEP", "EDU", "DPHY", "SEX", "RAC1P", "label"))
    assert theta == (0.0, 0.8843252, 0.0, 0.557365, 0.49245986, 0.9226635)
    assert math.isclose(b, sum(theta) / 2)


def test_every_mechanism_runs_at_small_and_rap_is_cut_from_smoke_only():
    assert not pending_mechanisms("small") and not pending_mechanisms("paper")
    assert pending_mechanisms("smoke") == ("RAP",)
