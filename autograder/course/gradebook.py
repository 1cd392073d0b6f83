"""The gradebook's database: its URL, and a check that it can be used.

nbgrader takes any SQLAlchemy URL. SQLAlchemy reads ``postgresql://`` as
"PostgreSQL through psycopg2", which the course does not pin; the course pins
psycopg 3, so such URLs are read as ``postgresql+psycopg://``. ``check``
connects once before any grading, so a missing driver or an unreachable
server is one clear line, not a traceback from inside nbgrader. Grading on a
Dask cluster needs a gradebook every worker reaches: ``check_shared`` refuses
SQLite there.
"""

import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypedDict

from nbgrader.api import Gradebook, MissingEntry
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError

from autograder.course.directory import notebook_names

# The PostgreSQL driver in the course's pins.
POSTGRES_DRIVER = "psycopg"


# The gradebook's URL when ``--db`` is not given: a password in it then stays off every command line.
URL_ENV = "BDL_GRADEBOOK_URL"


class Points(TypedDict):
    """A notebook's points, as every table of scores gives them."""

    score: float
    max_score: float
    manual: float  # the points of its grades awaiting an instructor


class ScoreRow(Points):
    """One row of ``grades.csv``: a student's notebook of an assignment, and how its grading went."""

    assignment: str
    notebook: str
    student: str
    late: str  # how late it was handed in, and the points that cost (``late_text``)
    status: str


def default_url(root: str | Path) -> str:
    """nbgrader's default gradebook: ``gradebook.db`` in the course directory."""
    return f"sqlite:///{Path(root).resolve() / 'gradebook.db'}"


def gradebook_url(url: str | None, root: str | Path, environ: Mapping[str, str] = os.environ) -> str:
    """The URL to grade into: ``url``, else ``$BDL_GRADEBOOK_URL``, else the default; PostgreSQL
    through psycopg 3, with ``$PGPASSWORD`` as its password if it names none. The grading workers get
    the URL on their stdin and start without either variable (``autograder.worker.bwrap.ENVIRONMENT``),
    so no kernel sees the password, and no command line (``ps``) need show it."""
    url = url or environ.get(URL_ENV)
    if not url:
        return default_url(root)
    for scheme in ("postgresql://", "postgres://"):
        if url.startswith(scheme):
            url = f"postgresql+{POSTGRES_DRIVER}://" + url[len(scheme) :]
    if url.startswith("postgresql") and environ.get("PGPASSWORD"):
        parsed = make_url(url)
        if parsed.password is None:
            url = parsed.set(password=environ["PGPASSWORD"]).render_as_string(hide_password=False)
    return url


def check(url: str) -> None:
    """Raise ValueError with one line if the gradebook at ``url`` cannot be used."""
    try:
        shown = make_url(url).render_as_string(hide_password=True)
        engine = create_engine(url)
    except ArgumentError as error:
        raise ValueError(f"not a database URL: {url!r} ({error})") from None
    except (NoSuchModuleError, ModuleNotFoundError) as error:
        raise ValueError(
            f"no database driver for {url.split(':')[0]}:// ({error}); for PostgreSQL "
            f"install the course's pins (psycopg 3) and write postgresql://..."
        ) from None
    try:
        with engine.connect() as connection:
            connection.execute(text("select 1"))
    except DBAPIError as error:  # refused, no such socket or database, bad option, ...
        reason = str(error.orig or error).strip().splitlines()[0]
        raise ValueError(f"cannot reach the gradebook database {shown}: {reason}") from None
    except ModuleNotFoundError as error:
        raise ValueError(
            f"no database driver for {shown} ({error}); for PostgreSQL install the course's pins (psycopg 3)"
        ) from None
    finally:
        engine.dispose()


def check_shared(url: str) -> None:
    """Raise ValueError with one line if ``url`` is a SQLite file, which a cluster's workers on other
    machines cannot share."""
    if make_url(url).get_backend_name() == "sqlite":
        raise ValueError(
            "--scheduler grades on other machines, which cannot share a SQLite gradebook: "
            "give a database server with --db postgresql://user@host/course"
        )


