"""``autograder check-tests``: its arguments, and the tables it prints."""

from autograder.checktests.blind import target_problems
from autograder.checktests.checks import check_tests
from autograder.checktests.report import format_blind, format_check_table
from autograder.checktests.variants import MUTANTS_DIR
from autograder.course.cli import positive_int, root_option
from autograder.course.directory import assignments, check_assignment


def _check_tests(args):
    failed = False
    for assignment in args.assignments or assignments(args.root):
        check_assignment(assignment, args.root)
        rows = check_tests(
            assignment,
            args.seeds,
            args.root,
            args.mutants,
            only_blind=args.blind_only,
            every_mutant=args.every_mutant,
            blind_dir=args.blind,
        )
        text = ([] if args.blind_only else [format_check_table(rows)]) + [format_blind(rows)]
        if args.blind_only:
            text += [f"PROBLEM {r.notebook}/{r.function}: {problem}" for r in rows for problem in r.problems]
        missed = target_problems(rows)
        text += [f"PROBLEM {assignment}: {problem}" for problem in missed]
        print(f"== {assignment}\n" + "\n".join(part for part in text if part) + "\n", flush=True)
        failed |= any(row.problems for row in rows) or bool(missed)
    return 1 if failed else 0


def add_parser(commands):
    check = commands.add_parser(
        "check-tests",
        help="run the graded tests against the reference under several seeds and against the kept mutants",
    )
    check.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help="default: every assignment")
    check.add_argument("--seeds", type=positive_int, default=5, help="seeds 0..N-1 (default %(default)d)")
    root_option(check)
    check.add_argument(
        "--mutants",
        default=str(MUTANTS_DIR),
        help="the folder of <assignment>.py variant files (and blind/, the blind catalogue; default %(default)s)",
    )
    check.add_argument(
        "--blind-only",
        action="store_true",
        help="only the blind catalogue and its hints (one run of the notebook, one of the tests per answer)",
    )
    check.add_argument(
        "--blind",
        metavar="FOLDER",
        help="the blind answers in FOLDER/<assignment>.py (and its judged.py) instead of the "
        "catalogue in the mutants folder's blind/: a later round, measured once",
    )
    check.add_argument(
        "--every-mutant",
        action="store_true",
        help="try the other functions' tests with every killed mutant in place, "
        "not only each function's first (two to five times slower)",
    )
    check.set_defaults(run=_check_tests)
