"""reprolib._notebooks: the executed copy of a notebook as the book will read it."""

import os
import tempfile

import nbformat
import pytest

from reprolib._notebooks import NotebookRun, execute


def test_the_injected_parameters_cell_is_removed_from_the_page(tmp_path):
    source = tmp_path / "tiny.py"
    source.write_text('# %% tags=["parameters"]\nscale = "small"\n\n# %%\nprint(scale)\n')
    output = tmp_path / "generated" / "tiny.ipynb"
    execute(NotebookRun(source=source, output=output, parameters={"scale": "smoke"}))
    cells = nbformat.read(output, as_version=4).cells
    assert [cell.metadata.get("tags", []) for cell in cells] == [
        ["parameters"], ["injected-parameters", "remove-cell"], []]
    assert cells[2].outputs[0].text == "smoke\n"  # the injected value was used


@pytest.mark.skipif(os.name != "posix", reason="Unix sockets: POSIX only")
def test_the_kernel_listens_on_private_sockets_not_tcp(tmp_path, capfd):
    """ipykernel warns on every notebook run over TCP; on POSIX ours runs on Unix sockets in a
    temporary folder, which is gone afterwards.
    """
    source = tmp_path / "tiny.py"
    source.write_text('# %% tags=["parameters"]\nscale = "small"\n\n# %%\n'
                      'import ipykernel.connect as c\n'
                      'print(c.get_connection_info(unpack=True)["transport"])\n')
    before = set(os.listdir(tempfile.gettempdir()))
    execute(NotebookRun(source=source, output=tmp_path / "tiny.ipynb", parameters={}))
    info = nbformat.read(tmp_path / "tiny.ipynb", as_version=4).cells[-1].outputs[0].text
    assert info == "ipc\n"
    assert "without encryption" not in capfd.readouterr().err
    assert {n for n in set(os.listdir(tempfile.gettempdir())) - before
            if n.startswith("reprolib-kernel-")} == set()


def test_every_page_hides_or_removes_its_code():
    """The pages show what the code computes; its source sits behind "Show code cell source"."""
    import jupytext

    from reprolib._paths import repo_root

    shown = []
    for path in sorted((repo_root() / "notebooks").glob("*/*.py")):
        for cell in jupytext.read(path).cells:
            tags = set(cell.metadata.get("tags", []))
            if cell.cell_type == "code" and not tags & {"hide-input", "remove-input", "remove-cell"}:
                shown.append(f"{path.relative_to(repo_root())}: {cell.source.splitlines()[0]}")
    assert not shown, shown
