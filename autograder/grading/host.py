"""``grade``, the host's side: collect a class's submissions, send each as a ``GradingTask`` to the
local thread pool or a Dask cluster (``autograder.grading.task``), and record what comes back.

Every submission gets one row per notebook and a status: ``graded`` (with notes for the instructor)
or ``error: <why>`` (scored zero). A submission that holds the source notebook's markers is refused
here, before any of its code runs (``_inspect``). A given cell that failed for the grading environment,
not the student (``autograder.grading.broken``), stops the run in one line and grades no one at zero.
Rows go to ``grading_status/<assignment>.json`` for ``report``, and to a CSV if asked. Only this side
reads and writes the course directory.
"""

import contextlib
import shutil
import sys
import traceback
import uuid
import warnings
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

import nbformat
from sqlalchemy.exc import SAWarning
from tqdm import tqdm

from autograder.course import cells, deadlines, spreadsheet, table
from autograder.course.cli import course_options, db_url, memory_gib, output_file, positive_int, positive_number
from autograder.course.directory import REPO, check_assignment, check_result, make_api, notebook_names
from autograder.course.gradebook import gradebook_url, scores, zero_automatic_grades
from autograder.course.statuses import printable, save_statuses
from autograder.grading import broken
from autograder.grading.collect import NBGRADER_FILES, collect
from autograder.grading.handin import Unreadable, read_handin
from autograder.grading.limits import Limits, grading_slots
from autograder.grading.review import review_notebook
from autograder.grading.task import Graded, GradingTask, grade_task, readable_notebooks
from autograder.worker import bwrap
from autograder.worker.examiner.pool import ExaminerPool

# manual: points in answer cells (derivations, discussion) that await an instructor.
# late: how late it was handed in and what that cost (autograder.course.deadlines).
COLUMNS = ("assignment", "notebook", "student", "score", "max_score", "manual", "late", "status")

# On a Dask cluster: how often a task that raised is run again, and how long to wait for the
# scheduler. (A task whose worker died is run again by the scheduler itself, up to its
# distributed.scheduler.allowed-failures times, 3 by default.)
TASK_RETRIES = 1
SCHEDULER_CONNECT_SECONDS = 20

# nbgrader's gradebook trips this SQLAlchemy warning on every autograde; it is harmless.
warnings.filterwarnings("ignore", category=SAWarning)


def _task(root, assignment, student, db_url, limits, release_notebooks, source_notebooks, sandbox):
    """The ``GradingTask`` of a student's collected submission."""
    submitted = Path(root) / "submitted" / student / assignment
    names = [f"{name}.ipynb" for name in release_notebooks] + list(NBGRADER_FILES)
    files = {name: (submitted / name).read_bytes() for name in names if (submitted / name).is_file()}
    return GradingTask(assignment, student, files, release_notebooks, source_notebooks, db_url, limits, sandbox)


def _inspect(task, provided, tests):
    """Read each of the task's notebooks once (``read_handin``), before any of its code runs; return
    (its refusal, a ``Graded``, or None; notes for the instructor). ``provided``: the release's code
    cells' sources; ``tests``: its test cells' ids (``review_notebook``).

    A submission whose notebooks hold the source notebook's markers (``cells.source_markers``) is
    refused: nbgrader's generate_assignment strips every one of them from the release, so such a
    notebook is the instructor's, or made from it: it is not the student's work, and it is not graded.
    A notebook the host does not read is flagged, and left for nbgrader to report."""
    where, lines, notes = [], [], []
    for name, release_notebook in task.release.items():
        data = task.files.get(f"{name}.ipynb")
        if data is None:
            continue
        try:
            notebook = read_handin(data)
        except Unreadable as error:
            notes.append(f"review: {name}.ipynb not read: {error}")
            continue
        present = set(cells.graded_ids(notebook))
        missing = [i for i in cells.graded_ids(release_notebook) if i not in present]
        if missing:
            notes.append(
                f"missing graded cells: {', '.join(missing[:4])}"
                + (f" and {len(missing) - 4} more" if len(missing) > 4 else "")
            )
        flags = review_notebook(notebook, provided, tests)
        if flags:
            notes.append("review: " + "; ".join(flags))
        markers = cells.source_markers(notebook)
        if not markers:
            continue
        where.append(f"{name}.ipynb: {', '.join(markers)}")
        for index, number, marker in sorted(
            (index, number, marker) for marker, places in markers.items() for index, number in places
        ):
            cell_id = cells.grade_id(notebook.cells[index])
            named = f"cell {index} ({cell_id})" if cell_id else f"cell {index}"
            lines.append(f"{name}.ipynb, {named}, line {number}: {marker}")
    if not where:
        return None, notes
    status = (
        f"error: it holds the source notebook's markers ({'; '.join(where)}), which nbgrader strips "
        "from every release: the instructor's notebook or one made from it, not the student's work; "
        "not graded"
    )
    log = (
        "Not graded, and none of its code ran: it holds markers that only the source notebook holds.\n"
        + "\n".join(lines)
        + "\n"
    )
    return Graded(task.student, status, {}, log), notes


