"""The red team (``tests/support/red_team.py``) graded for real, sandbox on: every attack gets the points
its honest answers earn, or is not scored with the reason; none gets a silent score (but those
spelled with no name the review knows, which gain nothing all the same), no feedback page shows a
hidden test, nothing the kernels printed holds one, nothing outside the sandbox changed, and the
run grades every attack to the end. Two runs: the tiny assignment's (``tiny_course``, every attack
but those on TensorFlow's own objects) and 01's without its experiments (``small_course``: those, and
one attack of each class), each in a course of its own notebook. The walkers, which read their own
feedback and hand in again, are graded round by round on the tiny assignment."""

import csv
import os
import subprocess
import sys

import nbformat
import pytest

from autograder.course import cells
from autograder.course.cells import is_test
from tests.support import scan, small_course, tiny_course
from tests.support.bad_submissions import check_row, own_lines
from tests.support.red_team import (
    ATTACKS,
    FOUND,
    ON_01,
    ON_TINY,
    UNFLAGGED,
    WALKERS,
    corrections_read,
    notebook,
    walker,
)
from tests.support.scan import visible_text

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("bubblewrap")]

LIMITS = ["--workers", "2", "--cell-timeout", "60", "--submission-timeout", "600"]


# {course: (its module, the attacks graded on it)}
COURSES = {"tiny": (tiny_course, ON_TINY), "01": (small_course, ON_01)}


def _graded(course_name, tmp_path_factory):
    """Every attack on one course graded in one run of ``grade``, and its feedback written."""
    course, names = COURSES[course_name]
    sentinel = tmp_path_factory.mktemp("outside") / "sentinel"  # a file of the grader's the kernels aim at
    sentinel.write_text("untouched\n")
    return {
        **_grade(course, {name: notebook(name, sentinel, course) for name in names}, tmp_path_factory),
        "sentinel": sentinel,
    }


