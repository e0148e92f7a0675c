"""Downstream metrics: PrivPGD's downstream error and RAP++'s logistic-regression macro-F1.

PrivPGD's downstream error (paper, Section 4.1, item 1, and "Implementation of the metrics").

Gradient boosting from scikit-learn with its default hyper-parameters (the authors' code:
``GradientBoostingClassifier()`` / ``GradientBoostingRegressor()``, 100 trees of depth 3, learning
rate 0.1), trained on one dataset and tested on the real 20 % test split. Features are all other
attributes as their integer codes; the target is predicted as its code, so the regression MSE is
in squared bin units (the discretised target, as in the authors' code and tables). The tables
report "synthetic / original": the error when training on D_DP next to the error when training on
the real training split D (:func:`downstream_ratio` divides the two).
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from reprolib.data import Dataset, MixedDataset
from reprolib.data._embedding import require_domain, require_records

Task = Literal["classification", "regression"]
_TASKS = ("classification", "regression")


def downstream_error(
    train: Dataset, test: Dataset, target: str, task: Task, *, seed: int = 0
) -> float:
    """Test error of gradient boosting trained on ``train`` and evaluated on ``test``.

    Classification: 0-1 error (1 - accuracy). Regression: mean squared error of the target's code
    (squared bins). ``seed`` is the estimator's ``random_state``. A classification training set
    with a single class cannot fit a classifier; the model then predicts that class everywhere.

    Raises:
        ValueError: On an unknown task, a target outside the domain, a domain with no feature,
            different train/test domains, or empty data.
    """
    if task not in _TASKS:
        raise ValueError(f"task must be one of {_TASKS}, got {task!r}")
    if target not in train.domain:
        raise ValueError(f"target {target!r} is not an attribute of {list(train.domain.attributes)}")
    features = [a for a in train.domain.attributes if a != target]
    if not features:
        raise ValueError("the data has no attribute besides the target to predict it from")
    require_domain(test, train.domain, "test")
    require_records(train, "training")
    require_records(test, "test")
    x_train, y_train = train.frame[features].to_numpy(), train.frame[target].to_numpy()
    x_test, y_test = test.frame[features].to_numpy(), test.frame[target].to_numpy()
    # scikit-learn's ensemble module is slow to import; only this metric needs it.
    from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor

    if task == "regression":
        model = GradientBoostingRegressor(random_state=seed).fit(x_train, y_train)
        return float(np.mean((model.predict(x_test) - y_test) ** 2))
    classes = np.unique(y_train)
    if len(classes) == 1:
        predictions = np.full(len(y_test), classes[0])
    else:
        predictions = GradientBoostingClassifier(random_state=seed).fit(x_train, y_train).predict(
            x_test
        )
    return float(np.mean(predictions != y_test))


def downstream_ratio(
    synthetic: Dataset,
    real_train: Dataset,
    real_test: Dataset,
    target: str,
    task: Task,
    *,
    seed: int = 0,
) -> float:
    """Error training on ``synthetic`` over error training on ``real_train`` (both on ``real_test``).

    NaN when training on the real data gives zero test error (the ratio is undefined).
    """
    require_domain(synthetic, real_train.domain, "synthetic")
    return error_ratio(downstream_error(synthetic, real_test, target, task, seed=seed),
                       downstream_error(real_train, real_test, target, task, seed=seed))


def error_ratio(synthetic_error: float, real_error: float) -> float:
    """``synthetic_error / real_error``, NaN when ``real_error`` is 0."""
    return synthetic_error / real_error if real_error > 0 else math.nan


def logistic_macro_f1(train: MixedDataset, test: MixedDataset, target: str, *,
                      numerical: bool = True) -> float:
    """Macro-F1 on ``test`` of a logistic regression trained on ``train`` (RAP++'s evaluation).

    The model of the RAP++ authors' code: L1-penalised logistic regression, liblinear, C = 1
    (its coordinate order seeded, so the score is a function of the data alone).
    Features: the one-hot codes of every categorical attribute that is not a target, and with
    ``numerical`` the numbers as coded in [0, 1] (the authors fed raw units; scaled numbers keep
    the penalty's meaning the same across columns). Macro-F1 is the unweighted mean of the
    classes' F1 over the classes present in ``test``. A training set with one class predicts it.

    Raises:
        ValueError: On a target that is not one of the data's targets or different domains.
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import f1_score

    if target not in train.domain.targets:
        raise ValueError(f"{target!r} is not a target of the data ({list(train.domain.targets)})")
    if train.domain != test.domain:
        raise ValueError("train and test must share one domain (code them with one MixedCoding)")
    x_train, x_test = (_features(d, numerical) for d in (train, test))
    y_train, y_test = train.column(target), test.column(target)
    if len(np.unique(y_train)) < 2:
        predicted = np.full(len(y_test), y_train[0] if len(y_train) else 0)
    else:
        # liblinear shuffles its coordinates: unseeded, it reads NumPy's global generator, and
        # where it stops before converging the F1 then depends on the process's history
        model = LogisticRegression(l1_ratio=1.0, solver="liblinear", C=1.0, random_state=0)
        predicted = model.fit(x_train, y_train).predict(x_test)
    return float(f1_score(y_test, predicted, average="macro", labels=np.unique(y_test)))


def _features(data: MixedDataset, numerical: bool) -> np.ndarray:
    """One-hot codes of the non-target categorical attributes, then the numbers."""
    domain = data.domain.categorical
    blocks = [np.eye(size)[data.column(a)] for a, size in zip(domain.attributes, domain.sizes,
                                                              strict=True)
              if a not in data.domain.targets]
    if numerical:
        blocks.append(data.numerical)
    return np.concatenate(blocks, axis=1) if blocks else np.zeros((data.records, 0))
