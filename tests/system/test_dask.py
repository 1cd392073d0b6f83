"""`grade --scheduler`: a class graded on a real Dask cluster (a
``distributed.LocalCluster`` of two worker processes) into a real PostgreSQL
gradebook, with Dask workers killed while they grade.

The scheduler runs a task again when its worker dies, up to
``allowed-failures`` (3) times. In the first class, bob's Dask worker is
killed while it grades him (and a task that waited on that worker is run
again too): everyone ends graded. Then dan alone: his worker is killed each
time he is graded, four times, and he scores zero with the reason, although
nbgrader had begun to write his grades. eve's hand-in is hostile: the cluster
grades it as `grade` without a scheduler does.
"""

import csv
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import psutil
import pytest
from nbgrader.api import Gradebook
from sqlalchemy import create_engine, text

from autograder.course.gradebook import gradebook_url
from autograder.grading import host as grading
from autograder.grading import scratch as scratch_folders
from tests.support import tiny_course
from tests.support.bad_submissions import WRONG_BRIER, _edit
from tests.support.postgres import postgres_url  # noqa: F401  (a fixture)
from tests.support.red_team import TRANSFORMER_POST
from tests.support.system_packages import require
from tests.support.tiny_course import ASSIGNMENT, FULL, NOTEBOOK, reference, source_path, write_course

LIMITS = ["--cell-timeout", "60", "--submission-timeout", "300"]


def _grading_process(student, killed):
    """The grading worker of ``student`` that a Dask worker of this test's cluster runs (forked by the
    Dask worker's launcher, ``autograder.worker.launcher``), or None."""
    launcher = "autograder.worker.launcher"
    for process in psutil.Process().children(recursive=True):
        try:
            if (
                process.pid not in killed
                and launcher in process.cmdline()
                and launcher in process.parent().cmdline()
                and (Path(process.cwd()) / "submitted" / student).is_dir()
                and _dask_worker(process).ppid() == os.getpid()
            ):  # Dask worker <- its nanny, in this process
                return process
        except psutil.Error:
            pass
    return None


def _dask_worker(grading):
    """The Dask worker that ``grading`` (a worker its launcher forked) grades for."""
    return grading.parent().parent()


def _started(engine, student):
    """Whether nbgrader has begun to write ``student``'s grading into the gradebook."""
    with engine.connect() as connection:
        return (
            connection.execute(
                text(
                    "select count(*) from submitted_assignment join assignment "
                    "on submitted_assignment.assignment_id = assignment.id "
                    "where assignment.name = :assignment and submitted_assignment.student_id = :student"
                ),
                {"assignment": ASSIGNMENT, "student": student},
            ).scalar()
            > 0
        )


def _kill_while_grading(grade, db_url, plan):
    """Kill the Dask worker grading each student of ``plan`` ({student: times}) as often as it says,
    each time once nbgrader has begun to write that student's grading; return the grading workers
    they left."""
    plan, left = dict(plan), []
    engine = create_engine(db_url)
    deadline = time.monotonic() + 600
    try:
        while any(plan.values()) and grade.poll() is None and time.monotonic() < deadline:
            for student in [student for student, times in plan.items() if times]:
                grading = _grading_process(student, {process.pid for process in left})
                if grading and _started(engine, student):
                    _dask_worker(grading).kill()
                    plan[student] -= 1
                    left.append(grading)
            time.sleep(0.2)  # a tiny hand-in is graded in seconds
    finally:
        engine.dispose()
    assert not any(plan.values()), f"grade ended before every kill: {plan}"
    return left


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """The Dask workers' temp folder, where they grade: the killed ones' folders stay there."""
    return tmp_path_factory.mktemp("workers' temp")


