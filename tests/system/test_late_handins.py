"""Due dates, extensions and late penalties, through the commands, on the tiny assignment: three
right answers handed in, one on time, one late, one late but within its extension; the late one
loses what the policy says in the gradebook, grades.csv, the report, the LMS files and its feedback,
and one student's feedback is written again alone."""

import csv
import re
import subprocess
import sys

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder.__main__ import main
from tests.support.lms_formats import parse_canvas, parse_moodle
from tests.support.scan import visible_text
from tests.support.tiny_course import ASSIGNMENT, FULL, MAX_SCORE, NOTEBOOK, reference, write_course

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("bubblewrap")]

DUE = "2026-03-01T23:59:00+01:00"  # 22:59 UTC
HANDED_IN = {  # the exchange's times (timestamp.txt, as the course's collect writes them)
    "alice": "2026-03-01 22:00:00.000000 UTC",  # an hour early
    "bob": "2026-03-03 10:59:00.000000 UTC",  # 36 h late: two started days
    "carol": "2026-03-03 10:59:00.000000 UTC",  # as late, with a two-day extension
}
# 10% of the points per started day, at most 15%: bob loses 15% of the notebook's points.
PENALTY = round(MAX_SCORE * 0.15, 6)


def _autograder(*args):
    result = subprocess.run(
        [sys.executable, "-m", "autograder", *map(str, args)], capture_output=True, text=True, timeout=600
    )
    return result


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("deadlines")
    root, handins = tmp / "course", tmp / "submitted"
    write_course(root)
    for student, time in HANDED_IN.items():
        folder = handins / student / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(reference(), folder / f"{NOTEBOOK}.ipynb")
        (folder / "timestamp.txt").write_text(time)
    deadline = _autograder("deadline", ASSIGNMENT, "--due", DUE, "--per-day", 10, "--cap", 15, "--root", root)
    assert deadline.returncode == 0, deadline.stderr
    extension = _autograder("extension", ASSIGNMENT, "carol", "--days", 2, "--root", root)
    assert extension.returncode == 0, extension.stderr
    assert "carol: extension 2 days" in extension.stdout
    assert main(["extension", ASSIGNMENT, "dave", "--days", "1", "--root", str(root)]) == 0  # never hands in
    grade = _autograder("grade", ASSIGNMENT, handins, "--root", root, "--csv", tmp / "grades.csv", "--workers", 2)
    assert grade.returncode == 0, grade.stderr[-3000:]
    with open(tmp / "grades.csv") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    return {"root": root, "rows": rows, "db": f"sqlite:///{root / 'gradebook.db'}"}


def test_a_late_hand_in_loses_what_the_policy_says(graded):
    rows = graded["rows"]
    assert float(rows["alice"]["score"]) == FULL and rows["alice"]["late"] == ""
    assert float(rows["carol"]["score"]) == FULL and rows["carol"]["late"] == "", "its extension covers it"
    assert float(rows["bob"]["score"]) == pytest.approx(FULL - PENALTY)
    assert rows["bob"]["late"] == f"1 day 12 h late, -{PENALTY:g} points"
    with Gradebook(graded["db"]) as gradebook:
        penalties = {s.student_id: s.late_submission_penalty for s in gradebook.assignment_submissions(ASSIGNMENT)}
        assert gradebook.find_submission(ASSIGNMENT, "bob").score == FULL, "nbgrader's own score is kept"
    assert penalties == {"alice": 0, "bob": pytest.approx(PENALTY), "carol": 0, "dave": 0}


