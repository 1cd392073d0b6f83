"""Hand-ins as Canvas and Moodle download them, graded by the real ``autograder grade`` under the
students' real ids, and the grades going back to Canvas under its user ids (``report --students``).

The tiny assignment (no TensorFlow): four hand-ins, a few seconds of grading."""

import csv
import os
import subprocess
import sys
import zipfile

import nbformat
import pytest
from nbgrader.api import Gradebook

from tests.support.lms_formats import parse_canvas
from tests.support.tiny_course import ASSIGNMENT, FULL, NOTEBOOK, blank, reference, write_course

pytestmark = pytest.mark.usefixtures("bubblewrap")


def _autograder(root, *args):
    (root / "tmp").mkdir(exist_ok=True)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            *map(str, args),
            "--root",
            str(root),
            "--db",
            f"sqlite:///{root / 'gb.db'}",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "TMPDIR": str(root / "tmp")},
    )


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root, incoming = tmp_path_factory.mktemp("lms"), tmp_path_factory.mktemp("downloads")
    write_course(root)
    right, empty = nbformat.writes(reference()), nbformat.writes(blank())
    # A due date and a late penalty: Canvas's LATE is the only time a download gives.
    result = _autograder(root, "deadline", ASSIGNMENT, "--due", "2026-01-01T00:00", "--per-day", "10")
    assert result.returncode == 0, result.stderr[-3000:]
    # Canvas: <sortable name>[_LATE]_<user id>_<attachment id>_<the file's name>, flat; a file the
    # student uploaded before comes back as <stem>-1.
    with zipfile.ZipFile(incoming / "canvas.zip", "w") as archive:
        archive.writestr(f"leealice_12345_67890_{NOTEBOOK}.ipynb", right)
        archive.writestr("leealice_12345_67891_notes.txt", "my notes\n")
        archive.writestr(f"smithbob_LATE_23456_78901_{NOTEBOOK}-1.ipynb", right)
    # Moodle: a folder per student and plugin, <Full Name>_<participant id>_assignsubmission_<plugin>_.
    with zipfile.ZipFile(incoming / "moodle.zip", "w") as archive:
        archive.writestr(f"Carol Díaz_881_assignsubmission_file_/{NOTEBOOK}.ipynb", right)
        archive.writestr("Carol Díaz_881_assignsubmission_onlinetext_/onlinetext.html", "<p>hi</p>")
        archive.writestr("Dan Ek_882_assignsubmission_file_/answers.ipynb", empty)
        # a time of the student's own is not nbgrader's (it would fail its autograde, or set the time)
        archive.writestr("Dan Ek_882_assignsubmission_file_/timestamp.txt", "the day before")
    result = _autograder(
        root, "grade", ASSIGNMENT, incoming / "canvas.zip", incoming / "moodle.zip", "--csv", root / "grades.csv"
    )
    assert result.returncode == 0, result.stderr[-3000:]
    with open(root / "grades.csv") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    return root, rows


def test_each_download_is_graded_under_the_students_ids(graded):
    root, rows = graded
    assert set(rows) == {"leealice", "smithbob", "Carol_Diaz", "Dan_Ek"}
    assert float(rows["leealice"]["score"]) == float(rows["Carol_Diaz"]["score"]) == FULL
    assert float(rows["Dan_Ek"]["score"]) == 0 and rows["Dan_Ek"]["status"].startswith("graded")
    assert "ignored extra files: timestamp.txt" in rows["Dan_Ek"]["status"]
    # LATE, as late as it may be: a second past the due date, one started day's 10% of the points
    assert float(rows["smithbob"]["score"]) == pytest.approx(FULL - 0.1 * float(rows["smithbob"]["max_score"]))
    assert "Canvas marked it LATE" in rows["smithbob"]["status"] and rows["smithbob"]["late"]
    assert "LATE" not in rows["leealice"]["status"] and not rows["leealice"]["late"] and not rows["Dan_Ek"]["late"]
    with Gradebook(f"sqlite:///{root / 'gb.db'}") as gradebook:
        assert {s.student_id for s in gradebook.assignment_submissions(ASSIGNMENT)} == set(rows)


def test_the_grades_go_back_to_canvas_under_its_user_ids(graded):
    root, rows = graded
    with open(root / "lms_students.csv") as handle:
        mapping = {row["nbgrader_id"]: row for row in csv.DictReader(handle)}
    assert mapping["leealice"]["canvas_id"] == "12345" and mapping["smithbob"]["canvas_id"] == "23456"
    assert mapping["Carol_Diaz"]["name"] == "Carol Díaz"
    result = _autograder(
        root, "report", ASSIGNMENT, "--students", root / "lms_students.csv", "--canvas-assignment-id", "42"
    )
    assert result.returncode == 0, result.stderr[-3000:]
    _, _, students = parse_canvas(root / "reports" / f"{ASSIGNMENT}_canvas.csv")
    by_id = {student["ID"]: student["grades"][ASSIGNMENT] for student in students if student["ID"]}
    assert by_id == pytest.approx({"12345": FULL, "23456": float(rows["smithbob"]["score"])})


def test_a_later_download_keeps_each_students_id(graded, tmp_path):
    # The next assignment's download: Canvas user 12345 is leealice still; another Canvas
    # user of the same sortable name gets his user id after it.
    root, _ = graded
    from autograder.grading.collect import collect

    (tmp_path / "next").mkdir()
    for name in ("leealice_12345_99_x.ipynb", "leealice_55555_98_x.ipynb"):
        nbformat.write(reference(), tmp_path / "next" / name)
    items = collect(root, "00_next", ["x"], [tmp_path / "next"])
    assert sorted(item.student for item in items) == ["leealice", "leealice_55555"]
