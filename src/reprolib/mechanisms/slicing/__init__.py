"""The slicing family: generators trained on a one-shot sliced release (U, XU + V).

The release itself (Definition 5 of the slicing paper, charged in RDP) is
:func:`reprolib.privacy.slicing_release`; everything here is post-processing of it:
:mod:`~reprolib.mechanisms.slicing.divergences` (the kernel estimate of the smoothed-sliced
f-divergence, Eq. 5, and the smoothed sliced Wasserstein distance of SliceWass),
:mod:`~reprolib.mechanisms.slicing.generator` (the generator network) and
:mod:`~reprolib.mechanisms.slicing.training` (Algorithm 1's loop).
"""
