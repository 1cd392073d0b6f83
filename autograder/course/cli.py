"""What the course's commands share on the command line: the course folder and gradebook options, the
argparse types that check an argument as it is parsed (before any work, so that a mistake writes
nothing), and the two commands about the course itself, ``release`` and ``validate``."""

import argparse
import math
import os
from pathlib import Path

from autograder.course import directory, gradebook
from autograder.course.lint import lint_course


def _checked(convert, fits, wanted):
    """An argparse type: ``convert(text)`` if ``fits`` it, else the error "WANTED, not 'TEXT'"."""

    def parse(text):
        try:
            value = convert(text)
        except ValueError:
            value = None
        if value is None or not fits(value):
            raise argparse.ArgumentTypeError(f"{wanted}, not {text!r}")
        return value

    return parse


positive_int = _checked(int, lambda value: value >= 1, "a whole number, 1 or more")
count = _checked(int, lambda value: value >= 0, "a whole number, 0 or more")
positive_number = _checked(float, lambda value: 0 < value < math.inf, "a number above 0")  # not NaN either
non_negative_number = _checked(float, lambda value: 0 <= value < math.inf, "a number, 0 or more")
percent = _checked(float, lambda value: 0 <= value <= 100, "a percentage from 0 to 100")
# GiB: under it a submission's worker, kernel and examiner leave its answers no room (the NumPy-only
# test assignment's reference lost points at 0.25; a TensorFlow kernel holds over 1), a loss for everyone
LEAST_MEMORY_GIB = 0.5
memory_gib = _checked(float, lambda value: LEAST_MEMORY_GIB <= value < math.inf, f"GiB, {LEAST_MEMORY_GIB:g} or more")


def output_file(text):
    """An argparse type: a file to write, in a folder that exists and this process may write in, so
    that a command does not fail at its end, its work done."""
    folder = Path(text).parent
    if not text:
        raise argparse.ArgumentTypeError("a file name, not ''")
    if os.path.isdir(text):  # os.path's, false where a folder cannot be read, never an error
        raise argparse.ArgumentTypeError(f"{text} is a folder, not a file")
    if not os.path.isdir(folder):
        raise argparse.ArgumentTypeError(f"{text}: there is no folder {folder}")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"{text}: the folder {folder} is not writable")
    return text


def course_root(text):
    """An argparse type: a course directory, whose ``source/`` holds an assignment (``directory.assignments``)."""
    if not os.path.isdir(Path(text) / "source"):
        raise argparse.ArgumentTypeError(f"{text} is not a course directory: it holds no source/ folder")
    try:
        held = directory.assignments(text)
    except OSError as error:
        raise argparse.ArgumentTypeError(f"{text}: cannot read its source/ ({error.strerror})") from None
    if not held:
        raise argparse.ArgumentTypeError(f"{text} is not a course directory: its source/ holds no assignment")
    return text


def root_option(parser):
    parser.add_argument(
        "--root",
        type=course_root,
        default=str(directory.REPO),
        help="the course directory, which holds source/ and what the commands write (default %(default)s)",
    )


def course_options(parser):
    root_option(parser)
    parser.add_argument(
        "--db",
        help="the gradebook's SQLAlchemy URL (default: $BDL_GRADEBOOK_URL, else "
        "sqlite:///ROOT/gradebook.db; or postgresql://user@host/db, read as "
        "postgresql+psycopg://, its password from $PGPASSWORD if it names none)",
    )


def db_url(args):
    """The gradebook's URL from ``--db`` and ``--root``, checked before any work (with
    ``--scheduler``, it must be a database server)."""
    url = gradebook.gradebook_url(args.db, args.root)
    if getattr(args, "scheduler", None):
        gradebook.check_shared(url)
    gradebook.check(url)
    return url


def _release(args):
    directory.generate_release(args.root)
    print("release/ regenerated for:", ", ".join(directory.assignments(args.root)))
    return 0


def _validate(args):
    for assignment in args.assignments:
        directory.check_assignment(assignment, args.root)
    problems = lint_course(Path(args.root) / "source") + directory.validate(args.root, only=args.assignments)
    print("\n".join(problems) or "source notebooks pass their tests; releases fail them")
    return 1 if problems else 0


def add_parser(commands):
    release = commands.add_parser("release", help="generate release/ from source/ for every assignment")
    root_option(release)
    release.set_defaults(run=_release)
    validate = commands.add_parser(
        "validate", help="lint source/; source notebooks must pass their tests and release notebooks fail them"
    )
    validate.add_argument("assignments", nargs="*", help="only these (default: every assignment)")
    root_option(validate)
    validate.set_defaults(run=_validate)
