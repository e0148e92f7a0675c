"""Losses between noisy projections of real and synthetic rows, slice by slice (torch).

Both take ``real`` and ``synthetic`` of shape (m, b, k): m slices, b rows, k dimensions per
slice; ``real`` holds released noisy projections o_{i,s}, ``synthetic`` the generator's rows
projected on the same directions plus fresh smoothing noise.

* :func:`sliced_f_divergence`: Eq. 5 of the slicing paper. In each slice the density ratio
  r = p_syn / p_real is estimated at the real points by kernel mean matching with a Gaussian
  kernel, r = (n_q / n_p) (K_qq + tau I)^{-1} K_qp 1 (Eq. 1 with the ridge tau), averaged over an
  ensemble of bandwidths (the median heuristic times ``multipliers``, Remark 3), clipped at 0,
  and the divergence is the mean of f(r) over the real points and the slices.
* :func:`sliced_wasserstein`: SliceWass's loss (k = 1), the mean over slices of the p-th power
  p-Wasserstein distance between the two sorted samples.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

import torch

Divergence = Literal["pearson", "kl"]

F_FUNCTIONS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "pearson": lambda t: (t - 1.0) ** 2,   # Pearson chi^2 (our default: the paper names none)
    "kl": lambda t: torch.xlogy(t, t),     # t log t, with 0 log 0 = 0
}


def _squared_distances(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """(m, i, j) squared Euclidean distances between the rows of a (m, i, k) and b (m, j, k)."""
    return ((a[:, :, None, :] - b[:, None, :, :]) ** 2).sum(-1)


def median_bandwidths(real: torch.Tensor, synthetic: torch.Tensor) -> torch.Tensor:
    """Per slice, the median distance between all the slice's samples, real and synthetic pooled
    (the median heuristic, Remark 3); shape (m,), no gradient flows through it.
    """
    pooled = torch.cat([real, synthetic], dim=1).detach()
    return _median_distance(_squared_distances(pooled, pooled))


def _median_distance(squared: torch.Tensor) -> torch.Tensor:
    """Per slice, the median distance between distinct samples from their (m, n, n) squared
    distances; of an even number of pairs, the mean of the middle two.

    Sorted, the n^2 entries of a slice are the diagonal's n zeros, then every pair's squared
    distance twice; so the j-th smallest pair is entry n + 2j (from 0), found by selection
    (``kthvalue``) without gathering or sorting the pairs.
    """
    m, n = squared.shape[:2]
    flat = squared.reshape(m, n * n)
    pairs = n * (n - 1) // 2
    low, high = ((flat.kthvalue(n + 2 * j + 1, dim=1).values.clamp_min(0.0).sqrt())
                 for j in ((pairs - 1) // 2, pairs // 2))
    return ((low + high) / 2).clamp_min(torch.finfo(squared.dtype).tiny)


def density_ratio(real: torch.Tensor, synthetic: torch.Tensor, *, tau: float,
                  multipliers: Sequence[float]) -> torch.Tensor:
    """The kernel estimate of p_syn / p_real at each real point, (m, b_real), before clipping."""
    n_q, n_p = real.shape[1], synthetic.shape[1]
    base = median_bandwidths(real, synthetic)
    d_qq, d_qp = _squared_distances(real, real), _squared_distances(real, synthetic)
    ridge = tau * torch.eye(n_q, dtype=real.dtype, device=real.device)
    ratios = []
    for multiplier in multipliers:
        width = 2.0 * (multiplier * base)[:, None, None] ** 2
        k_qq, k_qp = torch.exp(-d_qq / width), torch.exp(-d_qp / width)
        right = k_qp.sum(dim=2, keepdim=True) * (n_q / n_p)
        # K_qq + tau I is symmetric positive definite: solve through its Cholesky factor
        factor = torch.linalg.cholesky(k_qq + ridge)
        ratios.append(torch.cholesky_solve(right, factor)[..., 0])
    return torch.stack(ratios).mean(dim=0)


def sliced_f_divergence(real: torch.Tensor, synthetic: torch.Tensor, *,
                        divergence: Divergence = "pearson", tau: float = 1e-3,
                        multipliers: Sequence[float] = (0.5, 1.0, 2.0)) -> torch.Tensor:
    """Eq. 5: the mean over slices and real points of f((estimated ratio)_+)."""
    if divergence not in F_FUNCTIONS:
        raise ValueError(f"divergence must be one of {sorted(F_FUNCTIONS)}, got {divergence!r}")
    ratio = density_ratio(real, synthetic, tau=tau, multipliers=multipliers).clamp_min(0.0)
    return F_FUNCTIONS[divergence](ratio).mean()


def sliced_wasserstein(real: torch.Tensor, synthetic: torch.Tensor, *, p: float = 2.0
                       ) -> torch.Tensor:
    """Mean over slices of W_p^p between equal-size 1-D samples: sort both, average |diff|^p."""
    if real.shape != synthetic.shape or real.shape[-1] != 1:
        raise ValueError("sliced_wasserstein needs equal shapes (m, b, 1), got "
                         f"{tuple(real.shape)} and {tuple(synthetic.shape)}")
    ordered_real = real[..., 0].sort(dim=1).values
    ordered_synthetic = synthetic[..., 0].sort(dim=1).values
    return (ordered_real - ordered_synthetic).abs().pow(p).mean()
