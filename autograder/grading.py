"""Grade a class: collect submissions, autograde each in its own sandboxed worker, record the scores.

Every submission gets one row per notebook and a status: ``graded`` (with
notes for the instructor) or ``error: <why>`` (scored zero). A cell that kills
the kernel, or is killed at a limit, costs only itself: the submission is
graded again with that cell left out, so only it and the cells that need its
names score zero. Rows go to
``grading_status/<assignment>.json`` for ``report``, and to a CSV if asked.

Each submission becomes a ``GradingTask``: data, not paths into the course
directory. ``_grade_one`` grades a task in a scratch folder and returns a
``Graded`` (its status and the autograded files); the local thread pool and a
Dask cluster (``scheduler``) run that same function on the same task. Only the
instructor's side, ``grade``, reads and writes the course directory.
"""
import contextlib
import csv
import os
import shutil
import socket
import sys
import tempfile
import traceback
import uuid
import warnings
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook, MissingEntry
from sqlalchemy.exc import SAWarning
from tqdm import tqdm

from autograder import cells, kernel_sandbox
from autograder.collect import NBGRADER_FILES, collect
from autograder.course import REPO, check_assignment, check_result, make_api, notebook_names
from autograder.gradebook import gradebook_url
from autograder.guard import cell_key
from autograder.repair import repair_notebook
from autograder.review import review_notebook
from autograder.sandbox import Limits, run_isolated
from autograder.statuses import save_statuses
from autograder.worker import GradingJob

# manual: points in answer cells (derivations, discussion) that await an instructor.
COLUMNS = ("assignment", "notebook", "student", "score", "max_score", "manual", "status")

# A test cell's seal was missing or broken (autograder.seal): the submission scores zero.
TAMPERED = "error: not scored: it tampered with the grading kernel"
NO_SANDBOX = "WARNING: graded without the sandbox (--no-sandbox): its code could read and write the course"
# How many crashing cells one submission may have left out before it is scored zero:
# each costs a grading run.
MAX_CRASHED_CELLS = 3
# On a Dask cluster: how often a task that raised is run again, and how long to wait for the
# scheduler. (A task whose worker died is run again by the scheduler itself, up to its
# distributed.scheduler.allowed-failures times, 3 by default.)
TASK_RETRIES = 1
SCHEDULER_CONNECT_SECONDS = 20

# nbgrader's gradebook trips this SQLAlchemy warning on every autograde; it is harmless.
warnings.filterwarnings("ignore", category=SAWarning)


def scores(db_url, root, assignment, student, status):
    """Return one row per notebook of a student's graded submission."""
    rows = []
    with Gradebook(db_url) as gradebook:
        for name in notebook_names(root, assignment):
            try:
                notebook = gradebook.find_submission_notebook(name, assignment, student)
                score, max_score = notebook.score, notebook.max_score
                manual = sum(grade.max_score for grade in notebook.grades if grade.needs_manual_grade)
            except MissingEntry:
                score, manual = 0.0, 0.0
                max_score = gradebook.find_notebook(name, assignment).max_score
            rows.append({"assignment": assignment, "notebook": name, "student": student,
                         "score": float(score), "max_score": float(max_score),
                         "manual": float(manual), "status": status})
    return rows


def _zero(db_url, assignment, student):
    """Leave no half-graded submission behind: every automatic grade becomes zero."""
    with Gradebook(db_url) as gradebook:
        try:
            submission = gradebook.find_submission(assignment, student)
        except MissingEntry:
            return
        for notebook in submission.notebooks:
            for grade in notebook.grades:
                if grade.auto_score is None or grade.auto_score > 0:
                    grade.auto_score = 0
                grade.needs_manual_grade = False
        gradebook.db.commit()


def _cell_name(code, notebooks):
    """A crashed cell, for the instructor: its grade_id if it is graded, else its first line."""
    key = cell_key(code)
    for notebook in notebooks:
        for cell in notebook.cells:
            grade_id = cells.grade_id(cell)
            if grade_id and cell_key(cell.source) == key:
                return grade_id
    first = next((line.strip() for line in code.splitlines() if line.strip()), "")
    return f"`{first[:60]}`"


