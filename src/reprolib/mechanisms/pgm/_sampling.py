"""mbi's randomized rounding of a graphical model into records, on NumPy marginals.

A port of ``mbi.MarkovRandomField.synthetic_data(method="round")`` (mbi 2.0) that reads the
model's marginals from a callable instead of JAX factors (mbi's version expands the potentials and
compiles a message-passing program for every model it samples from) and draws from an explicit
``RandomState``. mbi stacks a column's parents in the iteration order of a Python set of attribute
names, which follows the process's string hash seed (``PYTHONHASHSEED``); this port stacks them in
domain order, so the records do not depend on it. Seeded alike, it makes mbi's draws in mbi's
order, and the records are mbi's whenever no column has two parents or mbi's set order happens to
be the domain order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from reprolib.data import cell_index
from reprolib.queries import Clique


def _rounded_column(counts: np.ndarray, total: int, random: np.random.RandomState) -> np.ndarray:
    """``total`` values with ``counts`` rescaled and randomly rounded as their frequencies."""
    counts = np.asarray(counts, dtype=np.float64).ravel()
    options = np.arange(counts.size, dtype=np.min_scalar_type(counts.size))
    if total == 0:
        return np.array([], dtype=int)
    frac, integ = np.modf(counts * (total / counts.sum()))
    integ = integ.astype(int)
    extra = total - integ.sum()
    if extra > 0:
        integ[random.choice(options, extra, False, frac / frac.sum())] += 1
    values = np.repeat(options, integ)
    random.shuffle(values)
    return values


def _parent_groups(parents: tuple[np.ndarray, ...], shape: tuple[int, ...]
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The groups of equal parent values, as ``np.unique(np.stack(parents, -1), axis=0,
    return_inverse=True, return_counts=True)`` orders them (lexicographically, which is the
    row-major order of the cells of ``shape``), found by counting instead of sorting.

    Returns each group's row-major cell index, each record's group and each group's size. The
    inverse has the smallest integer type that holds it, so that the stable sort of it can be a
    radix sort.
    """
    flat = cell_index(parents, shape)
    per_cell = np.bincount(flat, minlength=int(np.prod(shape)))
    present = np.flatnonzero(per_cell)
    group = np.zeros(per_cell.size, dtype=np.min_scalar_type(max(present.size - 1, 0)))
    group[present] = np.arange(present.size)
    return present, group[flat], per_cell[present]


def rounded_records(marginal: Callable[[Clique], np.ndarray], nodes: Sequence[Clique],
                    elimination_order: Sequence[str], sizes: dict[str, int], total: int,
                    random: np.random.RandomState) -> dict[str, np.ndarray]:
    """``total`` records, one column at a time in reverse ``elimination_order``.

    Each column is drawn given its parents, the already drawn columns it shares a junction-tree
    node (``nodes``) with, taken in the order of ``sizes`` (the domain's): within each group of
    equal parent values, ranks plus uniform noise over the group size are read off the conditional
    CDF of ``marginal`` (counts on a clique, axes in the clique's order), so every group's values
    follow the model's conditional closely.
    """
    order = list(elimination_order)[::-1]
    cliques = [set(node) for node in nodes]
    data = {order[0]: _rounded_column(marginal((order[0],)), total, random)}
    used = {order[0]}
    for col in order[1:]:
        relevant = [cl for cl in cliques if col in cl]
        proj = tuple(a for a in sizes if a in used and any(a in cl for cl in relevant))
        used.add(col)
        if not proj:
            data[col] = _rounded_column(marginal((col,)), total, random)
            continue
        joint = np.asarray(marginal(proj + (col,)), dtype=np.float64)
        below = joint.sum(axis=-1, keepdims=True)
        cdfs = np.divide(joint, below, out=np.zeros_like(joint), where=below != 0).cumsum(axis=-1)
        present, inverse, counts = _parent_groups(tuple(data[c] for c in proj), joint.shape[:-1])
        perm = np.argsort(inverse, kind="stable")
        starts = np.zeros(len(counts), dtype=int)
        np.cumsum(counts[:-1], out=starts[1:])
        for start, count in zip(starts, counts, strict=True):  # decorrelate from earlier columns
            random.shuffle(perm[start:start + count])
        ranks = np.empty(total, dtype=int)
        ranks[perm] = np.arange(total) - starts[inverse[perm]]
        u = ((ranks + random.rand(total)) / counts[inverse])[perm]
        group_cdfs = cdfs.reshape(-1, sizes[col])[present]
        choices = np.empty(total, dtype=np.min_scalar_type(sizes[col]))
        for start, count, cdf in zip(starts, counts, group_cdfs, strict=True):
            picked = np.searchsorted(cdf, u[start:start + count], side="right")
            choices[perm[start:start + count]] = np.minimum(picked, sizes[col] - 1)
        data[col] = choices
    return data
