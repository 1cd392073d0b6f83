"""``python -m autograder``: the instructor's commands around nbgrader."""
import argparse
import os
import sys
from pathlib import Path

import bdl  # noqa: F401  (quiet TensorFlow in any kernel nbgrader starts from here)
from autograder.hub import bench as benchhub
from autograder import checktests
from autograder.course import directory as course
from autograder.outputs import feedback
from autograder.course import gradebook
from autograder.grading import host as grading
from autograder.outputs import guide
from autograder.hub import setup as hub
from autograder.outputs import items
from autograder.outputs import report
from autograder import selfgrade
from autograder import studentkit
from autograder.course.lint import lint_course
from autograder.grading.limits import Limits


def _release(args):
    course.generate_release()
    print("release/ regenerated for:", ", ".join(course.assignments()))
    return 0


def _validate(args):
    for assignment in args.assignments:
        course.check_assignment(assignment)
    problems = lint_course(course.REPO / "source") + course.validate(only=args.assignments)
    print("\n".join(problems) or "source notebooks pass their tests; releases fail them")
    return 1 if problems else 0


def _db(args):
    """The gradebook's URL from ``--db`` and ``--root``, checked before any work (with
    ``--scheduler``, it must be a database server)."""
    url = gradebook.gradebook_url(args.db, args.root)
    if getattr(args, "scheduler", None):
        gradebook.check_shared(url)
    gradebook.check(url)
    return url


def _grade(args):
    limits = Limits(submission_timeout=args.submission_timeout, memory_bytes=int(args.memory * 2**30),
                    cell_timeout=args.cell_timeout)
    rows = grading.grade(args.assignment, args.paths, root=args.root, csv_path=args.csv, db_url=_db(args),
                         limits=limits, workers=args.workers, replace=args.replace, progress=True,
                         sandbox=not args.no_sandbox, scheduler=args.scheduler)
    print(grading.format_table(rows))
    print(f"scores written to {args.csv}")
    return 0


def _check_tests(args):
    failed = False
    for assignment in args.assignments or course.assignments(args.root):
        course.check_assignment(assignment, args.root)
        rows = checktests.check_tests(assignment, args.seeds, args.root, args.mutants)
        print(f"== {assignment}\n{checktests.format_check_table(rows)}\n", flush=True)
        failed |= any(row["problems"] for row in rows)
    return 1 if failed else 0


def _report(args):
    written = report.write_report(Path(args.root), args.assignment, _db(args), args.out, args.csv, args.png,
                                  args.students, args.canvas_assignment_id, args.lms_item)
    print(items.format_items(written.items) + "\n")
    for note in written.notes:
        print(f"note: {note}")
    print(f"{written.submissions} submissions:")
    print("\n".join(f"  {what:<12} {path}" for what, path in written.files.items()))
    return 0


def _feedback(args):
    written, problems = feedback.write_feedback(args.root, args.assignment, _db(args))
    print("\n".join(written + problems) or "no graded submissions")
    print(f"{len(written)} feedback files written")
    return 1 if problems else 0


def _guide(args):
    written = guide.write_guides(args.root, args.assignments, args.out)
    print("\n".join(str(path) for path in written))
    print(f"{len(written)} grading guides written (instructors only: they hold model answers and rubrics)")
    return 0


def _selfgrade(args):
    rows = selfgrade.selfgrade()
    print(grading.format_table(rows))
    problems = selfgrade.selfgrade_problems(rows)
    for problem in problems:
        print(f"autograder: {problem}", file=sys.stderr)
    return 1 if problems else 0


def _bench_compare(args):
    """``bench --compare``: one line per setup as it ends, then the sandbox's cost per submission."""
    size, cores = args.class_size, os.cpu_count()
    print(f"{size} copies of the {args.assignment} reference on {cores} cores; local pool: {args.workers} "
          f"workers; load average before: {os.getloadavg()[0]:.1f}", flush=True)
    print(f"{'setup':<26} {'seconds':>8} {'per minute':>11}", flush=True)

    def report(name, seconds):
        print(f"{name:<26} {seconds:8.1f} {60 * size / seconds:11.2f}   "
              f"(load average now {os.getloadavg()[0]:.1f})", flush=True)

    seconds = dict(selfgrade.bench_compare(args.assignment, size, args.workers, report=report))
    extra = seconds["local pool, sandbox"] - seconds["local pool, no sandbox"]
    busy = min(args.workers, size)  # the pool's workers that had a submission to grade
    print(f"sandbox overhead: {extra:+.1f} s for the class; {extra * busy / size:+.1f} s of a worker's time "
          f"per submission")
    return 0


