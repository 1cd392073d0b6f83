"""``python -m autograder``: the instructor's commands around nbgrader."""
import argparse
import sys

import bdl  # noqa: F401  (quiet TensorFlow in any kernel nbgrader starts from here)
from autograder import grading
from autograder.lint import lint_course


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m autograder", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("release", help="generate release/ from source/ for every assignment")
    commands.add_parser("validate", help="lint source/; source notebooks must pass their "
                                         "tests and release notebooks fail them")
    grade = commands.add_parser("grade", help="autograde submissions into the gradebook")
    grade.add_argument("assignment")
    grade.add_argument("paths", nargs="+", metavar="PATH",
                       help="a notebook file or an nbgrader submitted/ folder")
    grade.add_argument("--csv", default="grades.csv", help="where to write the scores")
    grade.add_argument("--root", default=str(grading.REPO),
                       help="the course directory holding source/ and the gradebook")
    commands.add_parser("selfgrade", help="grade each reference solution and blank release")
    bench = commands.add_parser("bench", help="time autograding one reference submission")
    bench.add_argument("assignment")
    args = parser.parse_args(argv)
    try:
        return _run(args)
    except (ValueError, RuntimeError, FileNotFoundError) as error:
        print(f"autograder: error: {error}", file=sys.stderr)
        return 2


def _run(args):
    if args.command == "release":
        grading.release()
        print("release/ regenerated for:", ", ".join(grading.assignments()))
    elif args.command == "validate":
        problems = lint_course(grading.REPO / "source") + grading.validate()
        print("\n".join(problems) or "source notebooks pass their tests; releases fail them")
        return 1 if problems else 0
    elif args.command == "grade":
        rows = grading.grade(args.assignment, args.paths, root=args.root, csv_path=args.csv)
        print(grading.format_table(rows))
        print(f"scores written to {args.csv}")
    elif args.command == "selfgrade":
        rows = grading.selfgrade()
        print(grading.format_table(rows))
        # The reference earns every automatic point; its answer cells await an instructor.
        wrong = [row for row in rows if row["status"] != "graded"
                 or (row["submission"] == "reference"
                     and row["score"] + row["manual"] != row["max_score"])
                 or (row["submission"] == "blank" and row["score"] + row["manual"] != 0)]
        for row in wrong:
            print(f"autograder: {row['assignment']}/{row['notebook']}: the {row['submission']} "
                  f"should score {'every automatic point' if row['submission'] == 'reference' else 'zero'}",
                  file=sys.stderr)
        return 1 if wrong else 0
    elif args.command == "bench":
        seconds, rows = grading.bench(args.assignment)
        print(grading.format_table(rows))
        print(f"autograding one submission of {args.assignment}: {seconds:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
