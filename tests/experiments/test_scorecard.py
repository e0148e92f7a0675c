"""The artifact scorecard on a tiny made-up catalogue and results store: statuses, data, check
counts, deviations and links, and the statuses of the installed papers."""

from __future__ import annotations

import dataclasses

import pytest

from reprolib.experiments import (
    Artifact,
    Catalogue,
    Cell,
    Check,
    Experiment,
    Outcome,
    PaperSpec,
    ResultsStore,
    artifact_scorecard,
    catalogue,
    reproduction_status,
    store_path,
)
from reprolib.experiments._experiment import NoSettings, no_settings

PROVENANCE = {"device": "cpu", "versions": {}, "git_revision": "test", "created_at": "now"}


def _artifact(id_: str, paper: str, notebook: bool = True, **extra: object) -> Artifact:
    return Artifact(id=id_, paper=paper, title=f"{id_} title",
                    notebook=f"notebooks/{paper}/figures.py" if notebook else None,
                    variant=id_ if notebook else "", **extra)


TINY = Catalogue([
    PaperSpec(key="alpha", title="Alpha", caption="Alpha", order=1, artifacts=(
        _artifact("alpha-none", "alpha", notebook=False),
        _artifact("alpha-unrun", "alpha"),
        _artifact("alpha-smoke", "alpha"),
        _artifact("alpha-small", "alpha"),
        _artifact("alpha-view", "alpha", results_of="alpha-small"),
        _artifact("alpha-paper", "alpha"),
        _artifact("alpha-closed", "alpha"),
    ), paper_covers_design=True, no_data={"alpha-closed": "closed forms (no data)"},
        stand_ins={"adult": "nist/loans", "fire": "aim/salary"},
        stand_in_column="metric.substituted"),
    PaperSpec(key="beta", title="Beta", caption="Beta", order=2, small_covers_design=True,
              artifacts=(_artifact("beta-small", "beta"),)),
])


def _record(root, artifact: str, scale: str, runs: dict[str, bool]) -> None:
    """Record one run per dataset; the value says whether it ran on a stand-in."""
    store = ResultsStore(store_path(artifact, scale, root, within=TINY))
    for dataset, substituted in runs.items():
        cell = Cell(artifact=artifact, mechanism="m", dataset=dataset, epsilon=1.0, delta=None,
                    seed=0, params={})
        store.append(cell, scale=scale, metrics={"substituted": substituted}, wall_time_s=0.0,
                     provenance=PROVENANCE)


def _check(id_: str, artifact: str, deviation: str | None = None) -> Check:
    return Check(id=id_, artifact=artifact, kind="claim", scale="small", data="d",
                 description=id_, evaluate=lambda context: Outcome("pass", "", ""),
                 deviation=deviation)


@pytest.fixture
def results(tmp_path):
    _record(tmp_path, "alpha-smoke", "smoke", {"titanic": False})
    _record(tmp_path, "alpha-small", "smoke", {"titanic": False})
    _record(tmp_path, "alpha-small", "small", {"titanic": False, "adult": True, "fire": True})
    _record(tmp_path, "alpha-paper", "paper", {"adult": True})
    _record(tmp_path, "alpha-closed", "small", {"closed-form": False})
    _record(tmp_path, "beta-small", "small", {"nltcs": False})
    return tmp_path


EVALUATED = [
    (_check("a-pass", "alpha-small"), Outcome("pass", "", "")),
    (_check("a-fail", "alpha-small"), Outcome("fail", "", "")),
    (_check("a-missing", "alpha-small"), Outcome("missing", "", "")),
    (_check("a-na", "alpha-small"), Outcome("not-applicable", "", "")),
    (_check("a-dev", "alpha-small", deviation="Not seen at small scale: it grows. More."),
     Outcome("deviation", "", "", note="Not seen at small scale: it grows. More.")),
    (_check("v-na", "alpha-view"), Outcome("not-applicable", "", "")),
    (_check("b-pass", "beta-small"), Outcome("pass", "", "")),
]