def _bench(args):
    course.check_assignment(args.assignment)
    if args.compare and not args.class_size:
        raise ValueError("bench --compare needs --class-size N")
    if args.compare:
        return _bench_compare(args)
    if args.class_size:
        seconds = selfgrade.bench_class(args.assignment, args.class_size, args.workers)
        for tool, label in (("nbgrader", "nbgrader autograde (serial)"),
                            ("autograder", f"autograder grade ({args.workers} workers)")):
            print(f"{label:<40} {seconds[tool]:7.1f} s  "
                  f"{3600 * args.class_size / seconds[tool]:6.0f} submissions/hour")
    else:
        seconds, rows = selfgrade.bench(args.assignment)
        print(grading.format_table(rows))
        print(f"autograding one submission of {args.assignment}: {seconds:.1f} s")
    return 0


def _student_kit(args):
    folder, zip_path = studentkit.build_kit(args.out, args.root, args.through)
    files = studentkit.kit_files(folder)
    print(f"student kit: {folder} ({len(files)} files) and {zip_path} "
          f"({zip_path.stat().st_size / 2**20:.1f} MiB)")
    # a kit without --through hands out every answer a later release gives: say so where it is made
    held = sorted({name.split("/")[1] for name in files if name.startswith("release/")})
    print(f"assignments: {', '.join(held)}" + ("" if args.through else
          " (the whole course; --through NN makes the kit to hand out when NN is released)"))
    return 0


def _course_options(parser):
    parser.add_argument("--root", default=str(course.REPO),
                        help="the course directory holding source/ and the gradebook")
    parser.add_argument("--db", help="the gradebook's SQLAlchemy URL "
                                     "(default: sqlite:///ROOT/gradebook.db; or postgresql://user@host/db, "
                                     "read as postgresql+psycopg://)")


