"""``bench``: how long grading takes, on copies of an assignment's reference solution: one submission,
a class against plain serial ``nbgrader autograde``, or (``--compare``) a class graded four ways.

Each runs in a scratch copy of the course (``selfgrade.scratch_course``), so these pseudo-students never
reach the real gradebook or ``submitted/``.
"""

import contextlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from autograder.course.cli import count, positive_int
from autograder.course.directory import REPO, check_assignment, generate_release
from autograder.course.gradebook import default_url, scores
from autograder.grading.host import format_table, grade
from autograder.grading.limits import grading_slots
from autograder.selfgrade import as_submission, hand_in, scratch_course


def bench(assignment, root=REPO):
    """Return (seconds, rows) for autograding the reference solution once."""
    with scratch_course(root) as scratch:
        submission = as_submission(scratch, root, "source", "reference", assignment)
        generate_release(scratch, only=[assignment])
        start = time.perf_counter()
        rows = grade(assignment, [submission], root=scratch, generate=False)
        return time.perf_counter() - start, rows


@contextlib.contextmanager
def _class_of_references(assignment, class_size, root=REPO):
    """Yield a scratch course whose ``submitted/`` holds ``class_size`` copies of the reference solution
    (students ``student00``, ...), its release generated into its SQLite gradebook."""
    with scratch_course(root) as scratch:
        shutil.copyfile(REPO / "nbgrader_config.py", scratch / "nbgrader_config.py")
        with open(scratch / "nbgrader_config.py", "a") as config:  # the unsafe baseline, on copies of the reference
            config.write(
                "\nfrom nbgrader.converters import Autograde\n"
                "c.Autograde.exporter_class = Autograde.class_traits()['exporter_class'].default()\n"
            )
        for number in range(class_size):
            target = scratch / "submitted" / f"student{number:02d}" / assignment
            target.mkdir(parents=True)
            for path in (Path(root) / "source" / assignment).glob("*.ipynb"):
                hand_in(path, target / path.name)
        generate_release(scratch, only=[assignment])
        yield scratch


def _check_full_marks(rows, class_size, what):
    full = [row for row in rows if row["score"] + row["manual"] == row["max_score"]]
    if len(full) != class_size:
        raise RuntimeError(f"{what} did not give the reference full marks: {rows}")


def bench_class(assignment, class_size, workers=None, root=REPO):
    """Time plain serial ``nbgrader autograde`` against ``grade`` on ``class_size`` copies of the
    reference solution; return {"nbgrader": seconds, "autograder": seconds}."""
    seconds = {}
    for tool in ("nbgrader", "autograder"):
        with _class_of_references(assignment, class_size, root) as scratch:
            start = time.perf_counter()
            if tool == "nbgrader":
                subprocess.run(
                    [
                        str(Path(sys.executable).parent / "nbgrader"),
                        "autograde",
                        assignment,
                        "--create",
                        "--force",
                        "--log-level=ERROR",
                    ],
                    cwd=scratch,
                    check=True,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                rows = [
                    row
                    for number in range(class_size)
                    for row in scores(default_url(scratch), scratch, assignment, f"student{number:02d}", "graded")
                ]
            else:
                rows = grade(assignment, [scratch / "submitted"], root=scratch, generate=False, workers=workers)
            seconds[tool] = time.perf_counter() - start
            _check_full_marks(rows, class_size, tool)
    return seconds


# What ``bench --compare`` times: (name, sandbox, Dask workers: 0 for the local pool).
SETUPS = (
    ("local pool, no sandbox", False, 0),
    ("local pool, sandbox", True, 0),
    ("LocalCluster, 1 worker", True, 1),
    ("LocalCluster, 2 workers", True, 2),
)


def bench_compare(assignment, class_size, workers=None, root=REPO, report=None):
    """Grade the same ``class_size`` copies of the reference in each of ``SETUPS``: the local pool of
    ``workers`` with and without the sandbox, and a ``distributed.LocalCluster`` of 1 and 2 worker
    processes (one thread each; started before the clock, as a real cluster is already running).
    Return [(name, seconds)]; ``report(name, seconds)`` hears of each as it ends."""
    from distributed import LocalCluster

    results = []
    for name, sandbox, dask_workers in SETUPS:
        with _class_of_references(assignment, class_size, root) as scratch, contextlib.ExitStack() as stack:
            scheduler = None
            if dask_workers:
                cluster = stack.enter_context(
                    LocalCluster(
                        n_workers=dask_workers,
                        threads_per_worker=1,
                        processes=True,
                        host="127.0.0.1",
                        dashboard_address=":0",
                    )
                )
                scheduler = cluster.scheduler_address
            start = time.perf_counter()
            rows = grade(
                assignment,
                [scratch / "submitted"],
                root=scratch,
                generate=False,
                workers=workers,
                sandbox=sandbox,
                scheduler=scheduler,
            )
            seconds = time.perf_counter() - start
        _check_full_marks(rows, class_size, name)
        results.append((name, seconds))
        if report:
            report(name, seconds)
    return results


def _bench_compare(args):
    """``bench --compare``: one line per setup as it ends, then the sandbox's cost per submission."""
    size, cores = args.class_size, os.cpu_count()
    print(
        f"{size} copies of the {args.assignment} reference on {cores} cores; local pool: {args.workers} "
        f"workers; load average before: {os.getloadavg()[0]:.1f}",
        flush=True,
    )
    print(f"{'setup':<26} {'seconds':>8} {'per minute':>11}", flush=True)

    def report(name, seconds):
        print(
            f"{name:<26} {seconds:8.1f} {60 * size / seconds:11.2f}   (load average now {os.getloadavg()[0]:.1f})",
            flush=True,
        )

    seconds = dict(bench_compare(args.assignment, size, args.workers, report=report))
    extra = seconds["local pool, sandbox"] - seconds["local pool, no sandbox"]
    busy = min(args.workers, size)  # the pool's workers that had a submission to grade
    print(
        f"sandbox overhead: {extra:+.1f} s for the class; {extra * busy / size:+.1f} s of a worker's time "
        f"per submission"
    )
    return 0


def _bench(args):
    check_assignment(args.assignment)
    if args.compare and not args.class_size:
        raise ValueError("bench --compare needs --class-size N")
    if args.compare:
        return _bench_compare(args)
    if args.class_size:
        seconds = bench_class(args.assignment, args.class_size, args.workers)
        for tool, label in (
            ("nbgrader", "nbgrader autograde (serial)"),
            ("autograder", f"autograder grade ({args.workers} workers)"),
        ):
            print(f"{label:<40} {seconds[tool]:7.1f} s  {3600 * args.class_size / seconds[tool]:6.0f} submissions/hour")
    else:
        seconds, rows = bench(args.assignment)
        print(format_table(rows))
        print(f"autograding one submission of {args.assignment}: {seconds:.1f} s")
    return 0


def add_parser(commands):
    bench = commands.add_parser("bench", help="time autograding one reference submission, or a class")
    bench.add_argument("assignment")
    bench.add_argument(
        "--class-size",
        type=count,
        default=0,
        metavar="N",
        help="time N copies of the reference: plain serial nbgrader autograde against grade (default 0: one copy, no class)",
    )
    bench.add_argument(
        "--workers",
        type=positive_int,
        default=grading_slots(),
        help="grade's workers for the class (default: grade's, %(default)s here)",
    )
    bench.add_argument(
        "--compare",
        action="store_true",
        help="grade the N copies four ways, one after the other: the local pool without and "
        "with the sandbox, and a Dask LocalCluster of 1 and 2 workers (needs --class-size)",
    )
    bench.set_defaults(run=_bench)
