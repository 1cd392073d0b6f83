"""The examiner's decision travels beside a test cell's error output: in a valid notebook, read back strictly."""

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from autograder.course.decision import MIME, Decision, decision
from autograder.worker.examiner.verdict import outputs

DECIDED = Decision("ValueError", ["f raised ValueError when the tests called it"], "in your line: x = 1", [], 2)


def test_it_is_kept_in_a_valid_notebook_and_read_back_as_it_was(tmp_path):
    source = "x = 1\nraise AssertionError('f of two is 3')"
    try:
        exec(compile(source, "<test cell>", "exec"), {})
    except AssertionError as error:
        written = outputs(error, source, 7)
    nb = new_notebook(cells=[new_code_cell("x = 1", outputs=[nbformat.from_dict(o) for o in written])])
    nbformat.write(nb, tmp_path / "graded.ipynb")  # validates against nbformat's schema
    read = nbformat.read(tmp_path / "graded.ipynb", 4)
    assert decision(read.cells[0].outputs) == Decision("AssertionError", ["f of two is 3"], "", [], 2)
    assert decision([DECIDED.output()]) == DECIDED


@pytest.mark.parametrize(
    "change",
    [
        {"line": "2"},
        {"line": True},
        {"lines": []},
        {"lines": "f raised ValueError"},
        {"notes": [1]},
        {"yours": None},
        {"more": 1},
    ],
)
def test_a_decision_of_another_form_is_none(change):
    output = DECIDED.output()
    output["data"][MIME] = {**output["data"][MIME], **change}
    assert decision([output]) is None
