"""A submission that holds the source notebook's markers is the instructor's notebook, or made from it:
``cells.source_markers`` finds them as nbgrader's generate_assignment does (so every source notebook
holds some and no release any), and ``grade`` refuses such a submission before any of its code runs,
while it grades the others. Grading is faked here: no kernel."""

import json

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_raw_cell
from nbgrader.api import Gradebook
from nbgrader.preprocessors import ClearHiddenTests, ClearMarkScheme, ClearSolutions

from autograder.course import cells
from autograder.course.directory import REPO, load_config
from autograder.grading import host
from autograder.grading.task import Graded
from tests.support.tiny_course import ASSIGNMENT, NOTEBOOK, blank, reference, source_notebook, write_course

SOURCES = sorted(REPO.glob("source/*/*.ipynb"))
RELEASES = sorted(REPO.glob("release/*/*.ipynb"))
# Lines a student might write, and lines only the source has: nbgrader decides which are markers.
LINES = [
    "### BEGIN SOLUTION",
    "### END SOLUTION",
    "# BEGIN SOLUTION",
    "x = 1  # END SOLUTION",
    "print('BEGIN HIDDEN TESTS')",
    "### END HIDDEN TESTS",
    "## BEGIN MARK SCHEME",
    "END MARK SCHEME",
    "# begin solution",
    "# Begin Solution",
    "BEGIN  SOLUTION",
    "BEGIN_SOLUTION",
    "# the solution begins",
    "hidden tests: BEGIN",
    "x = 1",
]
CLEARS = (ClearSolutions, ClearHiddenTests, ClearMarkScheme)  # what generate_assignment clears with


def _cell(cell_type, text):
    return {"code": new_code_cell, "markdown": new_markdown_cell, "raw": new_raw_cell}[cell_type](text)


def _nbgrader_acts_on(cell_type, text):
    """Whether nbgrader's generate_assignment would clear anything of an ordinary cell holding ``text``,
    or refuse it (a solution begun and never ended)."""
    for clear in CLEARS:
        nb = new_notebook(cells=[_cell(cell_type, text)])
        try:
            cleared, _ = clear(enforce_metadata=False).preprocess(nb, {})
        except RuntimeError:
            return True
        if cleared.cells[0].source != text:
            return True
    return False


def test_every_source_notebook_holds_markers_and_no_release_does():
    assert SOURCES and len(RELEASES) == len(SOURCES)
    for path in SOURCES:
        markers = cells.source_markers(nbformat.read(path, 4))
        assert {cells.BEGIN_SOLUTION, cells.BEGIN_HIDDEN, cells.BEGIN_RUBRIC} <= set(markers), path
    for path in RELEASES:
        assert cells.source_markers(nbformat.read(path, 4)) == {}, path
        assert cells.source_markers(json.loads(path.read_text())) == {}, path  # plain JSON alike


@pytest.mark.parametrize("cell_type", ["code", "markdown", "raw"])
@pytest.mark.parametrize("line", LINES)
def test_a_marker_is_what_nbgrader_clears_in_any_cell(cell_type, line):
    """A student's own ``# BEGIN SOLUTION`` is a marker: nbgrader would clear it as one."""
    cell = _cell(cell_type, f"y = 2\n{line}\nz = 3")
    found = cells.source_markers(new_notebook(cells=[new_markdown_cell("intro"), cell]))
    assert bool(found) == _nbgrader_acts_on(cell_type, cell.source), found
    assert all(places == [(1, 2)] for places in found.values())


def test_the_markers_are_the_ones_nbgrader_clears_here():
    """nbgrader's default delimiters, which the course's config leaves as they are."""
    delimiters = {
        trait.default()
        for clear in CLEARS
        for name, trait in clear.class_traits().items()
        if name.endswith("_delimeter")
    }
    assert delimiters == set(cells.SOURCE_MARKERS) - {cells.BEGIN_RUBRIC, cells.END_RUBRIC}
    config = load_config(REPO)
    assert not any(config[clear.__name__] for clear in CLEARS)


def test_a_rubric_marker_alone_in_a_markdown_cell_is_found():
    nb = blank()
    answer = next(cell for cell in nb.cells if cells.is_manual(cell))
    answer.source += "\n\n### END RUBRIC"
    assert list(cells.source_markers(nb)) == [cells.END_RUBRIC]


def test_a_hidden_tests_marker_alone_is_found():
    nb = blank()
    cells.graded_cells(nb)["brier_score_tests"].source += "\n### BEGIN HIDDEN TESTS"
    assert list(cells.source_markers(nb)) == [cells.BEGIN_HIDDEN]


