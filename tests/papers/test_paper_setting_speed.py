"""The speed summary's rows at the papers' settings: which benchmark rows count, and how the
shorter runs are extrapolated."""

import pandas as pd
import pytest

from reprolib.experiments import PAPER_SETTING_COLUMNS
from reprolib.papers.aim import pages as aim_pages
from reprolib.papers.privpgd import pages as privpgd_pages
from reprolib.papers.rappp import pages as rappp_pages
from reprolib.papers.slicing import pages as slicing_pages


def _csv(path, rows, columns):
    path.parent.mkdir(parents=True, exist_ok=True)
    frame = pd.DataFrame(rows)
    frame[[c for c in columns if c not in frame]] = 0  # the columns the test leaves alone
    frame.to_csv(path, index=False)
    return path


def test_aim_counts_the_80_mb_runs_at_1000_iterations_or_more(tmp_path):
    rows = [{"dataset": "salary", "epsilon": 3.16, "max_model_size_mb": 80.0, "pgm_iters": it,
             "seconds": 600.0, "jax_backend": "gpu"} for it in (100, 1000)]
    speed = aim_pages.paper_setting_speed(_csv(tmp_path / "a.csv", rows, aim_pages.SPEED_COLUMNS),
                                          results_root=tmp_path)
    assert list(speed.columns) == list(PAPER_SETTING_COLUMNS)
    assert len(speed) == 1 and speed.minutes.iloc[0] == pytest.approx(10.0)


def test_aim_adds_the_stored_paper_scale_runs_on_fire():
    speed = aim_pages.paper_setting_speed()  # the committed benchmark rows and paper store
    fire = speed[speed.setting.str.contains("paper scale")]
    assert fire.setting.str.startswith("fire, ").all() and len(fire)
    ten = fire[fire.setting.str.contains("ε = 10,")]
    assert ten.device.tolist() == ["cuda (NVIDIA H200)"] and ten.minutes.iloc[0] < 30


def test_privpgd_extrapolates_the_descent_and_skips_old_code(tmp_path):
    rows = [{"code": code, "dataset": "aim/adult", "particles": 100_000, "epochs": epochs,
             "projection_iterations": 0, "device": "cpu", "seconds_per_epoch": 3.0,
             "seconds_total": 9.0} for code, epochs in (("before abc", 3), ("abc", 3))]
    rows.append({**rows[1], "particles": 10_000})
    _csv(tmp_path / privpgd_pages.SPEED_CSV, rows, privpgd_pages.SPEED_COLUMNS)
    speed = privpgd_pages.paper_setting_speed(tmp_path)
    assert len(speed) == 1
    assert speed.minutes.iloc[0] == pytest.approx(3.0 * 1000 / 60)
    assert speed.measured.iloc[0] == "descent extrapolated from 3 epochs"


def test_rappp_counts_paper_size_runs_only(tmp_path):
    paper = {**rappp_pages.PAPER_SIZE, "records": 140_742, "rounds": 66, "wall_seconds": 60.0,
             "device": "cuda (GPU)"}
    rows = [paper, {**paper, "lt_queries": 20_000}]
    speed = rappp_pages.paper_setting_speed(_csv(tmp_path / "r.csv", rows,
                                                 rappp_pages.SPEED_COLUMNS))
    assert speed.minutes.tolist() == [1.0] and speed.measured.tolist() == ["whole run"]


def test_slicing_keeps_the_newest_run_of_each_kind(tmp_path):
    base = {"loss": "sliced-f", "rows": 49_000, "columns": 100, "slice_dim": 2, "slices": 50,
            "device": "cuda (GPU)"}
    rows = [{**base, "git_revision": "before abc", "epochs": 3, "paper_model_minutes": 14.0},
            {**base, "git_revision": "abc", "epochs": 3, "paper_model_minutes": 6.0},
            {**base, "git_revision": "def", "epochs": 3, "paper_model_minutes": 5.0},
            {**base, "git_revision": "def", "epochs": 200, "paper_model_minutes": 4.5}]
    speed = slicing_pages.paper_setting_speed(_csv(tmp_path / "s.csv", rows,
                                                   slicing_pages.SPEED_COLUMNS))
    assert speed.minutes.tolist() == [5.0, 4.5]
    assert speed.measured.tolist() == ["extrapolated from 3 epoch(s)", "whole run"]
