"""A paper is found by discovery: a toy package beside the real ones appears in the catalogue, the
CLI, the table of contents, the results store and the checks, with no central file edited."""

import textwrap

import pytest

import reprolib.papers
from reprolib import cli
from reprolib._toc import render_toc
from reprolib.experiments import (
    Artifact,
    PaperSpec,
    artifact_status,
    catalogue,
    checks_of,
    run_experiment,
)

TOY_PACKAGE = '''
"""A toy paper: one figure whose grid is closed forms (rho of a few epsilons)."""

from reprolib.experiments import Artifact, Chapter, PaperSpec

SPEC = PaperSpec(
    key="toy",
    title="A toy paper (nobody, 2026)",
    caption="Toy",
    order=99,
    artifacts=(Artifact(id="toy-fig1", paper="toy", title="rho against epsilon",
                        notebook="NOTEBOOK", toc_title="Figure 1, the toy"),),
    experiments={"toy-fig1": "reprolib.papers.toy.grid:RHO"},
    checks="reprolib.papers.toy.grid:CHECKS",
    chapters=(Chapter(file="CHAPTER"),),
)
'''

TOY_GRID = '''
import dataclasses

from reprolib.experiments import Cell, Check, Experiment, Outcome
from reprolib.privacy import eps_to_rho


@dataclasses.dataclass(frozen=True)
class Grid:
    epsilons: tuple[float, ...] = (0.5, 1.0, 2.0)


def _cells(scale, settings):
    return [Cell(artifact="toy-fig1", mechanism="none", dataset="closed-form", epsilon=e,
                 delta=1e-6, seed=0, params={}) for e in settings.epsilons]


def _compute(cell, device):
    return {"rho": eps_to_rho(cell.epsilon, cell.delta)}


def _rho_grows(context):
    rows = context.results("toy-fig1", "smoke").sort_values("epsilon")
    grows = bool(rows["metric.rho"].is_monotonic_increasing)
    return Outcome("pass" if grows else "fail", f"increasing: {grows}", "increasing")


RHO = Experiment(artifact="toy-fig1", settings=Grid, defaults=lambda scale: Grid(),
                 cells=_cells, compute=_compute)
CHECKS = (Check(id="toy-rho-grows", artifact="toy-fig1", kind="claim", scale="smoke",
                data="closed forms", description="rho grows with epsilon", evaluate=_rho_grows),)
'''


@pytest.fixture
def toy_paper(tmp_path, monkeypatch):
    """``reprolib.papers.toy`` in a folder added to the papers package's search path."""
    extra = tmp_path / "extra_papers"
    package = extra / "toy"
    package.mkdir(parents=True)
    notebook, chapter = tmp_path / "notebooks" / "toy" / "grid.py", tmp_path / "book" / "toy"
    (package / "__init__.py").write_text(
        TOY_PACKAGE.replace("NOTEBOOK", str(notebook)).replace("CHAPTER", str(chapter)))
    (package / "grid.py").write_text(textwrap.dedent(TOY_GRID))
    monkeypatch.setattr(reprolib.papers, "__path__", [*reprolib.papers.__path__, str(extra)])
    monkeypatch.setenv("REPROLIB_RESULTS_DIR", str(tmp_path / "results"))
    catalogue.cache_clear()
    yield tmp_path
    catalogue.cache_clear()


def test_a_new_package_is_a_new_paper_everywhere(toy_paper, capsys):
    assert "toy" in catalogue().papers
    assert [a.id for a in catalogue().artifacts_of("toy")] == ["toy-fig1"]
    assert cli.main(["list", "--paper", "toy"]) == 0
    assert "toy-fig1" in capsys.readouterr().out

    toc = render_toc(catalogue())
    assert "caption: Toy" in toc and "book/generated/toy/grid" in toc
    assert 'title: "Figure 1, the toy"' in toc and "scorecard-toy" in toc

    rows = run_experiment("toy-fig1", scale="smoke", progress=False)
    assert len(rows) == 3
    assert bool(artifact_status("toy")["results_smoke"].iloc[0])
    assert [c.id for c in checks_of("toy")] == ["toy-rho-grows"]
    assert cli.main(["check", "--paper", "toy"]) == 0


def test_the_real_papers_are_unaffected_by_the_toy(toy_paper):
    assert list(catalogue().papers)[:3] == ["preliminaries", "aim", "privpgd"]
    assert list(catalogue().papers)[-1] == "toy"


def test_a_spec_must_own_its_artifacts_and_experiments():
    stranger = Artifact(id="aim-fig1", paper="aim", title="not mine")
    with pytest.raises(ValueError, match="artifacts of other papers"):
        PaperSpec(key="toy", title="t", caption="T", order=1, artifacts=(stranger,))
    with pytest.raises(ValueError, match="unknown artifacts"):
        PaperSpec(key="toy", title="t", caption="T", order=1, artifacts=(),
                  experiments={"toy-fig9": "x:y"})


def test_the_committed_toc_is_generated_from_the_specs():
    from reprolib._paths import repo_root

    assert (repo_root() / "_toc.yml").read_text() == render_toc(catalogue()), (
        "_toc.yml is stale: run `reprolib toc`")
