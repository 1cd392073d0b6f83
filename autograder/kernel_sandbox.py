"""The grading kernel under bubblewrap: what a submission's code can see and touch.

The worker installs a kernelspec whose command runs ipykernel inside
``bwrap``. Inside, the kernel sees:

* the system (``/usr``, ``/etc``, ...), Python and the virtual environment,
  the course's ``bdl`` and ``autograder`` packages and the data folder, all
  read-only;
* an empty working folder and ``/tmp``, both small in-memory file systems that
  vanish with it;
* ``kernel_io``, the one folder shared with the worker, for the connection
  file, the kernel's sockets and the guard's progress file.

It does not see the course directory (``source/``, ``release/``, ``tests/``,
the gradebook), other submissions or the home directory, and it has no
network: it talks to the worker over Unix sockets (ZeroMQ's ``ipc``
transport) in ``kernel_io``. It runs in its own PID namespace and dies with
its parent. Interrupts (the cell timeout) go as messages, since bwrap does not
pass signals on to the kernel.
"""
import json
import os
import shutil
import sys
from pathlib import Path

import bdl
from bdl.data import default_data_dir

KERNEL_NAME = "bdl-sandboxed"
# The in-memory working folder and /tmp: writes beyond this fail with "no space left".
TMPFS_BYTES = 256 * 2**20
MISSING = ("bubblewrap is not installed: grading runs student code inside it "
           "(apt-get install bubblewrap), or pass --no-sandbox to grade without it")


def bwrap():
    """The ``bwrap`` program, or None."""
    return shutil.which("bwrap")


def _system_binds():
    args = []
    for path in ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"):
        if os.path.islink(path):  # merged /usr: /bin -> usr/bin
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    return args


def _readable():
    """What the kernel must read: Python, the venv, the course's packages, the data."""
    course_packages = [Path(bdl.__file__).parent, Path(__file__).parent]
    paths = {Path(sys.base_prefix), Path(sys.prefix), *course_packages, default_data_dir()}
    return sorted(str(path.resolve()) for path in paths if path.exists())


def command(kernel_io, cwd):
    """The kernel's command line: ipykernel inside bwrap, working in ``cwd``."""
    args = [bwrap(), "--unshare-all", "--die-with-parent", "--new-session", *_system_binds()]
    for path in _readable():
        args += ["--ro-bind", path, path]
    args += ["--proc", "/proc", "--dev", "/dev",
             "--size", str(TMPFS_BYTES), "--tmpfs", "/tmp",
             "--size", str(TMPFS_BYTES), "--tmpfs", str(cwd),
             "--bind", str(kernel_io), str(kernel_io),
             "--setenv", "HOME", "/tmp", "--chdir", str(cwd),
             # ipykernel quits when the PID it was given as its parent's is gone: in
             # the new PID namespace that is bwrap's own process, PID 1.
             "--setenv", "JPY_PARENT_PID", "1"]
    return args + ["--", sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]


def kernel_manager_config(kernel_io):
    """jupyter_client settings that put the connection file and sockets in ``kernel_io``."""
    return {"transport": "ipc", "ip": str(Path(kernel_io) / "kernel"),
            "connection_file": str(Path(kernel_io) / "connection.json")}


def install(jupyter_dir, kernel_io, cwd):
    """Write the kernelspec under ``jupyter_dir`` (to be put on ``JUPYTER_PATH``)."""
    spec = {"argv": command(kernel_io, cwd), "display_name": "Python 3 (graded, sandboxed)",
            "language": "python", "interrupt_mode": "message"}
    folder = Path(jupyter_dir) / "kernels" / KERNEL_NAME
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "kernel.json").write_text(json.dumps(spec, indent=1))