def _grade(course, notebooks, tmp_path_factory):
    """``notebooks`` ({student: notebook}) graded in one run of ``grade`` in a course of their own, and
    their feedback written."""
    root = tmp_path_factory.mktemp("red team")  # a path with a space in it
    course.write_course(root)  # grade writes release/ anew
    incoming = tmp_path_factory.mktemp("attacks")
    for name, nb in notebooks.items():
        nbformat.write(nb, incoming / f"{name}.ipynb")
    (root / "tmp").mkdir()
    env = {**os.environ, "TMPDIR": str(root / "tmp")}
    db_url = f"sqlite:///{root / 'red.db'}"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "grade",
            course.ASSIGNMENT,
            str(incoming),
            "--root",
            str(root),
            "--db",
            db_url,
            "--csv",
            str(root / "grades.csv"),
            *LIMITS,
        ],
        capture_output=True,
        text=True,
        timeout=3000,
        env=env,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    with open(root / "grades.csv") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    feedback = subprocess.run(
        [sys.executable, "-m", "autograder", "feedback", course.ASSIGNMENT, "--root", str(root), "--db", db_url],
        capture_output=True,
        text=True,
        timeout=1200,
        env=env,
    )
    return {
        "root": root,
        "rows": rows,
        "feedback": feedback,
        "db_url": db_url,
        "course": course,
        "names": list(notebooks),
    }


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The run of a course (``runs("tiny")``), made the first time a test asks for it, once."""
    made = {}

    def run(course_name):
        if course_name not in made:
            made[course_name] = _graded(course_name, tmp_path_factory)
        return made[course_name]

    return run


@pytest.fixture(params=sorted(COURSES))
def graded(request, runs):
    return runs(request.param)


def test_every_attack_is_graded(graded):
    """The run went on to the end whatever an attack did to its kernel, its files or its disk."""
    assert set(graded["rows"]) == set(graded["names"])


def test_every_attack_is_graded_on_a_course():
    assert ON_TINY | ON_01 == set(ATTACKS)


@pytest.mark.parametrize(
    "course, name", [(course, name) for course in sorted(COURSES) for name in sorted(COURSES[course][1])]
)
def test_attack_gains_nothing(runs, course, name):
    score, *status = ATTACKS[name][1:]
    run = runs(course)
    check_row(run["rows"][name], score[run["course"].ASSIGNMENT] if type(score) is dict else score, *status)


def test_no_attack_scores_silently(graded):
    """A submission with a point it did not earn is flagged for review or not scored (an attack
    spelled with no name the review knows is let through: its row shows it gained nothing)."""
    for name, row in graded["rows"].items():
        assert name in UNFLAGGED or row["status"].startswith("error") or "review:" in row["status"], row


def test_the_red_team_has_every_class_of_attack():
    assert len(ATTACKS) >= 30


def test_no_feedback_shows_a_hidden_test(graded):
    """The leak scan over every attack's feedback page, as shown and decoded: no secret line,
    marker or definition."""
    root, course = graded["root"], graded["course"]
    secrets = scan.secrets([course.source_path()], [course.release_path()])
    given = {line.strip() for cell in course.blank().cells for line in cell.source.split("\n")}
    pages = sorted((root / "feedback").glob(f"*/{course.ASSIGNMENT}/{course.NOTEBOOK}.html"))
    expected = {name for name, row in graded["rows"].items() if not row["status"].startswith("error")}
    assert {page.parent.parent.name for page in pages} >= expected, graded["feedback"].stdout[-2000:]
    for page in pages:
        text, own = visible_text(page.read_text()), own_lines(root, page.parent.parent.name, course)
        found = [
            item
            for form in scan.decoded_forms(text)
            for item in scan.leaked_lines(form, secrets, own | given)
            if item[0] != "definition"
        ]
        assert not found, f"{page.parent.parent.name}'s feedback shows hidden tests: {found[:3]}"


def test_the_report_names_every_attack_to_read(graded):
    course = graded["course"]
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "report",
            course.ASSIGNMENT,
            "--root",
            str(graded["root"]),
            "--db",
            graded["db_url"],
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    for name in set(graded["names"]) - UNFLAGGED:
        assert f"note: read {name}/{course.NOTEBOOK} before trusting its score: " in result.stdout, name


def test_no_kernel_output_holds_a_test(graded):
    """What the kernels printed, in the instructor's autograded notebooks (the outputs of the
    student's cells, which feedback leaves out; a test cell's are the examiner's): no attack
    reports a test found, and the leak scan, as shown and decoded, finds no secret line or marker."""
    root, course = graded["root"], graded["course"]
    secrets = scan.secrets([course.source_path()], [course.release_path()])
    given = {line.strip() for cell in course.blank().cells for line in cell.source.split("\n")}
    notebooks = sorted((root / "autograded").glob(f"*/{course.ASSIGNMENT}/{course.NOTEBOOK}.ipynb"))
    expected = {name for name, row in graded["rows"].items() if not row["status"].startswith("error")}
    assert {path.parent.parent.name for path in notebooks} >= expected
    for path in notebooks:
        student = path.parent.parent.name
        outputs = "\n".join(
            str(value)
            for cell in nbformat.read(path, 4).cells
            if not is_test(cell)
            for output in cell.get("outputs", [])
            for value in [output.get("text", ""), *output.get("data", {}).values(), *output.get("traceback", [])]
        )
        assert FOUND not in outputs, f"{student}: {outputs[outputs.index(FOUND) :][:300]}"
        own = own_lines(root, student, course)
        found = [
            item
            for form in scan.decoded_forms(outputs)
            for item in scan.leaked_lines(form, secrets, own | given)
            if item[0] != "definition"
        ]
        assert not found, f"{student}'s kernel printed hidden tests: {found[:3]}"


def test_nothing_outside_the_sandbox_changed(graded):
    """The attacks' links to a file of the grader's, and to new files beside it: none was followed."""
    sentinel = graded["sentinel"]
    assert sentinel.read_text() == "untouched\n"
    assert [path.name for path in sentinel.parent.iterdir()] == ["sentinel"]


def test_feedback_numbers_walk_no_answer_to_the_hidden_values(tmp_path_factory):
    """The class that reads its own feedback (``WALKERS``): each round, every number a failing message
    shows is used to move the answer the way the message says, on the input it names, and the hand-in
    is graded again. The walk gains no point: the numbers say by about how much and which way, never
    within the tolerance where the expected value lies (``bdl.difference.coarse``)."""
    course = tiny_course
    points = {
        cells.grade_id(cell): cell.metadata["nbgrader"]["points"] for cell in course.reference().cells if is_test(cell)
    }
    corrections = {name: {} for name in WALKERS}
    for _ in range(6):  # a walk that the numbers led would take five rounds
        run = _grade(course, {name: walker(name, corrections[name], course) for name in WALKERS}, tmp_path_factory)
        assert run["feedback"].returncode == 0, run["feedback"].stderr[-2000:]
        moved = False
        for name, (function, _, _) in WALKERS.items():
            # every answer right but the walker's function
            assert float(run["rows"][name]["score"]) == sum(points.values()) - points[f"{function}_tests"], (
                run["rows"][name],
                corrections[name],
            )
            page = run["root"] / "feedback" / name / course.ASSIGNMENT / f"{course.NOTEBOOK}.html"
            read, failed = corrections_read(name, visible_text(page.read_text()))
            assert failed, f"{name}: its page shows no failing message of {function}'s tests to read"
            new = {key: corrections[name].get(key, 0.0) + amount for key, amount in read.items()}
            moved |= any(corrections[name].get(key) != amount for key, amount in new.items())
            corrections[name].update(new)
        if not moved:
            break
