"""The guard in a real kernel: each cell starts in the grading folder and mode, with warnings on
stdout, whatever the cell before did. (It decides nothing: the tests run in the examiner.)"""
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook

from autograder.worker.guard import GUARD


def test_the_grading_folder_mode_and_warnings_are_put_back(monkeypatch):
    """A cell that leaves the grading folder or mode, or sends warnings to stderr (where nbgrader
    scores a cell zero), changes nothing for the next cell."""
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    nb = new_notebook(cells=[
        new_code_cell("import os\nstart = os.getcwd()"),
        new_code_cell("import os, sys, warnings\nos.chdir('/')\nos.environ['NBGRADER_EXECUTION'] = ''\n"
                      "warnings.showwarning = lambda *args, **kwargs: print('on stderr', file=sys.stderr)"),
        new_code_cell("import numpy\nprint(os.getcwd() == start, os.environ['NBGRADER_EXECUTION'])\n"
                      "_ = numpy.log(numpy.zeros(1))")])
    NotebookClient(nb, timeout=120, allow_errors=True, kernel_name="python3",
                   extra_arguments=[f"--IPKernelApp.exec_lines={GUARD}"]).execute()
    outputs = nb.cells[2].outputs
    assert [output.get("name") for output in outputs] == ["stdout"] * len(outputs), outputs
    text = "".join(output.text for output in outputs)
    assert text.startswith("True autograde\n")
    assert "warning (costs no points): RuntimeWarning: divide by zero encountered in log" in text