def test_the_report_and_the_lms_files_count_it(graded):
    root = graded["root"]
    report = _autograder("report", ASSIGNMENT, "--root", root)
    assert report.returncode == 0, report.stderr[-2000:]
    with open(root / "reports" / f"{ASSIGNMENT}.csv") as handle:
        scores = {row["student"]: row for row in csv.DictReader(handle)}
    assert float(scores["bob"]["score"]) == pytest.approx(FULL - PENALTY) and scores["bob"]["late"]
    _, _, students = parse_canvas(root / "reports" / f"{ASSIGNMENT}_canvas.csv")
    canvas = {s["SIS Login ID"]: s["grades"][ASSIGNMENT] for s in students}
    assert canvas == {"alice": FULL, "bob": pytest.approx(round(FULL - PENALTY, 2)), "carol": FULL}, (
        "dave's extension is no hand-in"
    )
    with open(root / "reports" / f"{ASSIGNMENT}_items.csv") as handle:
        assert {row["submissions"] for row in csv.DictReader(handle)} == {"3"}
    moodle = parse_moodle(root / "reports" / f"{ASSIGNMENT}_moodle.csv", "ID number", feedback=["late"])
    assert moodle["bob"][ASSIGNMENT] == pytest.approx(round(FULL - PENALTY, 2))
    assert moodle["bob"]["late"] == scores["bob"]["late"] and moodle["alice"]["late"] == ""


def test_an_extension_given_after_grading_takes_the_penalty_back(graded):
    root = str(graded["root"])
    assert main(["extension", ASSIGNMENT, "bob", "--days", "1", "--root", root]) == 0
    with Gradebook(graded["db"]) as gradebook:
        assert gradebook.find_submission(ASSIGNMENT, "bob").late_submission_penalty == pytest.approx(
            round(MAX_SCORE * 0.10, 6)
        ), "12 h late: one started day"
    assert main(["extension", ASSIGNMENT, "bob", "--days", "0", "--root", root]) == 0
    with Gradebook(graded["db"]) as gradebook:
        assert gradebook.find_submission(ASSIGNMENT, "bob").late_submission_penalty == pytest.approx(PENALTY)


def test_one_student_regraded_and_their_feedback_says_how_late_and_what_it_cost(graded, tmp_path):
    root = graded["root"]
    again = _autograder(
        "grade", ASSIGNMENT, root / "submitted" / "bob" / ASSIGNMENT, "--root", root, "--csv", tmp_path / "bob.csv"
    )
    assert again.returncode == 0, again.stderr[-3000:]
    with open(tmp_path / "bob.csv") as handle:
        (row,) = csv.DictReader(handle)
    assert row["student"] == "bob" and float(row["score"]) == pytest.approx(FULL - PENALTY)
    feedback = _autograder("feedback", ASSIGNMENT, "--student", "bob", "--root", root)
    assert feedback.returncode == 0, feedback.stdout[-2000:] + feedback.stderr[-2000:]
    assert [p.parts[-3] for p in (root / "feedback").glob(f"*/{ASSIGNMENT}/*.html")] == ["bob"]
    page = " ".join(visible_text((root / "feedback" / "bob" / ASSIGNMENT / f"{NOTEBOOK}.html").read_text()).split())
    assert "Late: handed in 2026-03-03 10:59 UTC, 1 day 12 h after the due date 2026-03-01 22:59 UTC" in page
    assert f"it cost {PENALTY:g} points" in page
    nobody = _autograder("feedback", ASSIGNMENT, "--student", "dave", "--root", root)
    assert nobody.returncode == 2 and nobody.stderr.count("\n") == 1 and "dave" in nobody.stderr


def test_bad_input_is_one_line_and_exit_2(graded, capsys):
    root = graded["root"]
    for args in (
        ("deadline", ASSIGNMENT, "--due", "next friday"),
        ("deadline", ASSIGNMENT, "--per-day", "150"),
        ("deadline", "nosuch", "--due", DUE),
        ("extension", ASSIGNMENT, "bob", "--days", "-1"),
        ("extension", ASSIGNMENT, "bob", "--days", "1e12"),
        ("extension", ASSIGNMENT, "Bob Baker", "--days", "1"),
    ):
        try:  # in this process: a second each saved
            code = main([*args, "--root", str(root)])
        except SystemExit as refused:  # an argument's own check, as it is parsed
            code = refused.code
        said = capsys.readouterr().err
        assert code == 2 and said.count("\n") == 1 and re.match(r"autograder( \w+)?: error: ", said), (args, said)
