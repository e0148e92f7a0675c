"""reprolib._notebooks: the executed copy of a notebook as the book will read it."""

import nbformat

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
