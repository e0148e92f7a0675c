"""AIM (McKenna, Mullins, Sheldon, Miklau; VLDB 2022): Tables 1-3 and Figures 1-7."""

from reprolib.experiments import Artifact, Chapter, PaperSpec

_EXPERIMENTS = "reprolib.papers.aim.experiments"
_STUDIES = "reprolib.papers.aim.studies"

SPEC = PaperSpec(
    key="aim",
    title="AIM (McKenna, Mullins, Sheldon, Miklau; VLDB 2022)",
    caption="AIM",
    design_gaps="reprolib.papers.aim.studies:small_design_gaps",
    order=10,
    artifacts=(
        Artifact(id="aim-tab1", paper="aim",
                 title="Taxonomy of mechanisms (workload-, data-, budget-, efficiency-aware)",
                 notebook="notebooks/aim/tables.py"),
        Artifact(id="aim-tab2", paper="aim", title="The six datasets",
                 notebook="notebooks/aim/tables.py"),
        *[Artifact(id=f"aim-fig{k}", paper="aim", title=f"Workload error vs epsilon, {title}",
                   notebook="notebooks/aim/workload_error.py", variant=f"fig{k}",
                   parameters={"artifact": f"aim-fig{k}"}, toc_title=f"Figure {k}, {title}")
          for k, title in ((1, "all 3-way marginals"), (2, "target workload"),
                           (3, "skewed workload"))],
        Artifact(id="aim-tab3", paper="aim", title="Structural zeros",
                 notebook="notebooks/aim/structural_zeros.py"),
        Artifact(id="aim-fig4ab", paper="aim", title="Tuning model capacity",
                 notebook="notebooks/aim/capacity.py", toc_title="Figure 4 (a-b), model capacity"),
        Artifact(id="aim-fig4c", paper="aim", title="Uncertainty quantification",
                 notebook="notebooks/aim/uncertainty.py",
                 toc_title="Figure 4 (c), uncertainty quantification"),
        Artifact(id="aim-fig5", paper="aim", title="Subsampling fraction that matches AIM's error",
                 notebook="notebooks/aim/subsampling.py",
                 toc_title="Figure 5, subsampling fraction"),
        Artifact(id="aim-fig6", paper="aim", title="AIM runtime vs epsilon",
                 notebook="notebooks/aim/runtime.py", toc_title="Figure 6, runtime"),
        Artifact(id="aim-fig7", paper="aim", title="MWEM+PGM vs MWEM+relaxed projection",
                 notebook="notebooks/aim/mwem_generators.py",
                 toc_title="Figure 7, Private-PGM vs relaxed projection"),
    ),
    experiments={
        "aim-tab1": f"{_EXPERIMENTS}:TAXONOMY",
        "aim-tab2": f"{_EXPERIMENTS}:DATASETS",
        "aim-tab3": f"{_EXPERIMENTS}:ZEROS",
        "aim-fig1": f"{_EXPERIMENTS}:ALL_3WAY",
        "aim-fig2": f"{_EXPERIMENTS}:TARGET",
        "aim-fig3": f"{_EXPERIMENTS}:SKEWED",
        "aim-fig4ab": f"{_STUDIES}:CAPACITY",
        "aim-fig4c": f"{_STUDIES}:BOUNDS",
        "aim-fig5": f"{_STUDIES}:MATCHING",
        "aim-fig6": f"{_STUDIES}:RUNTIME",
        "aim-fig7": f"{_STUDIES}:MWEM_GENERATORS",
    },
    checks="reprolib.papers.aim.checks:CHECKS",
    chapters=(Chapter(file="book/aim/index", sections=(
        "book/aim/algorithm", "book/aim/privacy", "book/aim/uncertainty",
        "book/aim/structural-zeros", "book/aim/subsampling")),),
    no_data={"aim-tab1": "the mechanisms' declared traits (no data)"},
)
