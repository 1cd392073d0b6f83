"""The grading kernel and the examiner under bubblewrap: what a submission's code can see and touch.

Read-only: the system, Python, the virtual environment, the course's packages and data. Its own:
an empty working folder, ``/tmp`` and ``/dev/shm``. Shared with the worker: ``kernel_io`` alone
(the connection file and ZeroMQ's ``ipc`` sockets). Not there: the course directory, other
submissions, the home folder, the network. It runs in its own PID namespace and dies with its
parent; interrupts go as messages, since bwrap does not pass signals on.
"""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import bdl
from bdl.data import default_data_dir

KERNEL_NAME = "bdl-sandboxed"
# The in-memory working folder and /tmp: writes beyond this fail with "no space left".
TMPFS_BYTES = 256 * 2**20
MISSING = (
    "bubblewrap is not installed: grading runs student code inside it "
    "(apt-get install bubblewrap), or pass --no-sandbox to grade without it"
)


# Ubuntu 24.04 sets this to 1: AppArmor then refuses user namespaces to programs without a profile
# allowing them, bwrap among them, for every user but root.
APPARMOR_SWITCH = Path("/proc/sys/kernel/apparmor_restrict_unprivileged_userns")
APPARMOR = (
    "AppArmor stops bubblewrap for users other than root (kernel.apparmor_restrict_unprivileged_userns=1, "
    'as on Ubuntu 24.04): give /usr/bin/bwrap the profile in docs/deploy/hub.md ("Ubuntu 24.04"), '
    "or grade with --no-sandbox"
)


# The environment the worker, and so its kernel, and the examiner start with: what Python, Jupyter,
# TensorFlow and the course read, and nothing else (a token, a database URL or a password in the
# caller's environment, as in a hub's terminal, must not reach a kernel).
ENVIRONMENT = frozenset(
    {
        "PATH",
        "PYTHONPATH",
        "HOME",
        "LANG",
        "LANGUAGE",
        "TZ",
        "TMPDIR",
        "TEMP",
        "TMP",
        "VIRTUAL_ENV",
        "PYTHONHASHSEED",
        "PYTHONDONTWRITEBYTECODE",
        "PYTHONUNBUFFERED",
        "MPLBACKEND",
        "CUDA_VISIBLE_DEVICES",
        "BDL_DATA_DIR",
        "BDL_FAST",
        "JUPYTER_CONFIG_DIR",
        "JUPYTER_CONFIG_PATH",
        "JUPYTER_DATA_DIR",
        "JUPYTER_RUNTIME_DIR",
    }
)
ENVIRONMENT_PREFIXES = ("LC_", "OMP_", "MKL_", "OPENBLAS_", "TF_")
# The host grades one submission per core (``grading_slots``), so a grading process's TensorFlow runs
# its ops on one thread. Its default, pools as large as the machine in every kernel, oversubscribes the
# cores when submissions are graded side by side: two kernels at once on 2 cores spent 15 to 25 % more
# CPU on the same work (docs/deploy/sizing.md). A TF_NUM_*_THREADS of the grader's environment wins.
ONE_CORE = {"TF_NUM_INTRAOP_THREADS": "1", "TF_NUM_INTEROP_THREADS": "1"}


def environment(given):
    """The part of the environment ``given`` that a grading process may start with (``ENVIRONMENT``),
    with ``ONE_CORE`` where it sets no thread counts."""
    return {
        **ONE_CORE,
        **{key: value for key, value in given.items() if key in ENVIRONMENT or key.startswith(ENVIRONMENT_PREFIXES)},
    }


def bwrap():
    """The ``bwrap`` program, or None."""
    return shutil.which("bwrap")


