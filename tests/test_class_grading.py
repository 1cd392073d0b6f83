"""``python -m autograder grade`` at class scale: every input form, parallel
workers, limits, bad submissions graded correctly with the gradebook intact,
no silent overwrite, the report and nbgrader's feedback.

One grading run of assignment 01 takes every bad submission of
``bad_submissions.CASES`` and the class-scale inputs at once, into a gradebook
given by URL; the tests then read what it left.
"""
import contextlib
import csv
import hashlib
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import zipfile

import nbformat
import psutil
import pytest
from nbgrader.api import Gradebook

from bad_submissions import ASSIGNMENT, CASES, FULL, NETWORK, NOTEBOOK, SOURCE, WRONG_BRIER, _edit
from test_feedback import visible_text
import leaks
from autograder import cells
from autograder.course import REPO

# Grades a class of bad submissions for real: minutes.
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("bubblewrap")]

RELEASE = REPO / "release" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
ARTIFACTS = REPO / "test-artifacts"  # git-ignored; what a person may want to look at after a run
MAX_SCORE = 23  # 13 automatic and 10 hand-graded points
LIMITS = ["--workers", "2", "--cell-timeout", "30", "--memory", "3", "--submission-timeout", "300"]


def _grade(root, db_url, *inputs, extra=()):
    # The grading folders (bdl-grade-*) go under the class's own temporary folder, so
    # that what other tests grade at the same time is not taken for this class's.
    (root / "tmp").mkdir(exist_ok=True)
    result = subprocess.run(
        [sys.executable, "-m", "autograder", "grade", ASSIGNMENT, *map(str, inputs), "--root", str(root),
         "--db", db_url, "--csv", str(root / "grades.csv"), *LIMITS, *extra],
        capture_output=True, text=True, timeout=1500, env={**os.environ, "TMPDIR": str(root / "tmp")})
    assert result.returncode == 0, result.stderr[-3000:]
    with open(root / "grades.csv") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}, result


def _fingerprint(root):
    return {str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
            for folder in ("source", "release") for path in sorted((root / folder).rglob("*")) if path.is_file()}


@contextlib.contextmanager
def _answer_server(connections):
    """A server on 127.0.0.1 that hands the right brier_score to whoever connects; yields its port."""
    answer = cells.graded_cells(nbformat.read(SOURCE, 4))["brier_score"].source.encode()
    server = socket.create_server(("127.0.0.1", 0))

    def serve():
        while True:
            try:
                connection, address = server.accept()
            except OSError:  # closed
                return
            connections.append(address)
            with connection:
                connection.sendall(answer)

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield server.getsockname()[1]
    finally:
        server.close()


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root = tmp_path_factory.mktemp("class")
    shutil.copytree(REPO / "source", root / "source")
    shutil.copytree(REPO / "release", root / "release")
    incoming = tmp_path_factory.mktemp("incoming")
    bad = incoming / "bad"  # a folder of <student>.ipynb files
    bad.mkdir()
    connections = []  # who reached the answer server: nobody may
    server = contextlib.ExitStack()
    NETWORK["port"] = server.enter_context(_answer_server(connections))
    for name, (build, *_) in CASES.items():
        notebook = build()
        if isinstance(notebook, str):
            (bad / f"{name}.ipynb").write_text(notebook)
        else:
            nbformat.write(notebook, bad / f"{name}.ipynb")
    # An nbgrader submitted/ tree; alice's extra files would shadow the test helpers
    # if they reached the kernel's folder.
    alice = incoming / "submitted" / "alice" / ASSIGNMENT
    (alice / "bdl").mkdir(parents=True)
    nbformat.write(_edit("brier_score", replace=WRONG_BRIER)(), alice / f"{NOTEBOOK}.ipynb")
    (alice / "bdl" / "__init__.py").write_text("")
    (alice / "bdl" / "checks.py").write_text(
        "def assert_close(*args, **kwargs):\n    pass\n\n\ndef assert_equal(*args, **kwargs):\n    pass\n")
    (alice / "numpy.py").write_text("raise SystemExit('a shadowed numpy')\n")
    # A zip as a learning-management system exports it: one folder of notebooks.
    with zipfile.ZipFile(incoming / "export.zip", "w") as archive:
        archive.write(SOURCE, "export/bob.ipynb")
        archive.write(RELEASE, "export/carol.ipynb")
        archive.writestr("../escape.ipynb", "{}")
    before = _fingerprint(root)
    db_url = f"sqlite:///{root / 'class.db'}"
    start = time.time()
    with server:
        rows, result = _grade(root, db_url, bad, incoming / "submitted", incoming / "export.zip")
    return {"root": root, "rows": rows, "stdout": result.stdout, "stderr": result.stderr,
            "db_url": db_url, "before": before, "start": start, "incoming": incoming,
            "connections": connections}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_submission_is_graded_correctly(course, name):
    _, score, status, words = CASES[name]
    row = course["rows"][name]
    assert float(row["score"]) == score, row
    assert row["status"].startswith(status), row
    for word in words:
        assert word in row["status"], row
    assert float(row["max_score"]) == MAX_SCORE, "a submission cannot change the maximum score"