def _inspected(task, provided, tests):
    """``_inspect``, or what stopped it as a flag: one hand-in never stops the run."""
    try:
        return _inspect(task, provided, tests)
    except Exception as error:  # a bug the hand-in found: a person looks
        return None, [f"review: could not run: {type(error).__name__}: {str(error)[:200]}"]


def _connect(scheduler):
    """A Dask client of the cluster at ``scheduler``; ValueError in one line if it cannot be reached."""
    from distributed import Client

    try:
        return Client(scheduler, timeout=SCHEDULER_CONNECT_SECONDS, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as error:
        reason = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise ValueError(f"cannot reach the Dask scheduler {scheduler}: {reason}") from None


def _outcome(future):
    """A finished future's ``Graded``, or the exception that stopped its task."""
    try:
        return future.result()
    except Exception as error:  # a bug, or every Dask worker that ran it died
        return error


def _run(tasks, workers, client):
    """Grade every task, ``workers`` at a time in local threads, or on the Dask cluster of
    ``client``; yield (task, ``Graded`` or an exception) as each finishes."""
    if client is not None:
        from distributed import as_completed as finished

        futures = {
            client.submit(
                grade_task,
                task,
                retries=TASK_RETRIES,
                key=f"grade-{task.assignment}-{task.student}-{uuid.uuid4().hex[:8]}",
            ): task
            for task in tasks
        }
        try:
            for future in finished(futures, loop=client.loop):
                task, outcome = futures.pop(future), _outcome(future)
                future.release()  # its result is home: a worker that dies later has nothing of it to redo
                yield task, outcome
        finally:  # a run stopped early grades no more
            if futures:
                client.cancel(list(futures))
        return
    examiners = ExaminerPool()
    try:
        with ThreadPoolExecutor(max_workers=max(1, workers or grading_slots())) as threads:
            futures = {threads.submit(grade_task, task, examiners): task for task in tasks}
            try:
                for future in as_completed(futures):
                    yield futures[future], _outcome(future)
            finally:  # a run stopped early grades no more
                threads.shutdown(cancel_futures=True)
    finally:
        examiners.stop()


def _failure(error):
    """Why a task ended in an exception, in one line."""
    if type(error).__name__ == "KilledWorker":  # distributed's: its workers died while grading it
        last = getattr(error.last_worker, "address", "?")
        return (
            f"the Dask worker grading it died, each of the {error.allowed_failures + 1} times it was "
            f"tried (KilledWorker; the last was {last})"
        )
    reason = (str(error).strip().splitlines() or [""])[0][:200]
    return f"grading stopped: {type(error).__name__}: {reason}".rstrip(": ")


def _record(root, task, outcome):
    """Write what came of a task into the course: its autograded folder, and zero in the gradebook
    when it failed (so nothing half-graded is left; a submission that nbgrader never reached, refused
    or stopped before grading, is added to it, at zero); return its status."""
    if isinstance(outcome, BaseException):
        outcome = Graded(task.student, "error: " + _failure(outcome), {}, "".join(traceback.format_exception(outcome)))
    log = log_path(root, task.assignment, task.student)
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(printable(outcome.log, keep="\n\t"))
    target = Path(root) / "autograded" / task.student / task.assignment
    shutil.rmtree(target, ignore_errors=True)
    for name, data in outcome.autograded.items():
        path = target / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    if outcome.status.startswith("error"):
        zero_automatic_grades(task.db_url, task.assignment, task.student, create=True)
        return f"{outcome.status} (log: {log.relative_to(root)})"
    return outcome.status


def _recorded(root, task, outcome):
    """``_record``; if writing it fails (the course's disk, a file name), that submission's status says
    why, at zero, and the run goes on."""
    try:
        return _record(root, task, outcome)
    except Exception as error:
        reason = f"error: its outcome could not be recorded: {type(error).__name__}: {str(error)[:200]}"
        try:
            zero_automatic_grades(task.db_url, task.assignment, task.student, create=True)
        except Exception as again:
            reason += f"; nor its grades set to zero: {type(again).__name__}"
        return reason


def log_path(root, assignment, student):
    """Where the full log of a student's grading is kept for the instructor."""
    return Path(root) / "grading_status" / assignment / f"{student}.log"


def grade(
    assignment,
    paths,
    root=REPO,
    csv_path=None,
    generate=True,
    db_url=None,
    limits=None,
    workers=None,
    replace=False,
    progress=False,
    sandbox=True,
    scheduler=None,
):
    """Collect and autograde every submission in ``paths``; return one row per notebook.

    Submissions are graded ``workers`` at a time (default: the machine's
    cores), or one Dask task each on the cluster whose scheduler is at
    ``scheduler`` (``tcp://host:8786``; its workers must reach the gradebook
    at ``db_url``: the command line refuses SQLite there). Each is graded in
    isolation within ``limits`` (see ``autograder.grading.limits``).
    A submission nbgrader cannot grade, or that breaks a limit, scores zero
    with the reason in ``status``, and so does one that holds the source
    notebook's markers (refused before any of its code runs); the others are
    still graded. Kernels run under bubblewrap unless ``sandbox`` is False
    (then every status says so). A grading environment that fails a given cell
    (``autograder.grading.broken``) stops the run: ValueError, in one line, after
    the statuses of the hand-ins it cost say so, and no CSV.
    """
    check_assignment(assignment, root)
    reason = bwrap.unusable() if sandbox and not scheduler else None
    if reason:
        raise ValueError(reason)
    limits = limits or Limits()
    db_url = gradebook_url(db_url, root)
    policy = deadlines.read_policy(root, assignment)  # a bad policy file stops the run before it grades
    with _connect(scheduler) if scheduler else contextlib.nullcontext() as client:
        names = notebook_names(root, assignment)
        late_time = deadlines.marked_late_time(db_url, assignment)
        collected = collect(root, assignment, names, paths, replace=replace, late_time=late_time)
        if generate:  # nbgrader grades against the gradebook's copy of the source notebook
            api = make_api(root, {"CourseDirectory": {"db_url": db_url}})
            check_result(
                api.generate_assignment(assignment, force=True, create=True),
                f"nbgrader generate_assignment {assignment}",
            )
        release_notebooks = {
            name: nbformat.read(Path(root) / "release" / assignment / f"{name}.ipynb", 4) for name in names
        }
        source_notebooks = readable_notebooks(sorted((Path(root) / "source" / assignment).glob("*.ipynb")))
        tasks = [
            _task(root, assignment, item.student, db_url, limits, release_notebooks, source_notebooks, sandbox)
            for item in collected
            if not item.error
        ]
        provided = tuple(
            cell.source for nb in release_notebooks.values() for cell in nb.cells if cell.cell_type == "code"
        )
        tests = frozenset(
            cell.get("id") for nb in release_notebooks.values() for cell in nb.cells if cells.is_test(cell)
        )
        statuses, inspected = {}, {task.student: _inspected(task, provided, tests) for task in tasks}
        for task in tasks:
            if inspected[task.student][0]:
                statuses[task.student] = _recorded(root, task, inspected[task.student][0])
        tasks = [task for task in tasks if not inspected[task.student][0]]
        answers, failures = broken.answer_names(source_notebooks), {}
        with (
            tqdm(
                total=len(tasks), desc=f"grading {assignment}", unit="submission", disable=not progress, file=sys.stderr
            ) as bar,
            contextlib.closing(_run(tasks, workers, client)) as outcomes,
        ):
            for task, outcome in outcomes:
                statuses[task.student] = _recorded(root, task, outcome)
                bar.update()
                if statuses[task.student].startswith("graded"):
                    failures[task.student] = broken.hand_in_failure(outcome.autograded, release_notebooks, answers)
                    if failures[task.student] and failures[task.student].first:
                        break  # the environment's fault: no one else is graded in it
        fault = broken.environment_fault(failures, release_notebooks)
        if fault:
            fault = _not_graded(root, fault, tasks, statuses, db_url)
        deadlines.apply(db_url, root, assignment, policy)
    rows = []
    for item in collected:
        if item.error:
            rows.extend(_error_rows(assignment, names, item.student, f"error: {item.error}"))
            continue
        extra = [f"ignored extra files: {', '.join(item.extra_files)}"] if item.extra_files else []
        extra += [f"{item.lms} marked it LATE"] if item.late else []
        status = printable("; ".join([statuses[item.student]] + extra + inspected[item.student][1]))
        try:
            rows.extend(scores(db_url, root, assignment, item.student, status))
        except Exception as error:  # the gradebook has no row for it: its row says why
            rows.extend(
                _error_rows(
                    assignment,
                    names,
                    item.student,
                    f"error: its scores could not be read: {type(error).__name__}: {error}",
                )
            )
    save_statuses(root, assignment, rows)
    if fault:
        raise ValueError(fault)
    if csv_path:
        write_csv(rows, csv_path)
    return rows


def _not_graded(root, fault, tasks, statuses, db_url):
    """Each hand-in the broken environment cost (``fault``: the cause, the students), and each the run
    stopped before, an error row that says so: no score or autograded notebook of that run stands (its log
    does). Returns the line ``grade`` stops with."""
    cause, students = fault
    left = [task for task in tasks if task.student in students or task.student not in statuses]
    for task in left:
        if task.student in statuses:
            shutil.rmtree(Path(root) / "autograded" / task.student / task.assignment, ignore_errors=True)
            zero_automatic_grades(db_url, task.assignment, task.student)
        statuses[task.student] = f"error: not graded, the grading environment is broken: {cause}"
    return (
        f"grading stopped: the grading environment is broken, not the hand-ins: {cause}; "
        f"{len(left)} of {len(tasks)} hand-ins not graded (their status says so): mend it and grade again"
    )


def _error_rows(assignment, names, student, status):
    """The row of a submission that has no scores: zero, and ``status`` (made printable)."""
    return [
        {
            "assignment": assignment,
            "notebook": name,
            "student": student,
            "score": 0.0,
            "max_score": 0.0,
            "manual": 0.0,
            "late": "",
            "status": printable(status),
        }
        for name in names[:1]
    ]


def write_csv(rows, path):
    with open(path, "w", newline="") as handle:
        writer = spreadsheet.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)


