"""Experiments take typed settings: overrides are validated, never silently dropped or defaulted."""

import dataclasses
import typing

import pytest

from reprolib.experiments import SCALES, catalogue, get_experiment, run_experiment

EXPERIMENTS = sorted(a for spec in catalogue().papers.values() for a in spec.experiments)


@pytest.mark.parametrize("artifact", EXPERIMENTS)
def test_every_scale_has_settings_of_the_declared_type(artifact):
    experiment = get_experiment(artifact)
    assert dataclasses.is_dataclass(experiment.settings)
    for scale in SCALES:
        settings = experiment.settings_at(scale)
        assert type(settings) is experiment.settings
        # the defaults pass their own validation: every value has its field's type
        values = {f.name: getattr(settings, f.name) for f in dataclasses.fields(settings)}
        assert experiment.settings_at(scale, values) == settings


def test_an_unknown_name_is_refused_with_the_valid_fields(scratch_dirs):
    with pytest.raises(TypeError) as error:
        run_experiment("prelim-conversions", scale="smoke", device="cpu", progress=False,
                       overrides={"epsilon": [1.0]})
    assert str(error.value) == ("prelim-conversions has no setting(s) ['epsilon']; its settings "
                                "are ['deltas', 'epsilons', 'sensitivity']")
    with pytest.raises(TypeError, match=r"aim-fig1 has no setting\(s\) \['epsilon'\]; its "
                                         r"settings are \['attributes', 'capacity_by_dataset', 'datasets'"):
        get_experiment("aim-fig1").settings_at("smoke", {"epsilon": [1.0]})
    with pytest.raises(TypeError, match=r"its settings are \[\]"):
        get_experiment("aim-fig5").settings_at("smoke", {"pgm_iters": 10})


@pytest.mark.parametrize(("artifact", "overrides", "message"), [
    ("prelim-conversions", {"sensitivity": "2"}, "prelim-conversions.sensitivity must be float"),
    ("prelim-conversions", {"epsilons": 1.0}, "prelim-conversions.epsilons must be a tuple"),
    ("aim-fig1", {"trials": 1.5}, "aim-fig1.trials must be int"),
    ("aim-fig1", {"mechanisms": ["AIM", "RAP++"]}, "aim-fig1.mechanisms[1] must be one of"),
    ("aim-fig1", {"loss_weighting": "inverse"}, "aim-fig1.loss_weighting must be one of"),
    ("privpgd-fig1", {"mechanisms": ["RAP++"]}, "privpgd-fig1.mechanisms[0] must be one of"),
    ("privpgd-fig3", {"substitute": "maybe"}, "privpgd-fig3.substitute must be one of"),
    ("privpgd-fig1", {"max_records": "all"}, "privpgd-fig1.max_records must be int | None"),
])
def test_a_wrong_type_is_refused_naming_the_field_and_the_type(artifact, overrides, message):
    with pytest.raises(TypeError) as error:
        get_experiment(artifact).settings_at("smoke", overrides)
    assert message in str(error.value)


@pytest.mark.parametrize("artifact", ["privpgd-fig1", "privpgd-fig3"])
def test_privpgd_settings_are_checked_against_its_config_before_any_run(artifact):
    experiment = get_experiment(artifact)

    def cells(**overrides):
        return experiment.cells("smoke", experiment.settings_at("smoke", overrides))

    with pytest.raises(TypeError, match=r"privpgd has no setting\(s\) \['n_particle'\]"):
        cells(privpgd={"n_particle": 10})
    with pytest.raises(TypeError, match="n_particles must be int"):
        cells(privpgd={"n_particles": 10.5})
    with pytest.raises(TypeError, match=r"cannot set \['calibration'\]"):
        cells(privpgd={"calibration": 1})  # would be hidden by the calibration setting
    with pytest.raises(TypeError, match=r"privpgd\['device'\] must be int \| float"):
        cells(privpgd={"device": "cpu"})
    with pytest.raises(TypeError, match="calibration must be one of"):
        cells(calibration="exact")
    privpgd = [c for c in cells(privpgd={"n_particles": 10, "lr": 0.05})
               if c.mechanism == "PrivPGD"]
    assert privpgd and all(c.params["privpgd"] == {"n_particles": 10, "lr": 0.05}
                           for c in privpgd)


