"""The hub's spawner: JupyterHub's LocalProcessSpawner (each server in its user's own Unix account), with
``mem_limit`` and ``cpu_limit`` enforced by a cgroup per user where the machine lets the hub make one.

LocalProcessSpawner itself only passes the limits on as MEM_LIMIT and CPU_LIMIT. Here the server joins
its cgroup before it drops root (so every process it starts is in it, kernels included); the kernel
then stops a user's processes at the memory limit and slows them at the CPU limit, and one student's
runaway training cannot take the machine from the class.
"""
import os
import pwd
from pathlib import Path

from jupyterhub.spawner import LocalProcessSpawner
from traitlets import List

from autograder.hub.settings import CGROUP_GROUP as GROUP  # the hub's folder in each hierarchy
from autograder.hub.settings import FIRST_USER_UID

CGROUP = Path("/sys/fs/cgroup")
CPU_PERIOD = 100_000  # microseconds


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


class CourseSpawner(LocalProcessSpawner):
    allowed_names = List([], help="the roster and the staff: no one else gets a server").tag(config=True)

    async def start(self):
        why = refusal(self.user.name, self.allowed_names)
        if why:
            raise PermissionError(f"no server: {why}")
        return await super().start()

    def cgroups(self):
        """Make this user's cgroups with the limits; return the folders to join ([] where there are none)."""
        name = self.user.name
        try:
            if (CGROUP / "cgroup.controllers").exists():  # cgroup v2, one hierarchy
                parent = CGROUP / GROUP
                parent.mkdir(exist_ok=True)
                _write(parent / "cgroup.subtree_control", "+memory +cpu")
                folder = parent / name
                folder.mkdir(exist_ok=True)
                if self.mem_limit:
                    _write(folder / "memory.max", self.mem_limit)
                if self.cpu_limit:
                    _write(folder / "cpu.max", f"{int(self.cpu_limit * CPU_PERIOD)} {CPU_PERIOD}")
                return [folder]
            memory, cpu = CGROUP / "memory" / GROUP / name, CGROUP / "cpu" / GROUP / name  # cgroup v1
            folders = []
            if self.mem_limit:
                memory.mkdir(parents=True, exist_ok=True)
                _write(memory / "memory.limit_in_bytes", self.mem_limit)
                folders.append(memory)
            if self.cpu_limit:
                cpu.mkdir(parents=True, exist_ok=True)
                _write(cpu / "cpu.cfs_period_us", CPU_PERIOD)
                _write(cpu / "cpu.cfs_quota_us", int(self.cpu_limit * CPU_PERIOD))
                folders.append(cpu)
            return folders
        except OSError as error:
            self.log.warning("%s's server runs without memory and CPU limits: no cgroup (%s)", name, error)
            return []

    def make_preexec_fn(self, name):
        drop_root = super().make_preexec_fn(name)
        folders = self.cgroups()

        def join_then_drop_root():
            for folder in folders:
                _write(folder / "cgroup.procs", os.getpid())
            drop_root()

        return join_then_drop_root

    async def stop(self, now=False):
        await super().stop(now=now)
        for folder in (CGROUP / GROUP / self.user.name, CGROUP / "memory" / GROUP / self.user.name,
                       CGROUP / "cpu" / GROUP / self.user.name):
            try:
                folder.rmdir()  # only once empty: a process left behind keeps its limits
            except OSError:
                pass
