import pandas as pd
import pytest

from reprolib.experiments import artifacts_of
from reprolib.experiments._staleness import (
    OUTPUT_CHANGES,
    UNPLACED,
    OutputChange,
    rerun_summary,
    rows_to_rerun,
)
from reprolib.mechanisms._registry import REGISTRATIONS

COMMITTED = "2026-06-01T00:00:00+00:00"  # when the tests' change was committed
EARLIER, LATER = "2026-05-31T23:59:59+00:00", "2026-06-01T00:00:01+00:00"


def test_rows_before_a_change_of_their_mechanism_are_due_to_rerun(history) -> None:
    repository, (before, change, after) = history
    changes = (OutputChange(change, COMMITTED, ("RAP", "RAP++"), "a fix"),)
    rows = pd.DataFrame({
        "mechanism": ["RAP", "RAP++", "RAP", "RAP", "AIM", "RAP", "RAP", "RAP"],
        "git_revision": [before, before + "-dirty", change, after, before, "unknown",
                         "0" * 40, "unknown"],
        "created_at": [LATER] * 7 + [EARLIER],  # git decides where it can place the revision
    })
    marks = rows_to_rerun(rows, changes, repository)
    short = change[:7]
    assert marks.tolist() == [short, short, "", "", "", UNPLACED, UNPLACED, short]
    assert rerun_summary(rows, changes, repository) == (
        f"; 3 of them (RAP, RAP++) predate {short} (a fix), which can move such runs, so "
        "they are due to be re-run; 2 (RAP), recorded at revisions this checkout cannot place, "
        "after such a change was committed, may predate it")
    current = rows.iloc[2:5]
    assert rerun_summary(current, changes, repository) == ""


def test_a_change_of_scoring_moves_every_mechanism_of_the_stores_it_names(history) -> None:
    repository, (before, change, _) = history
    changes = (OutputChange(change, COMMITTED, (), "a score", ("rappp-fig8",)),)
    rows = pd.DataFrame({"artifact": ["rappp-fig8", "rappp-fig8", "rappp-fig8", "aim-fig1"],
                         "mechanism": ["PGM", "original", "PGM", "PGM"],
                         "git_revision": [before, before, change, before],
                         "created_at": [LATER] * 4})
    assert rows_to_rerun(rows, changes, repository).tolist() == [change[:7]] * 2 + ["", ""]
    assert rows_to_rerun(rows.drop(columns="artifact"), changes, repository).tolist() == [""] * 4


def test_a_row_is_marked_with_the_last_change_it_predates(history) -> None:
    repository, (before, change, after) = history
    changes = (OutputChange(change, COMMITTED, ("GEM",), "first"),
               OutputChange(after, COMMITTED, ("GEM",), "second"))
    rows = pd.DataFrame({"mechanism": ["GEM", "GEM", "GEM"],
                         "git_revision": [before, change, "unknown"],
                         "created_at": [LATER, LATER, LATER]})
    assert rows_to_rerun(rows, changes, repository).tolist() == [after[:7], after[:7], UNPLACED]
    missing = OutputChange("0" * 40, EARLIER, ("GEM",), "a commit this checkout lacks")
    assert rows_to_rerun(rows, changes[:1] + (missing,), repository).tolist() == [
        change[:7], UNPLACED, UNPLACED]  # what is known to predate stays marked so


def test_a_shallow_clone_judges_by_the_time_a_row_was_recorded(history, tmp_path) -> None:
    import subprocess

    repository, (before, change, after) = history
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repository}", str(shallow)],
                   check=True, capture_output=True)
    changes = (OutputChange(change, COMMITTED, ("RAP",), "a fix"),)
    rows = pd.DataFrame({"mechanism": ["RAP", "RAP", "RAP"], "git_revision": [before, after, after],
                         "created_at": [EARLIER, LATER, EARLIER]})
    assert rows_to_rerun(rows, changes, shallow).tolist() == [change[:7], UNPLACED, change[:7]]
    assert rows_to_rerun(rows, changes, repository).tolist() == [change[:7], "", ""]


