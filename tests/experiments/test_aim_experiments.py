"""The AIM experiments: grids per scale, workloads per dataset, structural zeros, taxonomy."""

import itertools

import pytest

from reprolib.experiments import get_experiment
from reprolib.mechanisms.marginal.privmrf import PrivMRFConfig
from reprolib.papers.aim.experiments import FIRE_ZERO_PAIRS, structural_zeros
from reprolib.papers.aim.setup import (
    FIGURE_MECHANISMS,
    PAPER_EPSILONS,
    PROFILES,
    REGISTERED,
    SINGLE_FIT,
    build_mechanism,
    build_workload,
    error_metrics,
    load_aim_dataset,
    run_mechanism,
)


def grid(artifact, scale, **overrides):
    """The cells of an artifact at a scale, with ``overrides`` validated as run_experiment does."""
    experiment = get_experiment(artifact)
    return experiment.cells(scale, experiment.settings_at(scale, overrides))


def test_paper_profile_is_the_papers_grid():
    paper = PROFILES["paper"]
    assert PAPER_EPSILONS[0] == 0.01 and PAPER_EPSILONS[-1] == 100.0 and len(PAPER_EPSILONS) == 9
    assert (paper.trials, paper.max_model_size_mb, paper.pgm_iters) == (5, 80.0, 1000)
    assert len(paper.datasets) == 6


@pytest.mark.parametrize("artifact", ["aim-fig1", "aim-fig2", "aim-fig3"])
def test_figure_grids_cover_every_setting(artifact):
    cells = grid(artifact, "paper")
    assert len(cells) == 6 * 9 * 9 * 5  # datasets x mechanisms x epsilons x trials
    assert {c.mechanism for c in cells} == set(FIGURE_MECHANISMS)
    assert len(set(cells)) == len(cells)
    assert grid(artifact, "smoke", epsilons=[0.5, 2.0])[0].epsilon == 0.5


def test_figure_mwem_runs_with_the_reference_cap_in_proportion_to_aims_capacity():
    for scale in ("smoke", "small", "paper"):
        profile = PROFILES[scale]
        assert profile.mwem_max_model_size_mb == profile.max_model_size_mb * 25 / 80
        cells = grid("aim-fig1", scale)
        for cell in cells:
            capacity, mwem_capacity = profile.capacities(cell.dataset)
            assert mwem_capacity == capacity * 25 / 80  # also on msnbc's larger capacity
            recorded = cell.params.get("mwem_max_model_size_mb")
            assert (recorded == mwem_capacity) == (cell.mechanism == "MWEM+PGM")
        mwem = next(c for c in cells if c.mechanism == "MWEM+PGM")
        assert (build_mechanism("MWEM+PGM", mwem.params).config.max_model_size_mb
                == profile.mwem_max_model_size_mb)
    assert PROFILES["paper"].mwem_max_model_size_mb == 25.0
    assert build_mechanism("MWEM+PGM", {"pgm_iters": 10}).config.max_model_size_mb is None


def test_single_fit_mechanisms_keep_their_reference_iterations_at_every_scale():
    defaults = {"MST": (5000, 1000), "PrivBayes+PGM": (1000,), "Independent": (1000,)}
    for scale in ("smoke", "small", "paper"):
        for cell in grid("aim-fig1", scale):
            if cell.mechanism in SINGLE_FIT:
                assert "pgm_iters" not in cell.params and "final_pgm_iters" not in cell.params
                config = build_mechanism(cell.mechanism, cell.params).config
                iters = ((config.pgm_iters, config.selection_pgm_iters)
                         if cell.mechanism == "MST" else
                         (config.iters,) if cell.mechanism == "PrivBayes+PGM" else
                         (config.pgm_iters,))
                assert iters == defaults[cell.mechanism]
            elif cell.mechanism in ("AIM", "MWEM+PGM"):
                assert cell.params["pgm_iters"] == PROFILES[scale].iterations(cell.dataset)


def test_workloads_use_natural_targets_and_fixed_seeds():
    titanic = load_aim_dataset("titanic")
    assert all("Survived" in c for c in build_workload("target", titanic, "titanic").cliques)
    assert build_workload("skewed", titanic, "titanic") == build_workload("skewed", titanic,
                                                                          "titanic")
    with pytest.raises(ValueError, match="unknown workload"):
        build_workload("2-way", titanic, "titanic")


