"""Release, validate and grade assignments with nbgrader's own API and gradebook."""
import contextlib
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

import nbformat

from nbgrader.api import Gradebook, MissingEntry
from nbgrader.apps import NbGraderAPI
from nbgrader.coursedir import CourseDirectory
from nbgrader.validator import Validator
from sqlalchemy.exc import SAWarning
from tqdm import tqdm
from traitlets.config.loader import PyFileConfigLoader

from autograder.collect import collect
from autograder.repair import repair_notebook
from autograder.review import review_notebook
from autograder.sandbox import run_isolated

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


def make_api(root, overrides=None):
    """Return nbgrader's API for the course at ``root``; ``overrides``: {section: {name: value}}."""
    config = load_config(root)
    for section, values in (overrides or {}).items():
        for name, value in values.items():
            setattr(config[section], name, value)
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


def default_db_url(root):
    """nbgrader's default gradebook: ``gradebook.db`` in the course directory."""
    return f"sqlite:///{Path(root).resolve() / 'gradebook.db'}"


def _scores(db_url, root, assignment, student, status):
    """Return one row per notebook of a student's graded submission."""
    rows = []
    with Gradebook(db_url) as gradebook:
        for name in notebooks(root, assignment):
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


@dataclass
class Limits:
    """What one submission may use while it is graded."""
    workers: int = os.cpu_count() or 1
    wall_seconds: float = 900.0
    memory_bytes: int = 4 * 2**30
    cell_timeout: int = 120


def _grade_one(root, db_url, assignment, item, limits, releases):
    """Autograde one collected submission in isolation; return its status."""
    with tempfile.TemporaryDirectory(prefix="bdl-grade-") as scratch:
        submitted = Path(root) / "submitted" / item.student / assignment
        target = Path(scratch) / "submitted" / item.student / assignment
        target.mkdir(parents=True)
        repaired = 0
        for name, release in releases.items():  # only the notebooks: no extra files
            if (submitted / f"{name}.ipynb").exists():
                text, count = repair_notebook(
                    (submitted / f"{name}.ipynb").read_text(errors="replace"), release)
                (target / f"{name}.ipynb").write_text(text)
                repaired += count
        if (submitted / "timestamp.txt").exists():
            shutil.copyfile(submitted / "timestamp.txt", target / "timestamp.txt")
        job = {"scratch": scratch, "assignment": assignment, "student": item.student,
               "db_url": db_url, "cell_timeout": limits.cell_timeout,
               "autograded": str(Path(root) / "autograded" / item.student / assignment)}
        result = run_isolated(job, limits.wall_seconds, limits.memory_bytes)
    if not result["success"]:
        _zero(db_url, assignment, item.student)
        return "error: " + result["error"]
    return "graded" + (f"; repaired the nbgrader metadata of {repaired} cells" if repaired else "")


def _grade_ids(nb):
    """The grade_ids of a notebook's graded cells (answers and tests)."""
    return [cell.metadata.nbgrader.get("grade_id") for cell in nb.cells
            if cell.metadata.get("nbgrader", {}).get("grade") or cell.metadata.get("nbgrader", {}).get("solution")]


def _notes(root, assignment, item, releases):
    """Notes for an instructor on one graded submission; ``releases``: {notebook name: release nb}."""
    notes = []
    if item.extra_files:
        notes.append(f"ignored extra files: {', '.join(item.extra_files)}")
    provided = [cell.source for nb in releases.values() for cell in nb.cells if cell.cell_type == "code"]
    for name, release in releases.items():
        path = Path(root) / "submitted" / item.student / assignment / f"{name}.ipynb"
        try:
            present = set(_grade_ids(nbformat.read(path, 4)))
        except Exception:  # nbgrader reports a file it cannot read
            present = None
        missing = [] if present is None else [i for i in _grade_ids(release) if i not in present]
        if missing:
            notes.append(f"missing graded cells: {', '.join(missing[:4])}"
                         + (f" and {len(missing) - 4} more" if len(missing) > 4 else ""))
        flags = review_notebook(path, provided)
        if flags:
            notes.append("review: " + "; ".join(flags))
    return notes


