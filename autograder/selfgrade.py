"""``selfgrade``: the course graded against itself, every reference solution and blank release.

Both run in a scratch copy of the course, so these pseudo-students never
reach the real gradebook or ``submitted/``.
"""

import contextlib
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

import nbformat

from autograder.course import cells
from autograder.course.cli import root_option
from autograder.course.directory import REPO, assignments, generate_release, notebook_names
from autograder.grading.host import format_table, grade
from autograder.grading.task import NO_SANDBOX
from autograder.worker import bwrap

# What each row says where bubblewrap is not installed (`make course` runs on any machine).
NO_BUBBLEWRAP = "WARNING: graded without the sandbox: bubblewrap is not installed (apt-get install bubblewrap)"


@contextlib.contextmanager
def scratch_course(root=REPO):
    """Yield a temporary course directory holding a copy of ``root/source``."""
    with tempfile.TemporaryDirectory(prefix="bdl-course-") as scratch:
        shutil.copytree(Path(root) / "source", Path(scratch) / "source")
        yield Path(scratch)


def hand_in(notebook, target):
    """Write the notebook at ``notebook`` to ``target`` as a student hands it in: a source notebook
    as its answers (``cells.answered``), since ``grade`` refuses a notebook that holds the source's
    markers; a release as it is."""
    nb = nbformat.read(notebook, 4)
    if cells.source_markers(nb):
        nbformat.write(cells.answered(nb), target)
    else:
        shutil.copyfile(notebook, target)


def as_submission(scratch, root, kind, student, assignment):
    """Hand in ``root/<kind>/<assignment>``'s notebooks as ``student``'s submission (``hand_in``); return
    the ``submitted/``-style tree that holds it."""
    folder = scratch / "incoming" / kind / student / assignment
    folder.mkdir(parents=True)
    for notebook in (Path(root) / kind / assignment).glob("*.ipynb"):
        hand_in(notebook, folder / notebook.name)
    return folder.parent.parent


# What selfgrade grades of each assignment, the longer first: (the course folder it is copied from,
# the pseudo-student it is graded as).
KINDS = (("source", "reference"), ("release", "blank"))


def selfgrade(root=REPO, progress=True, lanes=None, keep=None):
    """Grade every assignment's reference solution (``source/``, handed in without its markers) as
    student ``reference`` and its blank release (``release/``) as ``blank``; return the rows, in
    assignment order.

    ``lanes`` submissions are graded at a time (default: 2, or 1 on one core), each in a
    course folder of its own. ``progress`` (True: standard error; or a stream; None: silent) gets
    a line per notebook as its submission is done, with its score and time (``progress_line``).
    ``keep``: a folder to copy the autograded notebooks into, as ``<student>/<assignment>/``.

    These are the course's own notebooks, not students' code: they are graded
    in the sandbox where bubblewrap is installed, and without it elsewhere
    (every status then says so), so that `make course` runs on any machine.
    """
    lanes = lanes or min(2, os.cpu_count() or 1)
    sandbox = bool(bwrap.bwrap())
    names = assignments(root)
    jobs = [(assignment, kind, student) for kind, student in KINDS for assignment in names]
    say = _printer(progress)
    # one column for the notebooks' names, as wide as the longest
    width = max(len(f"{a}/{n}") for a in names for n in notebook_names(root, a))
    say(
        f"selfgrade: grading {len(names)} reference solutions (full marks expected) and {len(names)} blank "
        f"releases (zero expected), {lanes} at a time; a line as each is done"
    )
    start = time.perf_counter()
    results = {}
    with scratch_course(root) as scratch:
        # Once for every job, before the lanes start: nbgrader's generate changes the working folder.
        generate_release(scratch)

        def run(job):
            assignment, kind, student = job
            course = scratch / "courses" / f"{student}-{assignment}"
            for folder in ("source", "release"):
                shutil.copytree(scratch / folder / assignment, course / folder / assignment)
            shutil.copyfile(scratch / "gradebook.db", course / "gradebook.db")
            submission = as_submission(course, root, kind, student, assignment)
            began = time.perf_counter()
            rows = grade(assignment, [submission], root=course, generate=False, sandbox=sandbox, workers=1)
            for row in rows if not sandbox else ():  # no one passed --no-sandbox: say why it was off
                row["status"] = row["status"].replace(NO_SANDBOX, NO_BUBBLEWRAP)
            if keep:
                shutil.copytree(course / "autograded" / student / assignment, Path(keep) / student / assignment)
            return rows, time.perf_counter() - began

        with ThreadPoolExecutor(max_workers=lanes) as pool:
            futures = {pool.submit(run, job): job for job in jobs}
            try:
                for done, future in enumerate(as_completed(futures), 1):
                    rows, seconds = future.result()
                    results[futures[future]] = rows
                    for row in rows:
                        say(progress_line(row, seconds, done, len(jobs), width))
            except BaseException:
                for future in futures:
                    future.cancel()
                raise
    minutes, seconds = divmod(round(time.perf_counter() - start), 60)
    say(f"selfgrade: {len(jobs)} submissions graded in {minutes} min {seconds:02d} s")
    return [row for assignment in names for kind, student in KINDS for row in results[assignment, kind, student]]


def _printer(progress):
    def say(line):
        if progress:
            print(line, file=sys.stderr if progress is True else progress, flush=True)

    return say


def progress_line(row, seconds, done, total, width=40):
    """One line of selfgrade's progress: the notebook, its points (and those left to an instructor),
    how long its submission took, and "ok" or what is wrong (``selfgrade_problems``)."""
    points = f"{row['score']:g} of {row['max_score']:g} points" + (
        f", {row['manual']:g} for an instructor" if row["manual"] else ""
    )
    problems = selfgrade_problems([row])
    verdict = "ok" if not problems else "WRONG: " + problems[0].split(": ", 1)[1]
    return (
        f"[{done:>{len(str(total))}}/{total}] {row['assignment'] + '/' + row['notebook']:<{width}} "
        f"{row['student']:<9} {points:<36} {seconds:6.1f} s  {verdict}"
    )


def selfgrade_problems(rows):
    """Return one line per row that is wrong: the reference must earn every automatic point
    (its answer cells await an instructor), the blank release zero."""
    problems = []
    for row in rows:
        expected = row["max_score"] if row["student"] == "reference" else 0
        if not row["status"].startswith("graded") or row["score"] + row["manual"] != expected:
            should = "every automatic point" if row["student"] == "reference" else "zero"
            problems.append(
                f"{row['assignment']}/{row['notebook']}: the {row['student']} should score {should} ({row['status']})"
            )
    return problems


def _selfgrade(args):
    rows = selfgrade(args.root)
    print(format_table(rows))
    problems = selfgrade_problems(rows)
    for problem in problems:
        print(f"autograder: {problem}", file=sys.stderr)
    return 1 if problems else 0


def add_parser(commands):
    selfgrade_cmd = commands.add_parser("selfgrade", help="grade each reference solution and blank release")
    root_option(selfgrade_cmd)
    selfgrade_cmd.set_defaults(run=_selfgrade)
