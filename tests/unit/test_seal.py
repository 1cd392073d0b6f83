"""The seal on its own: what ``CheckSeals`` makes of a test cell's output (``tests/system/test_red_team.py``
grades real attacks through it)."""
import nbformat
from nbformat.v4 import new_code_cell, new_notebook, new_output

from autograder.worker import seal
from autograder.worker.guard import SEAL_NAME, SEAL_PREFIX, cell_key, seal_mac

KEY = b"k" * 32
TESTS = "from bdl.checks import assert_close\nassert_close(f(1), 2, 'f of 1')"


def _test_cell(source=TESTS, grade_id="f_tests"):
    cell = new_code_cell(source)
    cell.metadata.nbgrader = {"grade": True, "solution": False, "locked": True, "grade_id": grade_id,
                              "points": 1, "schema_version": 3}
    return cell


def _run(outputs_of):
    """Seal a notebook of one answer cell and one test cell, give the test cell the outputs
    ``outputs_of(token)`` makes, check it; return the checked test cell."""
    nb = new_notebook(cells=[new_code_cell("def f(x):\n    return 2 * x"), _test_cell()])
    nb, resources = seal.SealTests().preprocess(nb, {})
    cell = nb.cells[1]
    token = resources["bdl_seals"][1][0]
    assert cell.source == f"{TESTS}\n{SEAL_NAME}({token!r})", "the seal is the cell's last line"
    cell.outputs = outputs_of(token)
    nb, _ = seal.CheckSeals(key=KEY).preprocess(nb, resources)
    assert nb.cells[1].source == TESTS, "the autograded notebook holds the tests as written"
    assert nb.cells[0].source == "def f(x):\n    return 2 * x", "only test cells are sealed"
    return nb.cells[1]


def _printed(text):
    return [new_output("stream", name="stdout", text=text)]


def _errors(cell):
    return [output for output in cell.outputs if output.output_type == "error"]


def test_a_valid_seal_passes_and_leaves_no_trace():
    cell = _run(lambda token: _printed(f"checked\n{SEAL_PREFIX}{token}:{seal_mac(KEY, token)}\n"))
    assert not _errors(cell) and not seal.findings
    assert cell.outputs[0].text == "checked", "the cell's own output is kept, the seal line is not"


def test_a_cell_with_no_error_and_no_seal_scores_zero():
    cell = _run(lambda token: [])
    assert [error.ename for error in _errors(cell)] == [seal.ERROR_NAME]
    assert seal.findings == ["f_tests: its tests did not run to their end, yet it showed no error"]


def test_a_failing_cell_needs_no_seal():
    cell = _run(lambda token: [new_output("error", ename="AssertionError", evalue="f of 1", traceback=[])])
    assert [error.ename for error in _errors(cell)] == ["AssertionError"] and not seal.findings


def test_a_forged_seal_and_a_tampered_one_score_zero():
    cell = _run(lambda token: _printed(f"{SEAL_PREFIX}{token}:{seal_mac(b'guessed', token)}\n"))
    assert _errors(cell) and seal.findings == ["f_tests: its seal is forged"]
    cell = _run(lambda token: _printed(f"{SEAL_PREFIX}{token}:tampered:sys.settrace\n"))
    assert _errors(cell) and seal.findings == ["f_tests: changed while the tests ran: sys.settrace"]
    assert SEAL_PREFIX not in nbformat.writes(nbformat.v4.new_notebook(cells=[cell]))


def test_another_cells_seal_does_not_count():
    cell = _run(lambda token: _printed(f"{SEAL_PREFIX}{'0' * 32}:{seal_mac(KEY, '0' * 32)}\n"))
    assert _errors(cell)
    assert seal.findings == ["f_tests: its tests did not run to their end, yet it showed no error "
                             "(it printed another cell's seal)"]


def test_a_sealed_cell_keeps_its_name_across_grading_runs():
    """The crash isolation names a cell by its code; the seal's token is new in every run."""
    nb, resources = seal.SealTests().preprocess(new_notebook(cells=[_test_cell()]), {})
    again, _ = seal.SealTests().preprocess(new_notebook(cells=[_test_cell()]), {})
    assert nb.cells[0].source != again.cells[0].source
    assert cell_key(nb.cells[0].source) == cell_key(again.cells[0].source) == cell_key(TESTS)
