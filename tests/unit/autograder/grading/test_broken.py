"""A run's failures that are the grading environment's: a given cell of the tiny assignment's release that failed
before any of the student's code ran, in one hand-in, or the same one first in every hand-in of the run; and
what a student can do to a given cell, which stays their own."""

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_output

from autograder.course.statuses import load_statuses
from autograder.grading import broken, host
from autograder.grading.task import Graded
from tests.support.tiny_course import ASSIGNMENT, NOTEBOOK, blank, reference, source_notebook, write_course

NO_BDL = ("ModuleNotFoundError", "No module named 'bdl'")
IMPORT_CELL, LAST_CELL = 1, 29  # the release's first given cell (import bdl) and its last (print num_samples)


def ran(notebook, failing=None, error=NO_BDL):
    """``notebook`` as the worker leaves it: every code cell run, the cell ``failing`` (by index) with ``error``."""
    for count, cell in enumerate((cell for cell in notebook.cells if cell.cell_type == "code"), 1):
        cell.execution_count, cell.outputs = count, []
    if failing is not None:
        ename, evalue = error
        notebook.cells[failing].outputs = [new_output("error", ename=ename, evalue=evalue, traceback=[])]
    return notebook


def failure(notebook, release=None):
    release = release or blank()
    answers = broken.answer_names([source_notebook()])
    return broken.hand_in_failure(
        {f"{NOTEBOOK}.ipynb": nbformat.writes(notebook).encode()}, {NOTEBOOK: release}, answers
    )


def fault(failures):
    return broken.environment_fault(failures, {NOTEBOOK: blank()})


def test_the_first_given_cell_failing_in_one_hand_in_is_the_environment():
    found = failure(ran(reference(), IMPORT_CELL))
    assert found.first
    cause, students = fault({"ada": found, "bob": None})
    assert students == ["ada"]
    assert cause.startswith(f"{NOTEBOOK}.ipynb, given cell 1 (`import bdl  # the course's helpers")
    assert (
        "ModuleNotFoundError: No module named 'bdl'; the grading kernel cannot import the course's package bdl" in cause
    )
    assert "before any of the student's code ran" in cause


def test_a_student_who_edits_moves_or_skips_a_given_cell_has_it_fail_alone():
    edited = reference()
    edited.cells[IMPORT_CELL].source = edited.cells[IMPORT_CELL].source.replace("import bdl", "import bdl.helpers")
    assert failure(ran(edited, IMPORT_CELL)) is None  # not the release's cell: the student's own code
    ahead = reference()
    ahead.cells.insert(0, new_code_cell("import sys\nsys.modules['bdl'] = None"))
    moved = failure(ran(ahead, IMPORT_CELL + 1, ("ModuleNotFoundError", "import of bdl halted")))
    assert moved and not moved.first  # their code ran first
    skipped = ran(reference(), 2, ("NameError", "name 'bdl' is not defined"))
    skipped.cells[IMPORT_CELL].execution_count = None  # tagged skip-execution, say
    assert not failure(skipped).first
    for one in (moved, failure(skipped)):
        assert fault({"ada": one, "bob": None}) is None
        assert fault({"ada": one}) is None  # one hand-in: the student's code ran before it


def test_a_later_given_cell_is_the_environment_only_when_it_fails_first_in_every_hand_in():
    missing = ("FileNotFoundError", "[Errno 2] No such file or directory: 'mnist.npz'")
    every = {student: failure(ran(reference(), LAST_CELL, missing)) for student in ("ada", "bob", "cy")}
    assert not any(found.first for found in every.values())
    cause, students = fault(every)
    assert students == ["ada", "bob", "cy"]
    assert cause.endswith(
        "FileNotFoundError: [Errno 2] No such file or directory: 'mnist.npz', in each of the 3 hand-ins graded"
    )
    assert fault({**every, "dan": None}) is None  # one hand-in ran it
    assert fault({"ada": every["ada"]}) is None  # one hand-in: its answers may have broken it


def test_a_given_cell_that_calls_an_answer_is_the_students_even_when_all_fail():
    release = blank()
    release.cells.append(new_code_cell("print(brier_score([[1.0, 0.0]], [0]))"))
    hand_in = reference()
    hand_in.cells.append(new_code_cell(release.cells[-1].source))
    every = {s: failure(ran(hand_in, len(hand_in.cells) - 1, ("NotImplementedError", "")), release) for s in "ab"}
    assert all(found and found.calls_answers for found in every.values())
    assert broken.environment_fault(every, {NOTEBOOK: release}) is None


@pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")  # nbgrader's gradebook, as in grade itself
def test_grade_stops_and_grades_no_one_at_zero(tmp_path, monkeypatch):
    """``grade`` with every hand-in's last given cell failing (its grading faked, as the real run is
    tests/system/test_broken_environment.py's): one line, no CSV, and every status says not graded."""
    root, incoming = tmp_path / "course", tmp_path / "incoming"
    write_course(root)
    incoming.mkdir()
    for student in ("ada", "bob"):
        nbformat.write(reference(), incoming / f"{student}.ipynb")

    def grade_task(task, pool=None):
        notebook = ran(nbformat.reads(task.files[f"{NOTEBOOK}.ipynb"].decode(), 4), LAST_CELL, ("OSError", "no data"))
        return Graded(task.student, "graded", {f"{NOTEBOOK}.ipynb": nbformat.writes(notebook).encode()})

    monkeypatch.setattr(host, "grade_task", grade_task)
    with pytest.raises(ValueError) as stopped:
        host.grade(ASSIGNMENT, [incoming], root=root, csv_path=tmp_path / "grades.csv", sandbox=False, workers=1)
    assert str(stopped.value).startswith("grading stopped: the grading environment is broken, not the hand-ins: ")
    assert "OSError: no data, in each of the 2 hand-ins graded; 2 of 2 hand-ins not graded" in str(stopped.value)
    assert not (tmp_path / "grades.csv").exists()
    statuses = load_statuses(root, ASSIGNMENT)
    assert sorted(statuses) == [f"ada/{NOTEBOOK}", f"bob/{NOTEBOOK}"]
    assert all(
        status.startswith("error: not graded, the grading environment is broken") for status in statuses.values()
    )
    assert not list((root / "autograded").rglob("*.ipynb"))  # nothing of that run to make feedback of
