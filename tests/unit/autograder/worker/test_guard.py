"""The guard in a real kernel: each cell starts in the grading folder and mode, with warnings on
stdout, whatever the cell before did; and in a shell, the cells that crashed a run are skipped.
(It decides nothing: the tests run in the examiner.)"""

import json

from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook

from autograder.worker import guard
from autograder.worker.guard import CRASHED_ENV, CRASHED_MESSAGE, GUARD


def test_the_grading_folder_mode_and_warnings_are_put_back(monkeypatch):
    """A cell that leaves the grading folder or mode, or sends warnings to stderr (where nbgrader
    scores a cell zero), changes nothing for the next cell."""
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    nb = new_notebook(
        cells=[
            new_code_cell("import os\nstart = os.getcwd()"),
            new_code_cell(
                "import os, sys, warnings\nos.chdir('/')\nos.environ['NBGRADER_EXECUTION'] = ''\n"
                "warnings.showwarning = lambda *args, **kwargs: print('on stderr', file=sys.stderr)"
            ),
            new_code_cell(
                "import numpy\nprint(os.getcwd() == start, os.environ['NBGRADER_EXECUTION'])\n"
                "_ = numpy.log(numpy.zeros(1))"
            ),
        ]
    )
    NotebookClient(
        nb, timeout=120, allow_errors=True, kernel_name="python3", extra_arguments=[f"--IPKernelApp.exec_lines={GUARD}"]
    ).execute()
    outputs = nb.cells[2].outputs
    assert [output.get("name") for output in outputs] == ["stdout"] * len(outputs), outputs
    text = "".join(output.text for output in outputs)
    assert text.startswith("True autograde\n")
    assert "warning (costs no points): RuntimeWarning: divide by zero encountered in log" in text


def test_a_function_whose_tests_crashed_raises_instead_of_running(monkeypatch):
    """A graded function named in $BDL_GRADING_CRASHED raises at once in every later cell, however
    it is defined again, so its calls cannot stop the kernel a second time; other names run."""
    monkeypatch.setenv(CRASHED_ENV, json.dumps(["fgsm"]))
    nb = new_notebook(
        cells=[
            new_code_cell("import os\ndef fgsm(x):\n    os._exit(1)\ndef other(x):\n    return x + 1"),
            new_code_cell("fgsm(1)"),
            new_code_cell("def fgsm(x):\n    os._exit(1)"),
            new_code_cell("fgsm(2)"),
            new_code_cell("print(other(1))"),
        ]
    )
    NotebookClient(
        nb, timeout=120, allow_errors=True, kernel_name="python3", extra_arguments=[f"--IPKernelApp.exec_lines={GUARD}"]
    ).execute()
    for index in (1, 3):
        error = nb.cells[index].outputs[0]
        assert error.ename == "RuntimeError" and error.evalue == CRASHED_MESSAGE.format(name="fgsm"), error
    assert nb.cells[4].outputs[0].text == "2\n"


def test_guard_skips_the_cells_that_crashed_and_writes_no_file(tmp_path, monkeypatch):
    import warnings

    from IPython.core.interactiveshell import InteractiveShell

    monkeypatch.setattr(warnings, "showwarning", warnings.showwarning)  # put back after the test
    monkeypatch.chdir(tmp_path)
    crashed = "import os\nos._exit(0)\n"
    monkeypatch.setenv(guard.SKIP_ENV, json.dumps([guard.cell_key(crashed)]))
    shell = InteractiveShell()
    guard.install(shell)
    assert shell.run_cell("noted = 1").success
    result = shell.run_cell(crashed)  # would end this process if it ran
    assert isinstance(result.error_in_exec, RuntimeError)
    assert "not run when graded" in str(result.error_in_exec)
    assert shell.run_cell("noted += 1").success and shell.user_ns["noted"] == 2
    assert list(tmp_path.iterdir()) == []  # the worker notes the cells, in a folder of its own
