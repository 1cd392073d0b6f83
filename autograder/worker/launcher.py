"""Grading workers forked from a process that has imported them once.

A fresh ``python -m autograder.worker`` spends about 1.9 s of CPU importing nbgrader, nbconvert and
nbclient, more than it spends grading a small hand-in. The launcher (one per grading host) imports
them once and forks a worker per submission, as ``subprocess.Popen`` would start one; it never
reads a job. Where a process cannot be forked (not Linux), ``start`` starts a fresh one.
"""

import atexit
import fcntl
import json
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import threading
import traceback

FORKS = sys.platform.startswith("linux")
MAX_DESCRIPTORS = 16
MESSAGE_BYTES = 2**20  # a request: an environment of a few kilobytes
MESSAGE = struct.Struct("!?i")  # (is it the exit status, not the pid?, the number)
KILL_WAIT_SECONDS = 5
# The least number of the descriptors the fork moves its own to before giving them their numbers.
FIRST_SPARE_DESCRIPTOR = 256


class Worker:
    """A forked grading worker, as the host sees it."""

    def __init__(self, reply, stdin):
        self.reply, self.stdin, self.returncode = reply, stdin, None
        ended, self.pid = MESSAGE.unpack(reply.recv(MESSAGE.size) or MESSAGE.pack(True, -1))
        if ended:  # the fork failed before it could become the worker (its error is in the worker's output)
            reply.close()
            raise OSError(f"the launcher could not start a grading worker (exit status {self.pid})")

    def poll(self):
        if self.returncode is None:
            self.reply.setblocking(False)
            try:
                self._finished(self.reply.recv(MESSAGE.size))
            except BlockingIOError:
                pass
        return self.returncode

    def wait(self):
        if self.returncode is None:
            self.reply.setblocking(True)
            self._finished(self.reply.recv(MESSAGE.size))
        return self.returncode

    def _finished(self, message):
        # An empty message: the launcher is gone, and with it the worker's status (-1, as a wait that failed).
        self.returncode = MESSAGE.unpack(message)[1] if message else -1
        self.reply.close()


class Launcher:
    """The host's end of one launcher process, started on the first ``start``; thread-safe."""

    def __init__(self):
        self.lock, self.process, self.control = threading.Lock(), None, None

    def start(self, cwd, env, stdout, pass_fds):
        """A worker in ``cwd`` with ``env``, a new session, a pipe for stdin, ``stdout`` as its stdout
        and stderr, and the descriptors ``pass_fds`` under their own numbers."""
        if not FORKS:
            return subprocess.Popen(
                [sys.executable, "-m", "autograder.worker"],
                stdin=subprocess.PIPE,
                stdout=stdout,
                stderr=stdout,
                start_new_session=True,
                cwd=cwd,
                pass_fds=pass_fds,
                env=env,
            )
        stdin_read, stdin_write = os.pipe()
        host, launcher = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            request = json.dumps({"cwd": str(cwd), "env": dict(env), "targets": [0, 1, 2, *pass_fds]}).encode()
            with self.lock:
                for attempt in range(2):  # a launcher that died since its last worker is started again
                    self._running(env)
                    try:
                        socket.send_fds(
                            self.control, [request], [launcher.fileno(), stdin_read, stdout, stdout, *pass_fds]
                        )
                        break
                    except OSError:
                        if attempt:
                            raise
                        self.process.kill()
                        self.process.wait()
            return Worker(host, open(stdin_write, "wb"))
        except BaseException:
            host.close()
            os.close(stdin_write)
            raise
        finally:
            launcher.close()
            os.close(stdin_read)

    def stop(self):
        """Close the launcher's socket and wait for it to exit (its CPU then counts as this process's)."""
        with self.lock:
            if self.control is not None:
                self.control.close()
                self.control = None
            if self.process is not None:
                try:
                    self.process.wait(KILL_WAIT_SECONDS)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                self.process = None

    def _running(self, env):
        if self.process is not None and self.process.poll() is None:
            return
        if self.control is not None:
            self.control.close()
        self.control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with theirs:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "autograder.worker.launcher", str(theirs.fileno())],
                stdin=subprocess.DEVNULL,
                pass_fds=[theirs.fileno()],
                start_new_session=True,
                env=env,
            )


LAUNCHER = Launcher()
atexit.register(LAUNCHER.stop)


