"""The task that grades one submission: ``grade_task`` takes a ``GradingTask`` (the submission as
data) and returns a ``Graded``, in a scratch folder of its own. A thread of the local pool and a Dask
worker on another machine run this same function on the same task; it never reads the course
directory, and writes only its scratch folder and the gradebook.

A cell that kills the kernel, or is killed at a limit, costs only itself: the submission is graded
again with that cell left out, so only it and the cells that need its names score zero. When the
cell is a graded function's test cell, the function is charged too: in the next run every call of
it raises at once (``autograder.worker.guard``), so it costs its own points however many later cells
call it, and one more run, not one per cell.
"""

from __future__ import annotations

import shutil
import socket
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbformat import NotebookNode

from autograder.course import cells
from autograder.course.leaks import graded_names
from autograder.grading.collect import NBGRADER_FILES
from autograder.grading.limits import Limits, run_isolated
from autograder.grading.repair import repair_notebook
from autograder.grading.scratch import scratch_folder
from autograder.worker import bwrap
from autograder.worker.examiner.pool import ExaminerPool
from autograder.worker.guard import cell_key
from autograder.worker.job import GradingJob, WorkerResult

NO_SANDBOX = "WARNING: graded without the sandbox (--no-sandbox): its code could read and write the course"


def _graded_cell(key: str, notebooks: list[NotebookNode]) -> NotebookNode | None:
    """The graded cell of ``notebooks`` whose ``cell_key`` is ``key``, or None."""
    return next(
        (
            cell
            for notebook in notebooks
            for cell in notebook.cells
            if cells.grade_id(cell) and cell_key(cell.source) == key
        ),
        None,
    )


def _cell_name(key: str, notebooks: list[NotebookNode]) -> str:
    """A crashed cell, for the instructor: its grade_id if it is graded, else its first line."""
    cell = _graded_cell(key, notebooks)
    if cell is not None:
        return str(cells.grade_id(cell))  # a graded cell has one
    code = next(
        (
            cell.source
            for notebook in notebooks
            for cell in notebook.cells
            if cell.cell_type == "code" and cell_key(cell.source) == key
        ),
        "",
    )
    first = next((line.strip() for line in code.splitlines() if line.strip()), "")
    return f"`{first[:60]}`" if first else "of an unknown cell"


def _charged_names(key: str, notebooks: list[NotebookNode], source: list[NotebookNode]) -> list[str]:
    """The graded names a crash in the cell ``key`` names is charged to: those of the answer it
    tests, as the source notebooks define them (not a student's extra helpers), if it is a test cell."""
    cell = _graded_cell(key, notebooks)
    if cell is None or not cells.is_test(cell):
        return []
    answer = cells.answer_id(cells.grade_id(cell))
    return sorted(
        {
            name
            for notebook in source
            for graded in notebook.cells
            if cells.grade_id(graded) == answer and graded.cell_type == "code"
            for name in graded_names(graded.source)
        }
    )


@dataclass
class GradingTask:
    """One submission to grade, as data: everything grading needs, wherever it runs."""

    assignment: str
    student: str
    files: dict[str, bytes]  # the submitted notebooks and nbgrader's own files, by file name
    release: dict[str, NotebookNode]  # the release notebooks, by name: what the metadata repair puts back
    source: list[NotebookNode]  # the source notebooks: they name a crashed test cell
    db_url: str  # the gradebook
    limits: Limits
    sandbox: bool  # run the kernel under bubblewrap


@dataclass
class Graded:
    """What grading a task gave: its status and the autograded folder's files."""

    student: str
    status: str  # "graded[; notes]" or "error: why[; notes]"
    autograded: dict[str, bytes]  # by path inside autograded/<student>/<assignment>/
    log: str = ""  # nbgrader's log and the worker's and kernel's stderr, every grading run


# A Dask worker's: its threads grade task after task, as long as the worker runs.
DASK_WORKER_POOL = ExaminerPool()