def test_fire_zero_pairs_are_empty_cells_of_the_data():
    fire = load_aim_dataset("fire")
    zeros = structural_zeros(fire, FIRE_ZERO_PAIRS)
    assert len(zeros) == 9
    for z in zeros:
        assert (fire.marginal(z.clique)[tuple(z.cells.T)] == 0).all()


def test_every_figure_mechanism_builds_with_its_declared_relation():
    for name in PROFILES["paper"].mechanisms + ("MWEM+RP",):
        mechanism = build_mechanism(name, {"pgm_iters": 10, "max_model_size_mb": 1.0})
        assert mechanism.name == REGISTERED.get(name, name)
    with pytest.raises(ValueError, match="unknown mechanism"):
        build_mechanism("RAP++", {"pgm_iters": 10})


def test_study_grids_follow_their_settings():
    from reprolib.papers.aim.studies import STUDIES

    paper = STUDIES["paper"]
    assert paper.dataset == "fire" and paper.capacities_mb[0] == 1.25
    assert paper.capacities_mb[-1] == 1280.0 and len(paper.capacities_mb) == 11
    capacity = grid("aim-fig4ab", "paper")
    assert len(capacity) == 11 * 2 * 5 and {c.dataset for c in capacity} == {"fire"}
    assert {c.params["max_model_size_mb"] for c in capacity} == set(paper.capacities_mb)
    mwem = grid("aim-fig7", "paper")
    assert len(mwem) == 6 * 2 * 9 * len(paper.mwem_rounds) * 5
    assert {c.mechanism for c in mwem} == {"MWEM+PGM", "MWEM+RP"}
    bounds = grid("aim-fig4c", "small", bounds_epsilon=3.0)
    assert {c.epsilon for c in bounds} == {3.0}


def test_figure_4_runs_on_fire_at_small_with_fires_capacity_for_the_bounds():
    from reprolib.papers.aim.setup import PROFILES

    capacity = grid("aim-fig4ab", "small")
    assert {c.dataset for c in capacity} == {"fire"}
    assert sorted({c.params["max_model_size_mb"] for c in capacity}) == [
        1.25, 2.5, 5.0, 10.0, 20.0, 40.0, 80.0]
    bounds = grid("aim-fig4c", "small")
    fire_capacity = PROFILES["small"].capacities("fire")[0]
    assert fire_capacity == 10.0 != PROFILES["small"].max_model_size_mb
    assert {(c.dataset, c.params["max_model_size_mb"]) for c in bounds} == {("fire", fire_capacity)}
    assert {c.params["max_model_size_mb"] for c in grid("aim-fig4c", "smoke")} == {
        PROFILES["smoke"].max_model_size_mb}


@pytest.mark.parametrize("artifact, source", [("aim-fig5", "aim-fig1"), ("aim-fig6", "aim-fig1")])
def test_derived_figures_read_the_recorded_aim_runs(artifact, source):
    from reprolib.experiments import run_experiment

    recorded = run_experiment(source, scale="smoke", progress=False)
    aim = recorded[recorded["mechanism"] == "AIM"].iloc[0]
    cells = grid(artifact, "smoke")
    cell = next(c for c in cells if c.params.get("workload", "all-3way") == "all-3way")
    metrics = get_experiment(artifact).compute(cell, "cpu")
    if artifact == "aim-fig6":
        assert metrics["seconds"] == aim["metric.seconds"]
    else:
        assert metrics["aim_workload_error"] == aim["metric.workload_error"]
        assert 0.0 < metrics["matching_fraction"] <= 1.0


def test_privmrf_caps_its_largest_clique_at_the_profile_capacity():
    for scale in ("smoke", "small", "paper"):
        profile = PROFILES[scale]
        cell = next(c for c in grid("aim-fig1", scale) if c.mechanism == "PrivMRF")
        config = build_mechanism("PrivMRF", cell.params).config
        assert config.max_clique_mb == profile.max_model_size_mb
        assert config.pgm_iters == profile.pgm_iters
        assert config.final_pgm_iters == (profile.final_pgm_iters or profile.pgm_iters)
        assert config.stop_ratio == cell.params["stop_ratio"] == PrivMRFConfig.stop_ratio == 1.2


