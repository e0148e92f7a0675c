"""reprolib: a reproducible companion to four differential-privacy synthetic-data papers.

Subpackages: :mod:`reprolib.privacy` (accounting and primitives), :mod:`reprolib.data` (datasets),
:mod:`reprolib.experiments` (artifacts, grids, results store), :mod:`reprolib.paper` (checks and
scorecard), :mod:`reprolib.figures` (plot style). The command line is :mod:`reprolib.cli`.
"""

__version__ = "0.1.0"
