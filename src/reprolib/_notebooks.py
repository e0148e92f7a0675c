"""Executing the jupytext notebooks with papermill into ``book/generated``."""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import os
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from reprolib._paths import generated_dir, repo_root, shown
from reprolib.experiments import Artifact

if TYPE_CHECKING:
    from nbformat import NotebookNode

KERNEL = "python3"  # every notebook header names this kernel; papermill needs it explicitly
# The kernel must draw figures inline: a non-interactive MPLBACKEND (e.g. Agg, set for tests) would
# make glued figures render as the text "<Figure ...>".
INLINE_BACKEND = "module://matplotlib_inline.backend_inline"
# papermill tags the cell it inserts with the run's parameters; Jupyter Book drops cells tagged
# remove-cell from the page.
INJECTED_TAG, HIDDEN_TAG = "injected-parameters", "remove-cell"


class NotebookFailed(RuntimeError):
    """A notebook raised; the message names the notebook, the cell and the error."""


@dataclasses.dataclass(frozen=True)
class NotebookRun:
    """One execution of a notebook with its parameters, and where the executed copy goes."""

    source: Path
    output: Path
    parameters: Mapping[str, object]


def parameter_names(source: Path) -> list[str]:
    """Names assigned in the notebook's cell tagged ``parameters``."""
    import jupytext

    notebook = jupytext.read(source)
    for cell in notebook.cells:
        if "parameters" in cell.get("metadata", {}).get("tags", []):
            tree = ast.parse(cell.source)
            return [target.id for node in tree.body if isinstance(node, ast.Assign)
                    for target in node.targets if isinstance(target, ast.Name)]
    raise ValueError(f"{source} has no cell tagged 'parameters'")


def plan_run(artifact: Artifact, *, scale: str, device: str,
             extra: Mapping[str, object] | None = None) -> NotebookRun:
    """The papermill run of ``artifact``: its variant's parameters, then scale, device and ``extra``.

    Unknown parameter names raise a ValueError listing the notebook's parameters (papermill would
    only warn and run with the defaults); so do ``overrides`` the artifact's experiment refuses.
    """
    if artifact.notebook is None:
        raise ValueError(f"artifact {artifact.id} has no notebook yet (see `reprolib list`)")
    source = repo_root() / artifact.notebook
    parameters = {**artifact.parameters, "scale": scale, "device": device, **(extra or {})}
    known = parameter_names(source)
    unknown = sorted(set(parameters) - set(known))
    if unknown:
        raise ValueError(f"{artifact.notebook} has no parameter(s) {unknown}; its parameters are {known}")
    if extra and "overrides" in extra:  # refused here, not after the kernel starts
        _check_overrides(artifact, scale, extra["overrides"])
    output = generated_dir() / f"{artifact.generated_name}.ipynb"
    return NotebookRun(source=source, output=output, parameters=parameters)


def _check_overrides(artifact: Artifact, scale: str, overrides: object) -> None:
    """A ValueError saying what is wrong if the experiment of ``artifact`` refuses ``overrides``."""
    from reprolib.experiments import get_experiment

    try:
        get_experiment(artifact.id).settings_at(scale, overrides)  # type: ignore[arg-type]
    except TypeError as error:
        raise ValueError(f"-p overrides: {error}") from None


@contextlib.contextmanager
def _inline_figures() -> Iterator[None]:
    previous = os.environ.get("MPLBACKEND")
    os.environ["MPLBACKEND"] = INLINE_BACKEND
    try:
        yield
    finally:
        if previous is None:
            del os.environ["MPLBACKEND"]
        else:
            os.environ["MPLBACKEND"] = previous


@contextlib.contextmanager
def _local_kernel() -> Iterator[dict[str, object]]:
    """The papermill options for a kernel reached through Unix sockets in a private folder.

    Over TCP (Jupyter's default) the kernel's traffic on the loopback port is readable by other
    users of a shared machine, and ipykernel warns about it on every notebook. Where Unix sockets
    exist, the kernel listens on sockets in a temporary folder only we can open, removed afterwards;
    elsewhere (Windows) it stays on TCP.
    """
    if os.name != "posix":
        yield {}
        return
    from jupyter_client.manager import KernelManager

    with tempfile.TemporaryDirectory(prefix="reprolib-kernel-") as folder:

        class SocketKernelManager(KernelManager):
            def __init__(self, **kwargs: object) -> None:
                super().__init__(transport="ipc", ip=os.path.join(folder, "kernel"), **kwargs)

        yield {"kernel_manager_class": SocketKernelManager}


def execute(run: NotebookRun, *, progress: bool = False) -> float:
    """Execute ``run`` with papermill; returns the wall time in seconds.

    The cell papermill injects with the parameters is tagged ``remove-cell`` (the book hides it);
    the notebook's own ``parameters`` cell keeps its tags.

    Raises:
        NotebookFailed: naming the notebook, the failing cell (execution count and first line)
            and the error.
    """
    import jupytext
    import nbformat
    import papermill

    notebook = jupytext.read(run.source)
    run.output.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    try:
        with _inline_figures(), _local_kernel() as kernel:
            executed = papermill.execute_notebook(
                notebook, str(run.output), parameters=dict(run.parameters), kernel_name=KERNEL,
                language="python", cwd=str(repo_root()), progress_bar=progress, **kernel,
            )
    except papermill.PapermillExecutionError as error:
        position = next((i for i, cell in enumerate(notebook.cells, start=1)
                         if cell.source == error.source), "?")
        first_line = (error.source or "").strip().splitlines()[:1]
        raise NotebookFailed(
            f"{shown(run.source)} failed in cell {position} "
            f"({first_line[0] if first_line else 'empty cell'!r}; In [{error.exec_count}] of the "
            f"executed notebook {shown(run.output)}): {error.ename}: {error.evalue}"
        ) from None
    _hide_injected_parameters(executed)
    nbformat.write(executed, run.output)
    return time.perf_counter() - started


def _hide_injected_parameters(notebook: NotebookNode) -> None:
    """Tag the cells papermill injected with the parameters ``remove-cell``: the book hides them."""
    for cell in notebook.cells:
        tags = cell.get("metadata", {}).get("tags", [])
        if INJECTED_TAG in tags and HIDDEN_TAG not in tags:
            cell.metadata.tags = [*tags, HIDDEN_TAG]


def literal(text: str) -> object:
    """A ``-p NAME VALUE`` value: a Python literal when it parses as one (1e-5, [1, 2], True), else text."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text