def test_frames_without_mechanisms_or_revisions_have_nothing_to_rerun() -> None:
    rows = pd.DataFrame({"wall_time_s": [1.0]})
    assert rows_to_rerun(rows).tolist() == [""]
    assert rerun_summary(rows) == ""


def test_registered_changes_name_full_commits_and_registered_mechanisms() -> None:
    names = {registration.name for registration in REGISTRATIONS}
    for change in OUTPUT_CHANGES:
        assert len(change.commit) == 40 and int(change.commit, 16) >= 0
        assert set(change.mechanisms) <= names, change
        assert set(change.artifacts) <= {artifact.id for artifact in artifacts_of()}, change
        assert pd.Timestamp(change.committed).tzinfo is not None


def test_rerun_replaces_the_outdated_rows_in_place_and_keeps_the_current_ones(
        history, monkeypatch, tmp_path) -> None:
    from reprolib.experiments import (
        _provenance,
        _staleness,
        collect_provenance,
        get_experiment,
        open_store,
        rerun_outdated,
    )

    repository, (before, change, after) = history
    monkeypatch.setattr(_staleness, "repo_root", lambda: repository)
    monkeypatch.setattr(_provenance, "_git_revision", lambda: after)  # the code re-running
    artifact = "prelim-conversions"
    experiment = get_experiment(artifact)
    cells = experiment.cells("smoke", experiment.settings_at("smoke"))
    store = open_store(artifact, "smoke", tmp_path / "results")
    for index, cell in enumerate(cells):  # the first two outdated, with wrong metrics
        store.append(cell, scale="smoke", metrics={"wrong": 1.0}, wall_time_s=0.0,
                     provenance={**collect_provenance("old"),
                                 "git_revision": before if index < 2 else change})
    changes = (OutputChange(change, COMMITTED, tuple({cell.mechanism for cell in cells}),
                            "a fix"),)
    rerun = {"scale": "smoke", "device": "cpu", "progress": False,
             "results_root": tmp_path / "results", "changes": changes}
    assert rerun_outdated(artifact, limit=1, **rerun) == 1
    assert rerun_outdated(artifact, **rerun) == 1
    assert rerun_outdated(artifact, **rerun) == 0
    frame = open_store(artifact, "smoke", tmp_path / "results").frame()
    assert frame["key"].tolist() == [cell.key for cell in cells]
    assert frame["git_revision"].tolist() == [after, after] + [change] * (len(cells) - 2)
    assert (frame["device"] == "old").tolist() == [False, False] + [True] * (len(cells) - 2)
    fresh = experiment.compute_on(cells[0], "cpu")
    assert open_store(artifact, "smoke", tmp_path / "results").get(cells[0]) == fresh


def test_the_rerun_command_says_what_it_did(monkeypatch, capsys, scratch_dirs) -> None:
    import reprolib.experiments
    from reprolib import cli
    from reprolib.experiments import Cell, collect_provenance, open_store

    counts = iter([3, 0])
    monkeypatch.setattr(reprolib.experiments, "rerun_outdated",
                        lambda artifact, **options: next(counts))
    assert cli.main(["rerun", "rappp-fig8", "--cells", "3", "--device", "cpu"]) == 0
    open_store("rappp-fig8", "small").append(  # recorded before the last change: outdated
        Cell(artifact="rappp-fig8", mechanism="RAP++", dataset="d",
             epsilon=1.0, delta=None, seed=0, params={}), scale="small", metrics={},
        wall_time_s=1.0, provenance={**collect_provenance("cpu"), "git_revision": "unknown",
                                     "created_at": "2000-01-01T00:00:00+00:00"})
    assert cli.main(["rerun", "rappp-fig8"]) == 0
    said = capsys.readouterr().out.splitlines()
    assert said == [("rappp-fig8 [small]: re-ran 3 cell(s) whose rows predated a change of code "
                     "that can move them"),
                    ("rappp-fig8 [small]: nothing re-run; 1 such row(s) left (beyond --cells or "
                     "--spots, or of cells outside the default grid: see --dry-run)")]