@pytest.fixture(scope="module")
def cluster(scratch):
    require(shutil.which("bwrap"), "bubblewrap")
    import dask
    from distributed import LocalCluster

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TMPDIR", str(scratch))  # for the worker processes the cluster starts
        with (
            dask.config.set({"distributed.scheduler.allowed-failures": 3}),
            LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=":0"
            ) as cluster,
        ):
            yield cluster


def _grade(cluster, server_url, root, incoming, kills):
    """Run `grade --scheduler` on ``incoming`` while killing Dask workers as ``kills`` says; return
    ({student: CSV row}, the grading workers the kills left)."""
    log = root / f"grade-{incoming.name}.log"
    with open(log, "w") as output:
        grade = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "autograder",
                "grade",
                ASSIGNMENT,
                str(incoming),
                "--root",
                str(root),
                "--db",
                server_url,
                "--scheduler",
                cluster.scheduler_address,
                "--csv",
                str(root / "grades.csv"),
                *LIMITS,
            ],
            stdout=output,
            stderr=subprocess.STDOUT,
        )
        try:
            left = _kill_while_grading(grade, gradebook_url(server_url, root), kills)
            grade.wait(timeout=900)
        finally:
            grade.kill()
    assert grade.returncode == 0, log.read_text()[-4000:]
    with open(root / "grades.csv") as handle:
        return {row["student"]: row for row in csv.DictReader(handle)}, left


@pytest.fixture(scope="module")
def graded(cluster, postgres_url, tmp_path_factory):  # noqa: F811 (the fixture)
    root = tmp_path_factory.mktemp("course")
    write_course(root)  # the tiny assignment
    incoming = tmp_path_factory.mktemp("class")
    nbformat.write(reference(), incoming / "ada.ipynb")
    nbformat.write(_edit("brier_score", replace=WRONG_BRIER)(tiny_course), incoming / "bob.ipynb")
    # Kills its kernel in the first graded cell: graded again without that cell.
    nbformat.write(_edit("brier_score", prepend="import os\nos._exit(0)\n")(tiny_course), incoming / "cat.ipynb")
    # Every cell after its first answer becomes `pass` in the kernel.
    nbformat.write(_edit("brier_score", prepend=TRANSFORMER_POST + "\n")(tiny_course), incoming / "eve.ipynb")
    rows, left = _grade(cluster, postgres_url, root, incoming, {"bob": 1})
    late = tmp_path_factory.mktemp("late")
    nbformat.write(reference(), late / "dan.ipynb")
    late_rows, late_left = _grade(cluster, postgres_url, root, late, {"dan": 4})
    return {
        "root": root,
        "db_url": gradebook_url(postgres_url, root),
        "rows": {**rows, **late_rows},
        "left": left + late_left,
        "incoming": incoming,
    }


@pytest.mark.slow  # grades four submissions on a cluster, killing five workers: about two minutes
def test_scores_and_statuses_come_back(graded):
    rows = graded["rows"]
    expected = {
        "ada": (FULL, "graded"),
        "bob": (FULL - 2, "graded"),
        "cat": (FULL - 2, "graded; graded again without cell brier_score (the kernel died"),
        "dan": (0, "error: the Dask worker grading it died, each of the 4 times it was tried"),
    }
    assert {
        student: (float(row["score"]), row["status"][: len(expected[student][1])])
        for student, row in rows.items()
        if student != "eve"
    } == expected, rows
    statuses = json.loads((graded["root"] / "grading_status" / f"{ASSIGNMENT}.json").read_text())
    assert statuses == {f"{student}/{NOTEBOOK}": row["status"] for student, row in rows.items()}


@pytest.mark.slow
def test_the_gradebook_holds_every_score_and_nothing_half_graded(graded):
    rows = graded["rows"]
    with Gradebook(graded["db_url"]) as gradebook:
        for student in ("ada", "bob", "cat"):
            assert gradebook.find_submission(ASSIGNMENT, student).score == float(rows[student]["score"])
        # nbgrader had begun to write dan's grades when his workers died: they are zeroed.
        dan = gradebook.find_submission_notebook(NOTEBOOK, ASSIGNMENT, "dan")
        assert dan.grades and all(grade.auto_score == 0 and not grade.needs_manual_grade for grade in dan.grades)
    assert float(rows["dan"]["manual"]) == 0