def _parser():
    parser = argparse.ArgumentParser(prog="python -m autograder", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("release", help="generate release/ from source/ for every assignment")
    validate = commands.add_parser("validate", help="lint source/; source notebooks must pass their "
                                                    "tests and release notebooks fail them")
    validate.add_argument("assignments", nargs="*", help="only these (default: every assignment)")
    limits, cores = Limits(), os.cpu_count() or 1
    grade = commands.add_parser("grade", help="collect and autograde submissions into the gradebook")
    grade.add_argument("assignment")
    grade.add_argument("paths", nargs="+", metavar="INPUT",
                       help="a notebook file, an nbgrader submitted/ tree, a folder of "
                            "<student>.ipynb files, or a zip of them")
    grade.add_argument("--csv", default="grades.csv", help="where to write the scores")
    _course_options(grade)
    grade.add_argument("--workers", type=int, default=cores,
                       help="submissions graded at once (default: the machine's cores, %(default)s)")
    grade.add_argument("--submission-timeout", "--timeout", type=float, default=limits.submission_timeout,
                       help="wall-clock seconds one submission may take (default %(default)g; "
                            "--timeout is the old name)")
    grade.add_argument("--cell-timeout", type=int, default=limits.cell_timeout,
                       help="seconds one cell may run before it is interrupted (default %(default)d)")
    grade.add_argument("--memory", type=float, default=limits.memory_bytes / 2**30,
                       help="GiB one submission may use, kernel included (default %(default)g)")
    grade.add_argument("--replace", action="store_true",
                       help="grade a student's new submission over a different collected one "
                            "(the old one is kept in submitted_replaced/)")
    grade.add_argument("--no-sandbox", action="store_true",
                       help="run kernels without bubblewrap (where it cannot be installed): "
                            "student code can then read and write the course; every status says so")
    grade.add_argument("--scheduler", metavar="ADDRESS",
                       help="grade on a Dask cluster, one task per submission: its scheduler's address "
                            "(tcp://host:8786); needs a shared gradebook (--db postgresql://...), and "
                            "--workers is then the cluster's")
    check = commands.add_parser("check-tests", help="run the graded tests against the reference "
                                "under several seeds and against the kept mutants")
    check.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help="default: every assignment")
    check.add_argument("--seeds", type=int, default=5, help="seeds 0..N-1 (default %(default)d)")
    check.add_argument("--root", default=str(course.REPO), help="the course directory")
    check.add_argument("--mutants", default=str(checktests.MUTANTS_DIR),
                       help="the folder of <assignment>.py variant files")
    report_cmd = commands.add_parser("report", help="from the gradebook: the scores (CSV, histogram), the "
                                     "item analysis (CSV, figure) and the totals for Canvas and Moodle")
    report_cmd.add_argument("assignment")
    report_cmd.add_argument("--out", help="the folder of every output (default: ROOT/reports)")
    report_cmd.add_argument("--csv", help="the scores CSV (default: OUT/<assignment>.csv)")
    report_cmd.add_argument("--png", help="the score histogram (default: OUT/<assignment>_scores.png)")
    report_cmd.add_argument("--students", metavar="CSV",
                            help="student-id mapping: nbgrader_id and any of name, first_name, last_name, "
                                 "canvas_id, sis_user_id, sis_login_id, section, email, id_number")
    report_cmd.add_argument("--canvas-assignment-id", metavar="ID",
                            help="the assignment's id in Canvas: its column becomes '<name> (<ID>)'")
    report_cmd.add_argument("--lms-item", metavar="NAME",
                            help="the assignment's name in the LMS (default: the assignment id)")
    _course_options(report_cmd)
    feedback_cmd = commands.add_parser("feedback", help="write nbgrader's HTML feedback for every student")
    feedback_cmd.add_argument("assignment")
    _course_options(feedback_cmd)
    guide_cmd = commands.add_parser("guide", help="write the grading guide: per assignment an HTML page "
                                    "with each hand-graded cell's question, points, rubric and model answer")
    guide_cmd.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help="default: every assignment")
    guide_cmd.add_argument("--out", help="the folder of the pages (default: ROOT/guides)")
    guide_cmd.add_argument("--root", default=str(course.REPO), help="the course directory")
    commands.add_parser("selfgrade", help="grade each reference solution and blank release")
    bench = commands.add_parser("bench", help="time autograding one reference submission, or a class")
    bench.add_argument("assignment")
    bench.add_argument("--class-size", type=int, default=0, metavar="N",
                       help="time N copies of the reference: plain serial `nbgrader autograde` "
                            "against `grade`")
    bench.add_argument("--workers", type=int, default=cores)
    bench.add_argument("--compare", action="store_true",
                       help="grade the N copies four ways, one after the other: the local pool without and "
                            "with the sandbox, and a Dask LocalCluster of 1 and 2 workers (needs --class-size)")
    kit = commands.add_parser("student-kit", help="write what students get (release notebooks, bdl, "
                              "data recipe, pinned install files, companions) to OUT and OUT.zip")
    kit.add_argument("out", metavar="OUT", help="the kit's folder; replaced if it is an earlier kit")
    kit.add_argument("--root", default=str(course.REPO), help="the course directory")
    kit.add_argument("--through", metavar="NN", help="only the assignments up to NN (say 02) and the "
                     "lecture companions scheduled for them: what students get when NN is released")
    hub.add_parser(commands)
    benchhub.add_parser(commands)
    return parser


def _hub(args):
    return hub.main(args)


COMMANDS = {"release": _release, "validate": _validate, "grade": _grade, "check-tests": _check_tests,
            "report": _report, "feedback": _feedback, "guide": _guide, "selfgrade": _selfgrade, "bench": _bench,
            "student-kit": _student_kit, "hub": _hub, "bench-hub": benchhub.main}


def main(argv=None):
    args = _parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except (ValueError, RuntimeError, OSError) as error:
        print(f"autograder: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
