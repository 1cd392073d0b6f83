"""The hub's spawners: each server in its user's own Unix account, with ``mem_limit``, ``cpu_limit``, a cap on
its tasks and a /tmp and /dev/shm of its own, for the roster and the staff only.

The limits keep one student's runaway training or fork bomb from taking the machine from the class;
the private /tmp and /dev/shm keep anyone from seeing or planting another's temporary or
shared-memory files. Where systemd runs the machine (PID 1), each server is a systemd unit of its own
(``CourseSystemdSpawner``), as systemd wants every cgroup to be its own; elsewhere (a container, a
machine without systemd) ``CourseSpawner`` sets the same limits itself, in a cgroup per user. Limits
fail closed: a server whose limits cannot be set is not started, unless the hub runs with --no-limits.
"""

import ctypes
import os
import pwd
from pathlib import Path

from jupyterhub.spawner import LocalProcessSpawner
from systemdspawner import SystemdSpawner
from traitlets import Bool, Integer, Unicode
from traitlets.config import Configurable

from autograder.hub.settings import CGROUP_GROUP as GROUP  # the hub's folder in each hierarchy
from autograder.hub.settings import FIRST_USER_UID, course_names

CGROUP = Path("/sys/fs/cgroup")
CPU_PERIOD = 100_000  # microseconds
# Linux's numbers (sched.h, mount.h) for a private /tmp: Python 3.11 has no os.unshare.
CLONE_NEWNS, MS_NOSUID, MS_NODEV, MS_BIND, MS_REC, MS_PRIVATE = 0x00020000, 2, 4, 4096, 16384, 1 << 18
# /dev/shm, the machine's shared memory folder, is everyone's: each server gets a tmpfs of its own there
# (its pages count against the server's memory limit, as /tmp's files do not need to).
SHM_OPTIONS = "mode=1777"
NO_LIMITS = "the hub's --no-limits starts servers without limits"
LIBC = ctypes.CDLL(None, use_errno=True)  # loaded here: the server's process only calls it


def systemd_runs_this_machine():
    """systemd is PID 1 (its own test, sd_booted): it then makes the servers' and the course's cgroups."""
    return Path("/run/systemd/system").is_dir()


def limits_unavailable():
    """Why this machine cannot give each server its limits and its own /tmp, in one line; None if it can."""
    why = None if systemd_runs_this_machine() else cgroups_unavailable()  # systemd makes the cgroups there
    if why:
        return why
    pid = os.fork()
    if pid == 0:  # a child tries the private /tmp, so the hub's own mounts stay as they are
        os._exit(0 if LIBC.unshare(CLONE_NEWNS) == 0 else 1)
    if os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) != 0:
        return "no mount namespace for a private /tmp (unshare is refused here)"
    return None


def cgroups_unavailable():
    """Why the hub cannot make a cgroup per server here, or None."""
    if (CGROUP / "cgroup.controllers").exists():
        missing = {"memory", "cpu", "pids"} - set((CGROUP / "cgroup.controllers").read_text().split())
    else:
        missing = {name for name in ("memory", "cpu", "pids") if not (CGROUP / name).is_dir()}
    if missing:
        return f"this machine's cgroups lack the controllers {', '.join(sorted(missing))}"
    if not os.access(CGROUP / GROUP if (CGROUP / GROUP).exists() else CGROUP, os.W_OK):
        return f"{CGROUP} is read-only here (a container without its own cgroups?)"
    return None


def _write(path, value):
    Path(path).write_text(str(value))


def refusal(name, allowed):
    """Why no server may run as ``name`` (not in the roster or staff, a system account), or None."""
    if name not in allowed:
        return f"{name!r} is neither in the roster nor staff"
    try:
        uid = pwd.getpwnam(name).pw_uid
    except KeyError:
        return f"{name!r} has no Unix account"
    return f"{name!r} is a system account (uid {uid})" if uid < FIRST_USER_UID else None


def private_tmp(folder):
    """Mount ``folder`` on /tmp, and a new tmpfs on /dev/shm, for this process and its children only (as
    root, before the server drops root): a mount namespace of its own, whose mounts do not reach the
    machine's."""
    for call, args in (
        (LIBC.unshare, (CLONE_NEWNS,)),
        (LIBC.mount, (b"none", b"/", None, MS_REC | MS_PRIVATE, None)),
        (LIBC.mount, (str(folder).encode(), b"/tmp", None, MS_BIND, None)),
        (LIBC.mount, (b"tmpfs", b"/dev/shm", b"tmpfs", MS_NOSUID | MS_NODEV, SHM_OPTIONS.encode())),
    ):
        if call(*args) != 0:
            error = ctypes.get_errno()
            raise OSError(error, f"a private /tmp and /dev/shm: {os.strerror(error)}")


