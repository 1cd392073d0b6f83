"""Run the grading worker for one submission within limits, and leave nothing running.

A submission is the student's code: it may run forever, fill the memory or the disk, flood its
output or leave processes behind. So ``run_isolated`` starts a grading worker (``autograder.worker``,
forked by ``autograder.worker.launcher``) in a new session and watches it: past a limit the whole lot
is killed, and whatever happens, every process the submission started is gone when it returns.
"""

import os
import re
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import psutil

from autograder.grading.scratch import scratch_folder
from autograder.worker import bwrap, launcher
from autograder.worker.job import MAX_LOG, GradingJob, WorkerResult

POLL_SECONDS = 0.2
# What the kernel's shared folder may hold: its connection file and sockets need a few entries and
# bytes; more is a kernel filling the grader's disk (its own /tmp and working folder are bounded tmpfs).
KERNEL_IO_BYTES = 16 * 2**20
KERNEL_IO_ENTRIES = 100
# The log the kernel shares with the worker (its stdout and stderr are the worker's): past this, a
# kernel writing to its file descriptors 1 and 2 would fill the grader's disk.
LOG_BYTES = 64 * 2**20
# How long a killed process may take to go before it is left to the OS.
KILL_WAIT_SECONDS = 5


# What one grading slot holds at its peak on the course's notebooks: the kernel training 04's models
# (1.4 GiB, docs/deploy/sizing.md), the slot's examiner (0.6 GiB, TensorFlow loaded) and the worker.
SLOT_BYTES = 2 * 2**30
CGROUP = Path("/sys/fs/cgroup")


def _own_cgroup_limits(
    cgroup: Path = CGROUP, membership: Path = Path("/proc/self/cgroup")
) -> tuple[float | None, int | None]:
    """(cores, bytes) this process's own cgroup allows, each None where it sets no limit (v1 or v2)."""
    cores = memory = None
    try:
        lines = membership.read_text().splitlines()
    except OSError:
        return None, None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        path = path.lstrip("/")
        try:
            if not controllers and (cgroup / "cgroup.controllers").exists():  # v2
                quota_text, period_text = (cgroup / path / "cpu.max").read_text().split()
                cores = None if quota_text == "max" else int(quota_text) / int(period_text)
                limit_text = (cgroup / path / "memory.max").read_text().strip()
                memory = None if limit_text == "max" else int(limit_text)
            if "cpu" in controllers.split(","):  # v1
                quota = int((cgroup / "cpu" / path / "cpu.cfs_quota_us").read_text())
                period = int((cgroup / "cpu" / path / "cpu.cfs_period_us").read_text())
                cores = None if quota < 0 else quota / period
            if "memory" in controllers.split(","):
                limit = int((cgroup / "memory" / path / "memory.limit_in_bytes").read_text())
                memory = None if limit >= 2**62 else limit  # v1 says "none" with a huge number
        except (OSError, ValueError):
            continue
    return cores, memory


