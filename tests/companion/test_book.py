"""Every notebook runs at smoke scale and the book builds strictly (warnings are errors) from them."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reprolib import cli
from reprolib._paths import repo_root
from reprolib.privacy import eps_to_rho

BOOK_SOURCES = ["_config.yml", "_toc.yml", "_static", "book"]


@pytest.fixture(scope="module")
def built_book(tmp_path_factory):
    """A copy of the book's sources, its notebooks executed at smoke scale, built with -W -n."""
    root = tmp_path_factory.mktemp("book")
    for name in BOOK_SOURCES:
        source = repo_root() / name
        if source.is_dir():
            shutil.copytree(source, root / name, ignore=shutil.ignore_patterns("generated"))
        else:
            shutil.copy(source, root / name)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("REPROLIB_RESULTS_DIR", str(root / "results"))
        patch.setenv("REPROLIB_GENERATED_DIR", str(root / "book" / "generated"))
        assert cli.main(["batch", "--scale", "smoke", "--device", "cpu"]) == 0
    jupyter_book = Path(sys.executable).with_name("jupyter-book")
    build = subprocess.run(
        [str(jupyter_book), "build", str(root), "--warningiserror", "--nitpick", "--keep-going"],
        capture_output=True, text=True, timeout=600, check=False,
    )
    return root, build


def test_build_has_no_warning(built_book):
    _, build = built_book
    log = build.stdout + build.stderr
    assert build.returncode == 0, log[-3000:]
    assert "WARNING" not in log and "build succeeded" in log


def test_math_is_vendored_and_proofs_are_boxed(built_book):
    root, _ = built_book
    html = (root / "_build" / "html" / "book" / "privacy.html").read_text()
    assert "_static/mathjax/tex-svg.js" in html and "cdn.jsdelivr" not in html
    assert html.count('class="proof theorem admonition"') >= 5
    assert html.count('class="proof proof admonition"') + html.count("Proof.") >= 5


def test_the_slicing_proofs_are_boxed(built_book):
    root, _ = built_book
    html = (root / "_build" / "html" / "book" / "slicing" / "privacy.html").read_text()
    assert html.count('class="proof theorem admonition"') >= 2
    assert html.count('class="proof lemma admonition"') >= 2
    assert html.count('class="proof proposition admonition"') >= 1


def test_glued_numbers_and_figures_render(built_book):
    root, _ = built_book
    chapter = (root / "_build" / "html" / "book" / "privacy.html").read_text()
    assert f"{eps_to_rho(1.0, 1e-9):.6f}" in chapter
    assert "<Figure size" not in chapter and chapter.count("<img") >= 2
    scorecard = (root / "_build" / "html" / "book" / "generated" / "companion" / "scorecard.html")
    assert "prelim-conversions-regression" in scorecard.read_text()


def test_no_page_uses_a_macro_that_mathjax_would_fetch():
    """The vendored tex-svg.js carries no extension files: a macro it would autoload (from a
    network it cannot reach) stops MathJax on the whole page, leaving raw TeX."""
    autoloaded = ("\\boldsymbol", "\\bm{", "\\cancel", "\\color", "\\textcolor", "\\bbox",
                  "\\require", "\\ce{", "\\mathtip", "\\unicode")
    sources = [*(repo_root() / "book").rglob("*.md"), *(repo_root() / "notebooks").rglob("*.py")]
    offending = {str(p.relative_to(repo_root())): m for p in sources for m in autoloaded
                 if "generated" not in p.parts and m in p.read_text()}
    assert not offending, offending