def format_table(rows):
    """Return the rows as an aligned text table."""
    return table.format_table(
        COLUMNS,
        [
            (
                r["assignment"],
                r["notebook"],
                r["student"],
                f"{r['score']:g}",
                f"{r['max_score']:g}",
                f"{r['manual']:g}",
                r["late"],
                r["status"],
            )
            for r in rows
        ],
    )


def _grade(args):
    limits = Limits(
        submission_timeout=args.submission_timeout,
        memory_bytes=int(args.memory * 2**30),
        cell_timeout=args.cell_timeout,
    )
    rows = grade(
        args.assignment,
        args.paths,
        root=args.root,
        csv_path=args.csv,
        db_url=db_url(args),
        limits=limits,
        workers=args.workers,
        replace=args.replace,
        progress=True,
        sandbox=not args.no_sandbox,
        scheduler=args.scheduler,
    )
    print(format_table(rows))
    print(f"scores written to {args.csv}")
    return 0


def add_parser(commands):
    limits, slots = Limits(), grading_slots()
    grade = commands.add_parser("grade", help="collect and autograde submissions into the gradebook")
    grade.add_argument("assignment")
    grade.add_argument(
        "paths",
        nargs="+",
        metavar="INPUT",
        help="a notebook file, an nbgrader submitted/ tree, a folder of <student>.ipynb files, a Canvas or Moodle "
        "download (ids in ROOT/lms_students.csv), or a zip of them",
    )
    grade.add_argument(
        "--csv", type=output_file, default="grades.csv", help="where to write the scores (default %(default)s)"
    )
    course_options(grade)
    grade.add_argument(
        "--workers",
        type=positive_int,
        default=slots,
        help="submissions graded at once (default: one per core this process may use, no more "
        "than its cgroup's memory holds at 2 GiB each: %(default)s here)",
    )
    grade.add_argument(
        "--submission-timeout",
        "--timeout",
        type=positive_number,
        default=limits.submission_timeout,
        help="wall-clock seconds one submission may take (default %(default)g; --timeout is the old name)",
    )
    grade.add_argument(
        "--cell-timeout",
        type=positive_int,
        default=limits.cell_timeout,
        help="seconds one cell may run before it is interrupted (default %(default)d)",
    )
    grade.add_argument(
        "--memory",
        type=memory_gib,
        default=limits.memory_bytes / 2**30,
        help="GiB one submission may use, kernel included (default %(default)g)",
    )
    grade.add_argument(
        "--replace",
        action="store_true",
        help="grade a student's new submission over a different collected one "
        "(the old one is kept in submitted_replaced/)",
    )
    grade.add_argument(
        "--no-sandbox",
        action="store_true",
        help="run kernels without bubblewrap (where it cannot be installed): "
        "student code can then read and write the course; every status says so",
    )
    grade.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="grade on a Dask cluster, one task per submission: its scheduler's address "
        "(tcp://host:8786); needs a shared gradebook (--db postgresql://...), and "
        "--workers is then the cluster's",
    )
    grade.set_defaults(run=_grade)
