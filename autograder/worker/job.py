"""The contract between the grading host and the worker process: a ``GradingJob`` goes to the
worker's stdin as one line of JSON, and a ``WorkerResult`` comes back as JSON in a file the worker
inherits (``GradingJob.result_fd``) and passes to no child, so the kernel cannot write it; the
kernel's stdout and stderr are a pipe of their own (``GradingJob.kernel_output_fd``), not the worker's.
These two dataclasses are all the two processes share.
"""

import json
from dataclasses import asdict, dataclass

from autograder.worker.examiner.protocol import typed

# How much of a log a submission keeps (its end, where the errors are).
MAX_LOG = 2**20


@dataclass
class GradingJob:
    """What the worker grades, and where."""

    scratch: str  # the temporary course directory holding submitted/<student>/<assignment>/
    assignment: str
    student: str
    db_url: str  # the gradebook
    cell_timeout: int  # seconds one cell may run before nbgrader interrupts it
    progress: str = ""  # the worker's file naming the running cell (its key), out of the kernel's sandbox
    kernel_io: str = ""  # the folder the kernel shares with the worker (connection file, sockets): new each run
    skip: tuple[str, ...] = ()  # ``guard.cell_key``s of the cells not to run (they crashed an earlier attempt)
    crashed: tuple[str, ...] = ()  # graded names whose tests crashed an earlier attempt: calls of them raise instead
    sandbox: bool = True  # run the kernel under bubblewrap
    examiner_fds: tuple[int, ...] = ()  # the grading slot's examiner's pipe ends (inherited), or () to start one
    result_fd: int = -1  # the inherited file the worker writes its ``WorkerResult`` to (run_isolated sets it)
    kernel_output_fd: int = -1  # the inherited pipe the kernel's stdout and stderr go to, not the worker's own

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> "GradingJob":
        """The job ``text`` holds, with every field of its type; else ``protocol.ProtocolError``."""
        return typed(cls, json.loads(text), "a grading job")


@dataclass
class WorkerResult:
    """How grading went: ``error`` says why it did not succeed; ``crashed``: the kernel
    died or was killed in a cell (``GradingJob.progress`` names the cell)."""

    success: bool
    error: str = ""
    crashed: bool = False
    log: str = ""  # nbgrader's log; the sandbox adds the worker's and the kernel's stderr
    examiner_clean: bool = False  # the slot's examiner waits for a new cell (not mid-question): keep it

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> "WorkerResult":
        """The result ``text`` holds, with every field of its type; else ``protocol.ProtocolError``."""
        return typed(cls, json.loads(text), "a worker's result")