@dataclass
class GradingTask:
    """One submission to grade, as data: everything grading needs, wherever it runs."""
    assignment: str
    student: str
    files: dict        # {file name: bytes}: the submitted notebooks and nbgrader's own files
    release: dict      # {notebook name: release notebook}: what the metadata repair puts back
    source: list       # the source notebooks: they name a crashed test cell
    db_url: str        # the gradebook
    limits: Limits
    sandbox: bool      # run the kernel under bubblewrap


@dataclass
class Graded:
    """What grading a task gave: its status and the autograded folder's files."""
    student: str
    status: str        # "graded[; notes]" or "error: why[; notes]"
    autograded: dict   # {path inside autograded/<student>/<assignment>/: bytes}
    log: str = ""      # nbgrader's log and the worker's and kernel's stderr, every grading run


def _grade_crash_safe(job, limits, notebooks):
    """Run the worker; while a cell crashes the kernel, grade again without it.

    Returns (WorkerResult, [what was left out and why]); the result's log holds every
    attempt's. ``notebooks`` (the submission's and the source's) name the cells.
    """
    left_out, logs = [], []
    while True:
        progress = Path(job.progress)
        progress.unlink(missing_ok=True)
        result = run_isolated(job, limits)
        logs.append(f"=== grading run {len(logs) + 1} ({'graded' if result.success else result.error})\n{result.log}")
        result.log = "\n\n".join(logs)
        if result.success or not result.crashed or not progress.exists():
            return result, left_out
        code = progress.read_text(errors="replace")
        if cell_key(code) in job.skip or len(job.skip) == MAX_CRASHED_CELLS:
            return result, left_out
        job.skip = (*job.skip, cell_key(code))
        left_out.append(f"graded again without cell {_cell_name(code, notebooks)} ({result.error})")


def _grade_one(task):
    """Autograde one submission (a ``GradingTask``) in isolation in a scratch folder; return a
    ``Graded``. It writes only there and into the gradebook, so it runs alike in the local pool
    and on a Dask worker on another machine."""
    if task.sandbox and not kernel_sandbox.bwrap():
        return Graded(task.student, f"error: on {socket.gethostname()}: {kernel_sandbox.MISSING}", {})
    with tempfile.TemporaryDirectory(prefix="bdl-grade-") as scratch:
        target = Path(scratch) / "submitted" / task.student / task.assignment
        target.mkdir(parents=True)
        repaired = 0
        # Only the notebooks and nbgrader's own files: nothing else the student handed in.
        for name, release_notebook in task.release.items():
            if f"{name}.ipynb" in task.files:
                text, count = repair_notebook(task.files[f"{name}.ipynb"].decode(errors="replace"),
                                              release_notebook)
                (target / f"{name}.ipynb").write_text(text)
                repaired += count
        for name in NBGRADER_FILES:
            if name in task.files:
                (target / name).write_bytes(task.files[name])
        job = GradingJob(scratch=scratch, assignment=task.assignment, student=task.student,
                         db_url=task.db_url, cell_timeout=task.limits.cell_timeout,
                         progress=str(Path(scratch) / "kernel" / "progress"), sandbox=task.sandbox)
        notebooks = _readable_notebooks(target.glob("*.ipynb")) + task.source
        result, left_out = _grade_crash_safe(job, task.limits, notebooks)
        graded = Path(scratch) / "autograded" / task.student / task.assignment
        autograded = {str(path.relative_to(graded)): path.read_bytes() for path in sorted(graded.rglob("*"))
                      if path.is_file() and not path.is_symlink()}
    notes = left_out + ([f"repaired the nbgrader metadata of {repaired} cells"] if repaired else [])
    if not task.sandbox:
        notes.append(NO_SANDBOX)
    if result.success and result.tampered:
        status = f"{TAMPERED} ({'; '.join(result.tampered)})"
    else:
        status = "graded" if result.success else "error: " + result.error
    return Graded(task.student, "; ".join([status] + notes), autograded, result.log)


