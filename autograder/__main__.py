"""``autograder`` (or ``python -m autograder``): the instructor's commands around nbgrader."""

import argparse
import sys
from importlib.metadata import PackageNotFoundError, version

import bdl  # noqa: F401  (first: quiet TensorFlow in any kernel nbgrader starts from here)

# isort: split
from autograder import bench, checktests, selfgrade, similar, studentkit
from autograder.course import cli, deadlines
from autograder.course.directory import name_assignments
from autograder.grading import host
from autograder.hub import bench as hub_bench
from autograder.hub import setup as hub_setup
from autograder.outputs import feedback, guide, report

# Each adds its commands to the parser, each command with the function that runs it (``run``).
COMMAND_MODULES = (cli, host, checktests, report, feedback, guide, selfgrade, bench, studentkit, hub_setup, hub_bench)
COMMAND_MODULES += (deadlines, similar)  # deadline, extension; similar


def course_version():
    try:
        return version("bdl-course")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "(not installed)"


class OneLineParser(argparse.ArgumentParser):
    """argparse's parser, whose refusal is its one line, "autograder grade: error: argument --workers:
    ...", without the usage above it; each command's parser (and the hub's actions') is one too."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def parser():
    parser = OneLineParser(
        prog="autograder",
        description="autograder (or python -m autograder): the instructor's commands around nbgrader.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {course_version()}")
    commands = parser.add_subparsers(dest="command", required=True)
    for module in COMMAND_MODULES:
        module.add_parser(commands)
    return parser


def main(argv=None):
    args = parser().parse_args(argv)
    try:
        name_assignments(args)
        return args.run(args)
    except (ValueError, RuntimeError, OSError) as error:
        print(f"autograder: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
