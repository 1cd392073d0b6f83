"""Grade a class: collect submissions, autograde each in its own sandboxed worker, record the scores.

Every submission gets one row per notebook and a status: ``graded`` (with
notes for the instructor) or ``error: <why>`` (scored zero). A cell that kills
the kernel, or is killed at a limit, costs only itself: the submission is
graded again with that cell left out, so only it and the cells that need its
names score zero. Rows go to
``grading_status/<assignment>.json`` for ``report``, and to a CSV if asked.
"""
import csv
import os
import shutil
import sys
import tempfile
import warnings
from concurrent.futures import ThreadPoolExecutor, as_completed
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

NO_SANDBOX = "WARNING: graded without the sandbox (--no-sandbox): its code could read and write the course"
# How many crashing cells one submission may have left out before it is scored zero:
# each costs a grading run.
MAX_CRASHED_CELLS = 3

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


def _grade_crash_safe(job, limits, notebooks):
    """Run the worker; while a cell crashes the kernel, grade again without it.

    Returns (WorkerResult, [what was left out and why]). ``notebooks`` (the
    submission's and the source's) name the cells.
    """
    left_out = []
    while True:
        progress = Path(job.progress)
        progress.unlink(missing_ok=True)
        result = run_isolated(job, limits)
        if result.success or not result.crashed or not progress.exists():
            return result, left_out
        code = progress.read_text(errors="replace")
        if cell_key(code) in job.skip or len(job.skip) == MAX_CRASHED_CELLS:
            return result, left_out
        job.skip = (*job.skip, cell_key(code))
        left_out.append(f"graded again without cell {_cell_name(code, notebooks)} ({result.error})")


def _grade_one(root, db_url, assignment, item, limits, release_notebooks, sandbox):
    """Autograde one collected submission in isolation; return its status."""
    with tempfile.TemporaryDirectory(prefix="bdl-grade-") as scratch:
        submitted = Path(root) / "submitted" / item.student / assignment
        target = Path(scratch) / "submitted" / item.student / assignment
        target.mkdir(parents=True)
        repaired = 0
        # Only the notebooks and nbgrader's own files: nothing else the student handed in.
        for name, release_notebook in release_notebooks.items():
            if (submitted / f"{name}.ipynb").exists():
                text, count = repair_notebook(
                    (submitted / f"{name}.ipynb").read_text(errors="replace"), release_notebook)
                (target / f"{name}.ipynb").write_text(text)
                repaired += count
        for name in NBGRADER_FILES:
            if (submitted / name).exists():
                shutil.copyfile(submitted / name, target / name)
        job = GradingJob(scratch=scratch, assignment=assignment, student=item.student, db_url=db_url,
                         cell_timeout=limits.cell_timeout,
                         autograded=str(Path(root) / "autograded" / item.student / assignment),
                         progress=str(Path(scratch) / "kernel" / "progress"), sandbox=sandbox)
        notebooks = _readable_notebooks([*target.glob("*.ipynb"),
                                         *(Path(root) / "source" / assignment).glob("*.ipynb")])
        result, left_out = _grade_crash_safe(job, limits, notebooks)
    notes = left_out + ([f"repaired the nbgrader metadata of {repaired} cells"] if repaired else [])
    if not sandbox:
        notes.append(NO_SANDBOX)
    if not result.success:
        _zero(db_url, assignment, item.student)
        return "; ".join(["error: " + result.error] + notes)
    return "; ".join(["graded"] + notes)


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
          limits=None, workers=None, replace=False, progress=False, sandbox=True):
    """Collect and autograde every submission in ``paths``; return one row per notebook.

    Submissions are graded ``workers`` at a time (default: the machine's
    cores), each in isolation within ``limits`` (see ``autograder.sandbox``).
    A submission nbgrader cannot grade, or that breaks a limit, scores zero
    with the reason in ``status``; the others are still graded. Kernels run
    under bubblewrap unless ``sandbox`` is False (then every status says so).
    """
    check_assignment(assignment, root)
    if sandbox and not kernel_sandbox.bwrap():
        raise ValueError(kernel_sandbox.MISSING)
    limits = limits or Limits()
    db_url = gradebook_url(db_url, root)
    names = notebook_names(root, assignment)
    collected = collect(root, assignment, names, paths, replace=replace)
    if generate:  # nbgrader grades against the gradebook's copy of the source notebook
        api = make_api(root, {"CourseDirectory": {"db_url": db_url}})
        check_result(api.generate_assignment(assignment, force=True, create=True),
                     f"nbgrader generate_assignment {assignment}")
    release_notebooks = {name: nbformat.read(Path(root) / "release" / assignment / f"{name}.ipynb", 4)
                         for name in names}
    good = [item for item in collected if not item.error]
    statuses = {}
    with ThreadPoolExecutor(max_workers=max(1, workers or os.cpu_count() or 1)) as pool, \
            tqdm(total=len(good), desc=f"grading {assignment}", unit="submission",
                 disable=not progress, file=sys.stderr) as bar:
        futures = {pool.submit(_grade_one, root, db_url, assignment, item, limits, release_notebooks,
                               sandbox): item
                   for item in good}
        for future in as_completed(futures):
            statuses[futures[future].student] = future.result()
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