def test_cells_that_are_no_cells_are_skipped():
    nb = {"cells": [None, {"source": ["# BEGIN ", "SOLUTION\n"]}, {"source": 3}, {"cell_type": "code"}]}
    assert cells.source_markers(nb) == {cells.BEGIN_SOLUTION: [(1, 1)]}
    assert cells.source_markers({"cells": "### BEGIN SOLUTION"}) == {} == cells.source_markers([])


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: path.parent.name)
def test_answered_is_the_source_as_a_student_hands_it_in(path):
    """No marker; every solution's code kept; the test cells as released; the cells and their metadata kept."""
    source = nbformat.read(path, 4)
    answered = cells.answered(source)
    release = cells.graded_cells(nbformat.read(REPO / "release" / path.parent.name / path.name, 4))
    assert cells.source_markers(answered) == {} and cells.source_markers(source)
    assert [(cell.id, cell.metadata) for cell in answered.cells] == [(cell.id, cell.metadata) for cell in source.cells]
    for grade_id, cell in cells.graded_cells(answered).items():
        if cells.is_test(cell):
            assert cell.source == release[grade_id].source.rstrip(), grade_id
        elif cell.cell_type == "code":
            text = cells.graded_cells(source)[grade_id].source
            solution = [
                line
                for number, line in enumerate(text.split("\n"), start=1)
                if number in cells.block_lines(text, cells.BEGIN_SOLUTION, cells.END_SOLUTION)
                and cells.BEGIN_SOLUTION not in line
                and cells.END_SOLUTION not in line
            ]
            assert solution and all(line in cell.source.split("\n") for line in solution), grade_id


@pytest.fixture
def graded(tmp_path, monkeypatch):
    """``grade`` of three submissions of 01 without its experiments, its grading faked: ``mallory``
    hands in the instructor's notebook, ``ada`` the reference answers, ``eve`` the release with a
    marker of her own. Returns (rows, the students grading reached, the course)."""
    root, incoming = tmp_path / "course", tmp_path / "incoming"
    write_course(root)
    incoming.mkdir()
    nbformat.write(source_notebook(), incoming / "mallory.ipynb")
    nbformat.write(reference(), incoming / "ada.ipynb")
    eve = blank()
    cells.graded_cells(eve)["brier_score"].source += "\n# END SOLUTION"
    nbformat.write(eve, incoming / "eve.ipynb")
    reached = []

    def grade_task(task, pool=None):
        reached.append(task.student)
        return Graded(task.student, "graded", {f"{NOTEBOOK}.ipynb": task.files[f"{NOTEBOOK}.ipynb"]})

    monkeypatch.setattr(host, "grade_task", grade_task)
    rows = host.grade(ASSIGNMENT, [incoming], root=root, csv_path=tmp_path / "grades.csv", sandbox=False, workers=1)
    return {row["student"]: row for row in rows}, reached, root


@pytest.mark.filterwarnings("ignore::sqlalchemy.exc.SAWarning")  # nbgrader's gradebook, as in grade itself
def test_grade_refuses_the_instructors_notebook_and_grades_the_others(graded):
    rows, reached, root = graded
    assert reached == ["ada"], "a notebook with markers reaches no grading kernel"
    assert rows["ada"]["status"] == "graded"
    assert rows["mallory"]["status"] == (
        f"error: it holds the source notebook's markers ({NOTEBOOK}.ipynb: BEGIN SOLUTION, END SOLUTION, "
        "BEGIN HIDDEN TESTS, END HIDDEN TESTS, BEGIN RUBRIC, END RUBRIC), which nbgrader strips from every "
        "release: the instructor's notebook or one made from it, not the student's work; not graded "
        f"(log: grading_status/{ASSIGNMENT}/mallory.log)"
    )
    assert rows["eve"]["status"].startswith(
        f"error: it holds the source notebook's markers ({NOTEBOOK}.ipynb: END SOLUTION), which"
    )
    assert rows["mallory"]["score"] == rows["mallory"]["manual"] == 0 < rows["mallory"]["max_score"]
    # in the table, the status file and the CSV like any other row
    table = host.format_table(list(rows.values()))
    assert "mallory" in table and "the instructor's notebook" in table
    statuses = json.loads((root / "grading_status" / f"{ASSIGNMENT}.json").read_text())
    assert statuses[f"mallory/{NOTEBOOK}"] == rows["mallory"]["status"]
    assert "the instructor's notebook" in (root.parent / "grades.csv").read_text()
    # the log says where each marker is; nothing autograded
    log = (root / "grading_status" / ASSIGNMENT / "mallory.log").read_text()
    assert f"{NOTEBOOK}.ipynb, cell " in log and "(brier_score), line " in log and "BEGIN RUBRIC" in log
    assert not (root / "autograded" / "mallory").exists() and (root / "autograded" / "ada").exists()
    # in the gradebook at zero, nothing left to grade by hand, so report and the LMS files list it
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        submission = gradebook.find_submission(ASSIGNMENT, "mallory")
        assert submission.score == 0 and not submission.needs_manual_grade
