"""``python -m autograder grade`` at class scale: every input form, parallel
workers, limits, bad submissions graded correctly with the gradebook intact,
no silent overwrite, the report and nbgrader's feedback.

One grading run of the tiny assignment (``tests/support/tiny_course.py``: no
TensorFlow) takes every bad submission of ``bad_submissions.CASES`` and the
class-scale inputs at once, into a gradebook given by URL; the tests then read
what it left. A second run grades one case of each class (``ON_01``) as a
submission of 01 without its experiments (``small_course``): TensorFlow in the
kernel, and a likely mistake that ``bdl.diagnoses`` names in the feedback.
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

from autograder.course import cells
from autograder.course.directory import REPO, assignments
from autograder.worker.guard import SKIPPED_MESSAGE
from bdl import requirements
from bdl.diagnoses import PREFIX, all_tables
from tests.support import scan, small_course, tiny_course
from tests.support.bad_submissions import CASES, NETWORK, ON_01, WRONG_BRIER, _edit, check_row, own_lines
from tests.support.scan import visible_text
from tests.support.tiny_course import ASSIGNMENT, FULL, MAX_SCORE, NOTEBOOK, blank, reference, write_course

# Grades a class of bad submissions for real: minutes.
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("bubblewrap")]

MISSING_CONSTANT = next(
    mistake.sentence for mistake in all_tables()["gaussian_nll"].mistakes if mistake.name == "missing_constant"
)
ARTIFACTS = REPO / "test-artifacts"  # git-ignored; what a person may want to look at after a run
# A file name of bytes that are not UTF-8, with a terminal's escapes (colour, bell) in it.
HOSTILE_NAME = b"\xff\x1b[31mred\x07.txt"
LIMITS = ["--workers", "2", "--cell-timeout", "30", "--memory", "3", "--submission-timeout", "300"]


def _grade(root, db_url, *inputs, extra=(), assignment=ASSIGNMENT):
    # The grading folders (bdl-grade-*) go under the class's own temporary folder, so
    # that what other tests grade at the same time is not taken for this class's.
    (root / "tmp").mkdir(exist_ok=True)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "grade",
            assignment,
            *map(str, inputs),
            "--root",
            str(root),
            "--db",
            db_url,
            "--csv",
            str(root / "grades.csv"),
            *LIMITS,
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=1500,
        env={**os.environ, "TMPDIR": str(root / "tmp")},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    with open(root / "grades.csv") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}, result


def _fingerprint(root):
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for folder in ("source", "release")
        for path in sorted((root / folder).rglob("*"))
        if path.is_file()
    }


@contextlib.contextmanager
def _answer_server(connections):
    """A server on 127.0.0.1 that hands the right brier_score to whoever connects; yields its port."""
    answer = cells.graded_cells(tiny_course.source_notebook())["brier_score"].source.encode()
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
    write_course(root)
    for assignment in assignments(REPO):  # the others are not graded here, but have guides
        if assignment != ASSIGNMENT:
            shutil.copytree(REPO / "source" / assignment, root / "source" / assignment)
    incoming = tmp_path_factory.mktemp("incoming")
    bad = incoming / "bad"  # a folder of <student>.ipynb files
    bad.mkdir()
    connections = []  # who reached the answer server: nobody may
    server = contextlib.ExitStack()
    NETWORK["port"] = server.enter_context(_answer_server(connections))
    _write_cases(bad, CASES, tiny_course)
    # An nbgrader submitted/ tree; alice's extra files would shadow the test helpers
    # if they reached the kernel's folder.
    alice = incoming / "submitted" / "alice" / ASSIGNMENT
    (alice / "bdl").mkdir(parents=True)
    nbformat.write(_edit("brier_score", replace=WRONG_BRIER)(tiny_course), alice / f"{NOTEBOOK}.ipynb")
    (alice / "bdl" / "__init__.py").write_text("")
    (alice / "bdl" / "checks.py").write_text(
        "def assert_close(*args, **kwargs):\n    pass\n\n\ndef assert_equal(*args, **kwargs):\n    pass\n"
    )
    (alice / "numpy.py").write_text("raise SystemExit('a shadowed numpy')\n")
    # dave's extra file has a name that is not UTF-8 and carries a terminal's escapes.
    dave = incoming / "submitted" / "dave" / ASSIGNMENT
    dave.mkdir(parents=True)
    nbformat.write(reference(), dave / f"{NOTEBOOK}.ipynb")
    (dave / os.fsdecode(HOSTILE_NAME)).write_text("notes\n")
    # A zip as a learning-management system exports it: one folder of notebooks.
    with zipfile.ZipFile(incoming / "export.zip", "w") as archive:
        archive.writestr("export/bob.ipynb", nbformat.writes(reference()))
        archive.writestr("export/carol.ipynb", nbformat.writes(blank()))
        archive.writestr("../escape.ipynb", "{}")
    before = _fingerprint(root)
    db_url = f"sqlite:///{root / 'class.db'}"
    start = time.time()
    with server:
        rows, result = _grade(root, db_url, bad, incoming / "submitted", incoming / "export.zip")
    return {
        "root": root,
        "rows": rows,
        "stdout": result.stdout,
        "stderr": result.stderr,
        "db_url": db_url,
        "before": before,
        "start": start,
        "incoming": incoming,
        "connections": connections,
    }


def _write_cases(folder, names, course):
    """Each case of ``names`` as ``course``'s submission ``<name>.ipynb`` in ``folder``."""
    for name in names:
        notebook = CASES[name][0](course)
        if isinstance(notebook, bytes):
            (folder / f"{name}.ipynb").write_bytes(notebook)
        elif isinstance(notebook, str):
            (folder / f"{name}.ipynb").write_text(notebook)
        else:
            nbformat.write(notebook, folder / f"{name}.ipynb")


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_submission_is_graded_correctly(course, name):
    row = course["rows"][name]
    check_row(row, *CASES[name][1:], NOTEBOOK)
    assert float(row["max_score"]) == MAX_SCORE, "a submission cannot change the maximum score"