def make_cgroups(name, memory=0, cpus=0.0, tasks=0):
    """Make ``name``'s cgroups with these limits (0: none), as root; return the folders to join."""
    if (CGROUP / "cgroup.controllers").exists():  # cgroup v2, one hierarchy
        parent = CGROUP / GROUP
        parent.mkdir(exist_ok=True)
        _write(parent / "cgroup.subtree_control", "+memory +cpu +pids")
        folder = parent / name
        folder.mkdir(exist_ok=True)
        if memory:
            _write(folder / "memory.max", memory)
        if cpus:
            _write(folder / "cpu.max", f"{int(cpus * CPU_PERIOD)} {CPU_PERIOD}")
        if tasks:
            _write(folder / "pids.max", tasks)
        return [folder]
    folders = []  # cgroup v1: a hierarchy per controller
    for controller, limit, files in (
        ("memory", memory, {"memory.limit_in_bytes": memory}),
        ("cpu", cpus, {"cpu.cfs_period_us": CPU_PERIOD, "cpu.cfs_quota_us": int((cpus or 0) * CPU_PERIOD)}),
        ("pids", tasks, {"pids.max": tasks}),
    ):
        if limit:
            folder = CGROUP / controller / GROUP / name
            folder.mkdir(parents=True, exist_ok=True)
            for file, value in files.items():
                _write(folder / file, value)
            folders.append(folder)
    return folders


def join_cgroups(folders):
    """Move this process (and so every process it starts) into ``folders``."""
    for folder in folders:
        _write(folder / "cgroup.procs", os.getpid())


def remove_cgroups(name):
    """``name``'s cgroups, once empty: a process left behind keeps its limits."""
    for folder in (
        CGROUP / GROUP / name,
        *(CGROUP / controller / GROUP / name for controller in ("memory", "cpu", "pids")),
    ):
        try:
            folder.rmdir()
        except OSError:
            pass


def tmp_folder(tmp_root, name):
    """``name``'s private /tmp (TMP_ROOT/<name>, theirs alone), made as root."""
    user = pwd.getpwnam(name)
    root = Path(tmp_root)
    root.mkdir(mode=0o711, parents=True, exist_ok=True)
    folder = root / name
    folder.mkdir(mode=0o700, exist_ok=True)
    if folder.is_symlink() or not folder.is_dir():
        raise OSError(f"{folder} is not a folder")
    os.chown(folder, user.pw_uid, user.pw_gid, follow_symlinks=False)
    os.chmod(folder, 0o700, follow_symlinks=False)
    return folder


class CourseOnly(Configurable):
    """A spawner's part: a server for the roster and the staff only, never a system account; its task cap.
    (A Configurable, so that c.CourseOnly configures both spawners; not a Spawner, which must stop and poll.)"""

    hub_dir = Unicode(
        "", help="the hub's folder: its settings.json names the roster and the staff, and no one else gets a server"
    ).tag(config=True)
    max_tasks = Integer(0, help="processes and threads a user's server may run at once (0: no cap)").tag(config=True)

    async def start(self):
        why = refusal(self.user.name, course_names(self.hub_dir))
        if why:
            raise PermissionError(f"no server: {why}")
        return await super().start()


class CourseSystemdSpawner(CourseOnly, SystemdSpawner):
    """Each server a transient systemd unit (jupyter-<user>-singleuser) with its limits, a private /tmp and
    a private /dev/shm (jupyterhub-systemdspawner: MemoryMax, CPUQuota, TasksMax, PrivateTmp, a
    TemporaryFileSystem on /dev/shm). A server then outlives a restart of the hub."""

    isolate_tmp = Bool(True, help="a /tmp of the server's own (PrivateTmp)").tag(config=True)

    async def start(self):
        self.unit_extra_properties = {**self.unit_extra_properties, "TemporaryFileSystem": f"/dev/shm:{SHM_OPTIONS}"}
        if self.max_tasks:
            self.unit_extra_properties = {**self.unit_extra_properties, "TasksMax": str(self.max_tasks)}
        return await super().start()


class CourseSpawner(CourseOnly, LocalProcessSpawner):
    """Each server a process the hub starts, in a cgroup of its own that it makes, with a private /tmp.

    LocalProcessSpawner itself only passes the limits on as MEM_LIMIT and CPU_LIMIT. Here the server joins
    its cgroup before it drops root (so every process it starts is in it, kernels included); the kernel
    then stops a user's processes at the memory limit, slows them at the CPU limit and refuses them a new
    process or thread past the task limit. Its /tmp is its user's own folder and its /dev/shm a new tmpfs
    (a mount namespace of its own)."""

    limits = Bool(True, help="refuse a server whose limits cannot be set (False: start it without)").tag(config=True)
    tmp_root = Unicode("", help="a folder holding each user's private /tmp (empty: the machine's /tmp)").tag(
        config=True
    )

    def make_preexec_fn(self, name):
        drop_root = super().make_preexec_fn(name)
        if not self.limits:
            self.log.warning("%s's server runs without limits and with the machine's /tmp (--no-limits)", name)
            return drop_root
        try:
            folders = make_cgroups(name, self.mem_limit, self.cpu_limit, self.max_tasks)
            tmp = tmp_folder(self.tmp_root, name) if self.tmp_root else None
        except OSError as error:
            raise PermissionError(f"no server for {name}: its limits cannot be set ({error}); {NO_LIMITS}") from None

        def limit_then_drop_root():  # in the server's process, before it runs anything
            join_cgroups(folders)
            if tmp:
                private_tmp(tmp)
            drop_root()

        return limit_then_drop_root

    async def stop(self, now=False):
        await super().stop(now=now)
        remove_cgroups(self.user.name)
