"""Results depend on neither the process's string hash seed nor what was imported first.

Each test runs fresh Python processes: within one process the hash seed is fixed and JAX may
already be configured by an earlier import, so only new processes show what these guard against.
"""

import ast
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import reprolib

# One experiment cell per Private-PGM mechanism whose records used to follow the hash seed, and the
# records of AIM and PrivBayes+PGM (quick configs, full titanic) as a digest.
SAME_CELL = textwrap.dedent("""
    import hashlib, json, sys, tempfile
    from pathlib import Path
    import numpy as np
    from reprolib.data import load_dataset
    from reprolib.experiments import run_experiment
    from reprolib.mechanisms import build, registration
    from reprolib.privacy import PrivacyBudget
    from reprolib.queries import all_kway

    with tempfile.TemporaryDirectory() as scratch:
        rows = run_experiment("aim-fig1", scale="smoke", device="cpu", progress=False,
                              results_root=Path(scratch),
                              overrides={"mechanisms": ("AIM", "MWEM+PGM", "PrivBayes+PGM")})
    columns = [c for c in rows.columns if c.startswith("metric.") and c != "metric.seconds"]
    metrics = rows.set_index("key")[columns].astype(str).to_dict("index")
    data = load_dataset("aim/titanic")
    records = {}
    for name in ("AIM", "PrivBayes+PGM"):
        mechanism = build(name, dict(registration(name).quick))
        result = mechanism.fit(data, PrivacyBudget(rho=1.0, relation=mechanism.traits.relation),
                               np.random.default_rng(3), workload=all_kway(data.domain, 2))
        records[name] = hashlib.sha256(result.synthetic.frame.to_csv().encode()).hexdigest()
    json.dump({"metrics": metrics, "records": records}, sys.stdout)
""")

IMPORT_AND_FIT = textwrap.dedent("""
    import json, sys
    import jax
    import numpy as np
    before = {"x64": jax.config.jax_enable_x64,
              "cache": jax.config.jax_enable_compilation_cache}
    from reprolib.data import load_dataset
    from reprolib.mechanisms.pgm import NoisyMarginal, fit_model, model_marginals
    imported = {"x64": jax.config.jax_enable_x64,
                "cache": jax.config.jax_enable_compilation_cache}
    data = load_dataset("aim/titanic")
    model = fit_model(data.domain, [NoisyMarginal(("Sex", "Age"), data.marginal(("Sex", "Age")),
                                                  1.0)], iters=50)
    fitted = {"x64": jax.config.jax_enable_x64,
              "cache": jax.config.jax_enable_compilation_cache}
    dtypes = [str(model.potentials[("Sex", "Age")].values.dtype),
              str(model.marginals[("Sex", "Age")].values.dtype),
              str(model_marginals(model, [("Age",)])[("Age",)].dtype)]
    json.dump({"before": before, "imported": imported, "fitted": fitted, "dtypes": dtypes},
              sys.stdout)
""")


def _environment(**settings: str) -> dict[str, str]:
    """This process's environment without JAX's x64 switch or a hash seed, plus ``settings``."""
    env = {k: v for k, v in os.environ.items() if k not in ("JAX_ENABLE_X64", "PYTHONHASHSEED")}
    return {**env, **settings}


def _start(script: str, **settings: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=_environment(**settings))


def _output(process: subprocess.Popen) -> dict:
    out, err = process.communicate(timeout=600)
    assert process.returncode == 0, err[-3000:]
    return json.loads(out)


def test_same_cell_same_rows_and_records_under_different_hash_seeds(titanic):
    del titanic  # only for its skip when the shared data are missing
    first, second = (_start(SAME_CELL, PYTHONHASHSEED=seed) for seed in ("1", "2"))
    one, two = _output(first), _output(second)
    assert len(one["metrics"]) == 3
    assert one == two


def test_importing_and_fitting_leave_jax_configuration_alone(titanic):
    del titanic
    report = _output(_start(IMPORT_AND_FIT))
    assert report["before"]["x64"] is False
    assert report["imported"] == report["fitted"] == report["before"]
    assert report["dtypes"] == ["float64"] * 3


def _module_level_mbi_imports(nodes) -> list[int]:
    """Lines of ``import mbi`` / ``from mbi ...`` that run when the module is imported (not inside
    a function, nor under ``if TYPE_CHECKING:``).
    """
    found = []
    for node in nodes:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or (
                isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"):
            continue
        names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
        if any(n == "mbi" or n.startswith("mbi.") for n in names):
            found.append(node.lineno)
        found += _module_level_mbi_imports(ast.iter_child_nodes(node))
    return found


def test_mbi_is_first_imported_where_its_import_warnings_are_silenced():
    """mbi warns at import about float32 mode and JAX's compilation cache; our Private-PGM engine
    runs in float64 and imports mbi in ``pgm/_float64.py`` with those warnings silenced. A module
    elsewhere that imports mbi when it is itself imported can come first and print them on every
    CLI call (``reprolib batch --dry-run`` did, through PrivMRF's annotations).
    """
    src = Path(reprolib.__file__).parent
    engine = src / "mechanisms" / "pgm"
    offenders = {str(path.relative_to(src)): lines for path in sorted(src.rglob("*.py"))
                 if engine not in path.parents
                 and (lines := _module_level_mbi_imports(ast.parse(path.read_text()).body))}
    assert offenders == {}
    first_import = next(n for n in ast.parse((engine / "__init__.py").read_text()).body
                        if isinstance(n, ast.Import | ast.ImportFrom) and n.module != "__future__")
    assert first_import.module == "reprolib.mechanisms.pgm._float64"
