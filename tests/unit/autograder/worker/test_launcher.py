"""The launcher forks grading workers as ``subprocess.Popen`` would start them: a session of their own,
the folder and descriptors the host gives and no others, their exit status back to the host, and an
end when the host's socket closes. (The grading tests grade through it for real.)"""

import os
import signal
import sys
import time

import psutil
import pytest

from autograder.worker.launcher import FORKS, Launcher

pytestmark = pytest.mark.skipif(not FORKS, reason="the launcher forks on Linux only")


@pytest.fixture
def launcher():
    launcher = Launcher()
    yield launcher
    launcher.stop()


def _open_descriptors(pid):
    return {int(number) for number in os.listdir(f"/proc/{pid}/fd")}


def _descriptor_target(pid, number):
    return os.readlink(f"/proc/{pid}/fd/{number}")


def test_a_forked_worker_gets_its_session_folder_and_descriptors(launcher, tmp_path):
    output_read, output_write = os.pipe()
    extra_read, extra_write = os.pipe()
    other = launcher.start(tmp_path, {"PATH": os.environ["PATH"]}, sys.stderr.fileno(), ())
    worker = launcher.start(tmp_path, {"PATH": os.environ["PATH"]}, output_write, (extra_write,))
    os.close(output_write)
    try:
        process = psutil.Process(worker.pid)
        assert worker.poll() is None  # waiting for its job on stdin
        assert os.getsid(worker.pid) == worker.pid
        assert process.cwd() == str(tmp_path)
        assert _descriptor_target(worker.pid, extra_write) == _descriptor_target(os.getpid(), extra_write)
        assert (
            _descriptor_target(worker.pid, 1)
            == _descriptor_target(worker.pid, 2)
            == _descriptor_target(os.getpid(), output_read)
        )
        # Nothing else: not the launcher's sockets, nor another worker's (one is running beside it).
        # (the socket it told its pid on closes just after it told it)
        deadline = time.monotonic() + 10
        while _open_descriptors(worker.pid) != {0, 1, 2, extra_write} and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _open_descriptors(worker.pid) == {0, 1, 2, extra_write}
    finally:
        worker.stdin.close()  # no job: the worker fails to read one
        other.stdin.close()
        other.wait()
    assert worker.wait() == 1
    with os.fdopen(output_read) as output:
        assert "JSONDecodeError" in output.read()
    os.close(extra_read)
    os.close(extra_write)


def test_a_killed_worker_is_reported_as_killed(launcher, tmp_path):
    worker = launcher.start(tmp_path, {"PATH": os.environ["PATH"]}, sys.stderr.fileno(), ())
    os.kill(worker.pid, signal.SIGKILL)
    assert worker.wait() == -signal.SIGKILL
    worker.stdin.close()


def test_the_launcher_ends_with_its_host(launcher, tmp_path):
    worker = launcher.start(tmp_path, {"PATH": os.environ["PATH"]}, sys.stderr.fileno(), ())
    process = launcher.process
    worker.stdin.close()
    worker.wait()
    launcher.control.close()  # as when the host dies
    assert process.wait(10) == 0


def test_a_launcher_that_died_is_started_again(launcher, tmp_path):
    first = launcher.start(tmp_path, {"PATH": os.environ["PATH"]}, sys.stderr.fileno(), ())
    first.stdin.close()
    first.wait()
    launcher.process.kill()
    launcher.process.wait()
    worker = launcher.start(tmp_path, {"PATH": os.environ["PATH"]}, sys.stderr.fileno(), ())
    worker.stdin.close()
    assert worker.wait() == 1  # it ran, and found no job on its stdin