@pytest.fixture(scope="module")
def class_of_01(tmp_path_factory):
    """One bad submission of each class, of 01 without its experiments, graded in a course of its own."""
    root = tmp_path_factory.mktemp("class of 01")
    small_course.write_course(root)
    bad = tmp_path_factory.mktemp("bad of 01")
    _write_cases(bad, sorted(ON_01), small_course)
    db_url = f"sqlite:///{root / 'class.db'}"
    rows, result = _grade(root, db_url, bad, assignment=small_course.ASSIGNMENT)
    return {"root": root, "rows": rows, "db_url": db_url}


@pytest.mark.parametrize("name", sorted(ON_01))
def test_bad_submission_of_01_is_graded_correctly(class_of_01, name):
    row = class_of_01["rows"][name]
    check_row(row, *CASES[name][1:], small_course.NOTEBOOK)
    assert float(row["max_score"]) == small_course.MAX_SCORE, "a submission cannot change the maximum score"


def test_a_likely_mistake_is_named_in_the_feedback_and_the_report(class_of_01):
    """01's gaussian_nll without its constant: the feedback names the mistake under its failing test,
    in the table's own words, and the report groups the failures by it."""
    root, assignment, notebook = class_of_01["root"], small_course.ASSIGNMENT, small_course.NOTEBOOK
    feedback = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "feedback",
            assignment,
            "--root",
            str(root),
            "--db",
            class_of_01["db_url"],
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    # the instructor's notebook was never graded: listed, and the exit status says so
    assert "instructors_notebook: no autograded notebook" in feedback.stdout, feedback.stderr[-2000:]
    assert feedback.returncode == 1, feedback.stdout[-2000:] + feedback.stderr[-2000:]
    page_path = root / "feedback" / "known_mistake" / assignment / f"{notebook}.html"
    page_text = visible_text(page_path.read_text())
    assert PREFIX + MISSING_CONSTANT in page_text
    # and the sentence of the text the failing check cites (bdl.requirements)
    said = " ".join(page_text.split())
    sentences = [requirements.plain(r.sentence) for r in requirements.all_tables()["gaussian_nll"] if not r.unchecked]
    assert any(" ".join((requirements.PREFIX + sentence).split()) in said for sentence in sentences), said[-3000:]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(page_path, ARTIFACTS / f"feedback_{assignment}_known_mistake.html")
    result = subprocess.run(
        [sys.executable, "-m", "autograder", "report", assignment, "--root", str(root), "--db", class_of_01["db_url"]],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    with open(root / "reports" / f"{assignment}_mistakes.csv") as handle:
        mistakes = list(csv.DictReader(handle))
    assert {
        "notebook": notebook,
        "cell": "gaussian_nll_tests",
        "mistake": MISSING_CONSTANT,
        "submissions": "1",
    } in mistakes
    assert f"1 submission (gaussian_nll): {MISSING_CONSTANT}" in result.stdout
    figure = (root / "reports" / f"{assignment}_mistakes.png").read_bytes()
    assert figure.startswith(b"\x89PNG") and len(figure) > 10000


def test_cells_start_in_the_grading_folder_and_mode(course):
    """moves_cwd_and_env changed both in one cell; the next cells ran as the grader set them up."""
    autograded = course["root"] / "autograded" / "moves_cwd_and_env" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    text = "".join(
        output.get("text", "")
        for cell in nbformat.read(autograded, 4).cells
        if cell.cell_type == "code"
        for output in cell.outputs
    )
    assert "state: True autograde None" in text


def test_a_kernel_cannot_truncate_or_rewrite_the_log(course):
    """reopens_its_log reopened its stdout and stderr through /proc and truncated them: pipes, not the log."""
    autograded = course["root"] / "autograded" / "reopens_its_log" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    text = "".join(
        output.get("text", "")
        for cell in nbformat.read(autograded, 4).cells
        if cell.cell_type == "code"
        for output in cell.outputs
    )
    assert "log 1: refused" in text and "log 2: refused" in text, text


@pytest.mark.parametrize("student, cells_cut", [("huge_display", 1), ("huge_images", 2)])
def test_the_autograded_copy_keeps_a_bounded_output(course, student, cells_cut):
    """A 48 MB result (huge_display), a 40 MB image shown with display() and a display updated to 40 MB
    (huge_images) are left out of the autograded copy on the course's disk, each cell saying so."""
    autograded = course["root"] / "autograded" / student / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    assert autograded.stat().st_size < 2**20
    notes = [
        "".join(output.get("text", "") for output in cell.outputs)
        for cell in nbformat.read(autograded, 4).cells
        if cell.cell_type == "code"
    ]
    assert sum("MiB of this cell's output left out" in note for note in notes) == cells_cut, notes


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
    assert f"grading {ASSIGNMENT}" in course["stderr"], "a progress bar"


def test_a_hostile_file_name_is_its_own_row_and_written_as_escapes(course):
    """dave's extra file's name is not UTF-8 and holds escapes: once it cost every row of the run (the CSV
    held only its header). The table, the CSV and the status file carry no control character at all."""
    assert float(course["rows"]["dave"]["score"]) == FULL
    assert "ignored extra files: \\udcff\\x1b[31mred\\x07.txt" in course["rows"]["dave"]["status"]
    statuses = (course["root"] / "grading_status" / f"{ASSIGNMENT}.json").read_text()
    for where, text in (
        ("the table", course["stdout"]),
        ("the CSV", (course["root"] / "grades.csv").read_text()),
        ("the statuses", statuses),
    ):
        controls = sorted({hex(ord(c)) for c in text.replace("\r\n", "\n") if not c.isprintable() and c != "\n"})
        assert not controls, f"{where} holds {controls}"


def test_no_submission_reached_the_network(course):
    assert course["connections"] == [], "a grading kernel connected to a server on 127.0.0.1"


def test_gradebook_and_course_are_intact(course):
    root = course["root"]
    assert _fingerprint(root) == course["before"], "source/ and release/ are unchanged"
    assert not (root / "gradebook.db").exists(), "the gradebook is the one the URL names"
    expected = set(CASES) | {"alice", "bob", "carol", "dave"}
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
    nbformat.write(reference(), tmp_path / "alice.ipynb")
    rows, _ = _grade(root, db_url, tmp_path / "alice.ipynb")
    assert rows["alice"]["status"].startswith("error: alice already has a different submission")
    with Gradebook(db_url) as gradebook:
        assert gradebook.find_submission(ASSIGNMENT, "alice").score == FULL - 2, "the old grade stands"
    rows, _ = _grade(root, db_url, tmp_path / "alice.ipynb", extra=["--replace"])
    assert float(rows["alice"]["score"]) == FULL and rows["alice"]["status"] == "graded"
    assert list((root / "submitted_replaced").glob(f"*/alice/{ASSIGNMENT}/numpy.py")), "the old one is kept"


def test_report_writes_csv_and_histogram(course):
    root = course["root"]
    result = subprocess.run(
        [sys.executable, "-m", "autograder", "report", ASSIGNMENT, "--root", str(root), "--db", course["db_url"]],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    with open(root / "reports" / f"{ASSIGNMENT}.csv") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    assert set(rows) >= set(CASES) | {"bob", "carol"}
    assert float(rows["bob"]["score"]) == FULL and float(rows["bob"]["max_score"]) == MAX_SCORE
    assert float(rows["bob"][f"{NOTEBOOK}:brier_score_tests"]) == 2
    assert float(rows["redefined_helpers"][f"{NOTEBOOK}:brier_score_tests"]) == 0
    assert rows["memory_bomb"]["status"].startswith(
        "graded; graded again without cell laplace_nll (exceeded the memory limit"
    )
    # The instructor's first lines name the submissions to read before trusting their scores.
    assert f"note: read patched_helpers/{NOTEBOOK} before trusting its score: review: " in result.stdout
    assert f"note: read bob/{NOTEBOOK}" not in result.stdout
    png = (root / "reports" / f"{ASSIGNMENT}_scores.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 5000


@pytest.fixture(scope="module")
def feedback(course):
    """``autograder feedback`` run on the graded class."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "feedback",
            ASSIGNMENT,
            "--root",
            str(course["root"]),
            "--db",
            course["db_url"],
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_feedback_is_written_per_student(course, feedback):
    root, result = course["root"], feedback
    html = (root / "feedback" / "bob" / ASSIGNMENT / f"{NOTEBOOK}.html").read_text()
    assert "brier_score" in html and f"{FULL}" in html
    assert (root / "feedback" / "redefined_helpers" / ASSIGNMENT / f"{NOTEBOOK}.html").exists()
    # Submissions that never produced an autograded notebook are listed, not fatal.
    assert "invalid_json: no autograded notebook" in result.stdout
    assert result.returncode == 1
    # No student's feedback, passing or failing, shows a hidden test, a model answer or a graded
    # function's definition beyond the student's own and the release's stubs (tests/support/scan.py);
    # the instructor's copy keeps the hidden tests.
    secrets = scan.secrets([tiny_course.source_path()], [tiny_course.release_path()])
    given = {line.strip() for cell in blank().cells for line in cell.source.split("\n")}
    pages = sorted((root / "feedback").glob(f"*/{ASSIGNMENT}/{NOTEBOOK}.html"))
    assert len(pages) >= 10
    for page in pages:
        text, own = visible_text(page.read_text()), own_lines(root, page.parent.parent.name, tiny_course)
        leaked = scan.leaked_lines(text, secrets, own | given)
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


def test_a_function_that_kills_the_kernel_costs_its_own_points_only(course, feedback):
    """fgsm kills the kernel whenever it is called, by its tests and by six later cells: the
    submission is graded once more, not once per cell, and loses fgsm's points and no others."""
    status = course["rows"]["killed_when_called"]["status"]
    assert status.count("graded again without cell") == 1, status
    reference_cells = cells.graded_cells(reference())
    with Gradebook(course["db_url"]) as gradebook:
        scores = {
            grade_id: gradebook.find_grade(grade_id, NOTEBOOK, ASSIGNMENT, "killed_when_called").score
            for grade_id, cell in reference_cells.items()
            if cells.is_test(cell)
        }
    assert scores.pop("fgsm_tests") == 0
    assert scores == {grade_id: cells.nbgrader_metadata(reference_cells[grade_id])["points"] for grade_id in scores}
    # Its student reads why: the test cell was left out because it stopped the grading kernel.
    page = visible_text(
        (course["root"] / "feedback" / "killed_when_called" / ASSIGNMENT / f"{NOTEBOOK}.html").read_text()
    )
    assert f"RuntimeError: {SKIPPED_MESSAGE}" in page


# ------------------------------------------- after grading: hand grades, item analysis, LMS files, guide

# Hand grades as formgrader writes them into the gradebook (points per manual cell).
HAND_GRADES = {"bob": {"discussion_scores": 1.5}, "alice": {"discussion_scores": 0.5}}
CANVAS_ASSIGNMENT_ID = "4242"


@pytest.fixture(scope="module")
def reported(course):
    """The class's report after a teaching assistant graded bob's and alice's answers by hand."""
    root = course["root"]
    with Gradebook(course["db_url"]) as gradebook:
        for student, scores in HAND_GRADES.items():
            for cell, score in scores.items():
                grade = gradebook.find_grade(cell, NOTEBOOK, ASSIGNMENT, student)
                grade.manual_score, grade.needs_manual_grade = score, False
        gradebook.update_or_create_student("bob", first_name="Bob", last_name="Baker", email="bob@example.org")
        gradebook.db.commit()
    mapping = root / "students.csv"
    mapping.write_text(
        "nbgrader_id,canvas_id,sis_user_id,section,email,id_number\n"
        "alice,5001,A-17,Tuesday,alice@example.org,17\n"
        "bob,5002,B-18,Tuesday,,18\n"
    )
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "report",
            ASSIGNMENT,
            "--root",
            str(root),
            "--db",
            course["db_url"],
            "--students",
            str(mapping),
            "--canvas-assignment-id",
            CANVAS_ASSIGNMENT_ID,
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    reports = root / "reports"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)  # for people: what the instructor gets
    for name in (
        f"{ASSIGNMENT}_items.csv",
        f"{ASSIGNMENT}_points_lost.png",
        f"{ASSIGNMENT}_canvas.csv",
        f"{ASSIGNMENT}_moodle.csv",
        f"{ASSIGNMENT}_mistakes.csv",
        f"{ASSIGNMENT}_mistakes.png",
    ):
        shutil.copyfile(reports / name, ARTIFACTS / name)
    with open(reports / f"{ASSIGNMENT}.csv") as handle:
        scores = {row["student"]: row for row in csv.DictReader(handle)}
    with open(reports / f"{ASSIGNMENT}_items.csv") as handle:
        items = {row["cell"]: row for row in csv.DictReader(handle)}
    return {"reports": reports, "stdout": result.stdout, "scores": scores, "items": items}


def _graded(grade):
    """A grade a person or the autograder has given (a manual answer not yet graded has none)."""
    return not (grade.needs_manual_grade and grade.manual_score is None and grade.cell.cell_type == "markdown")


def test_item_analysis_of_the_graded_class(course, reported):
    from autograder.course.statuses import load_statuses
    from autograder.outputs.items import item_rows

    scores, items = reported["scores"], reported["items"]
    given, maximum = {}, {}  # {cell: the scores given so far}, {cell: its points}
    with Gradebook(course["db_url"]) as gradebook:
        for submission in gradebook.assignment_submissions(ASSIGNMENT):
            for grade in (grade for notebook in submission.notebooks for grade in notebook.grades):
                maximum[grade.name] = grade.max_score
                given.setdefault(grade.name, []).extend([float(grade.score)] if _graded(grade) else [])
    expected = {
        cell: (len(scores), sum(score < maximum[cell] for score in scores), sum(scores) / len(scores))
        for cell, scores in given.items()
    }
    assert set(items) == set(expected)
    for cell, row in items.items():
        graded, lost, mean = expected[cell]
        assert int(row["lost"]) == lost and int(row["submissions"]) - int(row["awaiting"]) == graded, row
        assert float(row["mean_score"]) == pytest.approx(mean, abs=1e-4), row
        if row["kind"] == "automatic":  # the per-cell columns of the scores CSV agree
            assert lost == sum(float(s[f"{NOTEBOOK}:{cell}"]) < float(row["max_score"]) for s in scores.values())
            assert sum(int(row[f"count_{rank}"] or 0) for rank in (1, 2, 3)) <= lost
    # The known failures, with the assertion's message: most of the class handed in WRONG_BRIER.
    brier = items["brier_score_tests"]
    assert brier["message_1"].startswith("the Brier score of two examples does not match")
    assert int(brier["count_1"]) >= 5, brier
    # Every lost test cell has its reason: all the groups (the CSV keeps three) add up to the losses.
    with Gradebook(course["db_url"]) as gradebook:
        rows = {
            row["cell"]: row
            for row in item_rows(course["root"], ASSIGNMENT, gradebook, load_statuses(course["root"], ASSIGNMENT))
        }
    for row in rows.values():
        assert sum(count for _, count in row["messages"]) == (row["lost"] if row["kind"] == "automatic" else 0)
    messages = dict(rows["gaussian_nll_tests"]["messages"])
    # edited_test_cells' gaussian_nll returns 0.0, known_mistake's misses the constant: one group
    assert (
        sum(
            count
            for message, count in messages.items()
            if message.startswith(
                "the Gaussian NLL of three observations does not match the expected values (largest difference "
            )
        )
        == 2
    ), messages
    assert messages["NotImplementedError: not answered (the release's stub raises it)"] == 1  # carol's blank
    assert messages["cell missing from the submission (awaiting a grade by hand)"] >= 1  # empty_notebook
    assert messages["not graded (error: not a notebook (the file is not JSON))"] == 1  # invalid_json
    # The tiny assignment's tests name no likely mistake (01's do: test_a_likely_mistake_is_named_...).
    assert not rows["gaussian_nll_tests"]["mistakes"]
    # The hand grades count: bob's and alice's are among the graded.
    for cell in HAND_GRADES["bob"]:
        assert items[cell]["kind"] == "manual" and not items[cell]["message_1"]
        assert float(reported["scores"]["bob"][f"{NOTEBOOK}:{cell}"]) == HAND_GRADES["bob"][cell]
    print(reported["stdout"])  # the table as the instructor sees it (pytest -s)
    assert "brier_score_tests" in reported["stdout"] and "Canvas" in reported["stdout"]


def test_points_lost_figure_of_the_graded_class(reported):
    png = (reported["reports"] / f"{ASSIGNMENT}_points_lost.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10000


def test_canvas_and_moodle_files_carry_the_totals_with_hand_grades(course, reported):
    from tests.support.lms_formats import parse_canvas, parse_moodle

    with Gradebook(course["db_url"]) as gradebook:
        totals = {s.student_id: float(s.score) for s in gradebook.assignment_submissions(ASSIGNMENT)}
    for student, grades in HAND_GRADES.items():
        assert totals[student] == FULL + sum(grades.values()), "the gradebook total includes the hand grades"
    assignments, possible, students = parse_canvas(reported["reports"] / f"{ASSIGNMENT}_canvas.csv")
    assert assignments == [(ASSIGNMENT, CANVAS_ASSIGNMENT_ID)] and possible == {ASSIGNMENT: MAX_SCORE}
    by_login = {row["SIS Login ID"]: row for row in students}
    assert set(by_login) == set(totals), "one row per student, found by the nbgrader id as SIS Login ID"
    assert (by_login["alice"]["ID"], by_login["alice"]["SIS User ID"], by_login["alice"]["Section"]) == (
        "5001",
        "A-17",
        "Tuesday",
    )
    assert by_login["bob"]["Student"] == "Baker, Bob", "the name from nbgrader's student record"
    for student, total in totals.items():
        assert by_login[student]["grades"][ASSIGNMENT] == pytest.approx(total), student
    moodle = parse_moodle(reported["reports"] / f"{ASSIGNMENT}_moodle.csv", "ID number")
    assert moodle["17"][ASSIGNMENT] == pytest.approx(FULL + sum(HAND_GRADES["alice"].values()))
    assert moodle["18"][ASSIGNMENT] == pytest.approx(FULL + sum(HAND_GRADES["bob"].values()))
    assert moodle["carol"][ASSIGNMENT] == 0, "unmapped students keep their nbgrader id as ID number"
    assert "students are not in the mapping file" in reported["stdout"]


def test_guide_for_every_assignment_and_no_rubric_in_the_feedback(course, feedback, reported):
    root = course["root"]
    result = subprocess.run(
        [sys.executable, "-m", "autograder", "guide", "--root", str(root)], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-2000:]
    pages = sorted(path.name for path in (root / "guides").glob("*.html"))
    assert pages == sorted(f"{path.name}.html" for path in (root / "source").iterdir() if path.is_dir())
    guide = (root / "guides" / f"{ASSIGNMENT}.html").read_text()
    assert "discussion_scores" in guide and "Common wrong answers" in guide
    shutil.copyfile(root / "guides" / f"{ASSIGNMENT}.html", ARTIFACTS / f"guide_{ASSIGNMENT}.html")
    # What a teaching assistant sees never reaches a student: no rubric line or marker in any feedback page.
    secrets = scan.secrets([tiny_course.source_path()], [tiny_course.release_path()])
    rubric = scan.Secrets(frozenset(), frozenset(), frozenset(), rubric=secrets.rubric)
    assert len(secrets.rubric) >= 4  # the tiny rubric's lines
    for page in sorted((root / "feedback").glob(f"*/{ASSIGNMENT}/{NOTEBOOK}.html")):
        # alice handed in the source notebook itself: what she handed in is hers to see
        own = own_lines(root, page.parent.parent.name, tiny_course)
        found = [
            item
            for item in scan.leaked_lines(visible_text(page.read_text()), rubric, own)
            if item[0] == "rubric" or "RUBRIC" in item[1]
        ]
        assert not found, f"{page.parent.parent.name}'s feedback shows a rubric: {found[:2]}"
