"""Release, validate and grade assignments with nbgrader's own API and gradebook."""
import contextlib
import csv
import os
import re
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.apps import NbGraderAPI
from nbgrader.coursedir import CourseDirectory
from nbgrader.validator import Validator
from sqlalchemy.exc import SAWarning
from traitlets.config.loader import PyFileConfigLoader

REPO = Path(__file__).resolve().parents[1]
# manual: points in answer cells (derivations, discussion) that await an instructor.
COLUMNS = ("assignment", "notebook", "submission", "score", "max_score", "manual", "status")

# nbgrader's gradebook trips this SQLAlchemy warning on every autograde; it is harmless.
warnings.filterwarnings("ignore", category=SAWarning)
# nbgrader runs alembic as a program to set up the gradebook: it must be found
# on PATH even when the venv is not activated.
os.environ["PATH"] = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")


def load_config(root):
    """Return the course's nbgrader config with the course directory set to ``root``."""
    config = PyFileConfigLoader("nbgrader_config.py", path=str(REPO)).load_config()
    config.CourseDirectory.root = str(root)
    return config


def make_api(root):
    config = load_config(root)
    return NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)


def assignments(root=REPO):
    """Return the assignment ids: folders of ``source/`` holding notebooks."""
    return sorted(p.name for p in (Path(root) / "source").iterdir()
                  if p.is_dir() and any(p.glob("*.ipynb")))


def notebooks(root, assignment):
    """Return the assignment's notebook names (without ``.ipynb``)."""
    folder = Path(root) / "source" / assignment
    return sorted(p.stem for p in folder.glob("*.ipynb"))


def _check(result, what):
    if not result["success"]:
        raise RuntimeError(f"{what} failed:\n{result['error'] or result['log']}")


def release(root=REPO, only=None):
    """Generate ``release/`` from ``source/`` for every assignment (or those in ``only``)."""
    api = make_api(root)
    for assignment in only or assignments(root):
        _check(api.generate_assignment(assignment, force=True, create=True),
               f"nbgrader generate_assignment {assignment}")


def validate(root=REPO):
    """Return problems: source notebooks must pass their tests, release notebooks fail them."""
    config = load_config(root)
    problems = []
    for assignment in assignments(root):
        for name in notebooks(root, assignment):
            for kind, invert in (("source", False), ("release", True)):
                path = Path(root) / kind / assignment / f"{name}.ipynb"
                if not path.exists():
                    problems.append(f"{path}: missing (run `python -m autograder release`)")
                    continue
                validator = Validator(config=config, invert=invert, ignore_checksums=not invert)
                results = validator.validate(str(path))
                if results:
                    expected = "fail its tests" if invert else "pass its tests"
                    problems.append(f"{kind}/{assignment}/{name}.ipynb should {expected}: "
                                    f"{sorted(results)}")
    return problems


def _student_id(text):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "student"


def stage(root, assignment, path):
    """Copy one submission path into ``root/submitted``; return the student ids found.

    ``path`` is either a notebook file (the student id is its file name's stem,
    or its folder's name when the file keeps the assignment's notebook name) or
    an nbgrader ``submitted/`` folder of ``<student>/<assignment>/*.ipynb``.
    """
    path = Path(path)
    submitted = Path(root) / "submitted"
    if path.is_file():
        names = notebooks(root, assignment)
        if len(names) != 1:
            raise ValueError(f"{assignment} has {len(names)} notebooks: give a submitted/ folder")
        student = _student_id(path.parent.name if path.stem == names[0] else path.stem)
        target = submitted / student / assignment
        target.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target / f"{names[0]}.ipynb")
        return [student]
    if path.is_dir():
        students = sorted(p.parent.name for p in path.glob(f"*/{assignment}") if p.is_dir())
        if not students:
            raise ValueError(f"{path} holds no <student>/{assignment}/ folders")
        for student in students:
            target = submitted / student / assignment
            if target.resolve() != (path / student / assignment).resolve():
                shutil.rmtree(target, ignore_errors=True)
                shutil.copytree(path / student / assignment, target)
        return students
    raise FileNotFoundError(f"no such submission: {path}")


