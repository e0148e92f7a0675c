"""reprolib: a reproducible companion to four differential-privacy synthetic-data papers.

Horizontal layers, each importing only those below it: :mod:`reprolib.experiments` (the engine:
catalogue, grids, results store, checks), :mod:`reprolib.figures` (plot style),
:mod:`reprolib.metrics`, :mod:`reprolib.mechanisms` (families behind a registry),
:mod:`reprolib.transport` (sliced optimal transport), :mod:`reprolib.queries`, :mod:`reprolib.data`
and :mod:`reprolib.privacy` (accounting and primitives). One package per paper sits on top, in
:mod:`reprolib.papers`. The command line is :mod:`reprolib.cli`.
"""

__version__ = "0.1.0"