def unusable(run_as=(), switch=APPARMOR_SWITCH):
    """Why bubblewrap cannot make a sandbox here (for the user the command prefix ``run_as`` runs as,
    this process's by default), in one line; None when it can."""
    if not bwrap():
        return MISSING
    # what the sandbox makes too (a container often refuses a new /proc where it allows the rest)
    result = subprocess.run(
        [*run_as, bwrap(), "--unshare-all", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "true"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    if result.returncode == 0:
        return None
    if switch.is_file() and switch.read_text().strip() == "1":
        return APPARMOR
    reason = (result.stderr.strip().splitlines() or [f"exit status {result.returncode}"])[-1]
    return f"bubblewrap cannot make a sandbox here ({reason}): grading runs student code inside it"


def _system_binds():
    args = []
    for path in ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/libx32"):
        if os.path.islink(path):  # merged /usr: /bin -> usr/bin
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    return args


def _readable():
    """What the kernel must read: Python, the venv, the package folders on ``sys.path`` (one
    reached through a ``.pth`` file too, but never a folder such as the course's own, which holds
    ``source/``), the course's packages and the data; each both as Python names it and as its
    real path, so a course reached through a symbolic link works."""
    course_packages = [Path(bdl.__file__).parent, Path(__file__).parents[1]]  # bdl and autograder
    libraries = [Path(entry) for entry in sys.path if "site-packages" in entry or "dist-packages" in entry]
    paths = {
        Path(sys.base_prefix),
        Path(sys.prefix),
        Path(sys.executable).parent,
        *course_packages,
        default_data_dir(),
        *libraries,
    }
    found = {
        str(variant) for path in paths if path.is_dir() for variant in (Path(os.path.abspath(path)), path.resolve())
    }
    # A folder inside another one on the list comes with it.
    return [
        path
        for path in sorted(found)
        if not any(path.startswith(other.rstrip("/") + "/") for other in found if other != path)
    ]


def _base():
    """bwrap with no network, no other process to see, the system and the course's packages
    read-only, and an empty ``/tmp`` (first: see ``command``)."""
    args = [
        bwrap(),
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        *_system_binds(),
        # /dev is bwrap's own tmpfs: read-only, or a kernel could fill memory there unmeasured
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--size",
        str(TMPFS_BYTES),
        "--tmpfs",
        "/dev/shm",
        "--remount-ro",
        "/dev",
        "--size",
        str(TMPFS_BYTES),
        "--tmpfs",
        "/tmp",
    ]
    for path in _readable():
        args += ["--ro-bind", path, path]
    return args


# Last: the root bwrap builds the sandbox in is an unbounded tmpfs, read-only once every mount is in place.
_FINALLY = ("--remount-ro", "/")


def examiner_command():
    """The examiner's command line (``autograder.worker.examiner``): the same sandbox, with no
    folder to write to and nothing of the course but its packages; it reads the test cells on
    its stdin."""
    return _base() + [
        "--setenv",
        "HOME",
        "/tmp",
        "--chdir",
        "/tmp",
        *_FINALLY,
        "--",
        sys.executable,
        "-m",
        "autograder.worker.examiner",
    ]


def _without_debugger():
    """An empty read-only folder over debugpy's: ipykernel then starts without its debugger, which no
    grading needs and whose import costs every kernel about 0.1 s of CPU."""
    found = importlib.util.find_spec("debugpy")
    folders = list(found.submodule_search_locations or ()) if found else []
    return [arg for folder in folders for arg in ("--tmpfs", folder, "--remount-ro", folder)]


def command(kernel_io, cwd):
    """The kernel's command line: ipykernel inside bwrap, working in ``cwd``.

    The order matters: bwrap mounts in the order given, and a later mount hides what an earlier
    one put below it. The empty ``/tmp`` comes first, so a course or venv that lives under the
    system temp folder is mounted on top of it, not hidden by it; then everything read-only; then
    the working folder and the folder shared with the worker, which may lie inside them."""
    args = _base() + [
        "--size",
        str(TMPFS_BYTES),
        "--tmpfs",
        str(cwd),
        "--bind",
        str(kernel_io),
        str(kernel_io),
        "--setenv",
        "HOME",
        "/tmp",
        "--chdir",
        str(cwd),
        # ipykernel quits when the PID it was given as its parent's is gone: in
        # the new PID namespace that is bwrap's own process, PID 1.
        "--setenv",
        "JPY_PARENT_PID",
        "1",
        *_without_debugger(),
        *_FINALLY,
    ]
    return args + ["--", sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]


def kernel_manager_config(kernel_io):
    """jupyter_client settings that put the connection file and sockets in ``kernel_io``."""
    return {
        "transport": "ipc",
        "ip": str(Path(kernel_io) / "kernel"),
        "connection_file": str(Path(kernel_io) / "connection.json"),
    }


def install(jupyter_dir, kernel_io, cwd):
    """Write the kernelspec under ``jupyter_dir`` (to be put on ``JUPYTER_PATH``)."""
    spec = {
        "argv": command(kernel_io, cwd),
        "display_name": "Python 3 (graded, sandboxed)",
        "language": "python",
        "interrupt_mode": "message",
    }
    folder = Path(jupyter_dir) / "kernels" / KERNEL_NAME
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "kernel.json").write_text(json.dumps(spec, indent=1))
