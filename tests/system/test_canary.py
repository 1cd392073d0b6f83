"""The canary test: nothing of a test reaches the kernel's world, by any channel.

The tiny assignment (``tiny_course``: no TensorFlow) and assignment 01 (the course's own, TensorFlow
in its kernel) are graded as `make course` grades them (``selfgrade``: each reference solution and
blank release, sandbox on), from a copy of them whose every test cell hides random canaries
(``tests/support/canary.py``), with more canaries in the grader's environment (a hub's token, a
database password), and with a scanner in each notebook's kernel that searches, before every
question and after every cell, everything the kernel can reach: the files it can write and
every file changed since the test began, every process's environment, command line and open
files it can see, its memory. It also plants links to a file outside the sandbox, and a FIFO,
in every folder it can write. This test, not a list of today's file names, keeps the next
channel closed: none of the canaries is found, the outside file is untouched, and the grades are
what `make course` expects (every automatic point for a reference, zero for a blank).
"""

import io
import shutil
import time

import nbformat
import pytest

from autograder import selfgrade
from autograder.course import directory as course
from autograder.course.cells import graded_cells
from autograder.course.directory import REPO, generate_release
from autograder.grading.host import format_table
from tests.support import tiny_course
from tests.support.canary import new_canaries, plant, report

REAL = "01_likelihoods"  # the course's own assignment graded beside the tiny one

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("bubblewrap")]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    canaries = new_canaries()
    root = tmp_path_factory.mktemp("canary course")  # a path with a space in it
    outside = tmp_path_factory.mktemp("outside")
    sentinel = outside / "sentinel"
    sentinel.write_text("untouched\n")
    sources = tmp_path_factory.mktemp("canary sources")
    shutil.copytree(REPO / "source" / REAL, sources / "source" / REAL)
    tiny_course.write_course(sources)
    planted = plant(sources, root, canaries, since=time.time() - 1, sentinel=sentinel)
    generate_release(root)
    kept = tmp_path_factory.mktemp("autograded")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("JUPYTERHUB_API_TOKEN", canaries["environment"])
        patch.setenv("PGPASSWORD", canaries["environment"])
        out = io.StringIO()
        rows = selfgrade.selfgrade(root, progress=out, keep=kept)
    return {
        "rows": rows,
        "kept": kept,
        "planted": planted,
        "sentinel": sentinel,
        "progress": out.getvalue(),
        "sources": sources,
        "reports": {
            (path.parts[-3], path.parts[-2]): report(nbformat.read(path, 4)) for path in kept.glob("*/*/*.ipynb")
        },
    }


def test_every_test_cell_holds_canaries(graded):
    tests = sum(
        cell.cell_type == "code"
        and "grade_id" in cell.metadata.get("nbgrader", {})
        and not cell.metadata.nbgrader.get("solution")
        and cell.metadata.nbgrader.get("grade")
        for path in (graded["sources"] / "source").glob("*/*.ipynb")
        for cell in nbformat.read(path, 4).cells
    )
    assert graded["planted"] == tests > 0


def test_the_kernel_finds_no_canary(graded):
    reports = graded["reports"]
    assert {assignment for _, assignment in reports} == {REAL, tiny_course.ASSIGNMENT}
    for (student, assignment), found in reports.items():
        assert found is not None, f"{student}'s {assignment}: the scanner never reported"
        assert found["found"] == [], f"{student}'s {assignment}: a canary in {found['found']}"
        assert found["walks"] == 1 and found["memory"] >= 2 and found["cells"] > 3 and found["planted"] > 0
        if student == "reference":  # the tests asked the kernel, and each question was searched
            assert found["questions"] > 10, found


def test_nothing_outside_the_sandbox_changed(graded):
    assert graded["sentinel"].read_text() == "untouched\n"
    assert [path.name for path in graded["sentinel"].parent.iterdir()] == ["sentinel"]


def test_the_grades_are_what_make_course_expects(graded):
    rows = graded["rows"]
    assert not selfgrade.selfgrade_problems(rows), format_table(rows)
    for row in rows:
        assert "graded again" not in row["status"] and "repaired" not in row["status"], row
        if row["student"] == "reference":
            assert row["manual"] == _manual_points(graded["sources"], row["assignment"]), (
                "answer cells await an instructor"
            )
    assert format_table(rows).splitlines()[0].split() == [
        "assignment",
        "notebook",
        "student",
        "score",
        "max_score",
        "manual",
        "late",
        "status",
    ]
    submissions = 2 * len(course.assignments(graded["sources"]))
    assert graded["progress"].splitlines()[-1].startswith(f"selfgrade: {submissions} submissions graded in")


def _manual_points(sources, assignment):
    """The points of the assignment's answer cells (graded markdown)."""
    nb = nbformat.read(next((sources / "source" / assignment).glob("*.ipynb")), 4)
    return sum(
        cell.metadata.nbgrader["points"]
        for cell in graded_cells(nb).values()
        if cell.cell_type == "markdown" and cell.metadata.nbgrader.get("grade")
    )