def test_cells_start_in_the_grading_folder_and_mode(course):
    """moves_cwd_and_env changed both in one cell; the next cells ran as the grader set them up."""
    autograded = course["root"] / "autograded" / "moves_cwd_and_env" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    text = "".join(output.get("text", "") for cell in nbformat.read(autograded, 4).cells
                   if cell.cell_type == "code" for output in cell.outputs)
    assert "state: True autograde None" in text


def test_class_inputs_are_collected_and_graded(course):
    rows, root = course["rows"], course["root"]
    assert float(rows["bob"]["score"]) == FULL and rows["bob"]["status"] == "graded"
    assert float(rows["carol"]["score"]) == 0 and rows["carol"]["status"] == "graded"
    # alice's own extra files never reach the kernel: the wrong brier_score costs its points.
    assert float(rows["alice"]["score"]) == FULL - 2
    assert "ignored extra files: __init__.py, checks.py, numpy.py" in rows["alice"]["status"]
    assert (root / "submitted" / "alice" / ASSIGNMENT / "numpy.py").exists(), "collected as handed in"
    assert (root / "submitted" / "bob" / ASSIGNMENT / f"{NOTEBOOK}.ipynb").exists()
    assert not (root / "escape.ipynb").exists() and not (root / "submitted" / "escape").exists()
    assert "grading 01_likelihoods" in course["stderr"], "a progress bar"


def test_no_submission_reached_the_network(course):
    assert course["connections"] == [], "a grading kernel connected to a server on 127.0.0.1"


def test_gradebook_and_course_are_intact(course):
    root = course["root"]
    assert _fingerprint(root) == course["before"], "source/ and release/ are unchanged"
    assert not (root / "gradebook.db").exists(), "the gradebook is the one the URL names"
    expected = set(CASES) | {"alice", "bob", "carol"}
    with Gradebook(course["db_url"]) as gradebook:
        assert {student.id for student in gradebook.students} == expected
        assert gradebook.find_assignment(ASSIGNMENT).max_score == MAX_SCORE
        for student in expected:
            submission = gradebook.find_submission(ASSIGNMENT, student)
            assert submission.score == float(course["rows"][student]["score"]), student


def test_no_process_outlives_grading(course):
    """Kernels and whatever they forked run in a grading folder (``<class>/tmp/bdl-grade-*``)."""
    left = []
    for process in psutil.process_iter():
        try:
            if process.cwd().startswith(str(course["root"] / "tmp" / "bdl-grade-")):
                left.append(process)
        except psutil.Error:
            pass
    assert not left, f"{len(left)} kernel processes (or their forks) still run"


def test_a_different_resubmission_is_not_silently_overwritten(course, tmp_path):
    root, db_url = course["root"], course["db_url"]
    shutil.copyfile(SOURCE, tmp_path / "alice.ipynb")
    rows, _ = _grade(root, db_url, tmp_path / "alice.ipynb")
    assert rows["alice"]["status"].startswith("error: alice already has a different submission")
    with Gradebook(db_url) as gradebook:
        assert gradebook.find_submission(ASSIGNMENT, "alice").score == FULL - 2, "the old grade stands"
    rows, _ = _grade(root, db_url, tmp_path / "alice.ipynb", extra=["--replace"])
    assert float(rows["alice"]["score"]) == FULL and rows["alice"]["status"] == "graded"
    assert list((root / "submitted_replaced").glob(f"*/alice/{ASSIGNMENT}/numpy.py")), "the old one is kept"