def _scores(api, assignment, student, status):
    """Return one row per notebook of a student's graded submission."""
    rows = []
    with Gradebook(api.coursedir.db_url) as gradebook:
        for name in notebooks(api.coursedir.root, assignment):
            try:
                notebook = gradebook.find_submission_notebook(name, assignment, student)
                score, max_score = notebook.score, notebook.max_score
                manual = sum(grade.max_score for grade in notebook.grades if grade.needs_manual_grade)
            except MissingEntry:
                score, manual = 0.0, 0.0
                max_score = gradebook.find_notebook(name, assignment).max_score
            rows.append({"assignment": assignment, "notebook": name, "submission": student,
                         "score": float(score), "max_score": float(max_score),
                         "manual": float(manual), "status": status})
    return rows


def grade(assignment, paths, root=REPO, csv_path=None, generate=True):
    """Autograde every submission in ``paths`` into ``root``'s gradebook; return the rows.

    A submission nbgrader cannot grade (not a notebook, wrong format) scores
    zero with its error in ``status``; the others are still graded.
    """
    if assignment not in assignments(root):
        raise ValueError(f"unknown assignment {assignment!r}; known: {assignments(root)}")
    api = make_api(root)
    if generate:  # nbgrader grades against the gradebook's copy of the source notebook
        _check(api.generate_assignment(assignment, force=True, create=True),
               f"nbgrader generate_assignment {assignment}")
    rows = []
    for path in paths:
        try:
            students = stage(root, assignment, path)
        except (OSError, ValueError) as error:
            rows.append({"assignment": assignment, "notebook": "-", "submission": str(path),
                         "score": 0.0, "max_score": 0.0, "manual": 0.0,
                         "status": f"error: {error}"})
            continue
        for student in students:
            result = api.autograde(assignment, student, force=True, create=True)
            status = "graded" if result["success"] else "error: " + _last_line(
                result["error"] or result["log"])
            rows.extend(_scores(api, assignment, student, status))
    if csv_path:
        write_csv(rows, csv_path)
    return rows


def _last_line(text):
    lines = [line for line in (text or "").strip().splitlines() if line.strip()]
    return lines[-1][:200] if lines else "nbgrader failed"


@contextlib.contextmanager
def scratch_course(root=REPO):
    """Yield a temporary course directory holding a copy of ``root/source``.

    Grading the reference solution and the blank release there keeps these
    pseudo-students out of the real gradebook.
    """
    with tempfile.TemporaryDirectory(prefix="bdl-course-") as scratch:
        shutil.copytree(Path(root) / "source", Path(scratch) / "source")
        yield Path(scratch)


def _incoming(scratch, root, kind, student, assignment):
    """Copy ``root/kind/assignment`` to ``scratch/incoming/kind/student/assignment``."""
    folder = scratch / "incoming" / kind / student / assignment
    folder.mkdir(parents=True)
    for notebook in (Path(root) / kind / assignment).glob("*.ipynb"):
        shutil.copyfile(notebook, folder / notebook.name)
    return folder.parent.parent


def selfgrade(root=REPO):
    """Grade every assignment's reference solution (``source/``) and blank release
    (``release/``) in a scratch course; return the rows."""
    rows = []
    with scratch_course(root) as scratch:
        for assignment in assignments(root):
            submissions = [_incoming(scratch, root, "source", "reference", assignment),
                           _incoming(scratch, root, "release", "blank", assignment)]
            rows.extend(grade(assignment, submissions, root=scratch))
    return rows


def write_csv(rows, path):
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)


def format_table(rows):
    """Return the rows as an aligned text table."""
    header = ("assignment", "notebook", "submission", "score", "max score", "manual", "status")
    lines = [header] + [(r["assignment"], r["notebook"], r["submission"], f"{r['score']:g}",
                         f"{r['max_score']:g}", f"{r['manual']:g}", r["status"]) for r in rows]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip()
                     for line in lines)


def bench(assignment, root=REPO):
    """Return (seconds, rows) for autograding the reference solution once."""
    with scratch_course(root) as scratch:
        submission = _incoming(scratch, root, "source", "reference", assignment)
        release(scratch, only=[assignment])
        start = time.perf_counter()
        rows = grade(assignment, [submission], root=scratch, generate=False)
        return time.perf_counter() - start, rows