def handed_in(submission: Any) -> bool:
    """Whether a gradebook submission was handed in (graded, or refused at zero), rather than made
    only to hold an extension (``autograder.course.deadlines``) before the student handed anything in."""
    # A refused hand-in (another assignment's notebook, an empty one) has neither a time nor a score, but
    # no extension either: only a row with an extension and nothing else is a placeholder.
    return (
        submission.extension is None
        or submission.timestamp is not None
        or any(
            grade.auto_score is not None or grade.manual_score is not None
            for notebook in submission.notebooks
            for grade in notebook.grades
        )
    )


def check_graded(url: str, assignment: str) -> None:
    """Raise ValueError if the gradebook at ``url`` holds no hand-in of ``assignment`` (a due date or an
    extension alone makes the assignment's row, not a hand-in)."""
    with Gradebook(url) as gradebook:
        try:
            graded = any(handed_in(s) for s in gradebook.assignment_submissions(assignment))
        except MissingEntry:
            graded = False
    if not graded:
        raise ValueError(f"{assignment} is not graded yet: grade it first (autograder grade {assignment} ...)")


def notebook_points(notebook: Any) -> Points:
    """A submitted notebook's points (``notebook``: nbgrader's ``SubmittedNotebook``), less its late
    penalty (``autograder.course.deadlines``), as nbgrader's feedback and export count them."""
    return {
        "score": max(0.0, float(notebook.score) - float(notebook.late_submission_penalty or 0)),
        "max_score": float(notebook.max_score),
        "manual": float(sum(grade.max_score for grade in notebook.grades if grade.needs_manual_grade)),
    }


def how_late(seconds: float) -> str:
    """``seconds`` in days, hours and minutes, the coarsest two that are not zero."""
    minutes = math.ceil(seconds / 60)
    parts = [(minutes // 1440, "day"), (minutes // 60 % 24, "h"), (minutes % 60, "min")]
    named = [f"{n} {unit}{'s' if unit == 'day' and n != 1 else ''}" for n, unit in parts if n]
    return " ".join(named[:2])


def late_text(submission: Any, notebook: Any = None) -> str:
    """The ``late`` column: empty for a hand-in on time, else how late and the points it cost (of
    ``notebook``, or of the whole submission)."""
    seconds = submission.total_seconds_late
    if not seconds:
        return ""
    penalty = (notebook or submission).late_submission_penalty or 0.0
    cost = f"-{penalty:g} points" if penalty else "no penalty"
    return f"{how_late(seconds)} late, {cost}"


def scores(db_url: str, root: str | Path, assignment: str, student: str, status: str) -> list[ScoreRow]:
    """Return one row per notebook of a student's graded submission (a notebook it lacks: 0 points)."""
    rows: list[ScoreRow] = []
    with Gradebook(db_url) as gradebook:
        for name in notebook_names(root, assignment):
            points: Points
            try:
                notebook = gradebook.find_submission_notebook(name, assignment, student)
                points, late = notebook_points(notebook), late_text(notebook.assignment, notebook)
            except MissingEntry:
                points = {
                    "score": 0.0,
                    "max_score": float(gradebook.find_notebook(name, assignment).max_score),
                    "manual": 0.0,
                }
                late = ""
            rows.append(
                ScoreRow(assignment=assignment, notebook=name, student=student, **points, late=late, status=status)
            )
    return rows


def zero_automatic_grades(db_url: str, assignment: str, student: str, create: bool = False) -> None:
    """Leave no half-graded submission behind: every automatic grade becomes zero. With ``create``, a
    submission the gradebook does not hold yet is added first (one refused before grading), so that
    ``report`` and the LMS files list it, at zero."""
    with Gradebook(db_url) as gradebook:
        try:
            submission = gradebook.find_submission(assignment, student)
        except MissingEntry:
            if not create:
                return
            gradebook.update_or_create_student(student)
            submission = gradebook.add_submission(assignment, student)
        for notebook in submission.notebooks:
            for grade in notebook.grades:
                if grade.auto_score is None or grade.auto_score > 0:
                    grade.auto_score = 0
                grade.needs_manual_grade = False
        gradebook.db.commit()
