"""The grading worker: ``python -m autograder.worker`` autogrades one submission.

It reads a ``GradingJob`` on stdin and writes a ``WorkerResult`` to the inherited file the job
names (``autograder.worker.job``), grading with nbgrader's ``autograde`` in a scratch course
folder that holds only this submission: no ``source/``, no other student. The kernel runs under
bubblewrap with the guard installed; the test cells go to the examiner. When its stdin ends, whoever
started it has died, and it stops at once with all it started.
"""

import json
import os
import re
import signal
import sys
import threading
from pathlib import Path

import psutil
from nbconvert.exporters import NotebookExporter
from nbformat import NotebookNode
from nbformat.v4 import new_output
from nbgrader.converters import Autograde
from nbgrader.preprocessors import NbGraderPreprocessor

from autograder.course import cells
from autograder.course.directory import KERNEL_LOG_LEVEL, make_api
from autograder.worker import bwrap
from autograder.worker.examiner.pool import LentExaminer
from autograder.worker.examiner.relay import examining
from autograder.worker.guard import CRASHED_ENV, GUARD, SKIP_ENV
from autograder.worker.job import MAX_LOG, GradingJob, WorkerResult

# A fork bomb stops at this many processes more than the user already runs.
MAX_NEW_PROCESSES = 512
# The output the autograded copy keeps of a student's cells, in bytes of JSON (grading mode's
# figures are tens of kilobytes each; collect refuses a hand-in of 100 MB).
MAX_CELL_OUTPUT = 8 * 2**20
MAX_NOTEBOOK_OUTPUT = 32 * 2**20
DEAD_KERNEL = "DeadKernelError"
# What nbgrader's log says, and what the instructor is told.
NBGRADER_LOG_ERRORS = (
    (DEAD_KERNEL, "the kernel died (the submission crashed or exited it)"),
    ("NotJSONError", "not a notebook (the file is not JSON)"),
    ("NBFormatError", "not a valid notebook"),
    ("metadata may be corrupted", "the nbgrader metadata is corrupted beyond repair"),
    ("No notebooks found", "no notebook of this assignment in the submission"),
)
# Why nbformat did not read a file that is JSON (``{}``: "... missing a key: cells"), where nbgrader's own
# line says only "There was an error processing assignment": the error its reader raised (a validation
# error's message alone), read only where the traceback went through that reader.
NOT_A_NOTEBOOK = re.compile(r"^\s+(?:[\w.]*\.)?(\w+(?:Error|Exception)): (.+)$", re.MULTILINE)
NBFORMAT_READER = "nbformat/__init__.py"


def _limit_processes() -> None:
    """Cap the processes the kernel may start (RLIMIT_NPROC is not enforced for root)."""
    try:
        import resource
    except ImportError:  # Windows
        return
    user = os.getuid()
    running = sum(1 for p in psutil.process_iter(["uids"]) if p.info["uids"] and p.info["uids"].real == user)
    # Threads count too, and TensorFlow starts dozens per kernel.
    soft, hard = resource.getrlimit(resource.RLIMIT_NPROC)
    limit = running + MAX_NEW_PROCESSES
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_NPROC, (limit, hard))


def error_summary(text: str) -> str:
    """The reason nbgrader gives, without its boilerplate."""
    for marker, reason in NBGRADER_LOG_ERRORS:
        if marker in (text or ""):
            return reason
    invalid = NOT_A_NOTEBOOK.findall(text) if NBFORMAT_READER in (text or "") else []
    if invalid:
        kind, message = invalid[-1]
        return f"not a notebook: {'' if kind == 'ValidationError' else kind + ': '}{message.strip()[:200]}"
    lines = [
        line
        for line in (text or "").strip().splitlines()
        if line.strip() and "Please see the" not in line and "Traceback" not in line
    ]
    errors = [line for line in lines if "ERROR" in line] or lines
    return errors[-1].strip()[:200] if errors else "nbgrader failed"