def grade(assignment, paths, root=REPO, csv_path=None, generate=True, db_url=None,
          limits=None, replace=False, progress=False):
    """Collect and autograde every submission in ``paths``; return one row per notebook.

    Submissions are graded in parallel (``limits.workers``), each in isolation
    (see ``autograder.sandbox``). A submission nbgrader cannot grade, or that
    breaks a limit, scores zero with the reason in ``status``; the others are
    still graded. Rows also go to ``grading_status/<assignment>.json`` for
    ``report``, and to ``csv_path`` if given.
    """
    if assignment not in assignments(root):
        raise ValueError(f"unknown assignment {assignment!r}; known: {assignments(root)}")
    limits = limits or Limits()
    db_url = db_url or default_db_url(root)
    api = make_api(root, {"CourseDirectory": {"db_url": db_url}})
    if generate:  # nbgrader grades against the gradebook's copy of the source notebook
        _check(api.generate_assignment(assignment, force=True, create=True),
               f"nbgrader generate_assignment {assignment}")
    names = notebooks(root, assignment)
    releases = {name: json.loads((Path(root) / "release" / assignment / f"{name}.ipynb").read_text())
                for name in names}
    collected = collect(root, assignment, names, paths, replace=replace)
    good = [item for item in collected if not item.error]
    statuses = {}
    with ThreadPoolExecutor(max_workers=max(1, limits.workers)) as pool, \
            tqdm(total=len(good), desc=f"grading {assignment}", unit="submission",
                 disable=not progress, file=sys.stderr) as bar:
        futures = {pool.submit(_grade_one, root, db_url, assignment, item, limits, releases): item
                   for item in good}
        for future in as_completed(futures):
            statuses[futures[future].student] = future.result()
            bar.update()
    release_nbs = {name: nbformat.reads(json.dumps(nb), 4) for name, nb in releases.items()}
    rows = []
    for item in collected:
        if item.error:
            rows.extend({"assignment": assignment, "notebook": name, "submission": item.student,
                         "score": 0.0, "max_score": 0.0, "manual": 0.0,
                         "status": f"error: {item.error}"} for name in names[:1])
            continue
        status = "; ".join([statuses[item.student]] + _notes(root, assignment, item, release_nbs))
        rows.extend(_scores(db_url, root, assignment, item.student, status))
    save_status(root, assignment, rows)
    if csv_path:
        write_csv(rows, csv_path)
    return rows


def save_status(root, assignment, rows):
    """Merge the rows' statuses into ``grading_status/<assignment>.json`` for ``report``."""
    path = Path(root) / "grading_status" / f"{assignment}.json"
    path.parent.mkdir(exist_ok=True)
    statuses = json.loads(path.read_text()) if path.exists() else {}
    statuses.update({f"{row['submission']}/{row['notebook']}": row["status"] for row in rows})
    path.write_text(json.dumps(statuses, indent=1, sort_keys=True))


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


def bench_class(assignment, count, limits=None, root=REPO):
    """Time plain serial ``nbgrader autograde`` against ``grade`` on ``count`` copies of the
    reference solution; return {"nbgrader": seconds, "autograder": seconds}."""
    seconds = {}
    for tool in ("nbgrader", "autograder"):
        with scratch_course(root) as scratch:
            shutil.copyfile(REPO / "nbgrader_config.py", scratch / "nbgrader_config.py")
            for number in range(count):
                student = f"student{number:02d}"
                for path in (Path(root) / "source" / assignment).glob("*.ipynb"):
                    target = scratch / "submitted" / student / assignment
                    target.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(path, target / path.name)
            release(scratch, only=[assignment])
            start = time.perf_counter()
            if tool == "nbgrader":
                subprocess.run([str(Path(sys.executable).parent / "nbgrader"), "autograde", assignment,
                                "--create", "--force", "--log-level=ERROR"], cwd=scratch, check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                rows = [row for number in range(count) for row in _scores(
                    default_db_url(scratch), scratch, assignment, f"student{number:02d}", "graded")]
            else:
                rows = grade(assignment, [scratch / "submitted"], root=scratch, generate=False,
                             limits=limits)
            seconds[tool] = time.perf_counter() - start
            full = [row for row in rows if row["score"] + row["manual"] == row["max_score"]]
            if len(full) != count:
                raise RuntimeError(f"{tool} did not give the reference full marks: {rows}")
    return seconds


def bench(assignment, root=REPO):
    """Return (seconds, rows) for autograding the reference solution once."""
    with scratch_course(root) as scratch:
        submission = _incoming(scratch, root, "source", "reference", assignment)
        release(scratch, only=[assignment])
        start = time.perf_counter()
        rows = grade(assignment, [submission], root=scratch, generate=False)
        return time.perf_counter() - start, rows