def start(cwd, env, stdout, pass_fds):
    """``Launcher.start`` on this process's launcher."""
    return LAUNCHER.start(cwd, env, stdout, pass_fds)


# ---------------------------------------------------------------- the launcher process


def _load_once():
    """Load here, once, what every worker would otherwise load for itself, the same for every job: the
    worker's modules, those nbgrader loads while it grades (classes the course's config names; the kernel's
    client, IPython; the gradebook, SQLite's dialect), jupyter_client's table of kernel provisioners (a
    scan of every installed package's entry points) and nbformat's compiled notebook schema: about 0.05 s
    of CPU less per worker (20 tiny hand-ins, process accounting)."""
    import IPython  # noqa: F401
    import sqlalchemy.dialects.sqlite  # noqa: F401
    from jupyter_client.provisioning import KernelProvisionerFactory
    from nbformat.validator import get_validator

    import autograder.course.exchange  # noqa: F401
    import autograder.course.gate  # noqa: F401
    import autograder.worker.__main__  # noqa: F401

    KernelProvisionerFactory.instance()
    get_validator()


def serve(control):
    """Fork a worker for each request on ``control`` until the host closes it.

    The protocol, on a ``SOCK_SEQPACKET`` socket pair: a request is one message, the JSON of the
    folder, the environment and the descriptor numbers the worker gets, with those descriptors
    attached after a socket for this worker alone. On that socket the worker sends its pid once it
    is set up, then the launcher its exit status once it has reaped it. When the host's end closes,
    the launcher exits; its workers stop when their stdin ends."""
    _load_once()
    wake_read, wake_write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    running = {}  # {pid: the host's socket for that worker}
    while True:
        ready, _, _ = select.select([control, wake_read], [], [])
        try:
            while os.read(wake_read, 512):  # empty the wake-up pipe (one byte per signal)
                pass
        except BlockingIOError:
            pass
        _reap(running)
        if control in ready:
            try:
                message, descriptors, _, _ = socket.recv_fds(control, MESSAGE_BYTES, MAX_DESCRIPTORS)
            except OSError:
                message, descriptors = b"", []
            if not message:
                return  # the host is gone
            reply = socket.socket(fileno=descriptors[0])
            pid = os.fork()
            if pid == 0:
                _become_worker(
                    json.loads(message), descriptors[1:], reply, [control, *running.values()], [wake_read, wake_write]
                )
            for descriptor in descriptors[1:]:
                os.close(descriptor)
            running[pid] = reply


def _reap(running):
    while running:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        reply = running.pop(pid, None)
        if reply is not None:
            try:
                reply.send(MESSAGE.pack(True, os.waitstatus_to_exitcode(status)))
            except OSError:  # the host stopped waiting
                pass
            reply.close()


def _become_worker(request, descriptors, reply, sockets, pipes):
    """In the fork: become ``python -m autograder.worker`` as ``Popen`` would start it, then tell the host
    its pid on ``reply`` (as ``Popen`` returns once its child has started); never return."""
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for sock in sockets:
            sock.close()
        for pipe in pipes:
            os.close(pipe)
        os.setsid()
        # Out of the way of the numbers they are to take, then under them, as pass_fds keeps them.
        above = max(FIRST_SPARE_DESCRIPTOR, *request["targets"]) + 1
        spare = [fcntl.fcntl(descriptor, fcntl.F_DUPFD_CLOEXEC, above) for descriptor in descriptors]
        descriptors.append(reply.detach())
        reply = socket.socket(fileno=fcntl.fcntl(descriptors[-1], fcntl.F_DUPFD_CLOEXEC, above))
        for descriptor in descriptors:
            os.close(descriptor)
        for descriptor, target in zip(spare, request["targets"]):
            os.dup2(descriptor, target)
        for descriptor in spare:
            os.close(descriptor)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        reply.send(MESSAGE.pack(False, os.getpid()))
        reply.close()
        sys.stdin = open(0, encoding="utf-8", closefd=False)
        sys.stdout = open(1, "w", encoding="utf-8", buffering=1, closefd=False)
        sys.stderr = open(2, "w", encoding="utf-8", buffering=1, errors="backslashreplace", closefd=False)
        from autograder.worker.__main__ import main

        main()
        code = 0
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 1
    except BaseException:
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)


if __name__ == "__main__":
    # Ctrl-C in the host's terminal stops the host; the launcher stops when the host's socket closes.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    serve(socket.socket(fileno=int(sys.argv[1])))
