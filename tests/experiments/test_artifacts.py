"""The artifact catalogue holds every id of DESIGN.md, the companion pages we add beside a
paper's own artifacts, and nothing unknown."""

import pytest

from reprolib.experiments import artifact_status, artifacts_of, get_artifact

DESIGN_IDS = {
    "aim": ["aim-tab1", "aim-tab2", "aim-tab3", "aim-fig1", "aim-fig2", "aim-fig3", "aim-fig4ab",
            "aim-fig4c", "aim-fig5", "aim-fig6", "aim-fig7"],
    "privpgd": [f"privpgd-fig{k}" for k in range(1, 8)] + [f"privpgd-tab{k}" for k in range(1, 7)],
    "rappp": [f"rappp-fig{k}" for k in range(1, 10)] + [f"rappp-tab{k}" for k in range(1, 5)],
    "slicing": ["slicing-tab1", "slicing-tab2", "slicing-tab3", "slicing-fig1", "slicing-fig2"],
}
# pages of ours, not the paper's: the slicing mechanism's noise calibration
COMPANION_IDS = {"slicing": ["slicing-calibration"]}


@pytest.mark.parametrize("paper", sorted(DESIGN_IDS))
def test_every_design_artifact_is_listed(paper):
    assert sorted(a.id for a in artifacts_of(paper)) == sorted(DESIGN_IDS[paper]
                                                              + COMPANION_IDS.get(paper, []))


def test_ids_are_unique():
    ids = [a.id for a in artifacts_of()]
    assert len(set(ids)) == len(ids)


def test_unknown_ids_and_papers_get_helpful_errors():
    with pytest.raises(KeyError, match="Did you mean aim-fig1"):
        get_artifact("aim-fig01")
    with pytest.raises(ValueError, match="unknown paper"):
        artifacts_of("dpsgd")


def test_status_reports_results_per_scale(scratch_dirs):
    status = artifact_status("preliminaries")
    assert list(status["id"]) == ["prelim-conversions"]
    assert not status[["results_smoke", "results_small", "results_paper"]].any(axis=None)