def test_the_rerun_command_reruns_a_regression_checks_small_spots(monkeypatch, capsys,
                                                                  scratch_dirs) -> None:
    import reprolib.experiments
    from reprolib import cli
    from reprolib.papers.rappp.checks import SMALL_SPOTS

    asked = []
    monkeypatch.setattr(reprolib.experiments, "rerun_outdated",
                        lambda artifact, **options: asked.append(options["overrides"]) or 0)
    assert cli.main(["rerun", "rappp-fig8", "--spots"]) == 0
    assert asked == [SMALL_SPOTS]
    assert cli.main(["rerun", "rappp-fig8", "--spots", "--scale", "smoke"]) == 2
    assert "pass --scale small" in capsys.readouterr().err
    assert cli.main(["rerun", "prelim-conversions", "--spots"]) == 2
    assert "its check recomputes none" in capsys.readouterr().err
    assert asked == [SMALL_SPOTS]


def test_the_rerun_command_reruns_on_a_cluster_when_asked(monkeypatch) -> None:
    from reprolib import cli

    asked = []
    monkeypatch.setattr(cli, "_on_cluster", lambda args, artifacts, outdated=(): asked.append(
        (args.workers, artifacts, outdated)) or 0)
    assert cli.main(["rerun", "rappp-fig8", "--workers", "4"]) == 0
    assert asked == [(4, ["rappp-fig8"], list(OUTPUT_CHANGES))]
    last = OUTPUT_CHANGES[-1]
    assert cli.main(["rerun", "rappp-fig8", "--workers", "4", "--change", last.short]) == 0
    assert asked[-1] == (4, ["rappp-fig8"], [last])
    assert cli.main(["rerun", "rappp-fig8", "--change", "not-a-commit"]) == 2
    with pytest.raises(SystemExit):  # one place to run: here (--cells) or a cluster
        cli.main(["rerun", "rappp-fig8", "--workers", "4", "--cells", "2"])


def test_the_dry_run_lists_each_stores_outdated_rows_and_their_hours(scratch_dirs,
                                                                    capsys) -> None:
    from reprolib import cli
    from reprolib.experiments import Cell, collect_provenance, open_store

    assert cli.main(["rerun", "--dry-run"]) == 0
    assert capsys.readouterr().out == (
        "every stored row at scale small that git can place is current; nothing to re-run\n")
    store = open_store("privpgd-fig4", "small")  # a store several artifacts read
    for seed, (mechanism, recorded) in enumerate([  # no change of PGM+MST's is registered
            ("GEM", "2000-01-01T00:00:00+00:00"), ("GEM", "2000-01-01T00:00:00+00:00"),
            ("GEM", None), ("PGM+MST", "2000-01-01T00:00:00+00:00")]):
        provenance = {**collect_provenance("cpu"), "git_revision": "unknown"}
        store.append(Cell(artifact="privpgd-fig4", mechanism=mechanism, dataset="d",
                          epsilon=1.0, delta=None, seed=seed, params={}), scale="small",
                     metrics={}, wall_time_s=1800.0,
                     provenance=provenance | ({"created_at": recorded} if recorded else {}))
    assert cli.main(["rerun", "--dry-run"]) == 0
    said = capsys.readouterr().out.splitlines()
    gem = next(change.short for change in reversed(OUTPUT_CHANGES) if "GEM" in change.mechanisms)
    assert [line.split() for line in said[:2]] == [
        ["artifacts", "rows", "mechanisms", "predate", "hours", "as", "recorded"],
        ["privpgd-fig4,", "privpgd-fig6,", "privpgd-tab3,", "privpgd-tab4", "2", "GEM", gem,
         "1.00"]]
    assert said[2].startswith("not re-run: rows recorded after such a change") and said[2].endswith(
        "1 of privpgd-fig4, privpgd-fig6, privpgd-tab3, privpgd-tab4")