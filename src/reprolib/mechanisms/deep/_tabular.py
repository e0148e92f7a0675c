"""The row coding the tabular GANs share: one-hot blocks of the categorical attributes, then the
numbers in [-1, 1] (their declared [0, 1] coding, stretched), and back.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pandas as pd
import torch

from reprolib.data import Dataset, MixedDataset
from reprolib.mechanisms._base import (
    Described,
    MechanismTraits,
    check_mixed_inputs,
    open_rdp_ledger,
)
from reprolib.privacy import NeighbourRelation, PrivacyBudget, RdpLedger


def generator_traits(relation: NeighbourRelation) -> MechanismTraits:
    """A tabular GAN's traits: no workload, no data-dependent selection, mixed-type records."""
    return MechanismTraits(workload_aware=False, data_aware=False, budget_aware=False,
                           efficiency_aware=False, relation=relation, data_kind="mixed")


def open_fit(mechanism: Described, data: MixedDataset, budget: PrivacyBudget,
             workload: Any) -> tuple[RdpLedger, Layout, np.ndarray]:
    """What a tabular GAN's fit does first: open its Rényi ledger, refuse what it cannot read
    (it answers no workload), and encode the records; returns the ledger, layout and rows.
    """
    ledger = open_rdp_ledger(mechanism, budget)
    check_mixed_inputs(mechanism, data, workload,
                       no_workload="fits the whole distribution and answers no workload")
    layout = Layout.of(data)
    return ledger, layout, encode(data, layout)


@dataclasses.dataclass(frozen=True)
class Layout:
    """Where each block and the numbers sit in an encoded row."""

    blocks: tuple[int, ...]
    numbers: int

    @classmethod
    def of(cls, data: MixedDataset) -> Layout:
        """The layout of ``data``'s domain."""
        categorical = data.domain.categorical
        return cls(tuple(categorical.size(a) for a in categorical.attributes),
                   len(data.numerical_names))

    @property
    def starts(self) -> np.ndarray:
        return np.concatenate([[0], np.cumsum(self.blocks)[:-1]]).astype(np.int64)

    @property
    def categories(self) -> int:
        return int(sum(self.blocks))


def encode(data: MixedDataset, layout: Layout) -> np.ndarray:
    """One-hot blocks of every categorical attribute, then the numbers in [-1, 1]."""
    codes = data.categorical.frame
    parts = [np.eye(size)[codes[a].to_numpy()]
             for a, size in zip(data.domain.categorical.attributes, layout.blocks, strict=True)]
    return np.concatenate([*parts, 2.0 * data.numerical - 1.0], axis=1).astype(np.float32)


def activate(raw: torch.Tensor, layout: Layout, temperature: float) -> torch.Tensor:
    """A Gumbel-softmax per block, a tanh per number."""
    parts = [torch.nn.functional.gumbel_softmax(raw[:, start:start + size], tau=temperature)
             for start, size in zip(layout.starts.tolist(), layout.blocks, strict=True)]
    parts.append(torch.tanh(raw[:, layout.categories:]))
    return torch.cat(parts, dim=1)


def decode(rows: np.ndarray, layout: Layout, like: MixedDataset, name: str) -> MixedDataset:
    """Records of ``like``'s domain, named ``name``: each block's largest entry (a Gumbel-softmax
    draw), the numbers mapped back to [0, 1].
    """
    codes = {a: rows[:, start:start + size].argmax(axis=1).astype(np.int64)
             for a, start, size in zip(like.domain.categorical.attributes,
                                        layout.starts.tolist(), layout.blocks, strict=True)}
    frame = pd.DataFrame(codes, index=pd.RangeIndex(len(rows)),
                         columns=list(like.domain.categorical.attributes))
    numbers = np.clip((rows[:, layout.categories:] + 1.0) / 2.0, 0.0, 1.0)
    return MixedDataset(Dataset(frame, like.domain.categorical, name), numbers,
                        like.numerical_names, like.targets, name)