def test_zero_is_kept_and_not_replaced_by_a_default():
    def cells(artifact, **overrides):
        experiment = get_experiment(artifact)
        return experiment.cells("smoke", experiment.settings_at("smoke", overrides))

    assert cells("aim-fig1", trials=0) == []  # `trials or default` would have run one trial
    assert cells("aim-fig1", epsilons=[]) == []
    assert {c.params["pgm_iters"] for c in cells("aim-fig7", pgm_iters=0)} == {0}
    assert {c.params["max_records"] for c in cells("privpgd-fig1", max_records=0)} == {0}
    assert {c.params["strength"] for c in cells("privpgd-fig3", strengths=[0])} == {0.0}
    prelim = cells("prelim-conversions", sensitivity=0, epsilons=[1])
    assert {c.params["sensitivity"] for c in prelim} == {0.0}
    assert all(type(c.params["sensitivity"]) is float and c.epsilon == 1.0 for c in prelim)


def test_overrides_change_the_grid_and_only_what_they_name():
    experiment = get_experiment("aim-fig1")
    default = experiment.settings_at("small")
    changed = experiment.settings_at("small", {"epsilons": [1, 10], "mechanisms": ["AIM"]})
    assert changed.epsilons == (1.0, 10.0) and changed.mechanisms == ("AIM",)
    assert dataclasses.replace(changed, epsilons=default.epsilons,
                               mechanisms=default.mechanisms) == default
    cells = experiment.cells("small", changed)
    assert {(c.mechanism, c.epsilon) for c in cells} == {("AIM", 1.0), ("AIM", 10.0)}


def test_aim_can_build_every_mechanism_its_settings_accept():
    from reprolib.papers.aim.setup import CONFIG_FROM_PARAMS, REGISTERED, Mechanism, build_mechanism

    assert set(CONFIG_FROM_PARAMS) == set(typing.get_args(Mechanism))
    for name in CONFIG_FROM_PARAMS:
        built = build_mechanism(name, {"pgm_iters": 3, "max_model_size_mb": 1.0})
        assert built.name == REGISTERED.get(name, name)
    assert REGISTERED == {"RAP": "RAP-queries"}


def test_aim_final_fit_runs_its_own_iterations_only_where_a_cell_records_them():
    from reprolib.papers.aim.experiments import ALL_3WAY
    from reprolib.papers.aim.setup import SINGLE_FIT, build_mechanism

    recorded = {"pgm_iters": 1000, "final_pgm_iters": 2500, "max_model_size_mb": 80.0}
    assert build_mechanism("AIM", recorded).config.final_pgm_iters == 2500
    assert build_mechanism("AIM", {"pgm_iters": 100}).config.final_pgm_iters == 100
    # the paper's profile records the 2022 code's 2500 final iterations (not in the cells of the
    # mechanisms that fit once and keep their own iterations); the others leave the parameter
    # out, so their cells (and the committed runs' keys) are those of before
    paper = ALL_3WAY.cells("paper", ALL_3WAY.settings_at("paper"))
    small = ALL_3WAY.cells("small", ALL_3WAY.settings_at("small"))
    assert {c.params["final_pgm_iters"] for c in paper if c.mechanism not in SINGLE_FIT} == {2500}
    assert not any("final_pgm_iters" in c.params for c in paper if c.mechanism in SINGLE_FIT)
    assert not any("final_pgm_iters" in c.params for c in small)


def test_pending_datasets_are_the_designs_datasets_a_profile_does_not_run_yet():
    from reprolib.papers.aim import setup as aim
    from reprolib.papers.privpgd import setup as privpgd
    from reprolib.papers.privpgd.data import PRIVPGD_DATASETS

    for paper, design in ((aim, aim.AIM_DATASETS), (privpgd, tuple(PRIVPGD_DATASETS))):
        assert paper.pending_datasets("paper") == ()
        for scale in ("smoke", "small"):
            pending = paper.pending_datasets(scale)
            assert sorted(pending + tuple(paper.PROFILES[scale].datasets)) == sorted(design)
