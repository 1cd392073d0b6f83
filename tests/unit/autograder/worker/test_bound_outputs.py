"""The worker bounds the student's outputs before the autograded copy is written; a test cell's outputs,
which the grade is read from, stay whole (the class's run: tests/system/test_class_grading.py)."""

import nbformat
from nbformat.v4 import new_code_cell, new_notebook, new_output

from autograder.worker.__main__ import MAX_CELL_OUTPUT, MAX_NOTEBOOK_OUTPUT, BoundOutputs


def _printed(size):
    return new_output("stream", name="stdout", text="x" * size)


def _test_cell(size):
    cell = new_code_cell("assert brier_score(...)")
    cell.metadata.nbgrader = {"grade": True, "solution": False, "grade_id": "brier_score_tests", "points": 2}
    cell.outputs = [new_output("error", ename="AssertionError", evalue="y" * size, traceback=[])]
    return cell


def _bounded(nb):
    return BoundOutputs().preprocess(nb, {})[0]


def test_a_cell_keeps_its_outputs_up_to_its_bound_and_says_what_it_lost():
    cell = new_code_cell("print(...)")
    cell.outputs = [_printed(1000), _printed(MAX_CELL_OUTPUT), _printed(2000)]
    (cell,) = _bounded(new_notebook(cells=[cell])).cells
    assert [len(output.text) for output in cell.outputs[:2]] == [1000, 2000]
    assert "MiB of this cell's output left out" in cell.outputs[2].text
    assert len(nbformat.writes(new_notebook(cells=[cell]))) < 10_000


def test_the_notebook_keeps_its_outputs_up_to_its_bound():
    cells = []
    for _ in range(2 * MAX_NOTEBOOK_OUTPUT // MAX_CELL_OUTPUT):
        cell = new_code_cell("print(...)")
        cell.outputs = [_printed(MAX_CELL_OUTPUT - 1000)]
        cells.append(cell)
    nb = _bounded(new_notebook(cells=cells))
    assert MAX_NOTEBOOK_OUTPUT // 2 < len(nbformat.writes(nb)) <= MAX_NOTEBOOK_OUTPUT + 100_000
    assert "left out" in nb.cells[-1].outputs[-1].text


def test_a_test_cells_verdict_is_never_cut():
    cells = []
    for _ in range(MAX_NOTEBOOK_OUTPUT // MAX_CELL_OUTPUT + 1):
        cell = new_code_cell("print(...)")
        cell.outputs = [_printed(MAX_CELL_OUTPUT - 1000)]
        cells.append(cell)
    cells.append(_test_cell(MAX_CELL_OUTPUT + 1))
    nb = _bounded(new_notebook(cells=cells))
    assert nb.cells[-1].outputs[0].ename == "AssertionError" and len(nb.cells[-1].outputs[0].evalue) > MAX_CELL_OUTPUT