def test_report_writes_csv_and_histogram(course):
    root = course["root"]
    result = subprocess.run([sys.executable, "-m", "autograder", "report", ASSIGNMENT, "--root", str(root),
                             "--db", course["db_url"]], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    with open(root / "reports" / f"{ASSIGNMENT}.csv") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    assert set(rows) >= set(CASES) | {"bob", "carol"}
    assert float(rows["bob"]["score"]) == FULL and float(rows["bob"]["max_score"]) == MAX_SCORE
    assert float(rows["bob"][f"{NOTEBOOK}:brier_score_tests"]) == 2
    assert float(rows["redefined_helpers"][f"{NOTEBOOK}:brier_score_tests"]) == 0
    assert rows["memory_bomb"]["status"].startswith("graded; graded again without cell laplace_nll "
                                                    "(exceeded the memory limit")
    png = (root / "reports" / f"{ASSIGNMENT}_scores.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 5000


def _own_lines(root, student):
    """The lines of a student's submission outside this assignment's test cells: theirs to see
    (a student who hands in another assignment's source notebook handed in its hidden tests)."""
    tests = {cells.grade_id(cell) for cell in nbformat.read(RELEASE, 4).cells if cells.is_test(cell)}
    try:
        nb = nbformat.read(root / "submitted" / student / ASSIGNMENT / f"{NOTEBOOK}.ipynb", 4)
    except Exception:  # not a notebook: nothing of its own to show
        return set()
    return {line.strip() for cell in nb.cells if cells.grade_id(cell) not in tests
            for line in cell.source.splitlines()}


def test_feedback_is_written_per_student(course):
    root = course["root"]
    result = subprocess.run([sys.executable, "-m", "autograder", "feedback", ASSIGNMENT, "--root", str(root),
                             "--db", course["db_url"]], capture_output=True, text=True, timeout=600)
    html = (root / "feedback" / "bob" / ASSIGNMENT / f"{NOTEBOOK}.html").read_text()
    assert "brier_score" in html and f"{FULL}" in html
    assert (root / "feedback" / "redefined_helpers" / ASSIGNMENT / f"{NOTEBOOK}.html").exists()
    # Submissions that never produced an autograded notebook are listed, not fatal.
    assert "invalid_json: no autograded notebook" in result.stdout
    assert result.returncode == 1
    # No student's feedback, passing or failing, shows a hidden test, a model answer or a graded
    # function's definition beyond the student's own and the release's stubs (tests/leaks.py);
    # the instructor's copy keeps the hidden tests.
    secrets = leaks.secrets([SOURCE], [RELEASE])
    given = {line.strip() for cell in nbformat.read(RELEASE, 4).cells for line in cell.source.split("\n")}
    pages = sorted((root / "feedback").glob(f"*/{ASSIGNMENT}/{NOTEBOOK}.html"))
    assert len(pages) >= 10
    for page in pages:
        text, own = visible_text(page.read_text()), _own_lines(root, page.parent.parent.name)
        leaked = leaks.leaked_lines(text, secrets, own | given)
        assert not leaked, f"{page.parent.parent.name}'s feedback shows what it must not: {leaked[:3]}"
    failing_page = root / "feedback" / "redefined_helpers" / ASSIGNMENT / f"{NOTEBOOK}.html"
    # Kept for people: a failing submission's feedback as its student sees it.
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(failing_page, ARTIFACTS / f"feedback_{ASSIGNMENT}_failing_submission.html")
    wrong = visible_text(failing_page.read_text())
    assert "# hidden tests: passed" in wrong
    assert re.search(r"# hidden tests: (failed|not run)", wrong), "its wrong brier_score is reported"
    autograded = (root / "autograded" / "redefined_helpers" / ASSIGNMENT / f"{NOTEBOOK}.ipynb").read_text()
    assert "BEGIN HIDDEN TESTS" in autograded
