"""The examiner processes: one per grading slot, kept between submissions so TensorFlow loads once
per slot, not per submission.

The host's ``ExaminerPool`` starts each slot's ``Examiner``; the worker grading a submission in
that slot inherits its two pipe ends and holds them as a ``LentExaminer``. A relay that stops half
way leaves the examiner mid-question: the worker then says the examiner is not ``clean``, and the
pool starts a new one. Check-tests, and a worker without a slot's, start an examiner of their own.
"""

import os
import subprocess
import sys
import tempfile
import threading
from typing import IO

from autograder.worker import bwrap


class Examiner:
    """An examiner process: started here (``start``), or reached through the two pipe ends another
    process started it with (``attach``: its stdin's writing end, its stdout's reading end)."""

    def __init__(
        self,
        stdin: IO[bytes],
        stdout: IO[bytes],
        process: subprocess.Popen | None = None,
        log: IO[bytes] | None = None,
    ) -> None:
        self.stdin, self.stdout, self.process, self._log = stdin, stdout, process, log

    @classmethod
    def start(cls, sandbox: bool) -> "Examiner":
        """A new examiner, under bubblewrap when ``sandbox``; its stderr kept for ``log``."""
        command = bwrap.examiner_command() if sandbox else [sys.executable, "-m", "autograder.worker.examiner"]
        log = tempfile.TemporaryFile()
        process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, env=bwrap.environment(os.environ)
        )
        assert process.stdin is not None and process.stdout is not None
        return cls(process.stdin, process.stdout, process, log)

    @classmethod
    def attach(cls, fds: tuple[int, ...]) -> "Examiner":
        """The examiner whose pipe ends this process inherited; no child of this one inherits them."""
        for fd in fds:
            os.set_inheritable(fd, False)
        return cls(os.fdopen(fds[0], "wb"), os.fdopen(fds[1], "rb"))

    def fds(self) -> tuple[int, int]:
        return (self.stdin.fileno(), self.stdout.fileno())

    def running(self) -> bool:
        return self.process is None or self.process.poll() is None

    def log(self) -> str:
        if self._log is None:
            return "kept by the grading slot"
        self._log.seek(0)
        return self._log.read()[-2000:].decode(errors="replace")

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()


class LentExaminer:
    """The slot's examiner as one worker holds it: the two pipe ends it inherited, and whether the
    examiner still waits for a new cell (``clean``), not left mid-question. The worker makes it,
    hands it to its ``Examine`` and reports ``clean`` back in its ``WorkerResult``."""

    def __init__(self, fds: tuple[int, ...]) -> None:
        self.fds, self.clean = tuple(fds), True


class ExaminerPool:
    """The grading slots' examiners: each slot (a thread that grades, of the local pool or of a Dask
    worker) keeps one between submissions. An examiner runs only the course's test cells, each in a
    namespace of its own, so nothing of one submission's grading reaches the next but what
    TensorFlow keeps. The local pool owns one (``stop`` when it is done); a Dask worker's threads
    share one that lives as long as its process."""

    def __init__(self) -> None:
        self._examiners: dict[int, tuple[Examiner, bool]] = {}
        self._lock = threading.Lock()

    def examiner(self, sandbox: bool) -> Examiner:
        """The calling slot's examiner, started when it has none (or its last was left mid-question)."""
        slot = threading.get_ident()
        with self._lock:
            kept = self._examiners.get(slot)
        examiner, had_sandbox = kept if kept is not None else (None, None)
        if examiner is None or not examiner.running() or had_sandbox != sandbox:
            if examiner is not None:
                examiner.stop()
            examiner = Examiner.start(sandbox)
            with self._lock:
                self._examiners[slot] = examiner, sandbox
        return examiner

    def stop(self) -> None:
        with self._lock:
            examiners, self._examiners = list(self._examiners.values()), {}
        for examiner, _ in examiners:
            examiner.stop()