def grading_slots(cgroup: Path = CGROUP, membership: Path = Path("/proc/self/cgroup")) -> int:
    """How many submissions to grade at once here: one per core this process may use (its CPU
    affinity and its cgroup's quota), and no more than its cgroup's memory holds at SLOT_BYTES each.
    On the hub the instructor grades in their server's cgroup, not on the machine's every core."""
    cores, memory = _own_cgroup_limits(cgroup, membership)
    slots = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if cores:
        slots = min(slots, max(1, int(cores)))
    if memory:
        slots = min(slots, max(1, memory // SLOT_BYTES))
    return max(1, slots)


@dataclass
class Limits:
    """What one submission may use while it is graded."""

    submission_timeout: float = 900.0  # wall-clock seconds for the whole submission
    memory_bytes: int = 4 * 2**30  # the worker, its kernel and all they start
    cell_timeout: int = 120  # seconds one cell may run (nbgrader interrupts it)


def _tree(process: psutil.Process) -> list[psutil.Process]:
    try:
        children: list[psutil.Process] = process.children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    return [process, *children]


def _memory(processes: list[psutil.Process]) -> int:
    total = 0
    for process in processes:
        try:
            total += process.memory_info().rss
        except psutil.Error:
            pass
    return total


def _in_memory_files(processes: list[psutil.Process]) -> int:
    """Bytes of the files in the in-memory (tmpfs) folders of the sandboxes among ``processes``, each
    sandbox once: bubblewrap's /tmp, /dev/shm and working folder, which no process's RSS counts."""
    total, seen = 0, {_mount_namespace(os.getpid())}
    for process in processes:
        namespace = _mount_namespace(process.pid)
        if namespace is None or namespace in seen:
            continue
        seen.add(namespace)
        try:
            with open(f"/proc/{process.pid}/mounts") as mounts:
                points = [fields[1] for fields in map(str.split, mounts) if len(fields) > 2 and fields[2] == "tmpfs"]
        except OSError:
            continue
        for point in points:
            # as /proc/*/mounts writes a space (\040) and the like
            point = re.sub(r"\\([0-7]{3})", lambda code: chr(int(code.group(1), 8)), point)
            try:
                found = os.statvfs(f"/proc/{process.pid}/root{point}")
            except OSError:
                continue
            total += (found.f_blocks - found.f_bfree) * found.f_frsize
    return total


def _mount_namespace(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/mnt")
    except OSError:
        return None


def _disk_used(folder: str) -> tuple[int, int]:
    """(bytes, entries) under ``folder``, links and all, never followed; entries stop counting
    past ``KERNEL_IO_ENTRIES``."""
    total, entries, pending = 0, 0, [folder]
    while pending and entries <= KERNEL_IO_ENTRIES:
        try:
            with os.scandir(pending.pop()) as found:
                for entry in found:
                    entries += 1
                    status = entry.stat(follow_symlinks=False)
                    total += status.st_size
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(entry.path)
        except OSError:
            pass
    return total, entries


def _kill_sessions(sessions: set[int]) -> None:
    """Kill every process in ``sessions`` (the worker's, its kernel's, their orphans')."""
    for _ in range(3):  # a fork bomb may fork while we kill
        victims = []
        for process in psutil.process_iter():
            try:
                # A zombie has ended: only its parent (or init, which may take a second) can reap it.
                if (
                    os.getsid(process.pid) in sessions
                    and process.pid != os.getpid()
                    and process.status() != psutil.STATUS_ZOMBIE
                ):
                    victims.append(process)
            except (OSError, psutil.Error):
                pass
        for process in victims:
            try:
                process.kill()
            except psutil.Error:
                pass
        psutil.wait_procs(victims, timeout=KILL_WAIT_SECONDS)
        if not victims:
            return


class _Output:
    """The worker's and its kernel's stdout and stderr: two pipes that the host copies into the log, so
    that no process of the submission holds the log itself (a kernel reopened an inherited log through
    /proc/self/fd and read, truncated and rewrote what the instructor reads), and the kernel holds no end
    of the worker's own pipe (it cannot read or swallow the worker's messages). Past ``LOG_BYTES`` the
    copy stops (``full``), and the watcher stops the submission."""

    def __init__(self, log: IO[bytes]) -> None:
        self.log, self.lock, self.written = log, threading.Lock(), 0
        self.pipes = [os.pipe() for _ in ("worker", "kernel")]  # (read end, write end), neither inherited
        self.worker_end, self.kernel_end = self.pipes[0][1], self.pipes[1][1]
        self.threads = [threading.Thread(target=self._copy, args=(read,), daemon=True) for read, _ in self.pipes]
        for thread in self.threads:
            thread.start()

    def _copy(self, read: int) -> None:
        with open(read, "rb", buffering=0) as pipe:
            while chunk := pipe.read(2**16):
                with self.lock:
                    if self.written < LOG_BYTES:
                        self.log.write(chunk[: LOG_BYTES - self.written])
                    self.written += len(chunk)

    @property
    def full(self) -> bool:
        return self.written > LOG_BYTES

    def close_write_ends(self) -> None:
        """Once the worker holds them: then the copies end when the submission's processes do."""
        for _, write in self.pipes:
            os.close(write)

    def join(self) -> None:
        for thread in self.threads:
            thread.join(KILL_WAIT_SECONDS)


def _watch(
    worker: subprocess.Popen,
    limits: Limits,
    start: float,
    kernel_io: str = "",
    output: _Output | None = None,
    examiner: int | None = None,
) -> str:
    """Poll the worker until it exits; return why it was killed, or "". ``examiner``: the pid of the
    slot's examiner, whose memory counts too (it parses this submission's answers); the caller stops it."""
    sessions, killed = {worker.pid}, ""
    watched = psutil.Process(worker.pid)
    try:
        examined = psutil.Process(examiner) if examiner else None
    except psutil.Error:
        examined = None
    while worker.poll() is None:
        processes = _tree(watched)
        for process in processes:
            try:
                sessions.add(os.getsid(process.pid))
            except OSError:
                pass
        processes += _tree(examined) if examined else []
        if _memory(processes) + _in_memory_files(processes) > limits.memory_bytes:
            killed = f"exceeded the memory limit of {limits.memory_bytes / 2**30:g} GiB"
        elif time.monotonic() - start > limits.submission_timeout:
            killed = f"exceeded the wall-clock limit of {limits.submission_timeout:g} s"
        elif output is not None and output.full:
            killed = f"wrote more than {LOG_BYTES // 2**20} MiB to its standard output and error"
        elif kernel_io:
            used, entries = _disk_used(kernel_io)
            if used > KERNEL_IO_BYTES or entries > KERNEL_IO_ENTRIES:
                killed = (
                    f"wrote more than {KERNEL_IO_BYTES // 2**20} MiB or {KERNEL_IO_ENTRIES} files to the grader's disk"
                )
        if killed:
            _kill_sessions(sessions)
            break
        time.sleep(POLL_SECONDS)
    worker.wait()
    _kill_sessions(sessions - {os.getsid(0)})  # what the submission left running
    return killed


def run_isolated(job: GradingJob, limits: Limits, examiner: int | None = None) -> WorkerResult:
    """Grade one submission (a ``worker.GradingJob``) within ``limits``, the memory of the slot's
    ``examiner`` (a pid) counted with the worker's; return a WorkerResult.

    The worker, its kernel, the examiner that reads its answers and everything they started are killed
    past the submission's wall-clock limit, when they use more memory than the limit (the files in their
    sandboxes' in-memory folders included), or when the kernel puts more than a few files in the one
    folder of the grader's disk it can write to (``GradingJob.kernel_io``) or too much into its stdout
    and stderr (pipes the host copies into the log: ``_Output``). The worker's stdin stays open until
    this returns: if the process that called it dies, the worker sees its end and stops
    (``autograder.worker``). The worker's result comes back through a file of its own, whose descriptor
    it keeps from the kernel."""
    start = time.monotonic()
    with scratch_folder("bdl-worker-io-") as io_dir:
        log = open(Path(io_dir) / "log", "w+b")
        answer = open(Path(io_dir) / "result", "w+b")
        output = _Output(log)
        job.result_fd, job.kernel_output_fd = answer.fileno(), output.kernel_end
        try:
            worker = launcher.start(
                job.scratch,
                bwrap.environment(os.environ),
                output.worker_end,
                (*job.examiner_fds, job.result_fd, output.kernel_end),
            )
        finally:
            output.close_write_ends()
        worker.stdin.write(job.to_json().encode() + b"\n")
        worker.stdin.flush()
        try:
            killed = _watch(worker, limits, start, job.kernel_io, output, examiner)
        finally:
            worker.stdin.close()
            output.join()
        log.seek(max(0, os.fstat(log.fileno()).st_size - MAX_LOG))  # its end: where the errors are
        errors = log.read().decode(errors="replace")
        if killed:
            return WorkerResult(False, killed, crashed=True, log=_with_stderr("", errors))
        answer.seek(0)
        try:
            result = WorkerResult.from_json(answer.read().decode())
        except (ValueError, TypeError):
            tail = [line for line in errors.splitlines() if line.strip()][-1:]
            return WorkerResult(
                False, f"the grading worker died ({worker.returncode}): {' '.join(tail)}", log=_with_stderr("", errors)
            )
    result.log = _with_stderr(result.log, errors)
    died = result.crashed or "Kernel died" in result.log or kernel_failure(errors).startswith("bwrap:")
    if not result.success and died and not Path(job.progress).exists():  # before its first cell
        result.error = f"the grading kernel did not start: {kernel_failure(errors) or result.error}"
        result.crashed = False
    return result


def _with_stderr(log: str, errors: str) -> str:
    return f"{log}\n\n--- the grading worker's and its kernel's stderr ---\n{errors}" if errors.strip() else log


def kernel_failure(errors: str) -> str:
    """Why a kernel did not start, from the stderr it shares with the worker: bubblewrap's own
    message, or the last error Python printed; "" if neither is there."""
    lines = [line.strip() for line in errors.splitlines() if line.strip()]
    sandbox = [line for line in lines if line.startswith("bwrap:")]
    raised = [line for line in lines if re.match(r"^[A-Za-z_.]*(Error|Exception)\b.*:", line)]
    found = (sandbox or raised)[-1:]
    return found[0][:300] if found else ""