def grade(job: GradingJob) -> WorkerResult:
    """Autograde the job's submission; return a WorkerResult. The gradebook's URL comes in the job,
    on stdin, never on a command line a kernel could read."""
    _limit_processes()
    scratch = Path(job.scratch)
    overrides: dict[str, dict] = {
        "CourseDirectory": {"db_url": job.db_url},
        "Execute": {
            "timeout": job.cell_timeout,
            "extra_arguments": [KERNEL_LOG_LEVEL, f"--IPKernelApp.exec_lines={GUARD}"],
        },
    }
    # The kernel inherits these (nbgrader starts it with this process's environment).
    os.environ[SKIP_ENV] = json.dumps(list(job.skip))
    os.environ[CRASHED_ENV] = json.dumps(list(job.crashed))
    kernel_io = Path(job.kernel_io)
    # The test cells run in the examiner; this process notes each cell in its own progress file.
    overrides["Examine"] = {"progress": job.progress, "skip": list(job.skip), "sandbox": job.sandbox}
    slot = LentExaminer(job.examiner_fds) if job.examiner_fds else None
    defaults = Autograde.class_traits()["autograde_preprocessors"].default()
    # nbgrader's own exporter back in place of the course config's refusal (autograder.course.gate)
    overrides["Autograde"] = {
        "autograde_preprocessors": _examined(defaults, examining(slot)),
        "exporter_class": NotebookExporter,
    }
    if job.sandbox:
        bwrap.install(scratch / "jupyter", kernel_io, cwd=scratch / "autograded" / job.student / job.assignment)
        os.environ["JUPYTER_PATH"] = str(scratch / "jupyter")
        overrides["Execute"]["kernel_name"] = bwrap.KERNEL_NAME
        overrides["KernelManager"] = bwrap.kernel_manager_config(kernel_io)
    api = make_api(scratch, overrides)
    result = api.autograde(job.assignment, job.student, force=True, create=True)
    log = f"{result.get('error') or ''}\n{result.get('log') or ''}".strip()
    error = "" if result["success"] else error_summary(log)
    return WorkerResult(
        result["success"],
        error,
        not result["success"] and DEAD_KERNEL in log,
        log[-MAX_LOG:],
        examiner_clean=slot is None or slot.clean,
    )


def _examined(preprocessors: list[type], examine: type) -> list[type]:
    """nbgrader's autograde pipeline with ``examine`` (an ``Examine``) in place of its ``Execute``, and the
    student's outputs bounded right after it."""
    pipeline = []
    for preprocessor in preprocessors:
        pipeline += [examine, BoundOutputs] if preprocessor.__name__ == "Execute" else [preprocessor]
    return pipeline


class BoundOutputs(NbGraderPreprocessor):
    """What a student's cells printed or displayed, bounded before the autograded copy reaches the course's
    disk: a cell keeps its outputs up to ``MAX_CELL_OUTPUT`` bytes, the notebook up to ``MAX_NOTEBOOK_OUTPUT``,
    and a cell that lost some says how much in a last output. A test cell's outputs are the examiner's
    verdict, which the grade is read from: never touched."""

    def preprocess(self, nb: NotebookNode, resources: dict) -> tuple[NotebookNode, dict]:
        total = 0
        for cell in nb.cells:
            if cell.cell_type != "code" or cells.is_test(cell):
                continue
            kept, size, dropped = [], 0, 0
            for output in cell.outputs:
                length = len(json.dumps(output))
                if size + length > MAX_CELL_OUTPUT or total + size + length > MAX_NOTEBOOK_OUTPUT:
                    dropped += length
                else:
                    kept.append(output)
                    size += length
            if dropped:
                kept.append(
                    new_output(
                        "stream",
                        name="stderr",
                        text=(
                            f"[{dropped / 2**20:.1f} MiB of this cell's output left out: the autograded copy keeps "
                            f"{MAX_CELL_OUTPUT // 2**20} MiB of a cell's output, {MAX_NOTEBOOK_OUTPUT // 2**20} MiB of a notebook's]\n"
                        ),
                    )
                )
            cell.outputs = kept
            total += size
        return nb, resources


def _own_output(kernel_output_fd: int) -> None:
    """Keep this process's stdout and stderr to itself (a descriptor no child inherits) and give the
    kernel, which inherits descriptors 1 and 2, the pipe of ``kernel_output_fd`` instead: the kernel can
    neither read nor swallow what the worker tells the instructor."""
    own = os.dup(2)  # not inheritable
    os.dup2(kernel_output_fd, 1)
    os.dup2(kernel_output_fd, 2)
    os.close(kernel_output_fd)
    sys.stdout = sys.stderr = open(own, "w", buffering=1, errors="backslashreplace")


def _stop_with_parent() -> None:
    """Wait for the end of stdin (whoever started this worker is gone); then kill all this
    worker started, and itself."""
    sys.stdin.read()
    for process in psutil.Process().children(recursive=True):
        try:
            process.kill()
        except psutil.Error:
            pass
    os._exit(1)


def main() -> None:
    """Grade the job on stdin (``autograder.worker.launcher`` runs this in a fork, as a fresh process would)."""
    # The worker's own stray signals (e.g. a kernel's SIGINT) must not stop it early.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    job = GradingJob.from_json(sys.stdin.readline())
    os.set_inheritable(job.result_fd, False)  # the kernel never holds it
    if job.kernel_output_fd >= 0:
        _own_output(job.kernel_output_fd)
    threading.Thread(target=_stop_with_parent, daemon=True).start()
    result = grade(job).to_json()
    with os.fdopen(job.result_fd, "w") as handle:
        handle.write(result)


if __name__ == "__main__":
    main()