def _grade_crash_safe(
    job: GradingJob,
    limits: Limits,
    submitted: list[NotebookNode],
    source: list[NotebookNode],
    pool: ExaminerPool,
) -> tuple[WorkerResult, list[str]]:
    """Run the worker; while a cell crashes the kernel, grade again without it (and, for a test
    cell, with its function standing in as one that raises).

    Every run leaves out one more cell, so a submission of N code cells needs at most N + 1 runs;
    and a new run starts only within the submission's wall-clock limit, so all of them together
    take less than twice that. Returns (WorkerResult, [what was left out and why]); the result's log
    holds every attempt's. The notebooks (``submitted``'s, then ``source``'s) name the cells, and
    ``source``'s the graded functions. The examiner is the calling slot's, of ``pool``.
    """
    left_out: list[str] = []
    logs: list[str] = []
    start = time.monotonic()
    notebooks = submitted + source
    code_cells = sum(cell.cell_type == "code" for notebook in submitted for cell in notebook.cells)
    progress = Path(job.progress)
    progress.parent.mkdir(parents=True, exist_ok=True)
    while True:
        progress.unlink(missing_ok=True)
        # Each run's kernel starts from an empty shared folder: nothing a crashed run left there
        # (a file, a link, its sockets) reaches the next.
        job.kernel_io = str(Path(job.scratch) / f"kernel-{len(logs) + 1}")
        Path(job.kernel_io).mkdir()
        examiner = pool.examiner(job.sandbox)
        job.examiner_fds = examiner.fds()
        result = run_isolated(job, limits, examiner.process.pid if examiner.process else None)
        shutil.rmtree(job.kernel_io, ignore_errors=True)  # never follows the kernel's links
        if not result.examiner_clean:  # the worker stopped while it waited for an answer
            examiner.stop()
            result.log += f"\n\n--- the examiner's stderr ---\n{examiner.log()}"
        logs.append(f"=== grading run {len(logs) + 1} ({'graded' if result.success else result.error})\n{result.log}")
        result.log = "\n\n".join(logs)
        if result.success or not result.crashed or not progress.exists():
            return result, left_out
        key = progress.read_text(errors="replace")[:100]  # written by the worker alone: a cell's key
        if key in job.skip or len(job.skip) >= code_cells or time.monotonic() - start > limits.submission_timeout:
            return result, left_out
        job.skip = (*job.skip, key)
        note = f"graded again without cell {_cell_name(key, notebooks)} ({result.error})"
        charged = [name for name in _charged_names(key, notebooks, source) if name not in job.crashed]
        if charged:
            job.crashed = (*job.crashed, *charged)
            note += f", and every later call of {', '.join(charged)} raised an error instead of running"
        left_out.append(note)


def grade_task(task: GradingTask, pool: ExaminerPool = DASK_WORKER_POOL) -> Graded:
    """Autograde one submission (a ``GradingTask``) in isolation in a scratch folder, with the calling
    slot's examiner of ``pool``; return a ``Graded``. It writes only there and into the gradebook, so
    it runs alike in the local pool and on a Dask worker on another machine."""
    reason = bwrap.unusable() if task.sandbox else None
    if reason:
        return Graded(task.student, f"error: on {socket.gethostname()}: {reason}", {})
    with scratch_folder("bdl-grade-") as scratch:
        target = Path(scratch) / "submitted" / task.student / task.assignment
        target.mkdir(parents=True)
        repaired = 0
        # Only the notebooks and nbgrader's own files: nothing else the student handed in.
        for name, release_notebook in task.release.items():
            if f"{name}.ipynb" in task.files:
                text, count = repair_notebook(task.files[f"{name}.ipynb"].decode(errors="replace"), release_notebook)
                (target / f"{name}.ipynb").write_text(text)
                repaired += count
        for name in NBGRADER_FILES:
            if name in task.files:
                (target / name).write_bytes(task.files[name])
        job = GradingJob(
            scratch=scratch,
            assignment=task.assignment,
            student=task.student,
            db_url=task.db_url,
            cell_timeout=task.limits.cell_timeout,
            progress=str(Path(scratch) / "worker" / "progress"),
            sandbox=task.sandbox,
        )
        result, left_out = _grade_crash_safe(
            job, task.limits, readable_notebooks(target.glob("*.ipynb")), task.source, pool
        )
        graded = Path(scratch) / "autograded" / task.student / task.assignment
        autograded = {
            str(path.relative_to(graded)): path.read_bytes()
            for path in sorted(graded.rglob("*"))
            if path.is_file() and not path.is_symlink()
        }
    notes = left_out + ([f"repaired the nbgrader metadata of {repaired} cells"] if repaired else [])
    if not task.sandbox:
        notes.append(NO_SANDBOX)
    status = "graded" if result.success else "error: " + result.error
    return Graded(task.student, "; ".join([status] + notes), autograded, result.log)


def readable_notebooks(paths: Iterable[Path]) -> list[NotebookNode]:
    """The notebooks of ``paths`` that nbformat reads (nbgrader reports the others)."""
    notebooks = []
    for path in paths:
        try:
            notebooks.append(nbformat.read(path, 4))
        except Exception:  # nbgrader reports a file it cannot read
            pass
    return notebooks
