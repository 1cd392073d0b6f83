"""Grade one submission in isolation, with limits, in a worker process of its own.

``run_isolated`` starts ``python -m autograder.sandbox`` in a new session and
watches it: past the wall-clock limit, or when the worker, its kernel and
everything they started use more memory than the limit, the whole lot is
killed. Whatever happens, every process the submission started is gone when
``run_isolated`` returns.

The worker grades with nbgrader's own ``autograde`` in a temporary course
directory that holds only this student's notebooks: no ``source/`` (the
hidden tests reach nbgrader through the gradebook), no ``release/``, no other
student, no gradebook file (the gradebook's URL is passed on stdin, not on a
command line a kernel could read). The kernel starts with ``autograder.guard``
installed, a cap on the number of processes (POSIX, not root) and nbgrader's
per-cell timeout. The autograded notebook is copied back into the course for
feedback.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

POLL_SECONDS = 0.2
# A fork bomb stops at this many processes more than the user already runs.
MAX_NEW_PROCESSES = 512


def _tree(process):
    try:
        return [process] + process.children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def _memory(processes):
    total = 0
    for process in processes:
        try:
            total += process.memory_info().rss
        except psutil.Error:
            pass
    return total


def _kill_sessions(sessions):
    """Kill every process in ``sessions`` (the worker's, its kernel's, their orphans')."""
    for _ in range(3):  # a fork bomb may fork while we kill
        victims = []
        for process in psutil.process_iter():
            try:
                if os.getsid(process.pid) in sessions and process.pid != os.getpid():
                    victims.append(process)
            except (OSError, psutil.Error):
                pass
        for process in victims:
            try:
                process.kill()
            except psutil.Error:
                pass
        psutil.wait_procs(victims, timeout=5)
        if not victims:
            return


def run_isolated(job, wall_seconds, memory_bytes):
    """Grade one submission (``job``: see ``main``); return {"success", "error", "seconds"}."""
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bdl-worker-io-") as io_dir:
        stdout = open(Path(io_dir) / "stdout", "w+")
        stderr = open(Path(io_dir) / "stderr", "w+")
        worker = subprocess.Popen([sys.executable, "-m", "autograder.sandbox"], stdin=subprocess.PIPE,
                                  stdout=stdout, stderr=stderr, start_new_session=True,
                                  cwd=job["scratch"])
        worker.stdin.write(json.dumps(job).encode())
        worker.stdin.close()
        sessions, peak, killed = {worker.pid}, 0, ""
        watched = psutil.Process(worker.pid)
        while worker.poll() is None:
            processes = _tree(watched)
            for process in processes:
                try:
                    sessions.add(os.getsid(process.pid))
                except OSError:
                    pass
            peak = max(peak, _memory(processes))
            if peak > memory_bytes:
                killed = f"exceeded the memory limit of {memory_bytes / 2**30:g} GiB"
            elif time.monotonic() - start > wall_seconds:
                killed = f"exceeded the wall-clock limit of {wall_seconds:g} s"
            if killed:
                _kill_sessions(sessions)
                break
            time.sleep(POLL_SECONDS)
        worker.wait()
        _kill_sessions(sessions - {os.getsid(0)})  # what the submission left running
        seconds = time.monotonic() - start
        if killed:
            return {"success": False, "error": killed, "seconds": seconds}
        stdout.seek(0)
        lines = stdout.read().strip().splitlines()
        try:
            result = json.loads(lines[-1])
        except (IndexError, ValueError):
            stderr.seek(0)
            tail = [line for line in stderr.read().splitlines() if line.strip()][-1:]
            result = {"success": False,
                      "error": f"the grading worker died ({worker.returncode}): {' '.join(tail)}"}
        return {**result, "seconds": seconds}


def _limit_processes():
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


# What nbgrader's log says, and what the instructor is told.
KNOWN_ERRORS = (("DeadKernelError", "the kernel died (the submission crashed or exited it)"),
                ("NotJSONError", "not a notebook (the file is not JSON)"),
                ("NBFormatError", "not a valid notebook"),
                ("metadata may be corrupted", "the nbgrader metadata is corrupted beyond repair"),
                ("No notebooks found", "no notebook of this assignment in the submission"))


def _error_summary(text):
    """The reason nbgrader gives, without its boilerplate."""
    for marker, reason in KNOWN_ERRORS:
        if marker in (text or ""):
            return reason
    lines = [line for line in (text or "").strip().splitlines()
             if line.strip() and "Please see the" not in line and "Traceback" not in line]
    errors = [line for line in lines if "ERROR" in line] or lines
    return errors[-1].strip()[:200] if errors else "nbgrader failed"


def main():
    """Worker: read a job from stdin, autograde, print {"success", "error"} as the last line."""
    job = json.loads(sys.stdin.read())
    from autograder.grading import make_api  # after reading: keep start-up fast to fail

    _limit_processes()
    scratch = Path(job["scratch"])
    overrides = {"CourseDirectory": {"db_url": job["db_url"]},
                 "Execute": {"timeout": job["cell_timeout"],
                             "extra_arguments": ["--IPKernelApp.log_level=ERROR",
                                                 "--IPKernelApp.exec_lines=import autograder.guard; "
                                                 "autograder.guard.install()"]}}
    api = make_api(scratch, overrides)
    result = api.autograde(job["assignment"], job["student"], force=True, create=True)
    error = "" if result["success"] else _error_summary(f"{result['error']}\n{result['log']}")
    graded = scratch / "autograded" / job["student"] / job["assignment"]
    if graded.exists():
        target = Path(job["autograded"])
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(graded, target)
    print(json.dumps({"success": result["success"], "error": error}))


if __name__ == "__main__":
    # The worker's own stray signals (e.g. a kernel's SIGINT) must not stop it early.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    main()
