"""``selfgrade``: the course graded against itself, every reference solution and blank release.

Both run in a scratch copy of the course, so these pseudo-students never
reach the real gradebook or ``submitted/``.
"""
import contextlib
import shutil
import sys
import tempfile
from pathlib import Path

from autograder.course.directory import REPO, assignments
from autograder.grading.host import format_table, grade
from autograder.worker import bwrap


@contextlib.contextmanager
def scratch_course(root=REPO):
    """Yield a temporary course directory holding a copy of ``root/source``."""
    with tempfile.TemporaryDirectory(prefix="bdl-course-") as scratch:
        shutil.copytree(Path(root) / "source", Path(scratch) / "source")
        yield Path(scratch)


def as_submission(scratch, root, kind, student, assignment):
    """Copy ``root/<kind>/<assignment>``'s notebooks as ``student``'s submission; return the
    ``submitted/``-style tree that holds it."""
    folder = scratch / "incoming" / kind / student / assignment
    folder.mkdir(parents=True)
    for notebook in (Path(root) / kind / assignment).glob("*.ipynb"):
        shutil.copyfile(notebook, folder / notebook.name)
    return folder.parent.parent


def selfgrade(root=REPO):
    """Grade every assignment's reference solution (``source/``) as student ``reference`` and its
    blank release (``release/``) as ``blank``; return the rows.

    These are the course's own notebooks, not students' code: they are graded
    in the sandbox where bubblewrap is installed, and without it elsewhere
    (every status then says so), so that `make course` runs on any machine.
    """
    rows = []
    with scratch_course(root) as scratch:
        for assignment in assignments(root):
            submissions = [as_submission(scratch, root, "source", "reference", assignment),
                           as_submission(scratch, root, "release", "blank", assignment)]
            rows.extend(grade(assignment, submissions, root=scratch, sandbox=bool(bwrap.bwrap())))
    return rows


def selfgrade_problems(rows):
    """Return one line per row that is wrong: the reference must earn every automatic point
    (its answer cells await an instructor), the blank release zero."""
    problems = []
    for row in rows:
        expected = row["max_score"] if row["student"] == "reference" else 0
        if not row["status"].startswith("graded") or row["score"] + row["manual"] != expected:
            should = "every automatic point" if row["student"] == "reference" else "zero"
            problems.append(f"{row['assignment']}/{row['notebook']}: the {row['student']} "
                            f"should score {should} ({row['status']})")
    return problems


def _selfgrade(args):
    rows = selfgrade()
    print(format_table(rows))
    problems = selfgrade_problems(rows)
    for problem in problems:
        print(f"autograder: {problem}", file=sys.stderr)
    return 1 if problems else 0


def add_parser(commands):
    selfgrade_cmd = commands.add_parser("selfgrade", help="grade each reference solution and blank release")
    selfgrade_cmd.set_defaults(run=_selfgrade)