@pytest.mark.slow
def test_autograded_notebooks_come_back_to_the_course(graded):
    autograded = graded["root"] / "autograded"
    assert sorted(path.name for path in autograded.iterdir()) == ["ada", "bob", "cat", "eve"]
    for student in ("ada", "bob", "cat"):
        notebook = nbformat.read(autograded / student / ASSIGNMENT / f"{NOTEBOOK}.ipynb", 4)
        assert any(cell.get("outputs") for cell in notebook.cells), f"{student}'s notebook was not run"


@pytest.mark.slow
def test_a_hostile_hand_in_gets_on_the_cluster_what_grade_gives_it_here(graded, tmp_path):
    """The Dask door is the one gate: eve's hand-in scores and reads the same graded on the cluster as
    graded by `grade` without a scheduler (the sandbox, the examiner, the review)."""
    root, incoming = tmp_path / "course", tmp_path / "class"
    write_course(root)
    incoming.mkdir()
    shutil.copyfile(graded["incoming"] / "eve.ipynb", incoming / "eve.ipynb")
    (here,) = grading.grade(ASSIGNMENT, [incoming], root=root)
    there = graded["rows"]["eve"]
    assert (float(there["score"]), there["status"]) == (here["score"], here["status"])
    assert here["score"] < FULL and "get_ipython" in here["status"] and "no sandbox" not in here["status"], here


@pytest.mark.slow
def test_a_killed_dask_worker_leaves_no_grading_running(graded):
    assert len(graded["left"]) == 5
    gone, alive = psutil.wait_procs(graded["left"], timeout=10)
    assert not alive, "a grading worker went on after its Dask worker died"


def test_a_killed_dask_workers_folders_go_with_the_next_grader(graded, scratch):
    """A killed Dask worker leaves its grading folders (the hand-in and the worker's log); the next
    grader on the machine removes them once their lock is free (``grading.scratch``)."""
    left = [path for path in scratch.iterdir() if path.name.startswith(("bdl-grade-", "bdl-worker-io-"))]
    # One of each per kill (five kills). A grader that starts a minute after a kill already removes its
    # folders (on a slow machine, dan's first ones); the last kill's two stay, since no grader follows it.
    assert 2 <= len(left) <= 2 * 5, sorted(path.name for path in left)
    for path in left:
        then = time.time() - scratch_folders.SETTLING_SECONDS - 1
        os.utime(path, (then, then))
    removed = sum(scratch_folders.remove_abandoned(prefix, str(scratch)) for prefix in ("bdl-grade-", "bdl-worker-io-"))
    assert removed == len(left) and not any(path.exists() for path in left)


def test_a_sqlite_gradebook_is_refused_with_a_scheduler(tmp_path):
    write_course(tmp_path)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "autograder",
            "grade",
            ASSIGNMENT,
            str(source_path()),
            "--root",
            str(tmp_path),
            "--scheduler",
            "tcp://127.0.0.1:8786",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith(
        "autograder: error: --scheduler grades on other machines, which cannot share a SQLite gradebook"
    ), line
    assert not (tmp_path / "submitted").exists() and not (tmp_path / "gradebook.db").exists()


def test_an_unreachable_scheduler_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(grading, "SCHEDULER_CONNECT_SECONDS", 2)
    write_course(tmp_path)
    with pytest.raises(ValueError, match=r"^cannot reach the Dask scheduler tcp://127\.0\.0\.1:9: [^\n]+$"):
        grading.grade(ASSIGNMENT, [source_path()], root=tmp_path, scheduler="tcp://127.0.0.1:9")
    assert not (tmp_path / "submitted").exists()
