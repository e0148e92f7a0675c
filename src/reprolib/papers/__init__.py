"""One package per paper. Each exports ``SPEC`` (a :class:`~reprolib.experiments.PaperSpec`),
which the catalogue discovers: adding a paper changes nothing outside its package, its notebooks
and its chapter.
"""
