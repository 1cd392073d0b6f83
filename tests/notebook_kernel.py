"""Run a notebook's cells, and code of our own, in one live Jupyter kernel.

The mutant and seed checks execute a solution notebook once (in grading mode)
and then re-run single test cells against swapped-in functions, instead of
re-running the whole notebook for every variant.
"""
import contextlib
import importlib.util
import os
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError


def graded_cells(nb):
    """Return {grade_id: cell} of the notebook's nbgrader cells."""
    return {cell.metadata.nbgrader["grade_id"]: cell for cell in nb.cells
            if "nbgrader" in cell.metadata and "grade_id" in cell.metadata.nbgrader}


MUTANTS_DIR = Path(__file__).resolve().parent / "mutants"


def load_variants(assignment):
    """Return {"mutants": ..., "alternatives": ...} from ``tests/mutants/<assignment>.py``."""
    path = MUTANTS_DIR / f"{assignment}.py"
    spec = importlib.util.spec_from_file_location(f"mutants_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {"mutants": module.MUTANTS, "alternatives": module.ALTERNATIVES}


class NotebookKernel:
    """A kernel that has run a notebook; ``run(code)`` executes more code in it."""

    def __init__(self, client):
        self.client = client

    def run(self, source):
        """Execute ``source``; return its outputs or raise CellExecutionError."""
        cell = nbformat.v4.new_code_cell(source)
        # nbclient stores the executed cell back at its index: lend it a slot.
        cells = self.client.nb.cells
        cells.append(cell)
        try:
            self.client.execute_cell(cell, len(cells) - 1)
        finally:
            cells.pop()
        return cell.outputs

    def succeeds(self, source):
        """Return (True, "") if ``source`` runs cleanly, else (False, the error)."""
        try:
            self.run(source)
        except CellExecutionError as error:
            return False, str(error).strip().splitlines()[-1]
        return True, ""


@contextlib.contextmanager
def executed_notebook(path, env):
    """Execute every cell of ``path`` with ``env`` added to the kernel's environment.

    Yields ``(kernel, nb)``: the live kernel and the notebook with its outputs.
    A cell that fails stops execution with CellExecutionError.
    """
    nb = nbformat.read(path, as_version=4)
    saved = {key: os.environ.get(key) for key in env}
    os.environ.update(env)
    try:
        client = NotebookClient(nb, timeout=600, kernel_name="python3",
                                resources={"metadata": {"path": str(Path(path).parent)}})
        with client.setup_kernel():
            for index, cell in enumerate(nb.cells):
                if cell.cell_type == "code":
                    client.execute_cell(cell, index)
            yield NotebookKernel(client), nb
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