@pytest.fixture
def card(results):
    return artifact_scorecard(TINY, EVALUATED, results).set_index("artifact")


def test_status_climbs_from_no_notebook_to_paper_scale(card):
    assert card["status"].to_dict() == {
        "alpha-none": "not re-run", "alpha-unrun": "not re-run", "alpha-smoke": "re-run",
        "alpha-small": "re-run", "alpha-view": "re-run", "alpha-paper": "paper scale",
        "alpha-closed": "re-run", "beta-small": "whole design"}
    assert card.loc["alpha-none", "note"] == "no notebook yet"
    assert card.loc["alpha-smoke", "note"] == "smoke results only"
    assert card.loc["alpha-small", "note"] == "small results cover part of the design"


def test_results_of_reads_the_source_store(card):
    assert card.loc["alpha-view", "note"] == ("shows the runs of alpha-small; small results cover "
                                              "part of the design")
    assert card.loc["alpha-view", "data"] == card.loc["alpha-small", "data"]


def test_small_counts_as_whole_design_only_where_the_spec_declares_it(results):
    undeclared = Catalogue([PaperSpec(key="beta", title="Beta", caption="Beta", order=2,
                                      artifacts=(_artifact("beta-small", "beta"),))])
    artifact = undeclared.artifact("beta-small")
    assert reproduction_status(undeclared, artifact, results)[0] == "re-run"
    assert reproduction_status(TINY, TINY.artifact("beta-small"), results)[0] == "whole design"


def small_gaps(artifact_id: str) -> str:
    """A made-up paper's gaps: beta-small's grid lacks one dataset, beta-whole's nothing."""
    return "nltcs (every mechanism)" if artifact_id == "beta-small" else ""


def test_the_gaps_decide_artifact_by_artifact_and_the_note_names_them(results):
    gappy = Catalogue([PaperSpec(key="beta", title="Beta", caption="Beta", order=2,
                                 design_gaps=f"{__name__}:small_gaps",
                                 artifacts=(_artifact("beta-small", "beta"),
                                            _artifact("beta-whole", "beta")))])
    ResultsStore(store_path("beta-whole", "small", results, within=gappy)).append(
        Cell(artifact="beta-whole", mechanism="m", dataset="nltcs", epsilon=1.0, delta=None,
             seed=0, params={}), scale="small", metrics={}, wall_time_s=0.0,
        provenance=PROVENANCE)
    assert reproduction_status(gappy, gappy.artifact("beta-small"), results) == (
        "re-run", "small results cover part of the design (still to run: nltcs (every mechanism))")
    assert reproduction_status(gappy, gappy.artifact("beta-whole"), results) == (
        "whole design", "paper-scale grid not committed")


def test_aim_names_its_pending_datasets_and_runs():
    from reprolib.experiments import listed_in_words
    from reprolib.papers.aim.setup import pending_datasets, pending_runs

    gap = catalogue().paper("aim").small_gap("aim-fig2")
    for dataset in pending_datasets("small"):
        assert dataset in gap
    for mechanism, datasets in pending_runs("small").items():
        assert f"{mechanism} on {listed_in_words(datasets)}" in gap
    assert catalogue().paper("aim").small_gap("aim-tab3") == ""
    assert "1,280 MB" in catalogue().paper("aim").small_gap("aim-fig4ab")
    if pending_datasets("small"):
        assert catalogue().paper("aim").small_gap("aim-fig6").startswith("AIM on ")


def test_paper_scale_runs_are_spot_runs_until_the_spec_declares_the_grid_complete(results):
    spot = Catalogue([PaperSpec(key="alpha", title="Alpha", caption="Alpha", order=1,
                                artifacts=tuple(TINY.paper("alpha").artifacts),
                                stand_ins={"adult": "nist/loans"},
                                stand_in_column="metric.substituted")])
    assert reproduction_status(spot, spot.artifact("alpha-paper"), results) == (
        "re-run", "spot runs at the paper's settings only")
    _record(results, "alpha-small", "paper", {"adult": True})
    assert reproduction_status(spot, spot.artifact("alpha-small"), results) == (
        "re-run", "small results cover part of the design; spot runs at the paper's settings")