def test_large_domains_keep_their_own_capacity_at_small_scale():
    small = PROFILES["small"]
    assert dict(small.capacity_by_dataset) == {"fire": 10.0, "msnbc": 10.0}
    cells = grid("aim-fig1", "small", datasets=["titanic", "fire", "msnbc"])
    for cell in cells:
        aim_mb, mwem_mb = small.capacities(cell.dataset)
        assert cell.params["max_model_size_mb"] == aim_mb
        assert cell.params.get("mwem_max_model_size_mb", mwem_mb) == mwem_mb
        built = {"AIM": "max_model_size_mb", "PrivMRF": "max_clique_mb",
                 "MWEM+PGM": "max_model_size_mb"}
        if cell.mechanism in built:
            config = build_mechanism(cell.mechanism, cell.params).config
            expected = mwem_mb if cell.mechanism == "MWEM+PGM" else aim_mb
            assert getattr(config, built[cell.mechanism]) == expected
    assert small.capacities("titanic") == (1.0, 1.0 * 25 / 80)
    assert small.capacities("fire") == (10.0, 10.0 * 25 / 80)
    assert PROFILES["paper"].capacities("fire") == (80.0, 25.0)


def test_large_record_counts_run_the_papers_iterations_at_small_for_every_refitting_mechanism():
    small = PROFILES["small"]
    assert [small.iterations(d) for d in ("msnbc", "fire", "salary", "adult")] == [
        1000, 1000, 1000, small.pgm_iters]
    cells = grid("aim-fig1", "small", datasets=["titanic", "msnbc", "fire", "salary"], pending={})
    for mechanism, field in {"AIM": "pgm_iters", "MWEM+PGM": "pgm_iters",
                             "PrivMRF": "pgm_iters"}.items():
        for dataset in ("titanic", "msnbc", "fire", "salary"):
            cell = next(c for c in cells if (c.mechanism, c.dataset) == (mechanism, dataset))
            assert cell.params["pgm_iters"] == small.iterations(dataset)
            assert getattr(build_mechanism(mechanism, cell.params).config, field) == (
                small.iterations(dataset))
    # the mechanisms that do not read the iterations keep their keys (their stored runs)
    for mechanism, dataset in itertools.product(("RAP", "GEM", "Gaussian"),
                                                ("msnbc", "fire", "salary")):
        cell = next(c for c in cells if (c.mechanism, c.dataset) == (mechanism, dataset))
        assert cell.params["pgm_iters"] == small.pgm_iters
    # the titanic cells keep their keys: the per-dataset count changes those datasets' only
    assert grid("aim-fig1", "small", datasets=["titanic"], pgm_iters_by_dataset={}) == [
        c for c in cells if c.dataset == "titanic"]


def test_pending_runs_read_as_one_clause_per_mechanism(monkeypatch):
    from reprolib.papers.aim.setup import pending_runs_in_words

    monkeypatch.setattr("reprolib.papers.aim.setup.pending_runs",
                        lambda scale: {"PrivMRF": ("msnbc",), "GEM": ("salary", "msnbc", "fire")})
    assert pending_runs_in_words("small") == "PrivMRF on msnbc; GEM on salary, msnbc and fire"
    monkeypatch.setattr("reprolib.papers.aim.setup.pending_runs", lambda scale: {})
    assert pending_runs_in_words("small") == ""


def test_rap_runs_in_every_grid_and_gem_waits_at_small_only_on_salary_and_msnbc():
    from reprolib.papers.aim.setup import pending_runs

    for mechanism in ("RAP", "GEM"):
        assert mechanism in {c.mechanism for c in grid("aim-fig1", "smoke")}
    assert pending_runs("smoke") == {} and pending_runs("paper") == {}
    small = grid("aim-fig1", "small")
    assert {c.dataset for c in small if c.mechanism == "RAP"} == set(PROFILES["small"].datasets)
    assert {c.dataset for c in small if c.mechanism == "GEM"} == (
        set(PROFILES["small"].datasets) - {"salary", "msnbc"})
    assert pending_runs("small") == {"GEM": ("salary", "msnbc"), "PrivMRF": ("msnbc",)}
    # results/pending's resumption of the waiting runs lifts the wait
    waiting = {"datasets": ("salary",), "mechanisms": ("GEM",)}
    with pytest.raises(ValueError, match="pending=\\{\\}"):
        grid("aim-fig1", "small", **waiting)
    assert len(grid("aim-fig1", "small", **waiting, pending={})) == 9 * 3
    # a pending pair leaves out exactly its cells: the other mechanisms run on salary and msnbc
    per_setting = len(PROFILES["small"].epsilons) * PROFILES["small"].trials
    assert len(small) == per_setting * (len(PROFILES["small"].datasets)
                                        * len(PROFILES["small"].mechanisms) - 3)
    rap = [c for c in grid("aim-fig1", "paper") if c.mechanism == "RAP"]
    assert len(rap) == 6 * 9 * 5
    assert build_mechanism("RAP", rap[0].params).name == "RAP-queries"