def _task(root, assignment, student, db_url, limits, release_notebooks, source_notebooks, sandbox):
    """The ``GradingTask`` of a student's collected submission."""
    submitted = Path(root) / "submitted" / student / assignment
    names = [f"{name}.ipynb" for name in release_notebooks] + list(NBGRADER_FILES)
    files = {name: (submitted / name).read_bytes() for name in names if (submitted / name).is_file()}
    return GradingTask(assignment, student, files, release_notebooks, source_notebooks, db_url, limits,
                       sandbox)


def _connect(scheduler):
    """A Dask client of the cluster at ``scheduler``; ValueError in one line if it cannot be reached."""
    from distributed import Client
    try:
        return Client(scheduler, timeout=SCHEDULER_CONNECT_SECONDS, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as error:
        reason = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise ValueError(f"cannot reach the Dask scheduler {scheduler}: {reason}") from None


def _outcome(future):
    """A finished future's ``Graded``, or the exception that stopped its task."""
    try:
        return future.result()
    except Exception as error:  # a bug, or every Dask worker that ran it died
        return error


def _run(tasks, workers, client):
    """Grade every task, ``workers`` at a time in local threads, or on the Dask cluster of
    ``client``; yield (task, ``Graded`` or an exception) as each finishes."""
    if client is not None:
        from distributed import as_completed as finished
        futures = {client.submit(_grade_one, task, retries=TASK_RETRIES,
                                 key=f"grade-{task.assignment}-{task.student}-{uuid.uuid4().hex[:8]}"): task
                   for task in tasks}
        for future in finished(futures, loop=client.loop):
            task, outcome = futures.pop(future), _outcome(future)
            future.release()  # its result is home: a worker that dies later has nothing of it to redo
            yield task, outcome
        return
    with ThreadPoolExecutor(max_workers=max(1, workers or os.cpu_count() or 1)) as pool:
        futures = {pool.submit(_grade_one, task): task for task in tasks}
        for future in as_completed(futures):
            yield futures[future], _outcome(future)


def _failure(error):
    """Why a task ended in an exception, in one line."""
    if type(error).__name__ == "KilledWorker":  # distributed's: its workers died while grading it
        last = getattr(error.last_worker, "address", "?")
        return (f"the Dask worker grading it died, each of the {error.allowed_failures + 1} times it was "
                f"tried (KilledWorker; the last was {last})")
    reason = (str(error).strip().splitlines() or [""])[0][:200]
    return f"grading stopped: {type(error).__name__}: {reason}".rstrip(": ")


def _record(root, task, outcome):
    """Write what came of a task into the course: its autograded folder, and zero in the gradebook
    when it failed (so nothing half-graded is left); return its status."""
    if isinstance(outcome, BaseException):
        outcome = Graded(task.student, "error: " + _failure(outcome), {},
                         "".join(traceback.format_exception(outcome)))
    log = log_path(root, task.assignment, task.student)
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(outcome.log)
    target = Path(root) / "autograded" / task.student / task.assignment
    shutil.rmtree(target, ignore_errors=True)
    for name, data in outcome.autograded.items():
        path = target / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    if outcome.status.startswith("error"):
        _zero(task.db_url, task.assignment, task.student)
        return f"{outcome.status} (log: {log.relative_to(root)})"
    return outcome.status


def log_path(root, assignment, student):
    """Where the full log of a student's grading is kept for the instructor."""
    return Path(root) / "grading_status" / assignment / f"{student}.log"


def _readable_notebooks(paths):
    notebooks = []
    for path in paths:
        try:
            notebooks.append(nbformat.read(path, 4))
        except Exception:  # nbgrader reports a file it cannot read
            pass
    return notebooks


def _notes(root, assignment, item, release_notebooks):
    """Notes for an instructor on one graded submission; ``release_notebooks``: {name: notebook}."""
    notes = []
    if item.extra_files:
        notes.append(f"ignored extra files: {', '.join(item.extra_files)}")
    provided = [cell.source for nb in release_notebooks.values() for cell in nb.cells
                if cell.cell_type == "code"]
    for name, release_notebook in release_notebooks.items():
        path = Path(root) / "submitted" / item.student / assignment / f"{name}.ipynb"
        try:
            present = set(cells.graded_ids(nbformat.read(path, 4)))
        except Exception:  # nbgrader reports a file it cannot read
            present = None
        missing = [] if present is None else [i for i in cells.graded_ids(release_notebook)
                                              if i not in present]
        if missing:
            notes.append(f"missing graded cells: {', '.join(missing[:4])}"
                         + (f" and {len(missing) - 4} more" if len(missing) > 4 else ""))
        flags = review_notebook(path, provided)
        if flags:
            notes.append("review: " + "; ".join(flags))
    return notes


def grade(assignment, paths, root=REPO, csv_path=None, generate=True, db_url=None,
          limits=None, workers=None, replace=False, progress=False, sandbox=True, scheduler=None):
    """Collect and autograde every submission in ``paths``; return one row per notebook.

    Submissions are graded ``workers`` at a time (default: the machine's
    cores), or one Dask task each on the cluster whose scheduler is at
    ``scheduler`` (``tcp://host:8786``; its workers must reach the gradebook
    at ``db_url``: the command line refuses SQLite there). Each is graded in
    isolation within ``limits`` (see ``autograder.sandbox``).
    A submission nbgrader cannot grade, or that breaks a limit, scores zero
    with the reason in ``status``; the others are still graded. Kernels run
    under bubblewrap unless ``sandbox`` is False (then every status says so).
    """
    check_assignment(assignment, root)
    if sandbox and not scheduler and not kernel_sandbox.bwrap():
        raise ValueError(kernel_sandbox.MISSING)
    limits = limits or Limits()
    db_url = gradebook_url(db_url, root)
    with _connect(scheduler) if scheduler else contextlib.nullcontext() as client:
        names = notebook_names(root, assignment)
        collected = collect(root, assignment, names, paths, replace=replace)
        if generate:  # nbgrader grades against the gradebook's copy of the source notebook
            api = make_api(root, {"CourseDirectory": {"db_url": db_url}})
            check_result(api.generate_assignment(assignment, force=True, create=True),
                         f"nbgrader generate_assignment {assignment}")
        release_notebooks = {name: nbformat.read(Path(root) / "release" / assignment / f"{name}.ipynb", 4)
                             for name in names}
        source_notebooks = _readable_notebooks(sorted((Path(root) / "source" / assignment).glob("*.ipynb")))
        tasks = [_task(root, assignment, item.student, db_url, limits, release_notebooks, source_notebooks,
                       sandbox) for item in collected if not item.error]
        statuses = {}
        with tqdm(total=len(tasks), desc=f"grading {assignment}", unit="submission",
                  disable=not progress, file=sys.stderr) as bar:
            for task, outcome in _run(tasks, workers, client):
                statuses[task.student] = _record(root, task, outcome)
                bar.update()
    rows = []
    for item in collected:
        if item.error:
            rows.extend({"assignment": assignment, "notebook": name, "student": item.student,
                         "score": 0.0, "max_score": 0.0, "manual": 0.0,
                         "status": f"error: {item.error}"} for name in names[:1])
            continue
        status = "; ".join([statuses[item.student]] + _notes(root, assignment, item, release_notebooks))
        rows.extend(scores(db_url, root, assignment, item.student, status))
    save_statuses(root, assignment, rows)
    if csv_path:
        write_csv(rows, csv_path)
    return rows


def write_csv(rows, path):
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)


def format_table(rows):
    """Return the rows as an aligned text table."""
    lines = [COLUMNS] + [(r["assignment"], r["notebook"], r["student"], f"{r['score']:g}",
                          f"{r['max_score']:g}", f"{r['manual']:g}", r["status"]) for r in rows]
    widths = [max(len(line[i]) for line in lines) for i in range(len(COLUMNS))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip()
                     for line in lines)
