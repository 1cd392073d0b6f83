"""What the course's commands share on the command line: the course folder and gradebook options, and
the two commands about the course itself, ``release`` and ``validate``."""

from autograder.course import directory, gradebook
from autograder.course.lint import lint_course


def course_options(parser):
    parser.add_argument(
        "--root",
        default=str(directory.REPO),
        help="the course directory holding source/ and the gradebook (default %(default)s)",
    )
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
    directory.generate_release()
    print("release/ regenerated for:", ", ".join(directory.assignments()))
    return 0


def _validate(args):
    for assignment in args.assignments:
        directory.check_assignment(assignment)
    problems = lint_course(directory.REPO / "source") + directory.validate(only=args.assignments)
    print("\n".join(problems) or "source notebooks pass their tests; releases fail them")
    return 1 if problems else 0


def add_parser(commands):
    release = commands.add_parser("release", help="generate release/ from source/ for every assignment")
    release.set_defaults(run=_release)
    validate = commands.add_parser(
        "validate", help="lint source/; source notebooks must pass their tests and release notebooks fail them"
    )
    validate.add_argument("assignments", nargs="*", help="only these (default: every assignment)")
    validate.set_defaults(run=_validate)
