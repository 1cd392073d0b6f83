"""`autograder selfgrade` (`make course`'s last step) tells the instructor how it goes: a line per
notebook as each submission is graded, with its points and time, flushed. Grading is faked here:
these tests take no kernel."""

import io
import re
import threading
import time

import nbformat
import pytest

from autograder import selfgrade
from autograder.grading.task import NO_SANDBOX

MAX_SCORE, MANUAL = 5.0, 2.0
# how long the fake grading of each submission takes: the blank of 01 ends before the reference of 02
SECONDS = {
    ("01_first", "reference"): 0.3,
    ("02_second", "reference"): 0.6,
    ("01_first", "blank"): 0.1,
    ("02_second", "blank"): 0.1,
}


class FlushCounting(io.StringIO):
    """A stream that counts the lines that were flushed as soon as they were written."""

    def __init__(self):
        super().__init__()
        self.flushed = 0

    def flush(self):
        self.flushed = self.getvalue().count("\n")


@pytest.fixture
def course(tmp_path, monkeypatch):
    """A course of two assignments, one notebook each, whose grading is faked; yields what ran at once."""
    for assignment in SECONDS:
        for folder in ("source", "release"):
            path = tmp_path / folder / assignment[0] / f"{assignment[0][3:]}.ipynb"
            path.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(nbformat.v4.new_notebook(), path)
    running, most = set(), []
    lock = threading.Lock()

    def generate_release(root, only=None):
        assert threading.current_thread() is threading.main_thread(), "nbgrader's generate changes the cwd"
        (root / "gradebook.db").write_text("")
        for path in (root / "source").glob("*/*.ipynb"):
            target = root / "release" / path.parent.name / path.name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())

    def grade(assignment, paths, root, generate, sandbox, workers):
        [submitted] = paths
        [student] = [path.name for path in submitted.iterdir()]
        assert not generate and (root / "gradebook.db").exists() and (root / "release" / assignment).is_dir()
        assert (submitted / student / assignment).is_dir()
        with lock:
            running.add((assignment, student))
            most.append(len(running))
        time.sleep(SECONDS[assignment, student])
        with lock:
            running.discard((assignment, student))
        score = MAX_SCORE - MANUAL if student == "reference" else 0.0
        return [
            {
                "assignment": assignment,
                "notebook": assignment[3:],
                "student": student,
                "score": score,
                "max_score": MAX_SCORE,
                "manual": MANUAL if student == "reference" else 0.0,
                "status": "graded" if sandbox else f"graded; {NO_SANDBOX}",  # as grade says it
            }
        ]

    monkeypatch.setattr(selfgrade, "generate_release", generate_release)
    monkeypatch.setattr(selfgrade, "grade", grade)
    monkeypatch.setattr(selfgrade.bwrap, "bwrap", lambda: None)
    yield tmp_path, most


def test_a_line_per_notebook_as_each_is_graded(course):
    root, most = course
    out = FlushCounting()
    rows = selfgrade.selfgrade(root, progress=out, lanes=2)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("selfgrade: grading 2 reference solutions (full marks expected) and 2 blank releases")
    assert lines[-1].startswith("selfgrade: 4 submissions graded in 0 min")
    progress = lines[1:-1]
    # in the order they ended, numbered, each with its points, its time and its verdict
    order = [(line.split()[1].split("/")[0], line.split()[2]) for line in progress]
    # two lanes: both references start; 01's ends first, then the blanks in its lane, then 02's reference
    assert order == [
        ("01_first", "reference"),
        ("01_first", "blank"),
        ("02_second", "blank"),
        ("02_second", "reference"),
    ]
    assert [line.split()[0] for line in progress] == ["[1/4]", "[2/4]", "[3/4]", "[4/4]"]
    assert "01_first/first" in progress[0] and "3 of 5 points, 2 for an instructor" in progress[0]
    assert "0 of 5 points" in progress[1] and progress[1].rstrip().endswith("ok")
    for line, job in zip(progress, order):
        seconds = float(line.rsplit(" s ", 1)[0].split()[-1])
        assert SECONDS[job] <= seconds < SECONDS[job] + 1
    assert out.flushed == len(lines), "every line reaches the terminal when it is written"
    assert max(most) == 2, "two lanes grade at once"
    # the table comes back in the course's order, as before
    assert [(row["assignment"], row["student"]) for row in rows] == [
        ("01_first", "reference"),
        ("01_first", "blank"),
        ("02_second", "reference"),
        ("02_second", "blank"),
    ]
    assert not selfgrade.selfgrade_problems(rows)


def test_one_lane_grades_one_at_a_time_and_none_is_silent(course, capsys):
    root, most = course
    rows = selfgrade.selfgrade(root, progress=None, lanes=1)
    assert len(rows) == 4 and max(most) == 1
    # bubblewrap is missing here (the fixture): each row says so, not a flag no one passed
    assert all(row["status"] == f"graded; {selfgrade.NO_BUBBLEWRAP}" for row in rows)
    assert capsys.readouterr() == ("", "")


def test_progress_goes_to_standard_error_by_default(course, capsys):
    """`python -m autograder selfgrade` prints its table on standard output; the progress stays apart."""
    root, _ = course
    selfgrade.selfgrade(root, lanes=2)
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 6


def test_a_wrong_score_says_so_on_its_line():
    row = {
        "assignment": "01_first",
        "notebook": "first",
        "student": "reference",
        "score": 2.0,
        "max_score": 5.0,
        "manual": 2.0,
        "status": "graded",
    }
    line = selfgrade.progress_line(row, 12.34, 3, 10)
    assert line.startswith("[ 3/10] 01_first/first") and "2 of 5 points, 2 for an instructor" in line
    assert "12.3 s" in line and line.endswith("WRONG: the reference should score every automatic point (graded)")
    blank = {**row, "student": "blank", "score": 0.0, "manual": 0.0, "status": "error: the kernel died"}
    assert selfgrade.progress_line(blank, 1, 4, 10).endswith(
        "WRONG: the blank should score zero (error: the kernel died)"
    )


def test_make_course_shows_pips_progress():
    """The install step lets pip speak (a line per package, and pip 25.3's bar while it installs);
    a quiet pip is minutes of silence."""
    from autograder.course.directory import REPO

    recipe = (REPO / "Makefile").read_text().split("$(VENV)/.installed:", 1)[1].split("\n\n")[0]
    [install] = [line for line in recipe.splitlines() if "pip install" in line and "-e " in line]
    assert "--quiet" not in install and not re.search(r"\s-q\b", install), install
    assert re.search(r'pip install .*"\$\(PIP\)"', recipe) and re.search(
        r"^PIP \?= pip==25\.\d+$", (REPO / "Makefile").read_text(), re.M
    )
