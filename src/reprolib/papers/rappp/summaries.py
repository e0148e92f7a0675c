"""The numbers behind the comparison figures (2-5, 7-9), from the recorded runs.

The paper's points average the states and its error bars come from the seeds, so a summary first
averages each seed's runs over the states, then takes the mean and the standard deviation of
those averages over the seeds.
"""

from __future__ import annotations

import pandas as pd

from reprolib.papers.rappp.comparison import ORIGINAL


def with_task_state(frame: pd.DataFrame) -> pd.DataFrame:
    """The runs with ``task`` and ``state`` columns split from the ``task/state`` dataset key."""
    parts = frame["dataset"].str.split("/", expand=True)
    return frame.assign(task=parts[0], state=parts[1])


def _over_seeds(frame: pd.DataFrame, keys: list[str], value: str) -> pd.DataFrame:
    """Mean over states per seed, then mean and standard deviation over seeds."""
    per_seed = frame.groupby([*keys, "seed"], dropna=False)[value].mean().reset_index()
    out = per_seed.groupby(keys, dropna=False)[value].agg(["mean", "std", "count"])
    return out.rename(columns={"count": "seeds"}).reset_index()


def error_summary(frame: pd.DataFrame, metric: str) -> pd.DataFrame:
    """Per task, mechanism and epsilon: ``metric`` (e.g. ``mm_mean_error``) averaged over the
    states, mean and standard deviation over seeds; the private runs only.
    """
    runs = with_task_state(frame[frame["mechanism"] != ORIGINAL])
    return _over_seeds(runs, ["task", "mechanism", "epsilon"], f"metric.{metric}")


def f1_long(frame: pd.DataFrame, extra: tuple[str, ...] = ()) -> pd.DataFrame:
    """One row per run and target: the macro-F1 of the linear model trained on the run's records
    (the ``original`` runs: on the real training split), with the ``extra`` columns kept.
    """
    columns = [c for c in frame.columns if c.startswith("metric.f1.")]
    runs = with_task_state(frame)
    long = runs.melt(id_vars=["task", "state", "mechanism", "epsilon", "seed", *extra],
                     value_vars=columns, var_name="target", value_name="f1").dropna(
                         subset=["f1"])
    return long.assign(target=long["target"].str.removeprefix("metric.f1."))


def f1_summary(frame: pd.DataFrame, *, by_state: bool) -> pd.DataFrame:
    """Per (state when ``by_state``), target, mechanism and epsilon: F1 averaged over states,
    mean and standard deviation over seeds; ``original`` has no epsilon.
    """
    keys = ["state"] * by_state + ["target", "mechanism", "epsilon"]
    return _over_seeds(f1_long(frame), keys, "f1")


def sensitivity_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Figure 3's points: per dataset, epsilon, mechanism and knob (PGM's bins, RAP++'s T_LT),
    the mean and standard deviation over seeds of F1 and of the run's wall time in seconds.
    """
    private = frame[frame["mechanism"] != ORIGINAL]
    knob = private["param.bins"].where(private["mechanism"] == "PGM", private["param.lt_rounds"])
    runs = private.assign(knob=knob.astype(int), seconds=private["metric.seconds"],
                          knob_name=private["mechanism"].map({"PGM": "bins", "RAP++": "T_LT"}))
    long = f1_long(runs, ("knob", "knob_name", "seconds"))
    keys = ["task", "state", "epsilon", "mechanism", "knob_name", "knob"]
    out = long.groupby(keys)[["f1", "seconds"]].agg(["mean", "std"])
    out.columns = [f"{value} {stat}" for value, stat in out.columns]
    return out.reset_index()