def test_table_3_runs_on_its_scales_dataset_with_the_profiles_capacity_there():
    from reprolib.papers.aim.setup import PROFILES

    for scale, dataset in (("smoke", "titanic"), ("small", "fire"), ("paper", "fire")):
        cells = grid("aim-tab3", scale)
        assert {c.dataset for c in cells} == {dataset}
        assert {c.params["max_model_size_mb"] for c in cells} == {
            PROFILES[scale].capacities(dataset)[0]}
        assert {c.mechanism for c in cells} == {"AIM", "AIM+SZ"}
    assert {c.params["max_model_size_mb"] for c in grid("aim-tab3", "paper")} == {80.0}


def test_table_3_records_the_2022_potentials_only_off_the_default_home():
    from reprolib.papers.aim.setup import PAPER_EPSILONS

    cells = grid("aim-tab3", "small")
    default = [c for c in cells if "potentials" not in c.params]  # the keys stored before the switch
    old_home = [c for c in cells if c.params.get("potentials") == "junction-tree-2022"]
    assert len(default) + len(old_home) == len(cells)
    assert {c.epsilon for c in default} == set(PAPER_EPSILONS)
    # the 2022 home beside it up to epsilon 10 (beyond, its capacity filter admits huge fits)
    assert {c.epsilon for c in old_home} == {e for e in PAPER_EPSILONS if e <= 10.0}
    assert len(old_home) == 2 * 7 * 3
    assert {(c.mechanism, c.epsilon, c.seed) for c in old_home} <= {
        (c.mechanism, c.epsilon, c.seed) for c in default}
    assert all("potentials" not in c.params for c in grid("aim-tab3", "paper"))
    # asking for the 2022 home runs the whole grid under it, once
    cells = grid("aim-tab3", "small", potentials="junction-tree-2022")
    assert {c.params["potentials"] for c in cells} == {"junction-tree-2022"}
    assert len({c.key for c in cells}) == len(cells) == 2 * 9 * 3
    for mechanism in ("AIM", "MWEM+PGM"):
        built = build_mechanism(mechanism, cells[0].params)
        assert built.config.potentials == "junction-tree-2022"
    assert build_mechanism("AIM", default[0].params).config.potentials == "measured-cliques"


@pytest.mark.parametrize("mechanism", ["Independent", "Gaussian"])
def test_error_metrics_score_both_errors_as_the_metric_functions_do(mechanism):
    from reprolib.metrics import workload_error, workload_error_tv

    data = load_aim_dataset("titanic")
    workload = build_workload("all-3way", data, "titanic")
    result, seconds = run_mechanism(build_mechanism(mechanism, {}), data, workload, 1.0, seed=0)
    metrics = error_metrics(data, workload, result, seconds)
    assert metrics["workload_error"] == pytest.approx(
        workload_error(data, result.marginal, workload), rel=1e-12
    )
    if result.synthetic is None:  # noisy answers need not have positive totals: no TV variant
        assert mechanism == "Gaussian" and metrics["workload_error_tv"] is None
    else:
        assert metrics["workload_error_tv"] == pytest.approx(
            workload_error_tv(data, result.synthetic, workload), rel=1e-12
        )


def test_gem_runs_its_2021_script_only_when_asked_and_then_in_cells_of_its_own():
    stored = grid("aim-fig1", "small", datasets=["nltcs"])
    assert all("gem_script" not in c.params for c in stored)  # the stored grids' keys
    first = grid("aim-fig1", "small", datasets=["nltcs"], gem_script="2021-11")
    new, old = ([c for c in cells if c.mechanism == "GEM"] for cells in (first, stored))
    assert {c.params["gem_script"] for c in new} == {"2021-11"}
    assert not {c.key for c in new} & {c.key for c in old}
    assert [c for c in first if c.mechanism != "GEM"] == [c for c in stored
                                                          if c.mechanism != "GEM"]
    config = build_mechanism("GEM", new[0].params).config
    assert (config.rounds, config.hidden, config.average_weights) == (75, (512,), True)
    assert build_mechanism("GEM", old[0].params).config.rounds == 50
    with pytest.raises(TypeError, match="gem_script"):
        grid("aim-fig1", "small", gem_script="2020-01")
