"""The bubblewrap command a grading kernel runs under (``autograder.worker.bwrap``), without running it."""

import sys

from autograder.course.directory import REPO
from autograder.worker import bwrap


def test_the_empty_tmp_is_mounted_before_what_the_kernel_reads():
    """bwrap mounts in order: a /tmp mounted after the venv would hide a venv that lives under /tmp."""
    args = bwrap.command("/tmp/grading/kernel", "/tmp/grading/cwd")
    tmp = args.index("/tmp", args.index("--tmpfs"))
    readable = bwrap._readable()
    binds = [index for index, arg in enumerate(args) if arg == "--ro-bind" and args[index + 1] in readable]
    assert len(binds) == len(readable) and all(index > tmp for index in binds)
    assert args.index("/tmp/grading/cwd") > max(binds) and args.index("/tmp/grading/kernel") > max(binds)
    assert str(REPO) not in readable, "the course folder (source/) is never readable"
    assert sys.prefix in readable or any(sys.prefix.startswith(path + "/") for path in readable)


def test_a_grading_process_starts_with_the_listed_environment_only():
    given = {
        "PATH": "/usr/bin",
        "PYTHONPATH": "/course",
        "LC_ALL": "C.UTF-8",
        "TF_CPP_MIN_LOG_LEVEL": "3",
        "JUPYTERHUB_API_TOKEN": "secret",
        "PGPASSWORD": "secret",
        "JUPYTERHUB_API_URL": "http://hub",
        "DATABASE_URL": "postgresql://u:pw@db/x",
        "AWS_SECRET_ACCESS_KEY": "secret",
    }
    assert bwrap.environment(given) == {
        "PATH": "/usr/bin",
        "PYTHONPATH": "/course",
        "LC_ALL": "C.UTF-8",
        "TF_CPP_MIN_LOG_LEVEL": "3",
        **bwrap.ONE_CORE,
    }


def test_a_grading_process_runs_tensorflow_on_one_core_unless_the_grader_says_otherwise():
    assert bwrap.environment({})["TF_NUM_INTRAOP_THREADS"] == "1"
    assert bwrap.environment({})["TF_NUM_INTEROP_THREADS"] == "1"
    assert bwrap.environment({"TF_NUM_INTRAOP_THREADS": "4"})["TF_NUM_INTRAOP_THREADS"] == "4"


WRITABLE_MOUNTS = r"""
import json, os
mounts = {}
for line in open("/proc/self/mountinfo"):
    fields = line.split()
    kind = fields[fields.index("-") + 1]
    if kind not in ("devtmpfs", "devpts"):  # device nodes (/dev/null, ...) and terminals hold no files
        point = fields[4].encode().decode("unicode_escape")  # mountinfo writes a space as \\040
        mounts[point] = fields[5].split(",")[0]  # later mounts on the same point win
print(json.dumps(sorted(point for point, mode in mounts.items() if mode == "rw")))
"""


def test_the_kernel_can_write_only_its_own_folders_and_the_shared_one(tmp_path, bubblewrap):
    """Every file system the sandboxed kernel can write: its bounded tmpfs folders, the shared folder
    the worker watches, and /proc (its own PID namespace's); /dev is read-only but for /dev/shm."""
    import json
    import subprocess

    kernel_io, cwd = tmp_path / "kernel io", tmp_path / "cwd"
    kernel_io.mkdir()
    cwd.mkdir()
    command = bwrap.command(kernel_io, cwd)
    command = command[: command.index("--")] + ["--", sys.executable, "-c", WRITABLE_MOUNTS]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert set(json.loads(result.stdout)) == {"/tmp", "/dev/shm", str(cwd), str(kernel_io), "/proc"}


def test_the_gradebooks_password_stays_off_command_lines_and_out_of_kernels(tmp_path):
    """``--db`` may name no password (``$PGPASSWORD`` gives it) or be left out (``$BDL_GRADEBOOK_URL``):
    the URL the workers get on stdin holds it; neither variable is in a grading process's environment."""
    from autograder.course.gradebook import gradebook_url

    environ = {"PGPASSWORD": "s3cret", "BDL_GRADEBOOK_URL": "postgresql://grader@db/course"}
    assert gradebook_url(None, tmp_path, environ) == "postgresql+psycopg://grader:s3cret@db/course"
    assert (
        gradebook_url("postgresql://grader:given@db/x", tmp_path, environ) == "postgresql+psycopg://grader:given@db/x"
    )
    assert gradebook_url(None, tmp_path, {}) == f"sqlite:///{tmp_path.resolve() / 'gradebook.db'}"
    assert bwrap.environment(environ) == bwrap.ONE_CORE


def test_the_kernel_starts_without_ipykernels_debugger(tmp_path, bubblewrap):
    """debugpy's folder is empty in the sandbox, so ipykernel finds no debugger (about 0.1 s of CPU less
    in every grading kernel) while the grader's own environment keeps it."""
    import subprocess

    kernel_io, cwd = tmp_path / "kernel io", tmp_path / "cwd"
    kernel_io.mkdir()
    cwd.mkdir()
    command = bwrap.command(kernel_io, cwd)
    check = "from ipykernel.debugger import _is_debugpy_available as found; print(found)"
    inside = subprocess.run(
        command[: command.index("--")] + ["--", sys.executable, "-c", check], capture_output=True, text=True, timeout=60
    )
    outside = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True, timeout=60)
    assert (inside.stdout.strip(), outside.stdout.strip()) == ("False", "True"), inside.stderr + outside.stderr
