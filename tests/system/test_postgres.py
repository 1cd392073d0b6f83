"""The gradebook in a real PostgreSQL server: `grade`, `report` and `feedback`
against a server the fixture ``postgres_url`` (``tests/support/postgres.py``) starts."""

import csv
import subprocess
import sys

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder.course.gradebook import gradebook_url
from tests.support import tiny_course
from tests.support.bad_submissions import WRONG_BRIER, _edit
from tests.support.postgres import postgres_url  # noqa: F401  (a fixture)
from tests.support.tiny_course import ASSIGNMENT, reference, source_path, write_course


def _run(*args):
    result = subprocess.run(
        [sys.executable, "-m", "autograder", *map(str, args)], capture_output=True, text=True, timeout=900
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return result.stdout


@pytest.mark.slow  # grades a class of two: a minute
def test_grade_report_and_feedback_use_postgresql(postgres_url, tmp_path, bubblewrap):  # noqa: F811 (the fixture)
    root = tmp_path / "course"
    write_course(root)  # the tiny assignment
    incoming = tmp_path / "incoming"
    incoming.mkdir()
    nbformat.write(reference(), incoming / "ada.ipynb")
    nbformat.write(_edit("brier_score", replace=WRONG_BRIER)(tiny_course), incoming / "bob.ipynb")
    _run(
        "grade",
        ASSIGNMENT,
        incoming,
        "--root",
        root,
        "--db",
        postgres_url,
        "--csv",
        root / "grades.csv",
        "--workers",
        "2",
    )
    with open(root / "grades.csv") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    assert float(rows["ada"]["score"]) - float(rows["bob"]["score"]) == 2, rows
    with Gradebook(gradebook_url(postgres_url, root)) as gradebook:
        assert {student.id for student in gradebook.students} == {"ada", "bob"}
        assert gradebook.find_submission(ASSIGNMENT, "ada").score == float(rows["ada"]["score"])
    assert not (root / "gradebook.db").exists(), "nothing went to the default SQLite gradebook"
    _run("report", ASSIGNMENT, "--root", root, "--db", postgres_url)
    with open(root / "reports" / f"{ASSIGNMENT}.csv") as handle:
        assert {row["student"] for row in csv.DictReader(handle)} == {"ada", "bob"}
    assert "2 feedback files written" in _run("feedback", ASSIGNMENT, "--root", root, "--db", postgres_url)


@pytest.mark.parametrize("command", ["grade", "report", "feedback"])
def test_an_unreachable_server_is_one_line(command, tmp_path):
    url = f"postgresql://nobody@/course?host={tmp_path}"  # no server listens there
    write_course(tmp_path)  # a course: --root is checked as one before the database
    inputs = [str(source_path())] if command == "grade" else []
    result = subprocess.run(
        [sys.executable, "-m", "autograder", command, ASSIGNMENT, *inputs, "--db", url, "--root", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("autograder: error: cannot reach the gradebook database postgresql+psycopg://")
    assert not (tmp_path / "submitted").exists(), "nothing was collected before the check"
