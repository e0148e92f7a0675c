"""The slicing paper's five scores, computed by SDMetrics, the library the paper names.

Tables 1 and 3 score synthetic tables against the real one (higher is better, each in [0, 1]):

* **KSComp**: ``KSComplement``, one minus the Kolmogorov-Smirnov statistic, averaged over the
  numerical columns;
* **TVComp**: ``TVComplement``, one minus the total variation distance of the category
  frequencies, averaged over the categorical columns (the target among them);
* **ContSim**: ``ContingencySimilarity``, one minus the total variation distance of the 2-way
  contingency tables, averaged over the pairs of categorical columns;
* **CorrSim**: ``CorrelationSimilarity``, one minus half the gap of the Pearson correlations,
  averaged over the pairs of numerical columns (none with fewer than two: the paper's "–");
* **LogitRegression**: ``BinaryLogisticRegression``, the F1 score on the real table of a logistic
  regression trained on the synthetic one, with the binary target.

For the four distribution scores codes become categories (SDMetrics' ``categorical``), numbers
stay floats (``numerical``), and the target becomes a boolean: True for its code 1. For the F1
the features keep their integer codes, as folktables' numeric arrays present ACS codes: SDMetrics
one-hot encodes a categorical feature with an encoder fitted on the synthetic table, which then
refuses every real row whose category the synthetic table lacks (ours; the paper does not say).
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd

from reprolib.data import MixedDataset

SCORES = ("KSComp", "TVComp", "ContSim", "CorrSim", "LogitRegression")


def sdmetrics_table(data: MixedDataset, target: str, *, codes: bool = False
                    ) -> tuple[pd.DataFrame, dict]:
    """``data`` as an SDMetrics table and its metadata: ``target`` a boolean column, the other
    categorical attributes categories (``codes``: their integer codes).
    """
    sizes = dict(zip(data.domain.categorical.attributes, data.domain.categorical.sizes,
                     strict=True))
    if sizes.get(target) != 2:
        raise ValueError(f"the target must be a binary categorical attribute; {target!r} has "
                         f"{sizes.get(target, 'no')} categories")
    columns: dict[str, object] = {}
    kinds: dict[str, dict[str, str]] = {}
    for name in data.domain.categorical.attributes:
        values = data.column(name)
        if name == target:
            columns[name], kinds[name] = values == 1, {"sdtype": "boolean"}
        elif codes:
            columns[name], kinds[name] = values.astype(np.int64), {"sdtype": "numerical"}
        else:
            columns[name] = pd.Categorical(values.astype(str),
                                           categories=[str(c) for c in range(sizes[name])])
            kinds[name] = {"sdtype": "categorical"}
    for name in data.domain.numerical:
        columns[name] = data.column(name).astype(float)
        kinds[name] = {"sdtype": "numerical"}
    return pd.DataFrame(columns), {"columns": kinds}


def slicing_scores(real: MixedDataset, synthetic: MixedDataset, *, target: str
                   ) -> dict[str, float | None]:
    """The five scores of ``synthetic`` against ``real`` (None where a score has no columns)."""
    from sdmetrics.column_pairs import ContingencySimilarity, CorrelationSimilarity
    from sdmetrics.single_column import KSComplement, TVComplement
    from sdmetrics.single_table import BinaryLogisticRegression

    if synthetic.domain != real.domain:
        raise ValueError("the synthetic table must have the real table's domain")
    real_frame, _ = sdmetrics_table(real, target)
    synthetic_frame, _ = sdmetrics_table(synthetic, target)
    categorical = list(real.domain.categorical.attributes)
    numerical = list(real.domain.numerical)

    def mean(values: list[float]) -> float | None:
        return float(np.mean(values)) if values else None

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sklearn's convergence notes at SDMetrics' 50 iterations
        return {
            "KSComp": mean([KSComplement.compute(real_frame[c], synthetic_frame[c])
                            for c in numerical]),
            "TVComp": mean([TVComplement.compute(real_frame[c], synthetic_frame[c])
                            for c in categorical]),
            "ContSim": mean([ContingencySimilarity.compute(real_frame[list(pair)],
                                                           synthetic_frame[list(pair)])
                             for pair in itertools.combinations(categorical, 2)]),
            "CorrSim": mean([CorrelationSimilarity.compute(real_frame[list(pair)],
                                                           synthetic_frame[list(pair)])
                             for pair in itertools.combinations(numerical, 2)]),
            "LogitRegression": float(BinaryLogisticRegression.compute(
                *(sdmetrics_table(t, target, codes=True)[0] for t in (real, synthetic)),
                metadata=sdmetrics_table(real, target, codes=True)[1], target=target)),
        }
