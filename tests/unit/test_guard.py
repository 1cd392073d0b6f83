"""The guard in a real kernel: it puts the grading machinery back between cells, and its seal
tells an intact test cell from one run with the machinery changed."""
import os
import re

import nbformat
import pytest
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook

from autograder.worker.guard import GUARD, KEY_ENV, SEAL_NAME, SEAL_PREFIX, seal_mac

KEY = b"a key only the worker and the guard hold"


def _sealed(code, token):
    return new_code_cell(f"{code}\n{SEAL_NAME}({token!r})")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """Run cells in a kernel started as grading starts it; return {token: the seal's verdict}
    and the executed notebook."""
    def execute(cells):
        key_file = tmp_path_factory.mktemp("kernel") / "seal-key"
        key_file.write_bytes(KEY)
        nb = new_notebook(cells=cells)
        os.environ[KEY_ENV] = str(key_file)
        try:
            NotebookClient(nb, timeout=120, allow_errors=True, kernel_name="python3",
                           extra_arguments=[f"--IPKernelApp.exec_lines={GUARD}"]).execute()
        finally:
            del os.environ[KEY_ENV]
        assert not key_file.exists(), "the guard deletes the key before any cell runs"
        text = "".join(output.get("text", "") for cell in nb.cells for output in cell.outputs)
        return dict(re.findall(re.escape(SEAL_PREFIX) + r"(\w+):(.*)", text)), nb
    return execute


def test_an_intact_test_cell_is_sealed_with_the_key(run):
    seals, _ = run([new_code_cell("import numpy as np"),
                    _sealed("from bdl.checks import assert_close\nassert_close(np.ones(2), [1, 1], 'ones')", "t1"),
                    _sealed("import warnings\nwarnings.warn('harmless')", "t2")])
    assert seals == {"t1": seal_mac(KEY, "t1"), "t2": seal_mac(KEY, "t2")}


def test_the_machinery_is_put_back_between_cells(run):
    seals, nb = run([
        new_code_cell("import numpy as np  # as the release's first cell does"),
        new_code_cell("get_ipython().input_transformers_cleanup.append(lambda lines: ['pass\\n'])\n"
                      "get_ipython().showtraceback = lambda *a, **k: None\n"
                      "import numpy, bdl.checks\nnumpy.allclose = lambda *a, **k: True\n"
                      "bdl.checks.assert_close = lambda *a, **k: None\n"
                      "import sys\nsys.modules['bdl.checks'] = None\n"
                      "np = None"),
        _sealed("from bdl.checks import assert_close\nassert np is not None and not numpy.allclose(1, 2)\n"
                "assert_close(1.0, 2.0, 'two numbers')", "t1")])
    errors = [output for output in nb.cells[2].outputs if output.output_type == "error"]
    assert [error.evalue for error in errors] == [
        "two numbers does not match the expected values (largest difference 1)"], nb.cells[2].outputs
    assert "t1" not in seals, "the cell failed before its seal, as it should"


# What a graded function may change when the tests call it, and how the seal names it.
CHANGES = [
    ("import bdl.checks\nbdl.checks.assert_equal = lambda *a, **k: None", "bdl.checks.assert_equal"),
    ("globals()['assert_close'] = lambda *a, **k: None", "the test's assert_close"),
    ("import sys\nsys.settrace(lambda *a: None)", "sys.settrace"),
    ("get_ipython().events.callbacks['pre_run_cell'].clear()", "pre_run_cell callback removed"),
    ("type(get_ipython()).run_cell = lambda *a, **k: None", "run_cell"),
    ("get_ipython().input_transformers_post.append(lambda lines: lines)", "input_transformers_post"),
    ("import tensorflow_probability as tfp\ntfp.distributions.Normal.log_prob = lambda *a: 0", "Normal.log_prob"),
    ("import numpy._core.numeric\nnumpy._core.numeric.isclose = lambda *a, **k: True", "numeric.isclose"),
]


def test_a_change_made_while_the_tests_run_breaks_the_seal(run):
    """The seal reports what changed instead of the HMAC; the guard puts it back before the next
    cell, whose seal is intact again."""
    cells = []
    for number, (change, _) in enumerate(CHANGES):
        body = "".join(f"    {line}\n" for line in change.splitlines())
        cells += [new_code_cell(f"def answer():\n{body}    return 1.0"),
                  _sealed("from bdl.checks import assert_close\nassert_close(answer(), 1.0, 'the answer')",
                          f"changed{number}"),
                  _sealed("from bdl.checks import assert_close\nassert_close(1.0, 1.0, 'one')", f"intact{number}")]
    seals, _ = run(cells)
    for number, (_, named) in enumerate(CHANGES):
        assert seals[f"changed{number}"].startswith("tampered:") and named in seals[f"changed{number}"], seals
        assert seals[f"intact{number}"] == seal_mac(KEY, f"intact{number}"), seals


def test_the_grading_folder_mode_and_warnings_are_put_back(run, monkeypatch):
    """A cell that leaves the grading folder or mode, or sends warnings to stderr (where nbgrader
    scores a cell zero), changes nothing for the next cell."""
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    _, nb = run([
        new_code_cell("import os\nstart = os.getcwd()"),
        new_code_cell("import os, sys, warnings\nos.chdir('/')\nos.environ['NBGRADER_EXECUTION'] = ''\n"
                      "warnings.showwarning = lambda *args, **kwargs: print('on stderr', file=sys.stderr)"),
        new_code_cell("import numpy\nprint(os.getcwd() == start, os.environ['NBGRADER_EXECUTION'])\n"
                      "_ = numpy.log(numpy.zeros(1))")])
    outputs = nb.cells[2].outputs
    assert [output.get("name") for output in outputs] == ["stdout"] * len(outputs), outputs
    text = "".join(output.text for output in outputs)
    assert text.startswith("True autograde\n")
    assert "warning (costs no points): RuntimeWarning: divide by zero encountered in log" in text
