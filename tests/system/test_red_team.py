"""The red team (``tests/support/red_team.py``) graded for real, sandbox on: every attack gets the points
its honest answers earn, or is not scored with the reason; none gets a silent score (but those
spelled with no name the review knows, which gain nothing all the same), no feedback page shows a
hidden test, nothing the kernels printed holds one, nothing outside the sandbox changed, and the
run grades every attack to the end. The attacks are submissions of 01 without its experiments,
graded in a course of that notebook (``tests/support/small_course.py``)."""
import csv
import os
import subprocess
import sys

import nbformat
import pytest

from autograder.course.cells import is_test

import scan
from red_team import ATTACKS, FOUND, UNFLAGGED, notebook
from bad_submissions import check_row, own_lines
from scan import visible_text
from small_course import ASSIGNMENT, NOTEBOOK, RELEASE, SOURCE, write_course

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("bubblewrap")]

LIMITS = ["--workers", "2", "--cell-timeout", "60", "--submission-timeout", "600"]


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Every attack graded in one run of ``grade``, and its feedback written."""
    root = tmp_path_factory.mktemp("red team")  # a path with a space in it
    write_course(root)  # grade writes release/ anew
    incoming = tmp_path_factory.mktemp("attacks")
    sentinel = tmp_path_factory.mktemp("outside") / "sentinel"  # a file of the grader's the kernels aim at
    sentinel.write_text("untouched\n")
    for name in ATTACKS:
        nbformat.write(notebook(name, sentinel), incoming / f"{name}.ipynb")
    (root / "tmp").mkdir()
    env = {**os.environ, "TMPDIR": str(root / "tmp")}
    db_url = f"sqlite:///{root / 'red.db'}"
    result = subprocess.run([sys.executable, "-m", "autograder", "grade", ASSIGNMENT, str(incoming),
                             "--root", str(root), "--db", db_url, "--csv", str(root / "grades.csv"), *LIMITS],
                            capture_output=True, text=True, timeout=3000, env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    with open(root / "grades.csv") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    feedback = subprocess.run([sys.executable, "-m", "autograder", "feedback", ASSIGNMENT, "--root", str(root),
                               "--db", db_url], capture_output=True, text=True, timeout=1200, env=env)
    return {"root": root, "rows": rows, "feedback": feedback, "db_url": db_url, "sentinel": sentinel}


def test_every_attack_is_graded(graded):
    """The run went on to the end whatever an attack did to its kernel, its files or its disk."""
    assert set(graded["rows"]) == set(ATTACKS)


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_attack_gains_nothing(graded, name):
    check_row(graded["rows"][name], *ATTACKS[name][1:])


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
    root = graded["root"]
    secrets = scan.secrets([SOURCE], [RELEASE])
    given = {line.strip() for cell in nbformat.read(RELEASE, 4).cells for line in cell.source.split("\n")}
    pages = sorted((root / "feedback").glob(f"*/{ASSIGNMENT}/{NOTEBOOK}.html"))
    expected = {name for name, row in graded["rows"].items() if not row["status"].startswith("error")}
    assert {page.parent.parent.name for page in pages} >= expected, graded["feedback"].stdout[-2000:]
    for page in pages:
        text, own = visible_text(page.read_text()), own_lines(root, page.parent.parent.name)
        found = [item for form in scan.decoded_forms(text)
                 for item in scan.leaked_lines(form, secrets, own | given) if item[0] != "definition"]
        assert not found, f"{page.parent.parent.name}'s feedback shows hidden tests: {found[:3]}"


def test_the_report_names_every_attack_to_read(graded):
    result = subprocess.run([sys.executable, "-m", "autograder", "report", ASSIGNMENT, "--root", str(graded["root"]),
                             "--db", graded["db_url"]], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    for name in set(ATTACKS) - UNFLAGGED:
        assert f"note: read {name}/{NOTEBOOK} before trusting its score: " in result.stdout, name


def test_no_kernel_output_holds_a_test(graded):
    """What the kernels printed, in the instructor's autograded notebooks (the outputs of the
    student's cells, which feedback leaves out; a test cell's are the examiner's): no attack
    reports a test found, and the leak scan, as shown and decoded, finds no secret line or marker."""
    root = graded["root"]
    secrets = scan.secrets([SOURCE], [RELEASE])
    given = {line.strip() for cell in nbformat.read(RELEASE, 4).cells for line in cell.source.split("\n")}
    notebooks = sorted((root / "autograded").glob(f"*/{ASSIGNMENT}/{NOTEBOOK}.ipynb"))
    expected = {name for name, row in graded["rows"].items() if not row["status"].startswith("error")}
    assert {path.parent.parent.name for path in notebooks} >= expected
    for path in notebooks:
        student = path.parent.parent.name
        outputs = "\n".join(str(value) for cell in nbformat.read(path, 4).cells if not is_test(cell)
                            for output in cell.get("outputs", [])
                            for value in [output.get("text", ""), *output.get("data", {}).values(),
                                          *output.get("traceback", [])])
        assert FOUND not in outputs, f"{student}: {outputs[outputs.index(FOUND):][:300]}"
        own = own_lines(root, student)
        found = [item for form in scan.decoded_forms(outputs)
                 for item in scan.leaked_lines(form, secrets, own | given) if item[0] != "definition"]
        assert not found, f"{student}'s kernel printed hidden tests: {found[:3]}"


def test_nothing_outside_the_sandbox_changed(graded):
    """The attacks' links to a file of the grader's, and to new files beside it: none was followed."""
    sentinel = graded["sentinel"]
    assert sentinel.read_text() == "untouched\n"
    assert [path.name for path in sentinel.parent.iterdir()] == ["sentinel"]