def _cells(scale, settings):
    """Made-up grids: one cell at every scale, or one whose parameters say the scale."""
    del settings
    return [Cell(artifact="gamma", mechanism="m", dataset="nltcs", epsilon=1.0, delta=None,
                 seed=0, params={})]


SAME_AT_EVERY_SCALE = Experiment(artifact="gamma-same", settings=NoSettings,
                                 defaults=no_settings, cells=_cells, compute=lambda c, d: {})
CUT_AT_SMALL = Experiment(artifact="gamma-cut", settings=NoSettings, defaults=no_settings,
                          cells=lambda scale, s: [dataclasses.replace(c, params={"scale": scale})
                                                  for c in _cells(scale, s)],
                          compute=lambda c, d: {})


def test_a_small_grid_that_is_the_papers_is_paper_scale_once_all_stored(tmp_path):
    gamma = Catalogue([PaperSpec(
        key="gamma", title="Gamma", caption="Gamma", order=3,
        artifacts=(_artifact("gamma-same", "gamma"), _artifact("gamma-cut", "gamma")),
        experiments={"gamma-same": f"{__name__}:SAME_AT_EVERY_SCALE",
                     "gamma-cut": f"{__name__}:CUT_AT_SMALL"})])
    for experiment in (SAME_AT_EVERY_SCALE, CUT_AT_SMALL):
        store = ResultsStore(store_path(experiment.artifact, "small", tmp_path, within=gamma))
        assert reproduction_status(gamma, gamma.artifact(experiment.artifact), tmp_path)[0] == (
            "not re-run")
        for cell in experiment.cells("small", None):
            store.append(cell, scale="small", metrics={}, wall_time_s=0.0, provenance=PROVENANCE)
    assert reproduction_status(gamma, gamma.artifact("gamma-same"), tmp_path) == (
        "paper scale", "the small grid is the paper's: nothing is cut")
    assert reproduction_status(gamma, gamma.artifact("gamma-cut"), tmp_path)[0] == "re-run"


def test_data_names_the_paper_data_and_each_stand_in(card):
    assert card.loc["alpha-smoke", "data"] == "the paper's data: titanic"
    assert card.loc["alpha-small", "data"] == (
        "the paper's data: titanic; stand-ins: nist/loans for adult†; aim/salary for fire†")
    assert card.loc["alpha-paper", "data"] == "stand-in: nist/loans for adult†"
    assert card.loc["alpha-closed", "data"] == "closed forms (no data)"
    assert card.loc["alpha-none", "data"] == card.loc["alpha-unrun", "data"] == ""


def test_a_spec_that_marks_stand_ins_needs_the_column(tmp_path):
    store = ResultsStore(store_path("alpha-smoke", "smoke", tmp_path, within=TINY))
    store.append(Cell(artifact="alpha-smoke", mechanism="m", dataset="adult", epsilon=1.0,
                      delta=None, seed=0, params={}), scale="smoke", metrics={"other": 1},
                 wall_time_s=0.0, provenance=PROVENANCE)
    with pytest.raises(ValueError, match="metric.substituted"):
        artifact_scorecard(TINY, [], tmp_path, paper="alpha")


def test_checks_count_failures_and_missing_but_not_the_not_applicable(card):
    assert card.loc["alpha-small", "checks"] == (
        "1 of 4 pass (1 fails, 1 results missing, 1 documented deviation); 1 not applicable")
    assert card.loc["alpha-view", "checks"] == "none applies; 1 not applicable"
    assert card.loc["beta-small", "checks"] == "1 of 1 pass"
    assert card.loc["alpha-smoke", "checks"] == "no checks"


def test_deviations_are_listed_by_check_id_with_their_gist(card):
    assert card.loc["alpha-small", "deviations"] == "a-dev: Not seen at small scale"
    assert card.loc["beta-small", "deviations"] == ""


