"""The class flow through nbgrader's exchange: release, fetch, submit, collect, `grade`,
feedback released and fetched, for two students, in a temporary exchange directory."""

import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.course.cells import answered, graded_cells
from autograder.course.directory import make_api
from tests.support.scan import secret_lines, visible_text
from tests.support.tiny_course import ASSIGNMENT, NOTEBOOK, release_path, source_path, write_course

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("bubblewrap")]


def _student(home, student, exchange, *command):
    """Run an nbgrader exchange command as ``student`` would, in their own folder and cache."""
    result = subprocess.run(
        [
            str(Path(sys.executable).parent / "nbgrader"),
            *command,
            "--course=bdl",
            f"--Exchange.root={exchange}",
            f"--Exchange.cache={home / '.cache'}",
            f"--CourseDirectory.student_id={student}",
        ],
        cwd=home,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return result


def _answer(path):
    """Fill in a fetched release with the reference answers (the student who did everything)."""
    answers = graded_cells(answered(nbformat.read(source_path(), 4)))
    nb = nbformat.read(path, 4)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if cell.metadata.get("nbgrader", {}).get("solution") and cell.cell_type == "code":
            cell.source = answers[grade_id].source
    nbformat.write(nb, path)


def test_feedback_goes_back_to_students_through_the_exchange(tmp_path):
    root, exchange = tmp_path / "course", tmp_path / "exchange"
    write_course(root)  # 01 without its experiments: the flow needs none of them
    exchange.mkdir()
    api = make_api(root, {"Exchange": {"root": str(exchange)}})
    assert api.generate_assignment(ASSIGNMENT, force=True, create=True)["success"]
    assert api.release_assignment(ASSIGNMENT)["success"]
    homes = {}
    for student in ("alice", "bob"):
        home = homes[student] = tmp_path / student
        home.mkdir()
        _student(home, student, exchange, "fetch_assignment", ASSIGNMENT)
        if student == "alice":
            _answer(home / ASSIGNMENT / f"{NOTEBOOK}.ipynb")
        _student(home, student, exchange, "submit", ASSIGNMENT)
    assert api.collect(ASSIGNMENT)["success"]

    graded = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "grade",
            ASSIGNMENT,
            str(root / "submitted"),
            "--root",
            str(root),
            "--csv",
            str(tmp_path / "grades.csv"),
            "--workers",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert graded.returncode == 0, graded.stderr[-3000:]
    assert "ignored extra files" not in graded.stdout, "nbgrader's own files are not the student's extras"
    feedback = subprocess.run(
        [sys.executable, "-m", "autograder", "feedback", ASSIGNMENT, "--root", str(root)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert feedback.returncode == 0, feedback.stdout[-2000:] + feedback.stderr[-2000:]
    assert api.release_feedback(ASSIGNMENT)["success"]

    secrets = secret_lines(source_path(), release_path())
    for student, verdict in (("alice", "passed"), ("bob", "not run")):
        _student(homes[student], student, exchange, "fetch_feedback", ASSIGNMENT)
        pages = list((homes[student] / ASSIGNMENT / "feedback").glob(f"*/{NOTEBOOK}.html"))
        assert len(pages) == 1, f"{student} fetched {pages}"
        text = visible_text(pages[0].read_text())
        assert f"# hidden tests: {verdict}" in text
        assert not [line for line in secrets if line in text], f"{student}'s feedback shows hidden tests"