def test_links_are_relative_to_the_scorecard_pages(card):
    assert card.loc["alpha-small", "page"] == "../alpha/figures-alpha-small.html"
    assert card.loc["alpha-none", "page"] == ""


def test_one_paper_and_no_companion_pages(results):
    assert list(artifact_scorecard(TINY, EVALUATED, results, paper="beta")["artifact"]) == [
        "beta-small"]
    assert "scorecard" not in set(artifact_scorecard(TINY, EVALUATED, results)["artifact"])


def test_specs_reject_half_declared_stand_ins_and_unknown_no_data_artifacts():
    with pytest.raises(ValueError, match="go together"):
        PaperSpec(key="x", title="X", caption="X", order=1, artifacts=(),
                  stand_ins={"adult": "nist/loans"})
    with pytest.raises(ValueError, match="unknown artifacts"):
        PaperSpec(key="x", title="X", caption="X", order=1, artifacts=(),
                  no_data={"x-fig1": "closed forms (no data)"})


def test_the_installed_papers_say_what_their_small_profiles_cover():
    """AIM's and RAP++'s small profiles cover part of their design (for now), artifact by
    artifact; PrivPGD's and the preliminaries chapter's cover all of it; the slicing paper's, its tables but
    not its figures, whose epsilons the paper does not give; an artifact without a notebook is
    not re-run."""
    papers = catalogue()
    assert not papers.paper("aim").small_covers_design
    assert reproduction_status(papers, papers.artifact("aim-tab3"))[0] == "whole design"
    for same in ("aim-tab1", "aim-tab2", "rappp-tab2"):  # their scales cut nothing
        assert reproduction_status(papers, papers.artifact(same)) == (
            "paper scale", "the small grid is the paper's: nothing is cut")
    assert reproduction_status(papers, papers.artifact("aim-fig4ab"))[0] == "re-run"
    assert papers.paper("privpgd").small_covers_design
    assert reproduction_status(papers, papers.artifact("privpgd-tab4")) == (
        "whole design", "paper-scale grid not committed")
    assert papers.paper("preliminaries").small_covers_design
    assert papers.paper("preliminaries").paper_covers_design
    assert not papers.paper("aim").paper_covers_design
    assert reproduction_status(papers, papers.artifact("rappp-fig2")) == (
        "whole design", "paper-scale grid not committed")
    assert reproduction_status(papers, papers.artifact("rappp-fig9")) == (
        "whole design", "paper-scale grid not committed")
    still_to_come = Artifact(id="slicing-fig9", paper="slicing", title="still to come")
    assert reproduction_status(papers, still_to_come) == ("not re-run", "no notebook yet")
    assert reproduction_status(papers, papers.artifact("slicing-fig1")) == (
        "re-run", ("small results cover part of the design (still to run: the paper's ε "
                   "values, not in its text; ours are 1, 10, 100)"))
    assert reproduction_status(papers, papers.artifact("slicing-tab1")) == (
        "whole design", "paper-scale grid not committed")


def test_an_artifacts_findings_are_its_claims_evaluated_on_the_stored_runs():
    from reprolib.experiments import artifact_findings

    findings = artifact_findings("slicing-tab1").splitlines()
    # Algorithm 1 against SliceWass; each slicing method against DP-MERF, PATE-GAN and DP-CTGAN
    assert len(findings) == 7
    assert all(item.startswith("- **") for item in findings)
    found = [item for item in findings if "documented deviation" in item]
    assert found and all("*Our finding:* " in item for item in found)
    assert "Algorithm 1's mean is higher in" in found[0]  # the note's figures, filled in
    assert artifact_findings("slicing-tab1", kinds=("band",)) == (
        "No band check reads this artifact's runs.")


def test_markdown_is_escaped_in_findings():
    from reprolib.experiments._scorecard import _escaped

    assert _escaped("mm_mean_error <= 2*x [a]") == r"mm\_mean\_error \<= 2\*x \[a\]"
